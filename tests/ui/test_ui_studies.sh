#!/usr/bin/env bash
# tests/ui/test_ui_studies.sh — study files in the workbench (issue 41 item
# 3), driven in tmux at 80x24 from a folder with ./studies: the New sweep
# list offers the built-in studies and the files of ./studies as `mixbench
# study list` lists them (a file that does not read, named so); picking one
# shows its description, job count and estimate; queued with the form's
# extra keys it is the sweep `mixbench sweep FILE.yaml key=value` queues
# (the same spec, study text and jobs in the store), one that asks for
# --until-conclusive starts with Conclusive ticked; a broken file of
# ./studies and a broken path typed in the list show the one-line error of
# `mixbench study check` (file, line, column) and queue nothing.  Then the
# sweep trained, its file edited: the Grid shows the claims and the paper
# figure the sweep was queued with, not the edited file's, and the form
# refuses the edited file (its name is the stored sweep's); the file
# deleted: the Grid, `plot grid` and `report` from another folder still
# show them.
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mbst
W=$T/w
mkdir -p "$W/studies" "$T/elsewhere" && cd "$W" || exit 1
DB=$W/s.db
CLAIM="q41 holds: the mixer is the better causal model"
DESC="q41: mixer vs attention, the tiny study of the UI test"

# the study: the skeleton with its own claim words, description and a paper figure
"$MB" study new studies/q41.yaml >/dev/null 2>&1 &&
  sed -i -e "s/the mixer is the better causal model at n=32 and n=64/$CLAIM/" \
    -e "s/^description: .*/description: \"$DESC\"/" studies/q41.yaml &&
  printf 'paper:\n  - {point: {arch: mixer, n_ctx: 32}, metric: test_loss, value: 1.71, source: Table 1, setting: S6}\n' \
    >>studies/q41.yaml
cp studies/q41.yaml "$T/q41.yaml"   # as queued
# a study that asks for --until-conclusive itself, with no cap
sed -e 's/^name: q41/name: u41/' -e 's/^# until_conclusive: .*/until_conclusive: true/' studies/q41.yaml >studies/u41.yaml
printf 'name: broken\naxes:\n  arch: [mixer\n' >studies/broken.yaml
printf 'name: typed\nkeys:\n  task: clm\n  d: [16\n' >bad.yaml
jobs=$("$MB" study check studies/q41.yaml 2>&1 | grep -oE "^[0-9]+ jobs:" | cut -d' ' -f1)
broken=$("$MB" study check studies/broken.yaml 2>&1 | sed 's/^mixbench: study check: //')
typed=$("$MB" study check bad.yaml 2>&1 | sed 's/^mixbench: study check: //')
if [ "$jobs" = 12 ] && [[ $broken == studies/broken.yaml:[0-9]*:[0-9]*:\ YAML:* ]] &&
   [[ $typed == bad.yaml:[0-9]*:[0-9]*:\ YAML:* ]] && "$MB" study list | grep -q "^q41 .*studies/q41.yaml"
then pass setup_studies; else fail setup_studies "jobs=$jobs broken=$broken typed=$typed"; exit 0; fi
# what the command line queues from the same file and keys
"$MB" sweep studies/q41.yaml steps=3 d=16 --db "$T/cli.db" >/dev/null 2>&1

start() {   # start NAME: the workbench at 80x24 in $W on $DB
  TM new-session -d -s "$1" -x 80 -y 24 "cd '$W' && $MB --db '$DB' --jobs 0 --threads 1"
  wait_for "$1" 10 "New sweep" || { fail "start_$1" "$(screen "$1")"; exit 0; }
}
keys() { TM send-keys -t "$1" "${@:2}"; sleep 0.2; }
# the first 60 characters of an error, its regex special characters escaped
pattern() { printf '%s' "${1:0:60}" | sed 's/[][\.*^$()+?{}|]/\\&/g'; }

# ---- the list: built-in studies, then ./studies (the broken one named so)
start A
keys A "$(tab A 'New sweep')"
wait_for A 5 "Preset" || fail form "$(screen A)"
keys A Enter
check list_builtin A 5 "^ recall +[0-9]+ jobs +beyond the seeds"
keys A End      # ./studies' files end the list (the built-ins may fill a screen)
check list_file A 3 "^ q41 +$jobs jobs +studies/q41\.yaml: my question"
check list_broken A 3 "^ broken\.yaml +- +studies/broken\.yaml: does not read"
keys A End Up   # q41: the last of ./studies but one (u41)
check list_description A 3 "^ $DESC"

# ---- picked: its description, job count, estimate, the command it is
keys A Enter
check form_study A 5 "^ Preset +q41 +my question \(studies/q41\.yaml\)"
check form_description A 3 "^ +$DESC"
check form_jobs A 3 "^ Jobs +$jobs\$"
check form_estimate A 3 "^ Time +~[0-9]"
keys A Down Down Enter C-u   # Dataset, Extra keys
TM send-keys -t A -l "steps=3 d=16"; keys A Enter
check form_command A 5 "^ Same as +mixbench sweep studies/q41\.yaml steps=3 d=16"

# ---- queued: the sweep the command line queues
keys A Down Down Down Enter   # Priority, Conclusive, Queue
if wait_for A 20 "queued sweep 1 \(q41\): $jobs jobs"; then pass form_queued
else fail form_queued "$(screen A)"; fi
row="select name, spec, study from sweeps"
runs="select config_json, coords_json from runs order by id"
if [ "$(q "$DB" "$row")" = "$(q "$T/cli.db" "$row")" ] && [ "$(q "$DB" "$runs")" = "$(q "$T/cli.db" "$runs")" ] &&
   [ "$(q "$DB" "select count(*) from runs")" = "$jobs" ]
then pass form_queued_as_cli; else fail form_queued_as_cli "ui: $(q "$DB" "select name, spec from sweeps")
cli: $(q "$T/cli.db" "select name, spec from sweeps")"; fi

# ---- the broken file of ./studies: its error, nothing queued (the
# workbench writes its settings to the store: the queue's tables compared)
queued() { q "$DB" "select * from sweeps; select * from runs; select * from paper_figures" | md5sum; }
before=$(queued)
keys A "$(tab A 'New sweep')"
keys A Enter
wait_for A 5 "Pick a preset" || fail list_again "$(screen A)"
keys A End Up Up Enter   # broken.yaml, just above q41
check broken_error A 5 "^ $(pattern "$broken")"
check broken_preset A 3 "^ Preset +studies/broken\.yaml: does not read"
keys A Up Enter   # up from Preset wraps to [ Queue ]
check broken_not_queued A 5 "not queued: $(pattern "$broken")"
[ "$(queued)" = "$before" ] && pass broken_store_unchanged || fail broken_store_unchanged "$(q "$DB" "$row")"

# ---- a path typed in the list: read, its error, nothing queued
keys A Down Enter   # Preset: the list
wait_for A 5 "Pick a preset" || fail list_typed "$(screen A)"
keys A Home Down Enter   # (a study file)
check path_editing A 3 "Enter reads it, Esc back"
TM send-keys -t A -l "bad.yaml"; keys A Enter
check typed_error A 5 "^ $(pattern "$typed")"
check typed_preset A 3 "^ Preset +bad\.yaml: does not read"
keys A Up Enter
check typed_not_queued A 5 "not queued: $(pattern "$typed")"
[ "$(queued)" = "$before" ] && pass typed_store_unchanged || fail typed_store_unchanged "$(q "$DB" "$row")"
# ---- a study that asks for --until-conclusive: Conclusive ticked, no cap, as the command line reads it
keys A Down Enter
wait_for A 5 "Pick a preset" || fail list_until "$(screen A)"
keys A End Up Enter   # u41 (the path typed, bad.yaml, is last)
check until_ticked A 5 "^ Conclusive +\[x\] until every claim is decided"
check until_command A 3 "^ Same as +mixbench sweep studies/u41\.yaml steps=3 d=16 --until-conclusive\$"
"$MB" sweep studies/u41.yaml --dry-run 2>&1 | grep -q "^until conclusive: .*with no cap" && pass until_cli_no_cap ||
  fail until_cli_no_cap "$("$MB" sweep studies/u41.yaml --dry-run 2>&1 | tail -3)"
keys A q
wait_exit A 10 || fail quit_A "$(screen A)"

# ---- trained; the file edited: the Grid keeps the claims it was queued with
"$MB" worker --db "$DB" --jobs 2 --threads 1 >/dev/null 2>&1
[ "$(q "$DB" "select count(*) from runs where status = 'done'")" = "$jobs" ] && pass trained ||
  fail trained "$(q "$DB" "select id, status, error from runs")"
sed -i "s/$CLAIM/EDITED CLAIM/" studies/q41.yaml
start B
keys B "$(tab B 'New sweep')"
keys B Enter
wait_for B 5 "Pick a preset" || fail list_edited "$(screen B)"
keys B End Up Enter   # the edited q41: its name is the stored sweep's
check edited_refused B 5 "studies/q41\.yaml: a study called 'q41' is already known, with other"
keys B "$(tab B Grid)"
check grid_edited_claims B 5 "^the paper's claims, judged on this sweep:"
check grid_edited_claim B 3 "  $CLAIM"
screen B | grep -q "EDITED" && fail grid_edited_not_read "$(screen B)" || pass grid_edited_not_read
keys B q
wait_exit B 10 || fail quit_B "$(screen B)"
"$MB" sweep studies/q41.yaml steps=3 d=16 --db "$DB" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && one_line "$T/err" && grep -q "sweep 1 of this store was queued from a study called 'q41' with other text" "$T/err" &&
  [ "$(q "$DB" "select count(*) from sweeps")" = 1 ] && pass cli_edited_refused || fail cli_edited_refused "rc=$rc $(cat "$T/err")"

# ---- the file deleted: the Grid, plot grid and report still read the stored study
rm studies/q41.yaml
start C
keys C "$(tab C Grid)"
check grid_deleted_title C 5 "^Grid: sweep 1 q41"
check grid_deleted_claim C 3 "  $CLAIM"
check grid_deleted_equivalent C 3 "  mixer and attention within 5%"
check grid_deleted_paper C 3 "^32 +[0-9.]+±[0-9.]+!? \(paper 1\.710\) "
check grid_deleted_setting C 3 "S6 Table 1"
keys C q
wait_exit C 10 || fail quit_C "$(screen C)"
(cd "$T/elsewhere" && "$MB" plot grid 1 --db "$DB" -o "$T/grid.svg") >/dev/null 2>&1
grep -q "The papers' claims, judged on this sweep:" "$T/grid.svg" && grep -q ": $CLAIM (" "$T/grid.svg" &&
  pass plot_grid_claims || fail plot_grid_claims "$(grep -o '>[^<]*</text>' "$T/grid.svg" | tail -5)"
(cd "$T/elsewhere" && "$MB" report 1 --db "$DB") >"$T/report" 2>&1
grep -q "$CLAIM" "$T/report" && pass report_claims || fail report_claims "$(cat "$T/report")"

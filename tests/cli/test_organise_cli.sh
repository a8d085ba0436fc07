#!/usr/bin/env bash
# tests/cli/test_organise_cli.sh — keeping a store tidy from the command line
# (app/cmd_organise.c, ls --where / --trash, export --where, sweep --name):
# rename a run and a sweep (a renamed preset sweep still reported under its
# preset), tag / untag / note / star / unstar by id, name and --where, rm to
# the trash (starred, queued and running runs refused with one line, the
# others go), what the trash hides (ls, show, export, report, resume,
# cancel), ls --trash, restore by id, sweep and --where, gc keeping the
# trash's checkpoints, purge (--dry-run first) removing rows and the store's
# own checkpoint files, and the refusals of bad words.  One rule for naming
# a run: a name another run has, or a number, refused; an ambiguous name
# of an older store refused listing the ids; every RUN looked up before
# anything changes (`rm 2 rm 3` trashes nothing); names taken by plot,
# generate, eval and extend.  One limit per field (a 100 KB name refused
# whole), control characters refused, and shown by ls / show / rm when an
# older store holds them (JSON keeps them, escaped).
#
# The store is made without training: `mixbench sweep` queues the jobs and
# sqlite3 marks them done with a metric and evaluations.
set -u
. "$(dirname "$0")/../harness.sh"
DB=$T/o.db
tiny="data=builtin:stories steps=10 d=16 n_ctx=8 batch=4 heads=2"
$MB sweep --db "$DB" arch=attention,mixer layers=1,2 repeats=2 $tiny >/dev/null 2>&1 ||
  { fail store "mixbench sweep failed"; exit 1; }
q "$DB" "update runs set status = 'done', steps_done = 10, total_steps = 10;
  insert into metrics (run_id, step, tokens, wall, train_loss, train_loss_smooth) select id, 10, 320, 1, 5, 5 from runs;
  insert into evals (run_id, step, split, loss) select id, 10, 'valid', 4 + id * 0.01 from runs;
  insert into evals (run_id, step, split, loss) select id, 10, 'test', 4.1 + id * 0.01 from runs;"
ok() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got [$2] want [$3]"; fi; }
has() { if printf '%s' "$2" | grep -Eq -- "$3"; then pass "$1"; else fail "$1" "no /$3/ in: $2"; fi; }

# --- names, tags, notes, stars
ok rename_run "$($MB rename 3 deep-att --db "$DB")" "run 3 renamed deep-att"
ok rename_run_stored "$(q "$DB" "select name from runs where id = 3")" deep-att
ok tag_by_name "$($MB tag deep-att 4 good --db "$DB")" "run 3 tagged good
run 4 tagged good"
ok tag_again "$($MB tag 3 GOOD --db "$DB")" "run 3 already had tag GOOD"
out=$($MB tag --where "arch=mixer layers=2" deep --db "$DB")
ok tag_where "$out" "run 7 tagged deep
run 8 tagged deep"
ok results_tags "$(q "$DB" "select group_concat(id || ':' || tags, ' ') from results where tags != ''")" "3:good 4:good 7:deep 8:deep"
ok untag "$($MB untag 4 good --db "$DB")" "run 4 untagged good"
ok note "$($MB note 5 lr too high --db "$DB")" "run 5: note set"
ok note_stored "$(q "$DB" "select note from results where id = 5")" "lr too high"
ok note_sweep "$($MB note sweep:1 the first grid --db "$DB")" "sweep 1: note set"
ok star "$($MB star 1 --db "$DB")" "run 1 starred (protected: rm refuses it)"
ok ls_where "$($MB ls --where '#good' --db "$DB" | awk 'NR > 1 {print $1}' | tr '\n' ' ')" "3 "
has ls_tags_column "$($MB ls --db "$DB")" "^ +1 +done .* \\*\$"
ok ls_where_json "$($MB ls --where 'layers=2 mixer' --json --db "$DB" | grep -o '"id":[0-9]*' | tr '\n' ' ')" \
  '"id":7 "id":8 '
ok export_where "$($MB export --csv --where 'valid<4.025' --db "$DB" | cut -d, -f1 | tr '\n' ' ')" "id 1 2 "

# --- the trash: refusals, then what it hides
q "$DB" "update runs set status = 'queued' where id = 2; update runs set status = 'running' where id = 6;
         update runs set status = 'paused' where id = 8"
err=$($MB rm 1 2 6 4 --db "$DB" 2>&1 >/dev/null); rc=$?
has rm_refuses_starred "$err" "^mixbench: rm: run 1 is starred, so protected: \`mixbench unstar 1\` first"
has rm_refuses_queued "$err" "run 2 is queued: pause or cancel it first"
has rm_refuses_running "$err" "run 6 is running: pause or cancel it first"
[ $rc = 1 ] && pass rm_exit_code || fail rm_exit_code "exit $rc"
ok rm_others_go "$(q "$DB" "select group_concat(id) from runs where deleted_at is not null")" 4
ok rm_where_dry "$($MB rm --where '#deep' --dry-run --db "$DB")" "would move run 7 (mixer clm done) to the trash
would move run 8 (mixer clm paused) to the trash"
ok rm_where "$($MB rm --where '#deep' --db "$DB")" "run 7 (mixer clm done) to the trash
run 8 (mixer clm paused) to the trash"
ok ls_hides "$($MB ls --db "$DB" | awk 'NR > 1 {print $1}' | tr '\n' ' ')" "1 2 3 5 6 "
has show_refuses "$($MB show 4 --db "$DB" 2>&1)" "run 4 is in the trash \(\`mixbench restore 4\` takes it back\)"
ok export_hides "$($MB export --csv --db "$DB" | wc -l)" 6
has resume_refuses "$($MB resume 8 --db "$DB" 2>&1)" "run 8 is in the trash"
has cancel_refuses "$($MB cancel 8 --db "$DB" 2>&1)" "run 8 is in the trash"
ok queue_hides "$(q "$DB" "select count(*) from queue where id = 8")" 0
trash=$($MB ls --trash --db "$DB")
has ls_trash "$trash" "^run +8 +mixer clm +paused"
ok ls_trash_rows "$(printf '%s\n' "$trash" | awk 'NR > 1 {print $2}' | sort | tr '\n' ' ')" "4 7 8 "

# --- restore
ok restore "$($MB restore 4 --db "$DB")" "run 4 (attention clm done) restored"
has restore_not_trashed "$($MB restore 4 --db "$DB" 2>&1)" "run 4 is not in the trash"
ok restore_where "$($MB restore --where 'paused' --db "$DB")" "run 8 (mixer clm paused) restored"
ok resume_after_restore "$($MB resume 8 --db "$DB")" "run 8: resume requested"

# --- a sweep: renamed, trashed with its runs, out of the report, restored
R=$T/r.db
$MB sweep completion --name "completion, short" --db "$R" --data builtin:stories steps=2 >/dev/null 2>&1 ||
  fail sweep_name "sweep --name failed"
ok sweep_name "$(q "$R" "select name || '|' || preset from sweeps")" "completion, short|completion"
q "$R" "update runs set status = 'done'"
has report_finds_renamed "$($MB report completion --db "$R")" "sweep 1 \(.*\): 6 of 6 jobs finished"
ok rename_sweep "$($MB rename sweep:1 completion-2M --db "$R")" "sweep 1 renamed completion-2M"
q "$R" "update runs set starred = 1 where id = 2"
has rm_sweep_refused "$($MB rm sweep:1 --db "$R" 2>&1)" "sweep 1 stays: run 2 is starred"
$MB unstar 2 --db "$R" >/dev/null
ok rm_sweep "$($MB rm sweep:completion-2M --db "$R")" "sweep 1 and 6 runs to the trash"
has report_hides "$($MB report completion --db "$R")" "no sweep of completion|not run"
ok ls_empty "$($MB ls --db "$R")" "no runs in $R"
ok restore_sweep "$($MB restore sweep:1 --db "$R")" "sweep 1 restored with 6 runs"

# --- gc keeps the trash's checkpoints; purge removes them with the rows (the
# trash now: run 7, and run 3 with a checkpoint)
dir=$T/o.ckpt
mkdir -p "$dir"
for i in 3 5; do
  printf x >"$dir/run$i.safetensors"; touch -d '2 hours ago' "$dir/run$i.safetensors"
  q "$DB" "insert into checkpoints (run_id, step, path) values ($i, 10, '$dir/run$i.safetensors')"
done
$MB rm 3 --db "$DB" >/dev/null
$MB gc --db "$DB" >/dev/null
[ -e "$dir/run3.safetensors" ] && pass gc_keeps_trash || fail gc_keeps_trash "gc removed a file of the trash"
dry=$($MB purge --dry-run --db "$DB")
has purge_dry "$dry" "would delete 2 runs and 0 sweeps of the trash for good, and 1 checkpoint file"
[ -e "$dir/run3.safetensors" ] && pass purge_dry_keeps || fail purge_dry_keeps "--dry-run removed it"
out=$($MB purge --db "$DB")
has purge "$out" "^removed $dir/run3.safetensors \(1 B, run 3\)"
has purge_counts "$out" "^deleted 2 runs and 0 sweeps of the trash for good, and 1 checkpoint file"
[ ! -e "$dir/run3.safetensors" ] && [ -e "$dir/run5.safetensors" ] && pass purge_files || fail purge_files "$(ls "$dir")"
ok purge_rows "$(q "$DB" "select (select count(*) from runs where id = 3) || (select count(*) from metrics where run_id = 3)
  || (select count(*) from run_tags where run_id = 3) || (select count(*) from checkpoints where run_id = 3)")" 0000
has purge_empty "$($MB purge --db "$DB")" "deleted 0 runs and 0 sweeps"

# --- bad words
has bad_filter "$($MB rm --where 'layres=2' --db "$DB" 2>&1)" "'layres' is not a field"
has bad_tag "$($MB tag 1 'two words' --db "$DB" 2>&1)" "one word"
has no_run "$($MB star 99 --db "$DB" 2>&1)" "no run 99 in o.db"
has where_and_runs "$($MB rm 1 --where x --db "$DB" 2>&1)" "no RUN with it"
has tag_sweep "$($MB tag sweep:1 x --db "$DB" 2>&1)" "tag takes runs, not sweeps"
has rename_usage "$($MB rename 1 --db "$DB" 2>&1)" "usage: mixbench rename RUN\|sweep:S NEW"
has dry_only_rm "$($MB tag 1 x --dry-run --db "$DB" 2>&1)" "--dry-run is for rm and purge"
has help "$($MB rm --help)" "usage: mixbench rm RUN"

# --- one rule for naming a run (an id, or a name one run has), checked
# before anything changes
N=$T/n.db
$MB sweep --db "$N" arch=attention,mixer layers=1,2 $tiny >/dev/null 2>&1 || fail names_store "mixbench sweep failed"
q "$N" "update runs set status = 'done'"
ok name_unique_first "$($MB rename 1 attn-base --db "$N")" "run 1 renamed attn-base"
has name_unique_refused "$($MB rename 2 attn-base --db "$N" 2>&1)" "^mixbench: rename: name attn-base is run 1's"
ok name_unique_kept "$(q "$N" "select ifnull(name, '-') from runs where id = 2")" "-"
$MB star attn-base --db "$N" >/dev/null
ok name_unique_star "$(q "$N" "select group_concat(id) from runs where starred")" 1
has name_number_refused "$($MB rename 3 5 --db "$N" 2>&1)" "name 5: a name cannot be a number"
q "$N" "update runs set name = 'twice' where id in (3, 4)"
has name_ambiguous "$($MB star twice --db "$N" 2>&1)" "run name twice is ambiguous: runs 3 and 4 have it"
ok name_ambiguous_nothing "$(q "$N" "select group_concat(id) from runs where starred")" 1
q "$N" "update runs set name = null where id = 4; update runs set name = 'base2' where id = 2"
err=$($MB rm 2 'rm' 3 --db "$N" 2>&1); rc=$?
ok rm_checks_first "$err" "mixbench: rm: no run rm in n.db (see \`mixbench ls\`); nothing done"
ok rm_checks_first_nothing "$(q "$N" "select count(*) from runs where deleted_at is not null") $rc" "0 1"
has plot_by_name "$($MB plot run base2 --db "$N" -o "$T/n.svg" 2>&1)" "figure written to $T/n.svg"
ok plot_no_run "$($MB plot compare 1 nosuch --db "$N" -o "$T/n.svg" 2>&1)" \
  "mixbench: plot compare: no run nosuch in n.db (see \`mixbench ls\`)"
ok generate_by_name "$($MB generate --run base2 --db "$N" 2>&1)" \
  "mixbench: generate: run 2 (done) has no checkpoint yet"
ok eval_by_name "$($MB eval --run base2 --db "$N" 2>&1)" "mixbench: eval: run 2 (done) has no checkpoint yet"
has extend_by_name "$($MB extend base2 steps=20 --db "$N" 2>&1)" "^mixbench: extend: run 2 has decay=cosine"
has extend_no_run "$($MB extend nosuch steps=20 --db "$N" 2>&1)" "^mixbench: extend: no run nosuch in n.db"

# --- one limit per field, refused whole; control characters refused, and
# shown (not sent) when an older store holds them
big=$(head -c 100000 /dev/zero | tr '\0' x)
has name_limit "$($MB rename 1 "$big" --db "$N" 2>&1)" \
  "a run's name is at most 63 bytes \(this one has 100000\): nothing stored"
has note_limit "$($MB note 1 "$(head -c 1000 /dev/zero | tr '\0' n)" --db "$N" 2>&1)" \
  "a note is at most 999 bytes \(this one has 1000\)"
has tag_limit "$($MB tag 1 "$(head -c 32 /dev/zero | tr '\0' t)" --db "$N" 2>&1)" "a tag is at most 31 bytes"
ok limits_nothing_stored "$(q "$N" "select name || '|' || ifnull(note, '-') from runs where id = 1")" "attn-base|-"
has name_control "$($MB rename 1 "$(printf 'a\033[31mred')" --db "$N" 2>&1)" \
  "a run's name cannot hold control characters"
has note_control "$($MB note 1 "$(printf 'x\033]0;title\a')" --db "$N" 2>&1)" "a note cannot hold control characters"
q "$N" "update runs set name = char(27) || '[31mred' || char(10) || 'x' where id = 4;
  update runs set note = char(27) || ']0;title' || char(7) || char(27) || '[2J' where id = 4;
  insert into run_tags (run_id, tag) values (4, 'a' || char(27) || 'b')"
out=$($MB ls --db "$N")
esc=$(printf '%s' "$out" | tr -dc '\000-\011\013-\037\177' | wc -c)
ok ls_no_control "$esc" 0
has ls_shown "$out" "^ +4 .*a\\^\\[b +\\^\\[\\[31mred\\^Jx$"
ok ls_rows "$(printf '%s\n' "$out" | wc -l)" 5
out=$($MB show 4 --db "$N")
ok show_no_control "$(printf '%s' "$out" | tr -dc '\000-\011\013-\037\177' | wc -c)" 0
has show_note_shown "$out" "note: \\^\\[\\]0;title\\^G\\^\\[\\[2J"
has show_name_shown "$out" "^run 4  \\^\\[\\[31mred\\^Jx"
has json_keeps "$($MB ls --json --db "$N")" '"name":"\\u001b\[31mred\\nx"'
has rm_line_shown "$($MB rm 4 --dry-run --db "$N")" "\\^\\[\\[31mred\\^Jx\\) to the trash"

# --- the queue's commands and --name take the same RUN, and the same name rule
P=$T/p.db
$MB sweep --db "$P" arch=attention,mixer $tiny --name grid-a >/dev/null 2>&1
$MB rename 1 first --db "$P" >/dev/null
ok pause_by_name "$($MB pause first --db "$P" 2>&1)" "run 1: pause requested"
err=$($MB cancel 2 nosuch --db "$P" 2>&1); rc=$?
ok cancel_checks_first "$err $rc" "mixbench: cancel: no run nosuch in p.db (see \`mixbench ls\`); nothing done 1"
ok cancel_checks_first_nothing "$(q "$P" "select count(*) from runs where status = 'cancelled'")" 0
has resume_by_name "$($MB resume first --db "$P" 2>&1)" "^mixbench: resume: run 1 is queued|run 1: resume requested"
has sweep_name_taken "$($MB sweep --db "$P" arch=attention $tiny --name grid-a 2>&1)" \
  "mixbench: sweep: name grid-a is sweep 1's: a name means one sweep; nothing queued"
has sweep_name_number "$($MB sweep --db "$P" arch=attention $tiny --name 7 2>&1)" "a name cannot be a number"
ok sweep_name_nothing "$(q "$P" "select count(*) from sweeps")" 1
has run_name_taken "$($MB run --task clm arch=attention $tiny --name first --db "$P" --quiet 2>&1)" \
  "^mixbench: run: --name: name first is run 1's: a name means one run$"
has run_resume_no_run "$($MB run --resume nosuch --db "$P" 2>&1)" "^mixbench: run: --resume: no run nosuch in p.db"
ok run_name_nothing "$(q "$P" "select count(*) from runs")" 2
q "$P" "update sweeps set name = char(27) || '[2Jbad' || char(9) || 'x' where id = 1"
out=$($MB queue --db "$P"; $MB queue --tsv --db "$P")
ok queue_no_control "$(printf '%s' "$out" | tr -dc '\000-\010\013-\037\177' | wc -c)" 0
has queue_shown "$out" "\\^\\[\\[2Jbad\\^Ix"

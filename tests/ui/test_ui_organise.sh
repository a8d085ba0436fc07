#!/usr/bin/env bash
# tests/ui/test_ui_organise.sh — the Runs table and the organising keys,
# driven for real in tmux (ui/runs_table.c, ui/organise.c, ui/widgets.c's
# filter): at 60x20 no row of the table is written past the last column
# (no wrapped ".0k" left at the start of the next line) and a column is
# shown whole or not at all; the sweep's axes as columns at 80x24 and
# 120x36 (tags too at 120), and as seed-group rows that name their point
# (two attention groups that differ in layers look different, at 60x20
# too); a single seed shows no "± 0.000"; the `/` filter taking
# key=value, !term and #tag, reopened with `/` to edit its text, cleared
# with Ctrl-U, and a bad key said; t, n, R and * on Runs; D asking with
# what will go (n keeps, y deletes), a starred run refused, u undoing, a
# seed group deleted whole; D on the Run screen going back to Runs, and u
# there restoring; the help listing the keys; N and M naming and noting
# the run's sweep (from Runs and Run, stored, shown by `show`); the Run
# screen of a run put in the trash from the command line saying so; long
# text held to the store's limits (an 800-byte note kept and edited whole,
# a 100 KB paste taken at once and refused in one line, a long name
# refused).
#
# The store is made without training (`mixbench sweep` queues, sqlite3
# marks the jobs done) and the workbench runs no jobs (--jobs 0).
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mborg
at() {   # NAME DB WIDTH HEIGHT
  TM new-session -d -s "$1" -x "$3" -y "$4" "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color $MB --db $2 --jobs 0"
}
keys() { TM send-keys -t "$@"; sleep 0.3; }
quit() { TM send-keys -t "$1" q; wait_exit "$1" 10 || TM kill-session -t "$1"; }

S=$T/s.db
$MB sweep --db "$S" arch=attention,mixer layers=1,2 repeats=2 data=builtin:stories steps=10 d=16 n_ctx=8 batch=4 \
  heads=2 >/dev/null 2>&1 || { fail store "mixbench sweep failed"; exit 1; }
q "$S" "update runs set status = 'done', steps_done = 10, total_steps = 10, tokens_per_s = 1000;
  insert into metrics (run_id, step, tokens, wall, train_loss, train_loss_smooth) select id, 10, 320, 1, 5, 5 from runs;
  insert into evals (run_id, step, split, loss) select id, 10, 'valid', 4 + id * 0.01 from runs;"

# --- 60x20: nothing past the edge, whole columns, the point of each group
at N "$S" 60 20
wait_for N 10 "^ +8 mixer" || fail narrow_table "$(screen N)"
s=$(screen N)
# (in characters: a cut text ends in the 3-byte "…")
long=$(printf '%s\n' "$s" | python3 -c "import sys; print('\n'.join(l for l in sys.stdin.buffer.read().decode().split('\n') if len(l) > 60))")
rows=$(printf '%s\n' "$s" | sed -n '4,11p')
bad=$(printf '%s\n' "$rows" | grep -Ev '^[ *] +[0-9]+ (attention|mixer) ')
[ -z "$long" ] && [ -z "$bad" ] && [ "$(printf '%s\n' "$rows" | wc -l)" = 8 ] && pass narrow_no_wrap ||
  fail narrow_no_wrap "past the edge: [$long] stray: [$bad] in
$s"
head=$(printf '%s\n' "$s" | sed -n 3p)
extra=$(printf '%s\n' "$head" | tr ' ' '\n' | grep -v '^$' |
  grep -Evx 'id|arch|task|status|step|train|valid|tok/s|ETA|layers|seed|loss|layers,seed|layers,se[a-z]*|layers,s?e?[a-z]*…|tags|se')
[ -z "$extra" ] && pass narrow_whole_columns || fail narrow_whole_columns "a cut heading [$extra] in: $head"
keys N g
check narrow_group_point N 3 "^ +3 attention +clm +2 seeds .* 2 *$"
screen N | grep -Eq "^ +1 attention +clm +2 seeds .* 1 *$" && pass narrow_group_point_other ||
  fail narrow_group_point_other "$(screen N)"
quit N

# --- 80x24 and 120x36: the axes as columns; tags and notes
at A "$S" 80 24
wait_for A 10 "^ +8 mixer" || fail wide_table "$(screen A)"
check axes_80 A 3 "^ +id arch .* layers seed"
screen A | grep -Eq "^ +3 attention +clm +done .* 2 +1 " && pass axes_80_values || fail axes_80_values "$(screen A)"
keys A j t
keys A -l "good fast"
check tag_prompt A 3 "tag run 2: good fast"
keys A Enter
check tag_said A 3 "run 2 tagged good, tagged fast"
[ "$(q "$S" "select tags from results where id = 2")" = "fast good" ] && pass tag_stored ||
  fail tag_stored "$(q "$S" "select tags from results where id = 2")"
keys A n
keys A -l "lr too high"
keys A Enter
check note_said A 3 "run 2: note set"
keys A R
keys A -l "best-att"
keys A Enter
check rename_said A 3 "run 2 renamed best-att"
keys A '*'
check star_said A 3 "run 2 starred: protected from D"
[ "$(q "$S" "select starred || '|' || note || '|' || name from runs where id = 2")" = "1|lr too high|best-att" ] &&
  pass organise_stored || fail organise_stored "$(q "$S" "select starred, note, name from runs where id = 2")"
keys A D
check delete_starred_refused A 3 "run 2 is starred, so protected"
keys A '*' j
keys A D
check delete_asks A 3 "delete run 3: attention clm layers=2 seed=1, valid 4.030\? .*\[y/N\]"
keys A n
check delete_no_keeps A 3 "run 3 left as it is"
[ -z "$(q "$S" "select deleted_at from runs where id = 3")" ] && pass delete_no_stored || fail delete_no_stored "deleted"
keys A D
keys A y
check delete_said A 3 "run 3 to the trash \(u undoes"
screen A | grep -Eq "^ +3 attention" && fail delete_hides "$(screen A)" || pass delete_hides
[ -n "$(q "$S" "select deleted_at from runs where id = 3")" ] && pass delete_stored || fail delete_stored "not deleted"
keys A u
check undo_said A 3 "run 3 restored"
check undo_row A 3 "^ +3 attention +clm +done"
quit A
at W "$S" 120 36
wait_for W 10 "^ +8 mixer" || fail wide_120 "$(screen W)"
check axes_120 W 3 "^ +id arch .* layers seed tags"
screen W | grep -Eq "^ +2 attention .* 1 +2 +fast good " && pass tags_120 || fail tags_120 "$(screen W)"
keys W j
check under_line_shows W 3 "^ run 2 .* name best-att  tags fast good  note: lr too"
quit W

# --- the filter: an expression, reopened to edit, Ctrl-U, a bad key
at F "$S" 80 24
wait_for F 10 "^ +8 mixer" || fail filter_table "$(screen F)"
keys F /
keys F -l "layers=2 mix"
check filter_expr F 3 "^ +7 mixer"
s=$(screen F)
printf '%s\n' "$s" | grep -Eq "^ +(1|2|3|4|5|6) " && fail filter_expr_only "$s" || pass filter_expr_only
keys F Enter /
check filter_reopens_text F 3 "filter: layers=2 mix"
keys F -l " !seed=1"
wait_for F 3 "^ +8 mixer" && ! screen F | grep -Eq "^ +7 mixer" && pass filter_edited || fail filter_edited "$(screen F)"
keys F C-u
check filter_ctrl_u F 3 "^ +1 attention"
keys F -l "#good"
keys F Enter
check filter_tag F 3 "^ +2 attention"
screen F | grep -Eq "^ +1 attention" && fail filter_tag_only "$(screen F)" || pass filter_tag_only
keys F / C-u
keys F -l "layres=2"
check filter_bad_key F 3 "'layres' is not a field"
keys F Escape
check filter_esc F 3 "^ +1 attention"
quit F

# --- seed groups: one seed says no spread; a group deleted whole; D on Run
$MB rm 6 --db "$S" >/dev/null
at G "$S" 80 24
wait_for G 10 "^ +8 mixer" || fail groups_table "$(screen G)"
keys G g End k
check single_seed G 3 "^ mixer clm layers=1: run 5: valid 4\.050 \(1 done\)"
screen G | grep -Eq "(±|\+-) 0\.000" && fail single_seed_no_spread "$(screen G)" || pass single_seed_no_spread
keys G j D
check group_delete_asks G 3 "delete 2 runs \(7 8\): mixer clm layers=2, valid 4\.075\?"
keys G y
check group_deleted G 3 "2 runs \(7 8\) to the trash"
[ "$(q "$S" "select count(*) from runs where deleted_at is not null")" = 3 ] && pass group_delete_stored ||
  fail group_delete_stored "$(q "$S" "select id from runs where deleted_at is not null")"
keys G g Home Enter
wait_for G 5 "^ run 1 " || fail run_screen "$(screen G)"
keys G D
check run_delete_asks G 3 "delete run 1: .*\[y/N\]"
keys G y
check run_delete_back_to_runs G 3 "run 1 to the trash"
wait_for G 3 "sort: id asc" && ! screen G | grep -Eq "^ +1 attention" && pass run_delete_gone ||
  fail run_delete_gone "$(screen G)"
keys G u
check run_delete_undo G 3 "^ +1 attention +clm +done"
keys G '?'
check help_keys G 3 "D / Delete +delete the run"
screen G | grep -Eq "t / n / R / \* +tag" && pass help_keys_organise || fail help_keys_organise "$(screen G)"
quit G

# --- the run's sweep: N renames it, M notes it (Runs and Run); a run put in
# the trash from the command line while the Run screen shows it says so
at V "$S" 80 24
wait_for V 10 "^ +5 mixer" || fail sweep_keys_table "$(screen V)"
keys V N
check sweep_rename_prompt V 3 "rename sweep 1: "
keys V C-u
keys V -l "layer sizes"
keys V Enter
check sweep_rename_said V 3 "sweep 1 renamed layer sizes"
[ "$(q "$S" "select name from sweeps where id = 1")" = "layer sizes" ] && pass sweep_rename_stored ||
  fail sweep_rename_stored "$(q "$S" "select name from sweeps where id = 1")"
keys V End Enter
wait_for V 5 "^ run 5 " || fail sweep_keys_run_screen "$(screen V)"
keys V M
check sweep_note_prompt V 3 "note of sweep 1: "
keys V -l "first try"
keys V Enter
check sweep_note_said V 3 "sweep 1: note set"
[ "$(q "$S" "select note from sweeps where id = 1")" = "first try" ] && pass sweep_note_stored ||
  fail sweep_note_stored "$(q "$S" "select note from sweeps where id = 1")"
$MB show 5 --db "$S" | grep -q "^  sweep note: first try$" && pass sweep_note_shown ||
  fail sweep_note_shown "$($MB show 5 --db "$S" 2>&1 | head -12)"
$MB rm 5 --db "$S" >/dev/null
check run_trashed_said V 5 "run 5 is in the trash \(.mixbench restore 5. takes it back\)"
keys V '?'
check help_sweep_keys V 3 "N / M +rename the run's sweep / its note"
quit V

# --- long text: the store's limit is the prompt's (a note of 800 bytes kept
# whole, and edited again whole), a 100 KB paste taken at once and refused
# in one line with nothing stored, a name over its limit refused the same
P=$T/p.db
cp "$S" "$P" && q "$P" "delete from settings"
at P "$P" 80 24
wait_for P 10 "^ +8 mixer" || fail paste_table "$(screen P)"
head -c 800 /dev/zero | tr '\0' a >"$T/n800"
head -c 100000 /dev/zero | tr '\0' b >"$T/n100k"
paste() { TM load-buffer -b "$2" "$3" && TM paste-buffer -d -b "$2" -t "$1"; sleep 0.3; }
note_is_800() {   # NAME: run 1's note is the 800 bytes typed
  local len; len=$(q "$P" "select length(note) from runs where id = 1")
  [ "$len" = 800 ] && pass "$1" || fail "$1" "the note has $len bytes"
}
keys P n C-u
paste P n800 "$T/n800"
keys P Enter
check note_800_said P 30 "run 1: note set"
note_is_800 note_800_stored
keys P n Enter
check note_800_again P 30 "run 1: note set"
note_is_800 note_800_edited_whole
keys P n C-u
paste P big "$T/n100k"
keys P Enter
check note_paste_refused P 60 "a note is at most 999 bytes \(this one has 100000\): nothing stored"
note_is_800 note_paste_nothing_stored
keys P R C-u
keys P -l "$(head -c 100 /dev/zero | tr '\0' r)"
keys P Enter
check name_long_refused P 30 "a run's name is at most 63 bytes \(this one has 100\)"
[ -z "$(q "$P" "select name from runs where id = 1")" ] && pass name_long_nothing_stored ||
  fail name_long_nothing_stored "$(q "$P" "select name from runs where id = 1")"
quit P

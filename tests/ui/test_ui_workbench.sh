#!/usr/bin/env bash
# tests/ui/test_ui_workbench.sh — the workbench end to end, as a new user meets
# it, in one tmux session at 80x24: launch on a fresh store (the welcome),
# build a small grid on the New sweep form (attention and mixer x layers
# 1,2, a tiny model) and queue it, watch the runs appear on the Runs screen
# and the first one's loss curve draw on the Run screen while it trains,
# the selected run's data and sweep point under the table, sorting by a
# column and reversing it,
# wait for the four to finish, read the Grid (its numbers are the store's
# test losses), see the New sweep form's estimate name them, pick two runs and overlay them on Compare, resize to 120x40
# (the data column appears) and back, quit, and relaunch to find the same
# runs, row for row.  The store is checked with the sqlite3 CLI after quit.
#
# A private tmux server (-L); the workbench runs one job on one thread.
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mbwb
# the step in the Run screen's header ("run 1  running  step 37/200 ...")
run_step() { screen "$1" | sed -nE 's/^ run [0-9]+ +[a-z]+ +step ([0-9]+)\/.*/\1/p' | head -1; }
# the Runs table without the pick marks of column 0 and the live columns
runs_table() { screen "$1" | sed -n '4,7p' | cut -c2-; }

DB=$T/wb.db
launch A "$DB" C.UTF-8
check welcome A 10 "The store has no runs yet"
runs=$(tab A Runs); run=$(tab A Run); compare=$(tab A Compare); grid=$(tab A Grid); new=$(tab A "New sweep")
[ -n "$runs" ] && [ -n "$run" ] && [ -n "$compare" ] && [ -n "$grid" ] && [ -n "$new" ] && pass tab_bar ||
  { fail tab_bar "$(screen A | head -1)"; exit 1; }

# --- New sweep: archs attention + mixer, layers=1,2 (the default axis),
#     a budget and a tiny model typed into the form
TM send-keys -t A "$new"
check form A 5 "Archs +\[x\]attention \[ \]mixer"
TM send-keys -t A Down Right Space
check form_archs A 5 "\[x\]attention \[x\]mixer"
TM send-keys -t A Down Down Down Down Enter C-u "steps=200" Enter
TM send-keys -t A Down Enter "d=64 n_ctx=32 batch=8 heads=2 eval_every=50 threads=1" Enter
check form_jobs A 5 "Queue 4 jobs"
check form_same_as A 5 "mixbench sweep arch=attention,mixer task=clm layers=1,2 steps=200"
screen A | grep -q "Time  *~" && pass form_estimate || fail form_estimate "$(screen A)"
TM send-keys -t A Down Down Down Enter   # Priority, Search, [ Queue ]
check queued_message A 5 "queued sweep 1 .*4 jobs"
[ "$(q "$DB" "select count(*) from runs where sweep_id = 1")" = 4 ] && pass queued_in_store ||
  fail queued_in_store "$(q "$DB" "select id, status from runs")"

# --- the runs appear and train; the first one's curve draws
TM send-keys -t A "$runs"
check runs_appear A 10 "4 runs +1 running +3 queued"
check run_row A 10 "^ +1 attention +clm +running"
TM send-keys -t A Home Enter
check run_screen A 10 "^ run 1 +running +step"
# the step shown must move while the job trains (the job may still be
# loading its data when the screen opens: give it up to 15 s on a busy machine)
# (a capture taken while ncurses redraws can miss the header: the first
# step is read again until one is there)
a=$(run_step A); b=
for _ in $(seq 30); do
  sleep 0.5
  if [ -z "$a" ]; then a=$(run_step A); continue; fi
  b=$(run_step A)
  [ -n "$b" ] && [ "$b" -gt "$a" ] && break
done
[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ] && pass curve_live || fail curve_live "step $a then $b: $(screen A)"
# the live step comes from the worker's progress, the curve from the metrics
# it flushes to the store every second: on a busy machine, wait for them
for _ in $(seq 50); do n=$(screen A | braille); [ "$n" -ge 4 ] && break; sleep 0.2; done
[ "$n" -ge 4 ] && pass curve_braille || fail curve_braille "$n braille lines: $(screen A)"
check run_done A 30 "^ run 1 +done +step 200/200"
check run_valid_points A 5 "⣿ valid"

TM send-keys -t A "$runs"
check all_done A 90 "4 runs +0 running +0 queued"
[ "$(screen A | grep -cE '^ +[1-4] (attention|mixer) +clm +done +200/200')" = 4 ] && pass runs_done ||
  fail runs_done "$(screen A)"
TM send-keys -t A Home j j
check runs_detail A 5 "^ run 3  data builtin:stories  sweep 1 grid  arch=mixer layers=1"
before=$(runs_table A)
echo "$before" | grep -c " done " | grep -qx 4 && pass runs_table || fail runs_table "$before"

# --- sort: s moves to the next column, S reverses
sort_to() {
  for _ in $(seq 12); do
    screen A | grep -q "sort: $1 " && return 0
    TM send-keys -t A s; sleep 0.3
  done
  return 1
}
valid_column() { screen A | grep -E '^ +[1-4] [a-z]+ +clm ' | awk '{print $7}'; }
if sort_to "valid loss"; then
  valid_column | sort -n -c 2>/dev/null && pass sort_valid_asc || fail sort_valid_asc "$(screen A)"
  TM send-keys -t A S
  wait_for A 5 "sort: valid loss desc" && valid_column | sort -n -r -c 2>/dev/null && pass sort_valid_desc ||
    fail sort_valid_desc "$(screen A)"
  TM send-keys -t A S
  sort_to task && sort_to data && sort_to id && pass sort_cycles || fail sort_cycles "$(screen A)"
else
  fail sort_valid_asc "$(screen A)"
fi

# --- Grid: arch x layers, the store's test losses in the cells
TM send-keys -t A "$grid"
check grid A 10 "arch \\\\ layers"
ok=1
for arch in attention mixer; do
  want=$(q "$DB" "select group_concat(printf('%.3f', e.loss), ' ') from (select e.loss from runs r
           join evals e on e.run_id = r.id and e.split = 'test' where r.arch = '$arch' order by r.layers) e")
  got=$(screen A | sed -nE "s/^$arch +([0-9.]+) +([0-9.]+).*/\1 \2/p")
  [ -n "$want" ] && [ "$got" = "$want" ] || { ok=0; fail "grid_$arch" "screen '$got' store '$want'"; }
done
[ $ok = 1 ] && pass grid_values

# --- New sweep again: the same form's estimate now comes from the runs it queued
#     (their shape), and its Time line names them (it may wrap: read as one text)
TM send-keys -t A "$new"
form_says() { screen A | tr '\n' ' ' | tr -s ' ' | grep -Eq -- "$1"; }
said=0
for _ in $(seq 150); do
  form_says "tokens/s: attention [0-9.]+k? tok/s measured by run [12] \(this shape\)" && said=1 && break
  sleep 0.2
done
[ $said = 1 ] && pass form_estimate_runs || fail form_estimate_runs "$(screen A)"

# --- Compare: runs 1 and 3 (attention and mixer at layers=1)
TM send-keys -t A "$runs"
check runs_again A 5 "4 runs"
TM send-keys -t A Home ' ' j j ' '
check picked A 5 "2 picked"
TM send-keys -t A "$compare"
check compare_legend A 5 "#1 attention"
check compare_legend2 A 5 "#3 mixer"
check compare_table A 5 "#3 +[0-9]+\.[0-9]+"
n=$(screen A | braille)
[ "$n" -ge 4 ] && pass compare_curves || fail compare_curves "$n braille lines: $(screen A)"

# --- resize: wider shows the data column; back at 80x24 the bars fit
TM send-keys -t A "$runs"
TM resize-window -t A -x 120 -y 40
check wide_data A 5 " data .* status"
check wide_stories A 5 "attention +clm +stories"
TM resize-window -t A -x 80 -y 24
check narrow_tabs A 5 "8 Generate"
check narrow_footer A 5 "q quit"
[ "$(screen A | wc -l)" -le 24 ] && pass narrow_rows || fail narrow_rows "$(screen A)"

# --- quit, the store, relaunch: the same runs
TM send-keys -t A q
wait_exit A 20 && pass quit || fail quit "$(screen A)"
[ "$(q "$DB" "pragma integrity_check")" = ok ] && pass integrity || fail integrity "$(q "$DB" "pragma integrity_check")"
[ "$(q "$DB" "pragma journal_mode")" = wal ] && pass wal || fail wal "$(q "$DB" "pragma journal_mode")"
[ "$(q "$DB" "select count(*) from runs where status = 'done'")" = 4 ] && pass store_done ||
  fail store_done "$(q "$DB" "select id, status from runs")"
launch A "$DB" C.UTF-8
check relaunch A 10 "4 runs +0 running +0 queued"
after=$(runs_table A)
[ -n "$before" ] && [ "$before" = "$after" ] && pass same_runs || fail same_runs "before:
$before
after:
$after"
TM send-keys -t A q
wait_exit A 20 && pass quit_again || fail quit_again "$(screen A)"

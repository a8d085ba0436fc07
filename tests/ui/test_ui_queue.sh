#!/usr/bin/env bash
# tests/ui/test_ui_queue.sh — the workbench's Queue, New sweep and Generate
# screens driven for real in tmux (80x24, a private tmux server): a store
# with a finished clm run and a queued sweep, opened with `--jobs 1` so one
# job runs (its live progress shows) and the others stay queued; `+` moves
# a queued job to the front (its priority in the store changes), `p` / `r`
# pause and resume it; a preset picked from the New sweep list shows its
# job count and is queued (the store has its jobs); a bad grid typed in the
# form shows the parser's error and queues nothing; Generate samples text
# from the finished run; resize to 120x40 and back; q quits.
set -u
. "$(dirname "$0")/../harness.sh"
SOCK=mbq$$
S=ui
# plain tmux (no -u, no ui_setup): the workbench runs in the ambient locale
tm() { tmux -L "$SOCK" "$@"; }
# snap: the screen into $T/screen, which the checks below grep
snap() { tm capture-pane -p -t "$S" >"$T/screen" 2>/dev/null; }
# wait_screen PATTERN [SECONDS]: snaps the screen until grep -E finds PATTERN
wait_screen() {
  local limit=$(( ${2:-10} * 10 )) i=0
  while [ $i -lt $limit ]; do
    snap
    grep -Eq -- "$1" "$T/screen" && return 0
    sleep 0.1; i=$((i + 1))
  done
  return 1
}
# wait_sql SQL EXPECTED [SECONDS]
wait_sql() {
  local limit=$(( ${3:-5} * 10 )) i=0
  while [ $i -lt $limit ]; do
    [ "$(q "$DB" "$1")" = "$2" ] && return 0
    sleep 0.1; i=$((i + 1))
  done
  return 1
}
keys() { tm send-keys -t "$S" "$@"; sleep 0.15; }
text() { tm send-keys -t "$S" -l "$1"; sleep 0.15; }
shown() { sed 's/^/    | /' "$T/screen"; }

DB=$T/s.db
TINY="d=32 layers=1 n_ctx=16 batch=4 data=builtin:stories"
if ! $MB run --db "$DB" --quiet --steps 40 $TINY >"$T/run.out" 2>&1; then
  fail setup_run "$(cat "$T/run.out")"; exit 0
fi
# the first job trains for longer than the test; the others stay queued
$MB sweep --db "$DB" arch=attention,mixer seed=1,2 steps=100000 log_every=1000 ckpt_every=0 $TINY >/dev/null 2>&1
[ "$(q "$DB" "select count(*) from runs where status='queued'")" = 4 ] && pass setup_sweep || fail setup_sweep "$(q "$DB" "select id, status from runs")"

tm new-session -d -s "$S" -x 80 -y 24 "cd '$T' && '$MB' --db '$DB' --jobs 1 --threads 1"
if ! wait_screen "Queue" 10; then fail start "no tab bar"; shown; exit 0; fi
tab_num() { head -1 "$T/screen" | grep -oE "[0-9] $1" | cut -c1; }
QUEUE=$(tab_num Queue); SWEEP=$(tab_num "New sweep"); GEN=$(tab_num Generate)
[ -n "$QUEUE" ] && [ -n "$SWEEP" ] && [ -n "$GEN" ] && pass tabs_found || { fail tabs_found "$(head -1 "$T/screen")"; exit 0; }

# ---- Queue: the jobs, the running one's progress
keys "$QUEUE"
if wait_screen "tok/s .*ETA" 15 && grep -Eq "^ +2 running" "$T/screen"; then pass queue_running_progress
else fail queue_running_progress "no live progress of job 2"; shown; fi
if grep -Eq "^ +1 +3 queued" "$T/screen" && grep -Eq "^ +3 +5 queued" "$T/screen" && grep -q "1 running  3 queued" "$T/screen"
then pass queue_lists_jobs; else fail queue_lists_jobs "queued jobs 3..5 not in claim order"; shown; fi
# the point column: the sweep's coordinates but arch and task (columns of their own)
if grep -Eq "^ +1 +3 queued .*grid +seed=[12] *$" "$T/screen" && ! grep -Eq "^ +[0-9]+ +[0-9]+ queued .*arch=" "$T/screen"
then pass queue_point_column; else fail queue_point_column "no 'seed=' point for job 3"; shown; fi

# ---- + on the last queued job: priority 1, first in line
keys G; keys +
if wait_sql "select priority from runs where id=5" 1 && wait_screen "^ +1 +5 queued +1 " 5 &&
   [ "$(q "$DB" "select id from queue where position=1")" = 5 ]; then pass priority_reorders
else fail priority_reorders "priority=$(q "$DB" "select priority from runs where id=5")"; shown; fi

# ---- p pauses it, r resumes it (the selection follows the job)
keys p
if wait_sql "select status from runs where id=5" paused && wait_screen "5 paused" 5; then pass pause_queued
else fail pause_queued "status=$(q "$DB" "select status from runs where id=5")"; shown; fi
keys r
if wait_sql "select status from runs where id=5" queued && wait_screen "^ +1 +5 queued" 5; then pass resume_paused
else fail resume_paused "status=$(q "$DB" "select status from runs where id=5")"; shown; fi

# ---- New sweep: a preset from the list, its job count, queued
expected=$($MB sweep recall --dry-run | head -1 | grep -oE "[0-9]+ jobs" | cut -d' ' -f1)
# what queueing it makes (the runs a sweep queues at once)
$MB sweep recall --db "$T/count.db" >/dev/null 2>&1
queued=$(q "$T/count.db" "select count(*) from runs")
keys "$SWEEP"
wait_screen "Preset" 5 || { fail sweep_form "no form"; shown; }
keys Enter
if wait_screen "recall +$expected jobs" 5; then pass preset_list_counts; else fail preset_list_counts "no 'recall $expected jobs'"; shown; fi
keys End; keys Up; keys Enter    # recall, the built-in before the last (long-context)
if wait_screen "Queue $expected jobs" 5 && grep -Eq "Jobs +$expected" "$T/screen"; then pass preset_job_count
else fail preset_job_count "expected $expected jobs"; shown; fi
runs_before=$(q "$DB" "select count(*) from runs")
keys Up; keys Enter    # from Preset, up wraps to [ Queue ]
wait_screen "Queue $expected jobs\? \[y/N\]" 5 && keys y   # a large sweep asks first
if wait_sql "select count(*) from runs r join sweeps s on s.id = r.sweep_id where s.name='recall' and r.status in ('queued', 'running')" "$queued" &&
   wait_screen "queued sweep 2 \(recall\)" 5 && grep -q "Queue  *1 running" "$T/screen"; then pass preset_queued
else fail preset_queued "recall jobs=$(q "$DB" "select count(*) from runs where sweep_id=2")"; shown; fi

# ---- a bad grid: the error line, nothing queued (q and digits go into the field)
runs_before=$(q "$DB" "select count(*) from runs")
keys "$SWEEP"
keys Enter; wait_screen "Pick a preset" 5 || { fail bad_grid "no preset list"; shown; exit 0; }
keys Home; keys Enter                              # (none) builds a grid
wait_screen "Preset +\(none" 5 || { fail bad_grid "still a preset"; shown; exit 0; }
keys Down; keys Down; keys Down; keys Down         # Archs, Task, Dataset, Axes
keys Enter; wait_screen "editing:" 5 || { fail bad_grid "not editing"; shown; exit 0; }
keys C-u; text "layers=1,2 heads=q,4"
if wait_screen "heads=q is not a whole number" 5 && grep -q "does not parse" "$T/screen"; then pass bad_grid_error
else fail bad_grid_error "no parse error shown"; shown; fi
keys Enter; keys Down; keys Down; keys Down; keys Down; keys Down; keys Enter   # Search, Budget, Extra, Priority, Queue
sleep 0.5
if wait_screen "not queued" 3 && [ "$(q "$DB" "select count(*) from runs")" = "$runs_before" ]; then pass bad_grid_queues_nothing
else fail bad_grid_queues_nothing "runs $runs_before -> $(q "$DB" "select count(*) from runs")"; shown; fi

# ---- Generate: a prompt, Enter, words
keys "$GEN"
wait_screen "Prompt" 5 || { fail generate_screen "no form"; shown; }
if grep -q "run 1 " "$T/screen"; then pass generate_picks_finished_run; else fail generate_picks_finished_run "run 1 not chosen"; shown; fi
keys Enter; wait_screen "editing:" 5 || { fail generate_text "not editing the prompt"; shown; exit 0; }
keys C-u; text "the cat"; keys Enter
if wait_screen "tokens in" 10 && wait_screen "^ the cat( [^ ]+){5}" 5; then pass generate_text
else fail generate_text "no generated words"; shown; fi
# the list of models: opens on the run generating; End, Home, Enter takes the first
keys Up; keys Enter
if wait_screen "Pick a model" 5 && grep -qE "^ run 1 .*step" "$T/screen"; then pass generate_model_list
else fail generate_model_list "no list with run 1"; shown; fi
keys End; keys Home; keys Enter
if wait_screen "Prompt" 5 && ! grep -q "Pick a model" "$T/screen" && grep -q "run 1 " "$T/screen"; then pass generate_model_taken
else fail generate_model_taken "the list did not close on run 1"; shown; fi

# ---- resize to 120x40 and back
tm resize-window -t "$S" -x 120 -y 40
sleep 0.5; snap
if [ "$(wc -l <"$T/screen")" -ge 40 ] && head -1 "$T/screen" | grep -q Generate && sed -n 40p "$T/screen" | grep -q "q quit" &&
   grep -q "^ the cat" "$T/screen"; then pass resize_120x40
else fail resize_120x40 "screen not redrawn at 120x40"; shown; fi
tm resize-window -t "$S" -x 80 -y 24
sleep 0.5; snap
if sed -n 24p "$T/screen" | grep -q "Tab screens" && head -1 "$T/screen" | grep -q Generate; then pass resize_back
else fail resize_back "screen not redrawn at 80x24"; shown; fi

# ---- q quits (running jobs checkpoint and go back to the queue)
keys q
i=0; while tm has-session -t "$S" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
if ! tm has-session -t "$S" 2>/dev/null && [ "$(q "$DB" "select count(*) from runs where status='running'")" = 0 ]; then pass quit
else fail quit "still open or running: $(q "$DB" "select id from runs where status='running'")"; shown; fi

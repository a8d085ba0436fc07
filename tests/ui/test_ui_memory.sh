#!/usr/bin/env bash
# tests/ui/test_ui_memory.sh — the workbench (tmux, 80x24) shows: a failed
# run's whole error on the Run screen, wrapped over lines rather than cut at
# the screen edge; each job's memory on the New sweep form, the jobs that do
# not fit flagged (under MIXBENCH_MEMORY_LIMIT); and a form whose data
# cannot be loaded names the problem and queues nothing.
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mbm

DB=$T/m.db
mkdir -p "$T/one" && seq 1 50 | awk '{print "a line of text", $1}' >"$T/one/notes.txt"
# a run that fails with a long error: a worker under a limit it cannot fit in
$MB sweep --db "$DB" arch=mixer data=builtin:stories d=64 layers=1 heads=2 n_ctx=256 batch=64 threads=1 \
  steps=5 >/dev/null 2>&1
MIXBENCH_MEMORY_LIMIT=100000000 $MB worker --db "$DB" --jobs 1 >/dev/null 2>&1
err=$(q "$DB" "select error from runs where id = 1")
[ ${#err} -gt 100 ] && pass setup_long_error || { fail setup_long_error "error: $err"; exit 0; }

TM new-session -d -s ui -x 80 -y 24 \
  "env LANG=C.UTF-8 LC_ALL=C.UTF-8 MIXBENCH_MEMORY_LIMIT=250000000 $MB --db $DB --jobs 0"
wait_for ui 10 "Runs" || { fail start "$(screen ui)"; exit 0; }
keys() { TM send-keys -t ui "$@"; sleep 0.2; }

# ---- Run: the whole error, wrapped (its last word is past column 80)
keys Enter
check run_error_wrapped ui 5 "\(MIXBENCH_MEMORY_LIMIT\)"
screen ui | grep -q "needs 1[0-9][0-9] MB" && pass run_error_start || fail run_error_start "$(screen ui)"

# ---- New sweep: each job's memory, the one that does not fit flagged
SWEEP=$(tab ui "New sweep")
keys "$SWEEP"
check form_memory_fits ui 5 "Memory +every job fits"
check form_memory_per_job ui 2 "1: [0-9]+ MB  2: [0-9]+ MB"
keys Down Down Down Down Enter C-u
TM send-keys -t ui -l "layers=1,24"; sleep 0.2
keys Enter
sleep 0.5
check form_memory_flags ui 5 "1 of 2 do not fit"
check form_memory_flag_job ui 2 "2: [0-9]+ MB!"

# ---- New sweep: data that does not load is named, and nothing is queued
keys Up Enter C-u
TM send-keys -t ui -l "$T/one"; sleep 0.2
keys Enter
check form_data_error ui 5 "has no recognisable splits"
keys Down Down Down Down Down Down Enter   # Axes, Search, Budget, Extra, Priority, Queue
sleep 0.5
n=$(q "$DB" "select count(*) from runs")
[ "$n" = 1 ] && pass form_data_not_queued || fail form_data_not_queued "$n runs; $(screen ui)"
keys q

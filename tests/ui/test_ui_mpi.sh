#!/usr/bin/env bash
# tests/ui/test_ui_mpi.sh — the workbench on rank 0's machine shows a sweep
# that `mpirun ... worker` trains, live: driven in tmux with --jobs 0 (watch
# only: the workbench takes no job), its Runs screen shows the MPI ranks'
# jobs running, then done, as the store has them.  Skipped without mpirun.
set -u
. "$(dirname "$0")/../harness.sh"
mpi_setup ui_mpi
ui_setup mbmpi
S=$T/s.db
$MB sweep --db "$S" seed=1,2 steps=3000 data=builtin:stories d=32 heads=2 n_ctx=16 batch=8 \
  log_every=1000 layers=1 arch=dispatcher >/dev/null 2>&1
$MPIRUN -np 3 "$MB" worker --db "$S" --threads 1 >"$T/mpi.log" 2>&1 &
mp=$!
TM new-session -d -s w -x 100 -y 30 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color $MB --db $S --jobs 0"
check live_running w 60 "running"
# the steps move on screen while the ranks train (two captures differ)
a=$(screen w | grep -m1 running); sleep 2.5; b=$(screen w | grep -m1 running)
[ -n "$a" ] && [ "$a" != "$b" ] && pass live_moves || fail live_moves "'$a' then '$b'"
wait $mp
check live_done w 20 "2 runs +0 running +0 queued"
d=$(screen w | grep -cE "^ +[12] dispatcher .* done +3000/3000")
[ "$d" = 2 ] && pass live_both_done || fail live_both_done "$(screen w | head -6)"
n=$(q "$S" "select count(*) from runs where status = 'done'")
[ "$n" = 2 ] && pass store_done || fail store_done "$n done; $(tail -3 "$T/mpi.log")"
TM send-keys -t w q
wait_exit w 20 && pass quits || fail quits "still running"

#!/usr/bin/env bash
# tests/experiments/test_mpi_memory.sh — memory admission in the sweep over MPI ranks
# (experiments/mpi_sweep.c), as tests/experiments/test_memory.sh tests the local
# worker's: under MIXBENCH_MEMORY_LIMIT (a cap on the sweep's jobs of one
# host together) two ~175 MB jobs on two training ranks run one after the
# other, the second waiting (held by rank 0, not failed); without the
# limit they run side by side; a job that could never fit even alone fails
# with the one line; and a data-parallel `mpirun mixbench run` sizes each
# rank for its share of the batch.  Skipped without mpirun.
set -u
. "$(dirname "$0")/../harness.sh"
mpi_setup test_mpi_memory

SPEC="arch=mixer seed=1,2 data=builtin:stories d=64 layers=1 heads=2 n_ctx=256 batch=64 threads=1 steps=15
      eval_every=0 eval_tokens=4096 log_every=1000"
# a 3-rank sweep: rank 0 serves, 2 train
$MB sweep --db "$T/w1.db" $SPEC >/dev/null 2>&1
read -r most rc <<<"$(most_running "$T/w1.db" "$T/w.out" $MPIRUN -x MIXBENCH_MEMORY_LIMIT=300000000 -np 3 "$MB" worker --db "$T/w1.db")"
s=$(q "$T/w1.db" "select group_concat(status) from runs")
[ "$most" = 1 ] && [ "$s" = "done,done" ] && [ "$rc" = 0 ] && pass mpi_sweep_waits_for_memory ||
  fail mpi_sweep_waits_for_memory "at most $most at once, statuses $s, rc $rc: $(tail -5 "$T/w.out")"
grep -q "2 jobs ended; the queue is empty" "$T/w.out" && pass mpi_sweep_wait_not_counted_as_end ||
  fail mpi_sweep_wait_not_counted_as_end "$(tail -3 "$T/w.out")"

$MB sweep --db "$T/w2.db" $SPEC >/dev/null 2>&1
read -r most rc <<<"$(most_running "$T/w2.db" "$T/w.out" $MPIRUN -np 3 "$MB" worker --db "$T/w2.db")"
[ "$most" = 2 ] && pass mpi_sweep_side_by_side_without_limit || fail mpi_sweep_side_by_side_without_limit "at most $most at once"

$MB sweep --db "$T/w3.db" $SPEC >/dev/null 2>&1
$MPIRUN -x MIXBENCH_MEMORY_LIMIT=100000000 -np 3 "$MB" worker --db "$T/w3.db" >"$T/w.out" 2>&1
errs=$(q "$T/w3.db" "select count(*) from runs where status = 'failed' and error like 'needs % MB (%) but % MB is available (MIXBENCH_MEMORY_LIMIT)'")
[ "$errs" = 2 ] && pass mpi_sweep_fails_what_never_fits ||
  fail mpi_sweep_fails_what_never_fits "$(q "$T/w3.db" "select id, status, error from runs")"

# --- a data-parallel run: each of 2 ranks holds half of the batch's activations
est() { sed -n 's/^.*memory: \([0-9.]*\) \([kMG]B\).*/\1 \2/p' "$1" | head -1 |
        awk '{v=$1; if ($2=="GB") v*=1000; if ($2=="kB") v/=1000; print v}'; }
ARGS="--arch attention --data builtin:stories d=128 layers=2 n_ctx=128 batch=32 --steps 2 eval_every=0 eval_tokens=2048 --threads 1"
$MB run --db "$T/p1.db" $ARGS >"$T/p1.out" 2>&1
$MPIRUN -np 2 "$MB" run --db "$T/p2.db" $ARGS >"$T/p2.out" 2>&1
one=$(est "$T/p1.out"); two=$(est "$T/p2.out")
if [ -n "$one" ] && [ -n "$two" ] && awk -v a="$one" -v b="$two" 'BEGIN { exit !(b < 0.8 * a) }'; then
  pass "mpi_run_per_rank_memory($one MB alone, $two MB a rank of 2)"
else fail mpi_run_per_rank_memory "alone '$one' MB, a rank of 2 '$two' MB: $(tail -3 "$T/p2.out")"; fi

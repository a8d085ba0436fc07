#!/usr/bin/env bash
# tests/cli/test_mpi_run.sh — one run over MPI ranks (engine/dist.h, the
# data-parallel trainer, app/cmd_run.c) driven through mpirun: 2 ranks x 1
# thread compute what 1 process x 2 threads does, step by step (dense,
# sparse-row, mlm and two-stack models), whichever way the gradient is
# summed (MIXBENCH_ALLREDUCE), and at 3 ranks to float32 rounding, the same
# launch giving the same bits again, the ring alone the same bits under any
# Open MPI algorithm; a run checkpointed under one N resumes under
# another to the numbers of an undisturbed run; bench prints its ranks'
# columns; every refusal (batch < ranks, a different binary or config on a
# rank, a data file missing on one rank, a store rank 0 cannot open) is one
# line from rank 0, every rank exits non-zero and the store is untouched;
# and without a launcher mixbench neither links nor loads libmpi.
# Skipped when mpirun is not installed (make deps installs it).
set -u
. "$(dirname "$0")/../harness.sh"
mpi_setup mpi_run
MPI="mpirun --oversubscribe"
cd "$T" || exit 1

# --- no launcher: no libmpi, no MPI words
if ldd "$MB" | grep -q libmpi; then fail not_linked "$(ldd "$MB" | grep libmpi)"; else pass not_linked; fi
out=$($MB run --arch dispatcher --task clm --steps 2 --batch 2 --d 32 --heads 2 --n_ctx 16 --db plain.db 2>&1)
if echo "$out" | grep -qiE "mpi|rank"; then fail plain_run_quiet "$out"; else pass plain_run_quiet; fi

# --- N ranks x 1 thread == 1 process x N threads, step by step, to 1e-5
# relative (with 2 ranks the loss and lr to 1e-12: a + b is b + a, so the
# same sums; only the norm's double sum runs in another order)
same_run() { # name ranks args...
  local name=$1 n=$2; shift 2
  local tight=1e-12; [ "$n" = 2 ] || tight=1e-5
  $MB run "$@" --threads "$n" --quiet --db "$name-t.db" >/dev/null 2>&1
  $MPI -np "$n" "$MB" run "$@" --threads 1 --quiet --db "$name-r.db" >"$name.log" 2>&1 || {
    fail "ranks_equal_threads[$name]" "mpirun: $(head -3 "$name.log")"; return; }
  local sql="select step, train_loss, grad_norm, lr from metrics order by step"
  local bad
  bad=$(paste -d'|' <(q "$name-t.db" "$sql") <(q "$name-r.db" "$sql") | awk -F'|' -v tight=$tight '
    function rel(a, b) { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; return m > 0 ? d / m : d }
    { n++; if ($1 != $5 || rel($2, $6) > tight || rel($3, $7) > 1e-5 || rel($4, $8) > tight) bad++ }
    END { if (n < 2) print "only " n " rows"; else if (bad) print bad " of " n " steps differ" }')
  local ev
  ev=$(paste -d'|' <(q "$name-t.db" "select split, loss from evals order by split") \
                   <(q "$name-r.db" "select split, loss from evals order by split") |
       awk -F'|' '{ d = $2 - $4; if (d < 0) d = -d; if (d > 1e-5 * $2) print }')
  if [ -z "$bad" ] && [ -z "$ev" ] && [ "$(q "$name-r.db" "select status from runs")" = done ]; then
    pass "ranks_equal_threads[$name]"
  else fail "ranks_equal_threads[$name]" "${bad} ${ev} $(q "$name-r.db" "select status, error from runs")"; fi
}
SMALL="--d 32 --heads 2 --n_ctx 16 --batch 8 --steps 12 --eval_tokens 256"
same_run dispatcher 2 --arch dispatcher --task clm $SMALL
same_run pairconnect 2 --arch pairconnect --task clm $SMALL
same_run fft_mlm 2 --arch fft --task mlm $SMALL
same_run mixer_3 3 --arch mixer --task clm $SMALL
same_run bidir 2 --arch cumsum --task bidir $SMALL   # two stacks: their blocks' buckets interleave

# --- the gradient sum (MIXBENCH_ALLREDUCE, engine/grad_buckets.h).  2 ranks:
# every way (overlap, the default; mpi; our ring) adds a + b, the same bits
metrics() { q "$1" "select step, printf('%.17g %.17g %.17g', train_loss, grad_norm, lr) from metrics order by step"; }
SUM_RUN="run --arch dispatcher --task clm $SMALL --threads 1 --quiet"
for m in mpi ring; do
  MIXBENCH_ALLREDUCE=$m $MPI -np 2 "$MB" $SUM_RUN --db "sum-$m.db" >/dev/null 2>&1
  if [ -n "$(metrics "sum-$m.db")" ] && [ "$(metrics "sum-$m.db")" = "$(metrics dispatcher-r.db)" ]; then
    pass "two_ranks_every_sum_same_bits[$m]"
  else fail "two_ranks_every_sum_same_bits[$m]" "$(diff <(metrics "sum-$m.db") <(metrics dispatcher-r.db) | head -4)"; fi
done
# 2 ranks x 2 threads: the hook's path, where the last thread done with a
# block sums the threads' buffers over it while others still run backward;
# the overlapped sum gives the ring's bits (the ring sums after backward)
T2_RUN="run --arch pairconnect --task clm --d 36 --heads 2 --n_ctx 16 --batch 12 --steps 8 --quiet --threads 2"
for m in overlap ring; do MIXBENCH_ALLREDUCE=$m $MPI -np 2 "$MB" $T2_RUN --db "t2-$m.db" >/dev/null 2>&1; done
if [ -n "$(metrics t2-ring.db)" ] && [ "$(metrics t2-overlap.db)" = "$(metrics t2-ring.db)" ]; then
  pass two_threads_a_rank_overlap_same_bits
else fail two_threads_a_rank_overlap_same_bits "$(diff <(metrics t2-overlap.db) <(metrics t2-ring.db) | head -4)"; fi
# 3 ranks: Open MPI's order of the sum is its algorithm's (by message size,
# ranks, tuning), equal to the threads' to float32 rounding (mixer_3 above);
# a launch is still bit-identical to the same launch again
$MPI -np 3 "$MB" run --arch mixer --task clm $SMALL --threads 1 --quiet --db mixer_3-again.db >/dev/null 2>&1
if [ -n "$(metrics mixer_3-again.db)" ] && [ "$(metrics mixer_3-again.db)" = "$(metrics mixer_3-r.db)" ]; then
  pass three_ranks_same_launch_same_bits
else fail three_ranks_same_launch_same_bits "$(diff <(metrics mixer_3-again.db) <(metrics mixer_3-r.db) | head -4)"; fi
# what the ring alone gives (why MIXBENCH_ALLREDUCE=ring stays): its bits do
# not depend on the algorithm Open MPI picks (forced here through its MCA
# parameters, as a cluster's tuning or a message size would pick one); the
# library's own sums do
algo_run() { # mode algorithm db
  MIXBENCH_ALLREDUCE=$1 OMPI_MCA_coll_libnbc_iallreduce_algorithm=$2 OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
    OMPI_MCA_coll_tuned_allreduce_algorithm=$2 $MPI -np 3 "$MB" $SUM_RUN --db "$3" >/dev/null 2>&1
}
algo_run ring 1 ring-a1.db; algo_run ring 2 ring-a2.db
algo_run overlap 1 lib-a1.db; algo_run overlap 2 lib-a2.db
if [ -n "$(metrics ring-a1.db)" ] && [ "$(metrics ring-a1.db)" = "$(metrics ring-a2.db)" ]; then
  pass ring_same_bits_under_any_mpi_algorithm
else fail ring_same_bits_under_any_mpi_algorithm "$(diff <(metrics ring-a1.db) <(metrics ring-a2.db) | head -4)"; fi
if [ -n "$(metrics lib-a1.db)" ] && [ -n "$(metrics lib-a2.db)" ] && [ "$(metrics lib-a1.db)" != "$(metrics lib-a2.db)" ]; then
  pass library_sum_follows_its_algorithm
else fail library_sum_follows_its_algorithm "ring (1) and binomial (2) gave the same bits, or a run failed"; fi
out=$(MIXBENCH_ALLREDUCE=fast $MPI -np 2 "$MB" $SUM_RUN --db bad-sum.db 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "MIXBENCH_ALLREDUCE=fast: expected overlap, mpi or ring" && [ ! -e bad-sum.db ] &&
  pass unknown_sum_refused || fail unknown_sum_refused "rc=$rc $out"
out=$($MPI -np 1 -x MIXBENCH_ALLREDUCE=ring "$MB" $SUM_RUN --db bad-sum.db : -np 1 -x MIXBENCH_ALLREDUCE=mpi "$MB" $SUM_RUN --db bad-sum.db 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "rank 1 has another MIXBENCH_ALLREDUCE than rank 0" && [ ! -e bad-sum.db ] &&
  pass sum_differing_between_ranks_refused || fail sum_differing_between_ranks_refused "rc=$rc $out"

# --- a checkpoint written under N ranks resumes under another N.  The
# stop: SIGUSR1 to mpirun (forwarded to every rank) once a resumable
# checkpoint is in the store.
LONG="--arch dispatcher --task clm --d 32 --heads 2 --n_ctx 16 --batch 8 --steps 400 --ckpt_every 20 --eval_every 100 --quiet"
$MB run $LONG --threads 2 --db full.db >/dev/null 2>&1
stop_when_checkpointed() { # db pid
  for _ in $(seq 300); do
    [ "$(q "$1" "select coalesce(max(resume_step), 0) >= 20 from runs" 2>/dev/null)" = 1 ] && break
    sleep 0.05
  done
  kill -USR1 "$2" 2>/dev/null
}
final() { q "$1" "select split || ' ' || printf('%.17g', loss) from evals order by step, split"; }
close_to() { # file a, file b: same lines, numbers within 1e-5 relative
  paste -d' ' "$1" "$2" | awk '{ if ($1 != $3) bad = 1; d = $2 - $4; if (d < 0) d = -d; if (d > 1e-5 * $2) bad = 1 }
    END { exit bad }' && [ "$(wc -l <"$1")" = "$(wc -l <"$2")" ] && [ -s "$1" ]
}
final full.db >full.txt
# under 2 ranks, then 1 process x 2 threads (the same sums: the same bits)
$MPI -np 2 "$MB" run $LONG --threads 1 --db cut2.db >cut2.log 2>&1 &
mp=$!
stop_when_checkpointed cut2.db $mp
wait $mp
st=$(q cut2.db "select status from runs")
$MB run --resume 1 --db cut2.db --threads 2 --quiet >resume2.log 2>&1
final cut2.db >cut2.txt
steps=$(q cut2.db "select count(distinct step) || ' ' || max(step) from metrics")
if [ "$st" = interrupted ] && cmp -s full.txt cut2.txt && [ "$steps" = "400 400" ]; then pass resume_2_ranks_as_1_process
else fail resume_2_ranks_as_1_process "stopped as '$st', steps $steps, $(head -2 resume2.log) $(diff full.txt cut2.txt | head -4)"; fi
# under 1 process x 2 threads, then 2 ranks
$MB run $LONG --threads 2 --db cut1.db >/dev/null 2>&1 &
mp=$!
stop_when_checkpointed cut1.db $mp
kill -INT $mp 2>/dev/null
wait $mp
st=$(q cut1.db "select status from runs")
$MPI -np 2 "$MB" run --resume 1 --db cut1.db --threads 1 --quiet >resume1.log 2>&1
final cut1.db >cut1.txt
if [ "$st" = interrupted ] && close_to full.txt cut1.txt; then pass resume_1_process_as_2_ranks
else fail resume_1_process_as_2_ranks "stopped as '$st', $(head -3 resume1.log) $(diff full.txt cut1.txt | head -4)"; fi
out=$($MB run --resume 1 --db cut1.db 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "run 1 is done" && pass resume_done_refused || fail resume_done_refused "$rc $out"

# --- bench under mpirun: the ranks' columns
out=$($MPI -np 2 "$MB" bench --arch dispatcher --config S --threads 1 2>&1)
echo "$out" | grep -q "2 ranks x 1 thread" && echo "$out" | grep -qE "^dispatcher +S .*%.*%" \
  && pass bench_ranks || fail bench_ranks "$out"

# --- refusals: one line from rank 0, every rank non-zero, store untouched
cp full.db keep.db
before=$(sqlite3 keep.db .dump | md5sum)
refused() { # name expected-words command...
  local name=$1 want=$2; shift 2
  "$@" >out.log 2>err.log; local rc=$?
  local ours; ours=$(grep -c '^mixbench: ' err.log)
  if [ $rc -ne 0 ] && [ "$ours" = 1 ] && grep -q "$want" err.log && [ "$(sqlite3 keep.db .dump | md5sum)" = "$before" ]; then
    pass "refused[$name]"
  else fail "refused[$name]" "rc=$rc lines=$ours $(grep '^mixbench' err.log | head -3)"; fi
}
A="run --arch dispatcher --task clm --d 32 --heads 2 --n_ctx 16 --steps 3 --quiet"
refused batch_lt_ranks "3 ranks but batch=2" $MPI -np 3 "$MB" $A --batch 2 --db keep.db
cp "$MB" other-mixbench && printf 'x' >>other-mixbench
refused other_binary "rank 1 runs a different mixbench binary" \
  $MPI -np 1 "$MB" $A --db keep.db : -np 1 ./other-mixbench $A --db keep.db
refused other_config "rank 1 was started with a different config" \
  $MPI -np 1 "$MB" $A --db keep.db : -np 1 "$MB" $A --seed 9 --db keep.db
mkdir -p here there && printf 'the cat sat on the mat.\n%.0s' $(seq 400) >here/t.txt
refused data_on_one_rank "rank 1: dataset 't.txt' not found" \
  $MPI -np 1 --wdir "$T/here" "$MB" $A --data t.txt --db "$T/keep.db" : -np 1 --wdir "$T/there" "$MB" $A --data t.txt --db "$T/keep.db"
refused store_not_writable "rank 0: .*cannot open store" $MPI -np 2 "$MB" $A --db "$T/no/such/dir/s.db"

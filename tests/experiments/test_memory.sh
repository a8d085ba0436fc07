#!/usr/bin/env bash
# tests/experiments/test_memory.sh — memory before allocation (engine/memory.h): a job
# that cannot fit under `ulimit -v` is refused in one line naming what it
# needs and what there is, before anything is allocated or stored; `sweep
# --dry-run` shows each job's memory and flags the ones that do not fit;
# the estimate is close to the process's real peak (ru_maxrss, stored as
# runs.peak_mem_mb); the local worker does not start a job beside another
# when both would not fit (MIXBENCH_MEMORY_LIMIT), and fails one that could
# not fit even alone; a run's own peak (runs.peak_run_mb,
# experiments/job_memory.h): measured for each job a worker runs alone, a
# small job after a big one its own small figure (and the process's
# peak_mem_mb, reset with it, at least that), none for jobs that ran side by
# side.
set -u
. "$(dirname "$0")/../harness.sh"

# --- a. the issue's case: pairconnect with 10M-slot tables under an 8 GB address-space limit
(ulimit -v 8000000; exec "$MB" run --arch pairconnect hash_size=10000000 heads=4 --data builtin:stories \
   --steps 2 --db "$T/a.db") >"$T/out" 2>"$T/err"; rc=$?
n=$( [ -e "$T/a.db" ] && q "$T/a.db" "select count(*) from runs" || echo 0)
if [ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ "$n" = 0 ] &&
   grep -Eq "needs [0-9.]+ GB \(parameters [0-9.]+ GB, optimizer [0-9.]+ GB.*\) but [0-9.]+ GB is available \(ulimit -v\)" "$T/err"
then pass ulimit_refusal_one_line
else fail ulimit_refusal_one_line "rc=$rc runs=$n err=$(cat "$T/err")"; fi

# --- b. sweep --dry-run: a memory column, the job that does not fit flagged
(ulimit -v 8000000; exec "$MB" sweep --dry-run arch=attention,pairconnect task=mlm hash_size=10000000 heads=4 \
   d=64 layers=1 data=builtin:stories) >"$T/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -Eq "^ +1 +attention .*memory [0-9]+ MB$" "$T/out" &&
   grep -Eq "^ +2 +pairconnect .*memory [0-9.]+ GB  DOES NOT FIT$" "$T/out" &&
   grep -q "1 of 2 jobs do not fit" "$T/out"
then pass dry_run_memory_column
else fail dry_run_memory_column "rc=$rc $(cat "$T/out")"; fi

# --- c. the estimate against the real peak: not under by more than 20%
# (nor over by more than 50%: row accumulators are sized for their cap but
# only the rows touched become resident)
est_vs_peak() {
  local name=$1; shift
  rm -f "$T/p.db"*
  "$MB" run --db "$T/p.db" --steps 3 eval_every=0 eval_tokens=2048 log_every=1000 "$@" >"$T/out" 2>&1
  local est peak
  est=$(sed -n 's/^memory: \([0-9.]*\) \([kMG]B\).*/\1 \2/p' "$T/out" |
        awk '{v=$1; if ($2=="GB") v*=1000; if ($2=="kB") v/=1000; print v}')
  peak=$(q "$T/p.db" "select peak_mem_mb * 1.048576 from runs where status = 'done'")
  if [ -z "$est" ] || [ -z "$peak" ]; then fail "estimate_vs_peak[$name]" "$(tail -3 "$T/out")"; return; fi
  local ratio
  ratio=$(awk -v e="$est" -v p="$peak" 'BEGIN { printf "%.2f", e / p }')
  echo "   $name: estimate $est MB, peak $peak MB, ratio $ratio"
  if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8 && r <= 1.5) }'; then pass "estimate_vs_peak[$name]"
  else fail "estimate_vs_peak[$name]" "estimate $est MB vs peak $peak MB (ratio $ratio)"; fi
}
est_vs_peak attention --arch attention --data builtin:stories d=256 layers=2 n_ctx=128 batch=16 --threads 1
est_vs_peak mixer --arch mixer --data builtin:stories d=64 layers=1 heads=2 n_ctx=256 batch=64 --threads 2
est_vs_peak pairconnect --arch pairconnect --task mlm --data builtin:stories hash_size=20000 heads=2 d=128 layers=1 --threads 2

# --- d. the worker: two jobs of ~175 MB under a 300 MB limit run one after
# the other (without it, side by side); a job that could never fit fails
# with the one line
SPEC="arch=mixer seed=1,2 data=builtin:stories d=64 layers=1 heads=2 n_ctx=256 batch=64 threads=1 steps=15
      eval_every=0 eval_tokens=4096 log_every=1000"
$MB sweep --db "$T/w1.db" $SPEC >/dev/null 2>&1
read -r most _ <<<"$(most_running "$T/w1.db" "$T/w.out" env MIXBENCH_MEMORY_LIMIT=300000000 "$MB" worker --db "$T/w1.db" --jobs 2)"
done_n=$(q "$T/w1.db" "select count(*) from runs where status = 'done'")
[ "$most" = 1 ] && [ "$done_n" = 2 ] && pass worker_waits_for_memory ||
  fail worker_waits_for_memory "at most $most at once, $done_n done: $(cat "$T/w.out")"
$MB sweep --db "$T/w2.db" $SPEC >/dev/null 2>&1
read -r most _ <<<"$(most_running "$T/w2.db" "$T/w.out" "$MB" worker --db "$T/w2.db" --jobs 2)"
[ "$most" = 2 ] && pass worker_side_by_side_without_limit || fail worker_side_by_side_without_limit "at most $most at once"
$MB sweep --db "$T/w3.db" $SPEC >/dev/null 2>&1
MIXBENCH_MEMORY_LIMIT=100000000 "$MB" worker --db "$T/w3.db" --jobs 2 >"$T/w.out" 2>&1
errs=$(q "$T/w3.db" "select count(*) from runs where status = 'failed' and error like 'needs % MB (%) but % MB is available (MIXBENCH_MEMORY_LIMIT)'")
[ "$errs" = 2 ] && pass worker_fails_what_never_fits ||
  fail worker_fails_what_never_fits "$(q "$T/w3.db" "select id, status, error from runs")"

# --- e. a run's own peak: with --jobs 1 a big job, then a small one, each
# measured alone (the small one's figure its own, not the big one's; the
# process's ru_maxrss, reset with VmHWM, its own plus the process's base),
# each with its training CPU seconds; the jobs seen side by side in w2 have
# neither
$MB sweep --db "$T/w4.db" "(n_ctx,batch)=(256,64),(16,1)" arch=mixer data=builtin:stories d=64 layers=1 heads=2 \
   threads=1 steps=5 eval_every=0 eval_tokens=4096 log_every=1000 >/dev/null 2>&1
"$MB" worker --db "$T/w4.db" --jobs 1 >"$T/w.out" 2>&1
big=$(q "$T/w4.db" "select coalesce(peak_run_mb, -1) from runs where n_ctx = 256")
small=$(q "$T/w4.db" "select coalesce(peak_run_mb, -1) || ' ' || (peak_mem_mb * 1.048576) from runs where n_ctx = 16")
echo "   own peaks: big job $big MB; small job (own, process) $small MB"
read -r own proc <<<"$small"
cpu=$(q "$T/w4.db" "select count(*) from runs where train_cpu_seconds > 0 and train_cpu_seconds < 600")
if awk -v b="$big" -v o="$own" -v p="$proc" 'BEGIN { exit !(b > 50 && o > 0 && o < b / 4 && p >= o && p < b) }' &&
   [ "$cpu" = 2 ]
then pass own_peak_alone
else fail own_peak_alone "big $big, small $small: $(cat "$T/w.out")"; fi
if [ "$most" = 2 ]; then
  shared=$(q "$T/w2.db" "select count(*) from runs where peak_run_mb is null and train_cpu_seconds is null")
  [ "$shared" = 2 ] && pass own_peak_none_side_by_side ||
    fail own_peak_none_side_by_side "$(q "$T/w2.db" "select id, peak_run_mb, train_cpu_seconds from runs")"
fi

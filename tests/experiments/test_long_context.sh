#!/usr/bin/env bash
# tests/experiments/test_long_context.sh — the long-context study
# (studies/long-context.yaml) as queued, without running it: its dry run
# lists 102 jobs, seed by seed (every point of seed 1 first), every causal
# architecture at n 512..32768 but the masked mixer and pairconnect, which
# stop at 8192; the fixed keys every job carries; each job's memory and
# the estimated time; `study check` reads its 13 claims in words (the
# stated ratio and the crossover kinds); the two left out would not fit
# under a 20 GB limit (the reason the report gives).
set -u
. "$(dirname "$0")/../harness.sh"

"$MB" sweep long-context --dry-run --db "$T/d.db" >"$T/out" 2>&1; rc=$?
jobs=$(grep -cE '^ +[0-9]+ +[a-z]+ +clm ' "$T/out")
[ $rc -eq 0 ] && [ "$jobs" = 102 ] && head -1 "$T/out" | grep -q "sweep long-context: 102 jobs" &&
  pass dry_run_jobs || fail dry_run_jobs "rc=$rc jobs=$jobs $(head -3 "$T/out")"

# seed by seed: jobs 1-34 seed 1, 35-68 seed 2, 69-102 seed 3
order=$(grep -E '^ +[0-9]+ +[a-z]+ +clm ' "$T/out" |
        sed -E 's/^ +([0-9]+) .*"seed": "([0-9])".*/\1 \2/' |
        awk '{ want = int(($1 - 1) / 34) + 1; if ($2 != want) bad++ } END { print bad + 0 }')
[ "$order" = 0 ] && pass dry_run_seed_order || fail dry_run_seed_order "$order jobs out of seed order"

# the lengths per architecture: 4 for seven of them, 3 (to 8192) for mixer and pairconnect
per=$(grep -E '"seed": "1"' "$T/out" | sed -E 's/.*"arch": "([a-z]+)", "n_ctx": "([0-9]+)".*/\1 \2/' |
      awk '{ n[$1]++; if ($2 > top[$1]) top[$1] = $2 } END { for (a in n) print a, n[a], top[a] }' | sort | tr '\n' ' ')
want="attention 4 32768 conv 4 32768 cumsum 4 32768 dispatcher 4 32768 hyena 4 32768 linattn 4 32768 mamba 4 32768 mixer 3 8192 pairconnect 3 8192 "
[ "$per" = "$want" ] && pass dry_run_lengths || fail dry_run_lengths "got: $per"

# every job's memory, the largest the mixer's at 8192; the estimated time
if grep -Eq '"arch": "attention", "n_ctx": "32768"\}  builtin:stories  memory [0-9.]+ GB' "$T/out" &&
   [ "$(grep -cE 'memory [0-9.]+ [kMG]B' "$T/out")" = 102 ] &&
   grep -Eq '^estimated time: ~[0-9hms]+ ' "$T/out"
then pass dry_run_memory_and_time
else fail dry_run_memory_and_time "$(tail -3 "$T/out")"; fi

"$MB" study check studies/long-context.yaml >"$T/check" 2>&1; rc=$?
grep -q "^the grid: mixbench sweep data=builtin:stories task=clm d=128 layers=2 heads=4 batch=1 threads=1 eval_every=0 eval_tokens=512 seed=1,2,3 (arch,n_ctx)=" "$T/check" &&
  grep -q "tokens=32768$" "$T/check" &&
  [ $rc -eq 0 ] && pass check_keys || fail check_keys "rc=$rc $(grep 'the grid' "$T/check")"
if grep -q "^claims: 13$" "$T/check" &&
   [ "$(grep -c 'ratio_at_least: tokens_per_cpu_s of .*, at least 0.75 in every pair (one-sided test on the ratio)' "$T/check")" = 4 ] &&
   grep -q 'ratio_at_least: tokens_per_cpu_s of \[arch=attention n_ctx=2048\] over \[arch=attention n_ctx=32768\], pairs agreeing on arch, at least 4 in every pair' "$T/check" &&
   [ "$(grep -c 'overtakes: tokens_per_cpu_s of \[arch=[a-z]*\] above \[arch=attention\] from some n_ctx on' "$T/check")" = 8 ]
then pass check_claims
else fail check_claims "$(sed -n '/^claims/,$p' "$T/check")"; fi

# what the two left out would need: more than any 20 GB machine has
MIXBENCH_MEMORY_LIMIT=20000000000 "$MB" sweep arch=mixer,pairconnect n_ctx=32768 task=clm d=128 layers=2 heads=4 \
  batch=1 threads=1 data=builtin:stories --dry-run --db "$T/d.db" >"$T/out" 2>&1
[ "$(grep -cE 'memory [0-9.]+ GB  DOES NOT FIT$' "$T/out")" = 2 ] && pass left_out_do_not_fit ||
  fail left_out_do_not_fit "$(cat "$T/out")"

exit $failures

#!/usr/bin/env bash
# tests/fuzz/run.sh SECONDS NAME... — what `make fuzz` runs once the
# harnesses are built (build/fuzz/bin/fuzz_NAME): for each harness, one at a
# time, first every input of tests/fuzz/regress/NAME/ (each once: the inputs
# that crashed before must not crash again), then SECONDS of fuzzing on a
# copy of tests/fuzz/corpus/NAME/ in build/fuzz/run/NAME/ (the seed corpus
# in the repository is never changed), with tests/fuzz/NAME.dict as the
# dictionary when there is one.  Prints one line per harness with
# the seconds and executions, and for a crash the log and the input that
# crashed (build/fuzz/run/NAME/crash-*, to copy into tests/fuzz/regress/NAME/
# once fixed).  Exits 1 when any harness crashed.
cd "$(dirname "$0")/../.." || exit 2
seconds=${1:?usage: tests/fuzz/run.sh SECONDS NAME...}
shift
crashed=()
for name in "$@"; do
  bin=build/fuzz/bin/fuzz_$name
  work=build/fuzz/run/$name
  rm -rf "$work"
  mkdir -p "$work/corpus"
  cp tests/fuzz/corpus/"$name"/* "$work/corpus/" 2>/dev/null
  regress=(tests/fuzz/regress/"$name"/*)
  if [ -e "${regress[0]}" ]; then
    if ! "$bin" -artifact_prefix="$work/" "${regress[@]}" >"$work/regress.log" 2>&1; then
      echo "fuzz $name: CRASH on a regression input (tests/fuzz/regress/$name/); log $work/regress.log:"
      grep -E '^(Running|==[0-9]+==ERROR|SUMMARY)|FUZZ_CHECK|runtime error' "$work/regress.log" | head -20
      crashed+=("$name")
      continue
    fi
  fi
  dict=()
  [ -f tests/fuzz/$name.dict ] && dict=(-dict=tests/fuzz/$name.dict)
  start=$(date +%s)
  "$bin" "${dict[@]}" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus" >"$work/fuzz.log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -1)
  files=$(ls "$work/corpus" | wc -l)
  if [ $rc -eq 0 ]; then
    echo "fuzz $name: ok, ${took}s, ${execs:-?} executions, corpus $files inputs"
  else
    echo "fuzz $name: CRASH after ${took}s, ${execs:-?} executions (exit code $rc); log $work/fuzz.log:"
    grep -E '==[0-9]+==ERROR|SUMMARY|FUZZ_CHECK|runtime error|^    #[0-9] ' "$work/fuzz.log" | head -20
    for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
      [ -e "$f" ] && echo "  crashing input: $f"
    done
    crashed+=("$name")
  fi
done
# the last line in the test runner's form (a harness that runs clean passes)
if [ ${#crashed[@]} -gt 0 ]; then
  echo "fuzz: ${#crashed[@]} harness(es) crashed: ${crashed[*]}"
  echo "$(( $# - ${#crashed[@]} )) passed, ${#crashed[@]} failed"
  exit 1
fi
echo "fuzz: all $# harnesses ran without a crash"
echo "$# passed, 0 failed"

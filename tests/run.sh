#!/usr/bin/env bash
# tests/run.sh — runs every test binary (build/tests/AREA/test_*) and every
# shell test (tests/AREA/test_*.sh, tests/test_layers.sh) from the
# repository root (or those MIXBENCH_TESTS names), each named by its path
# under tests/, and ends with the line
# "N passed, N failed".  Each test prints "PASS name" or "FAIL name"; a test
# program that crashes or exits non-zero without a FAIL line counts as one
# failure.  "SKIP name: why" lines (a test that needs something outside the
# repository that is not here) are counted apart and listed before the last
# line.  MIXBENCH_DATA points at the shared corpora (default ../shared/data);
# the tests that read them are skipped, with a note, when they are missing.
cd "$(dirname "$0")/.." || exit 2
export MIXBENCH_DATA=${MIXBENCH_DATA:-$(cd .. && pwd)/shared/data}
export MIXBENCH=${MIXBENCH:-$PWD/mixbench}
if [ ! -d "$MIXBENCH_DATA" ]; then
  echo "note: $MIXBENCH_DATA not found: the tests that read the real corpora (PTB, WikiText-2,"
  echo "      tiny shakespeare) are skipped; clone beside shared/ or set MIXBENCH_DATA to its data folder"
fi
passed=0; failed=0; skipped=()
log=$(mktemp)
# MIXBENCH_TESTS: the tests to run (globs; default every one); make sanitize
# runs the C tests and the CLI tests of build/asan/ with it
for t in ${MIXBENCH_TESTS:-build/tests/*/test_* tests/*/test_*.sh tests/test_*.sh}; do
  [ -e "$t" ] || continue
  name=${t#*tests/}
  echo "== $name"
  start=$(date +%s)
  if [[ $t == *.sh ]]; then bash "$t" >"$log" 2>&1; else "$t" >"$log" 2>&1; fi
  rc=$?
  cat "$log"
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name (exit code $rc)"; f=1
  fi
  passed=$((passed + p)); failed=$((failed + f))
  while IFS= read -r line; do skipped+=("$name: ${line#SKIP }"); done < <(grep '^SKIP ' "$log")
  echo "   ($name: $p passed, $f failed, $(( $(date +%s) - start ))s)"
done
rm -f "$log"
if [ ${#skipped[@]} -gt 0 ]; then
  echo "${#skipped[@]} skipped:"
  printf '  %s\n' "${skipped[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

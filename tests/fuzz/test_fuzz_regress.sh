#!/usr/bin/env bash
# tests/fuzz/test_fuzz_regress.sh — replays the fuzzers' inputs with the ordinary
# compiler: every seed of tests/fuzz/corpus/NAME/ and every input that once
# crashed a harness (tests/fuzz/regress/NAME/) goes through that harness
# built with tests/fuzz/standalone.c as main (build/fuzz-regress/fuzz_NAME,
# made by `make tests`; no clang, no libFuzzer).  The harnesses check their
# own invariants and abort on a broken one; a run that crashes, aborts or
# exits non-zero is a FAIL naming the input.  `make fuzz` does the fuzzing.
. "$(dirname "$0")/../harness.sh"
names=$(ls tests/fuzz/fuzz_*.c | sed 's|tests/fuzz/fuzz_\(.*\)\.c|\1|')
# built by `make tests`; build them here when this runs alone
missing=0
for name in $names; do [ -x build/fuzz-regress/fuzz_$name ] || missing=1; done
if [ $missing = 1 ] && ! make -s fuzz-regress >/dev/null; then
  echo "FAIL fuzz_regress: make fuzz-regress failed"
  exit 1
fi
log=$T/log
fail=0
for name in $names; do
  for kind in corpus regress; do
    inputs=(tests/fuzz/$kind/"$name"/*)
    if [ ! -e "${inputs[0]}" ]; then
      [ $kind = regress ] && echo "SKIP fuzz_regress $name: no regression inputs yet"
      continue
    fi
    if build/fuzz-regress/fuzz_"$name" "${inputs[@]}" >"$log" 2>&1; then
      pass "fuzz_regress $name: ${#inputs[@]} $kind inputs"
    else
      rc=$?
      fail "fuzz_regress $name" "exit code $rc on $(grep '^input: ' "$log" | tail -1 | cut -c8-)"
      grep -v '^input: ' "$log" | tail -5
      fail=1
    fi
  done
done
exit $fail

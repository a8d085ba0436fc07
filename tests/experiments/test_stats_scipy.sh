#!/usr/bin/env bash
# tests/experiments/test_stats_scipy.sh -- the intervals, TOST and one-sided
# p-values and Holm adjustments of experiments/stats.c on hand-made seed
# groups (build/tests/experiments/test_stats --dump) against scipy.stats
# (tests/experiments/stats_scipy.py), to 1e-9 relative, in the PyTorch
# cross-check's Python.  Skipped (not passed) without scipy.
. "$(dirname "$0")/../harness.sh"
PY=/usr/bin/python3
BIN=${MIXBENCH_BUILD:-build}/tests/experiments/test_stats
if [ ! -x "$PY" ] || ! "$PY" -c 'import scipy.stats, numpy' >/dev/null 2>&1; then
  echo "SKIP stats_scipy: python3-scipy not installed"
  exit 0
fi
if [ ! -x "$BIN" ]; then
  fail stats_scipy "no $BIN (make tests)"
  exit 1
fi
"$BIN" --dump >"$T/dump" || fail stats_dump "test_stats --dump failed"
"$PY" tests/experiments/stats_scipy.py <"$T/dump" >"$T/out"
while read -r word name rest; do
  if [ "$word" = PASS ]; then pass "$name"; else fail "$name" "$rest"; fi
done <"$T/out"
[ -s "$T/out" ] || fail stats_scipy "no output from stats_scipy.py"

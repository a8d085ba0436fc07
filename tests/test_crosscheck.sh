#!/usr/bin/env bash
# tests/test_crosscheck.sh -- replays short mixbench runs in an independent
# PyTorch reference (tests/crosscheck/) and compares losses, grad norms,
# evaluations and final weights to float32 rounding, for every task (clm,
# mlm, bidir, autoencode, complete) and every mixer the binary knows.
# Skipped (not passed) when PyTorch or the mixbench binary is missing; a
# case whose arch the binary does not know yet prints SKIP.
cd "$(dirname "$0")/.." || exit 2
MIXBENCH=${MIXBENCH:-$PWD/mixbench}
PY=/usr/bin/python3
if [ ! -x "$PY" ] || ! "$PY" -c 'import torch, numpy' >/dev/null 2>&1; then
  echo "SKIP crosscheck: PyTorch not installed"
  exit 0
fi
if [ ! -x "$MIXBENCH" ]; then
  echo "SKIP crosscheck: no mixbench binary at $MIXBENCH (run make mixbench)"
  exit 0
fi
rc=0
"$PY" tests/crosscheck/reference.py || rc=1
"$PY" tests/crosscheck/crosscheck.py --mixbench "$MIXBENCH" "$@" || rc=1
exit $rc

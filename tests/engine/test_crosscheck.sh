#!/usr/bin/env bash
# tests/engine/test_crosscheck.sh -- replays short mixbench runs in an independent
# PyTorch reference (tests/engine/crosscheck/) and compares losses, grad norms,
# evaluations and final weights to float32 rounding, for every task (clm,
# mlm, bidir, autoencode, complete) and every mixer the binary knows.
# Skipped (not passed) when PyTorch or the mixbench binary is missing; a
# case whose arch the binary does not know yet prints SKIP.
. "$(dirname "$0")/../harness.sh"
PY=/usr/bin/python3
if [ ! -x "$PY" ] || ! "$PY" -c 'import torch, numpy' >/dev/null 2>&1; then
  echo "SKIP crosscheck: PyTorch not installed"
  exit 0
fi
if [ ! -x "$MB" ]; then
  echo "SKIP crosscheck: no mixbench binary at $MB (run make mixbench)"
  exit 0
fi
rc=0
"$PY" tests/engine/crosscheck/reference.py || rc=1
"$PY" tests/engine/crosscheck/crosscheck.py --mixbench "$MB" "$@" || rc=1
exit $rc

#!/usr/bin/env bash
# tests/engine/test_crosscheck.sh -- replays short mixbench runs in an independent
# PyTorch reference (tests/engine/crosscheck/) and compares losses, grad norms,
# evaluations and final weights to float32 rounding, for every task (clm,
# mlm, bidir, autoencode, complete) and every mixer the binary knows.
# Also the side-by-side bench (tests/engine/crosscheck/bench_torch.py): its
# PyTorch models against the reference, and one tiny line end to end; and
# bench_torch_infer.py (batch-1 inference) end to end.
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
"$PY" tests/engine/crosscheck/bench_torch.py --check || rc=1
if out=$("$PY" tests/engine/crosscheck/bench_torch.py --mixbench "$MB" --arch cumsum --config P --repeats 2 \
           --seconds 0.2 --json 2>&1) &&
   "$PY" -c 'import json, sys; r = json.loads(sys.argv[1])["results"]; l = r[0]
assert len(r) == 1 and (l["arch"], l["task"], l["config"], l["threads"]) == ("cumsum", "clm", "P", 1), r
assert len(l["ratio_each"]) == 2 and l["ratio_min"] <= l["ratio"] <= l["ratio_max"] and l["ratio"] > 0, l' "$out"
then echo "PASS bench_torch end to end"; else echo "FAIL bench_torch end to end: $out"; rc=1; fi
# batch-1 inference beside PyTorch: one repeat, attention and K=100
if out=$("$PY" tests/engine/crosscheck/bench_torch_infer.py --mixbench "$MB" --repeats 1 --seconds 0.1 \
           --hash 100 --json 2>&1) &&
   "$PY" -c 'import json, sys; r = json.loads(sys.argv[1])["results"]
assert [(l["arch"], l["hash_size"]) for l in r] == [("attention", 0), ("pairconnect", 100)], r
assert all(l["ratio"] > 0 and l["torch_samples_per_s"] > 0 for l in r) and r[0]["mixbench_vs_attention"] == 1, r' "$out"
then echo "PASS bench_torch_infer end to end"; else echo "FAIL bench_torch_infer end to end: $out"; rc=1; fi
"$PY" tests/engine/crosscheck/crosscheck.py --mixbench "$MB" "$@" || rc=1
exit $rc

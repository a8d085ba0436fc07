#!/usr/bin/env bash
# tests/cli/bench_allreduce.sh [R] [CONFIGS] [ARCH] — the gradient exchange's
# cost per step under 2 MPI ranks x 1 thread on this machine, for each way
# of summing (MIXBENCH_ALLREDUCE: ring, mpi, overlap), alternating the
# three R times (default 4) so that a loaded machine's drift hits each
# alike; prints per config and mode the median and the range of the
# exchange's ms per step (overlap: the part not hidden behind backward)
# and of the 2 ranks' tokens/s.  A measurement, not a test (run.sh runs
# test_*.sh only): docs/scale.md quotes its output.
set -u
R=${1:-4}
CONFIGS=${2:-"S M"}
ARCH=${3:-attention}
MB=${MB:-./mixbench}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
for c in $CONFIGS; do
  secs=20; [ "$c" = M ] && secs=40
  for r in $(seq "$R"); do
    for m in ring mpi overlap; do
      MIXBENCH_ALLREDUCE=$m mpirun -q --oversubscribe -np 2 "$MB" bench --arch "$ARCH" --task clm --config "$c" \
        --threads 1 --seconds "$secs" --json >"$out/$c-$m-$r.json" 2>"$out/err" || { cat "$out/err"; exit 1; }
    done
  done
done
python3 - "$out" "$R" "$CONFIGS" <<'PY'
import json, statistics, sys
out, R, configs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
print("%-6s %-8s %28s %28s" % ("config", "mode", "exchange ms/step med [min-max]", "2-rank tokens/s med [min-max]"))
for c in configs:
    for m in ("ring", "mpi", "overlap"):
        rs = [json.load(open("%s/%s-%s-%d.json" % (out, c, m, r)))["results"][0] for r in range(1, R + 1)]
        ms = [x["allreduce_ms_per_step"] for x in rs]
        tk = [x["tokens_per_s"] for x in rs]
        print("%-6s %-8s %10.1f [%6.1f-%6.1f]      %10.0f [%5.0f-%5.0f]" % (
            c, m, statistics.median(ms), min(ms), max(ms), statistics.median(tk), min(tk), max(tk)))
PY
rm -rf "$out"

#!/usr/bin/env bash
# experiments/reproduce.sh — the whole reproduction: queues the twelve presets
# on the shared corpora and runs them two jobs at a time (one thread each),
# then writes the report.  About 80 minutes on 2 cores (the sweeps' estimates
# are printed first).  Run from the repository root; the store and report go
# where the arguments say (default reproduction.db, docs/reproduction.md).
set -eu
DB=${1:-reproduction.db}
MD=${2:-docs/reproduction.md}
export MIXBENCH_DATA=${MIXBENCH_DATA:-$(cd .. && pwd)/shared/data}
MB=${MIXBENCH:-./mixbench}
for p in dispatcher-vs-msa pairconnect-grid pairconnect-hash pairconnect-speed \
         mixer-vs-transformer autoencoder bidirectional completion linear-mixer \
         fft-mlm prefix-models recall; do
  "$MB" sweep "$p" --db "$DB" | grep -E '^(sweep|estimated|queued)'
done
start=$(date +%s)
"$MB" worker --jobs 2 --threads 2 --db "$DB"
echo "reproduction: $(( ($(date +%s) - start) / 60 )) minutes of wall time on $(nproc) cores"
mkdir -p "$(dirname "$MD")"
"$MB" report --db "$DB" --md "$MD"

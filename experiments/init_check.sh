#!/usr/bin/env bash
# init_check.sh — which init lets a model learn?  The init table of
# docs/learn_check.md (SPEC section 5: init = gpt2 | fan_in, emb_std).
#
# Trains attention and the masked mixer under the four inits
#   init=gpt2 emb_std=0.02 (the default), init=gpt2 emb_std=1,
#   init=fan_in emb_std=0.02, init=fan_in emb_std=1
# on two problems, seeds 1, 2 and 3, one thread, into one store:
#   MQAR  builtin:mqar:pairs=4, n 32, d 64, L 2, h 2, batch 32, lr 3e-3,
#         --mqar-steps steps (default 1500): the answer accuracy on the
#         test split (chance 0.25 over the 4 values a query can have seen
#         is not the bar; 0.9 is "recalls", as in learn_check.sh)
#   text  WikiText-2 (--data), d 128, L 4, n 64, default heads and batch,
#         word vocabulary capped at 2048, --steps steps (default 400, the
#         learn check's), evaluated on the first 65,536 tokens of valid
#         and test (eval_tokens): the test loss and its perplexity
# and prints a Markdown table: a row per (problem, arch, init, emb_std),
# each seed's number and their mean.  Runs already in the store (same
# name) are kept, and a run cut short goes on from its last checkpoint
# (`mixbench run --resume`), so an interrupted check resumes.
#
#   experiments/init_check.sh [--data PATH] [--steps N] [--mqar-steps N]
#                             [--archs "A B"] [--db FILE] [--mixbench BIN]
#
# Not for: choosing an init for a study (a study sets init and emb_std as
# keys; see studies/recall.yaml) or comparing architectures.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
data="$(cd "$here/.." && pwd)/shared/data/wikitext-2"
steps=400
mqar_steps=1500
archs="attention mixer"
db=init_check.db
bin="$here/mixbench"

while [ $# -gt 0 ]; do
    case "$1" in
        --data) data=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        --mqar-steps) mqar_steps=$2; shift 2 ;;
        --archs) archs=$2; shift 2 ;;
        --db) db=$2; shift 2 ;;
        --mixbench) bin=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "init_check.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
done
for v in "$steps" "$mqar_steps"; do
    case "$v" in ''|0|*[!0-9]*) echo "init_check.sh: --steps and --mqar-steps want a positive integer, not '$v'" >&2; exit 2 ;; esac
done
[ -x "$bin" ] || { echo "init_check.sh: no mixbench binary at $bin (run make)" >&2; exit 1; }
[ -e "$data" ] || { echo "init_check.sh: no data at $data" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "init_check.sh: needs the sqlite3 command (make deps)" >&2; exit 1; }
for a in $archs; do
    "$bin" sweep "arch=$a" task=clm --dry-run >/dev/null 2>&1 ||
        { echo "init_check.sh: --archs: '$a' is not an architecture with a causal mode" >&2; exit 2; }
done

inits=("gpt2 0.02" "gpt2 1" "fan_in 0.02" "fan_in 1")
mqar_data="builtin:mqar:pairs=4"
mqar_keys=(n_ctx=32 d=64 layers=2 heads=2 batch=32 lr=3e-3)
text_keys=(d=128 layers=4 n_ctx=64 vocab=2048 eval_tokens=65536)

sql() { sqlite3 -batch -noheader "$db" "$@"; }
q() { printf "'%s'" "${1//\'/\'\'}"; }
# a run's name says everything that makes it this check's run
run_name() { echo "init-check $1 $2 $3 $4 s$5 n$6"; }   # at most 63 bytes

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
logs="$db.logs"
mkdir -p "$logs"
start=$(date +%s)

# train PROBLEM ARCH INIT EMB SEED: one run, unless the store has it
train() {
    local prob=$1 arch=$2 init=$3 emb=$4 seed=$5 n name log
    if [ "$prob" = mqar ]; then n=$mqar_steps; else n=$steps; fi
    name=$(run_name "$prob" "$arch" "$init" "$emb" "$seed" "$n")
    if [ -f "$db" ] && [ -n "$(sql "SELECT id FROM results WHERE name = $(q "$name") AND status = 'done' LIMIT 1")" ]; then
        return 0
    fi
    log="$logs/$prob-$arch-$init-$emb-$seed.log"
    # a run cut short (killed, interrupted) goes on from its last checkpoint;
    # one cut before its first is removed (rm and purge: the store is the
    # check's own) and trained afresh
    local cut
    cut=$([ -f "$db" ] && sql "SELECT id FROM results WHERE name = $(q "$name") AND status != 'done' LIMIT 1" || true)
    if [ -n "$cut" ]; then
        if "$bin" run --resume "$cut" --threads 1 --db "$db" >"$log" 2>&1; then
            echo "  $name: resumed: $(grep '^eval  test' "$log" | tail -1)" >&2
            return 0
        elif ! grep -q 'no checkpoint to resume from' "$log" ||
             ! { "$bin" rm "$cut" --db "$db" && "$bin" purge --db "$db"; } >/dev/null; then
            echo "  $name: resume failed: $(tail -1 "$log")" >&2
            return 0
        fi
    fi
    local args=(--arch "$arch" --task clm --steps "$n" --seed "$seed" --threads 1 --db "$db"
                --name "$name" --save "$scratch/model.safetensors" "init=$init" "emb_std=$emb")
    if [ "$prob" = mqar ]; then args+=(--data "$mqar_data" "${mqar_keys[@]}")
    else args+=(--data "$data" "${text_keys[@]}"); fi
    if ! "$bin" run "${args[@]}" >"$log" 2>&1; then
        echo "  $name: run failed: $(tail -1 "$log")" >&2
        return 0
    fi
    rm -f "$scratch/model.safetensors"
    echo "  $name: $(grep '^eval  test' "$log" | tail -1)" >&2
}

for prob in mqar text; do
    for arch in $archs; do
        for ie in "${inits[@]}"; do
            for seed in 1 2 3; do train "$prob" "$arch" ${ie} "$seed"; done
        done
    done
done
echo "init_check: trained in $(( $(date +%s) - start )) s" >&2

echo "MQAR: $mqar_data, n 32, d 64, L 2, h 2, batch 32, lr 3e-3, $mqar_steps steps: answer accuracy (test)."
echo "Text: $data, d 128, L 4, n 64, vocabulary 2048, default heads, batch and lr, $steps steps: test loss (ppl) on the first 65,536 test tokens."
echo "One thread, seeds 1, 2, 3."
echo
echo "| problem | arch | init | emb_std | seed 1 | seed 2 | seed 3 | mean |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
for prob in mqar text; do
    for arch in $archs; do
        for ie in "${inits[@]}"; do
            set -- $ie
            vals=""
            for seed in 1 2 3; do
                if [ "$prob" = mqar ]; then n=$mqar_steps col=test_accuracy; else n=$steps col=test_loss; fi
                v=$(sql "SELECT printf('%.4f', $col) FROM results WHERE name = $(q "$(run_name "$prob" "$arch" "$1" "$2" "$seed" "$n")")
                         AND status = 'done' AND $col IS NOT NULL ORDER BY id DESC LIMIT 1" 2>/dev/null || true)
                vals="$vals ${v:--}"
            done
            awk -v p="$prob" -v a="$arch" -v i="$1" -v e="$2" -v vals="$vals" 'BEGIN {
                n = split(vals, v, " "); line = "| " p " | " a " | " i " | " e; k = 0; s = 0
                for (j = 1; j <= n; j++) {
                    if (v[j] == "-") { line = line " | -"; continue }
                    k++; s += v[j]
                    line = line " | " (p == "text" ? sprintf("%.3f (%.0f)", v[j], exp(v[j])) : v[j])
                }
                if (k == 0) m = "-"
                else m = (p == "text" ? sprintf("%.3f (%.0f)", s / k, exp(s / k)) : sprintf("%.4f", s / k))
                printf "%s | %s%s |\n", line, m, (k < n ? sprintf(" (%d of %d)", k, n) : "") }'
        done
    done
done

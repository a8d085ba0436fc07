#!/usr/bin/env bash
# learn_check.sh — does every architecture learn every task it supports?
#
# Trains each valid (arch, task) pair for a short budget with `mixbench run`
# (d 128, L 4, n 64, default heads and batch, one thread) into one store, and
# prints a Markdown table: the data's unigram entropy, the final valid loss,
# the gap between them and a verdict.  A run whose valid loss stays within
# 0.1 nat of the unigram entropy (or above it) has learned nothing beyond
# token frequencies: NOT LEARNING.  docs/learn_check.md holds the table of a
# full run and the explanation of every NOT LEARNING case.
#
# Then recall: every causal architecture on 4-pair MQAR (builtin:mqar:pairs=4,
# n 32, d 64, L 2, h 2, batch 32, lr 3e-3, init=fan_in emb_std=1, --mqar-steps
# steps, seeds 1, 2, 3), a second table of each seed's answer accuracy (the
# test accuracy of the scored answers), their mean and the mean test loss:
# "recalls" when every seed reaches 0.9, else NOT RECALLING.  Attention
# recalls at this size (SPEC section 5: 0.995-0.998 in 1,500 steps with
# fan_in; at init=gpt2 it stays near chance): a NOT RECALLING attention row
# means the engine or the init broke, one of another architecture is what
# Zoology found.
#
# Not for: comparing architectures (one seed, a tiny budget) or the paper's
# presets (mixbench sweep).
#
#   experiments/learn_check.sh [--data PATH] [--steps N] [--vocab V] [--db FILE]
#                              [--pairs "ARCH:TASK ..."] [--mqar-steps N] [--mixbench BIN]
#
# --vocab caps the word vocabulary (mixbench's vocab= key, reserved ids
# included; 0 = every train word; default 2048).  The output head dominates
# the cost of a step at d 128: with the TinyStories sample's 15,121 words a
# run costs about 3 times the CPU time it does at 2048.  --pairs trains only
# those pairs (to redo some, or to split the check between processes that
# share the store); the table always lists every valid pair.  An MQAR row
# is the pair ARCH:mqar (its three seeds): --pairs "attention:mqar" trains
# only that one, and --pairs without an :mqar pair trains no MQAR run.
# --mqar-steps (default 1500, the budget of SPEC section 5's measurement)
# is MQAR's budget; --steps is the text pairs'.
#
# A run cut short (the check killed) goes on from its last checkpoint
# (`mixbench run --resume`) when the check is run again.
#
# The valid pairs come from mixbench itself (every arch x task its sweep
# validation accepts), so the table follows the CLI's rules.  A pair already
# done in the store with the same data and steps is not trained again: rerun
# with the same --db to finish an interrupted check.  The unigram entropy is
# the store's (results.unigram_nats) when it has one, else computed here from
# the training split (word tokenizer only, as mixbench splits and tokenizes).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
data="$(cd "$here/.." && pwd)/shared/data/tinystories-sample/tinystories_sample.txt"
steps=400
mqar_steps=1500
vocab=2048
only=""
db=learn_check.db
bin="$here/mixbench"

while [ $# -gt 0 ]; do
    case "$1" in
        --data) data=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        --mqar-steps) mqar_steps=$2; shift 2 ;;
        --vocab) vocab=$2; shift 2 ;;
        --pairs) only=$2; shift 2 ;;
        --db) db=$2; shift 2 ;;
        --mixbench) bin=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "learn_check.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[ -x "$bin" ] || { echo "learn_check.sh: no mixbench binary at $bin (run make)" >&2; exit 1; }
[ -e "$data" ] || { echo "learn_check.sh: no data at $data" >&2; exit 1; }
case "$steps" in ''|0|*[!0-9]*) echo "learn_check.sh: --steps wants a positive integer, not '$steps'" >&2; exit 2 ;; esac
case "$mqar_steps" in ''|0|*[!0-9]*) echo "learn_check.sh: --mqar-steps wants a positive integer, not '$mqar_steps'" >&2; exit 2 ;; esac
case "$vocab" in ''|*[!0-9]*) echo "learn_check.sh: --vocab wants an integer (0 = no cap), not '$vocab'" >&2; exit 2 ;; esac
command -v sqlite3 >/dev/null || { echo "learn_check.sh: needs the sqlite3 command (make deps)" >&2; exit 1; }

model_keys=(d=128 layers=4 n_ctx=64)
[ "$vocab" -gt 0 ] && model_keys+=("vocab=$vocab")

# "known: a b c" from mixbench's own refusal of an unknown name (which
# exits non-zero, as it should)
known() {
    { "$bin" sweep "$1=none" --dry-run 2>&1 || true; } | sed -n 's/.*(known: \(.*\)).*/\1/p'
}
archs=$(known arch)
tasks=$(known task)
[ -n "$archs" ] && [ -n "$tasks" ] || { echo "learn_check.sh: could not read the architectures and tasks from $bin" >&2; exit 1; }

# a run's name says everything that makes it this check's run
run_name() { echo "learn-check $1 $2 steps=$steps vocab=$vocab"; }
sql() { sqlite3 -batch -noheader "$db" "$@"; }
q() { printf "'%s'" "${1//\'/\'\'}"; }   # an SQL string literal
# resume_cut NAME LOG: a run of that name cut short (killed, interrupted)
# goes on from its last checkpoint; one cut before its first checkpoint is
# removed (rm, then purge: the check's store is its own) and fails, so that
# the caller trains it afresh, as does no such run
resume_cut() {
    local cut
    cut=$([ -f "$db" ] && sql "SELECT id FROM results WHERE name = $(q "$1") AND status != 'done' LIMIT 1" || true)
    [ -n "$cut" ] || return 1
    "$bin" run --resume "$cut" --threads 1 --db "$db" >"$2" 2>&1 && return 0
    if grep -q 'no checkpoint to resume from' "$2"; then
        "$bin" rm "$cut" --db "$db" >/dev/null && "$bin" purge --db "$db" >/dev/null && return 1
    fi
    echo "  $1: resume failed: $(tail -1 "$2")" >&2
}

# The entropy (nats) of the training split's word frequencies, split and
# tokenized as mixbench does: a folder's train file, or the first
# floor(0.9 L) lines of one file (an unterminated last line counts), split on
# whitespace, one <eos> per line; with a vocabulary cap V, the V - 4 most
# frequent words (ties by byte order) keep their ids and the others become
# <unk>, as engine/data/tokenizer_word.c does.
unigram_from_text() {
    local path=$1 cap=$2 train="" lines=0
    if [ -d "$path" ]; then
        for f in train.txt wiki.train.tokens ptb.train.txt; do
            [ -f "$path/$f" ] && { train="$path/$f"; break; }
        done
        [ -n "$train" ] || { echo "learn_check.sh: $path has no train split" >&2; return 1; }
    else
        train=$path
        lines=$(LC_ALL=C awk 'END { print NR }' "$train")
    fi
    LC_ALL=C awk -v lines="$lines" '
        lines > 0 && NR > int(0.9 * lines) { exit }
        { gsub(/[\r\v\f]/, " "); for (i = 1; i <= NF; i++) count[$i]++; count["<eos>"]++ }
        END { for (w in count) print count[w], w }' "$train" |
    LC_ALL=C sort -k1,1nr -k2,2 |
    LC_ALL=C awk -v keep=$(( cap > 0 ? cap - 4 : -1 )) '
        { c = $1; w = $2; total += c
          if (w != "<eos>" && w != "<unk>" && (keep < 0 || kept < keep)) { kept++; n[w] = c }
          else if (w == "<eos>") n[w] = c
          else unk += c }
        END { if (unk > 0) n["<unk>"] = unk
              for (w in n) { p = n[w] / total; h -= p * log(p) }
              printf "%.4f\n", h }'
}

# a run's checkpoint is not needed here (17 MB each with the full TinyStories
# vocabulary): one scratch file, removed after each run; the logs stay
# beside the store
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
logs="$db.logs"
mkdir -p "$logs"

start=$(date +%s)
pairs=()
for task in $tasks; do
    for arch in $archs; do
        # the same validation a sweep job gets, nothing queued
        "$bin" sweep "arch=$arch" "task=$task" --dry-run >/dev/null 2>&1 || continue
        pairs+=("$arch:$task")
    done
done
# recall: every architecture with a causal mode (the clm pairs), ARCH:mqar
mqar_pairs=()
for pair in "${pairs[@]}"; do
    [ "${pair#*:}" = clm ] && mqar_pairs+=("${pair%%:*}:mqar")
done
for p in $only; do
    case " ${pairs[*]} ${mqar_pairs[*]} " in *" $p "*) ;;
        *) echo "learn_check.sh: --pairs: $p is not a valid pair (valid: ${pairs[*]} ${mqar_pairs[*]})" >&2; exit 2 ;;
    esac
done
echo "learn_check: ${#pairs[@]} valid pairs, $steps steps each, data $data, store $db" >&2

for pair in "${pairs[@]}"; do
    arch=${pair%%:*} task=${pair#*:}
    name=$(run_name "$arch" "$task")
    [ -z "$only" ] || case " $only " in *" $pair "*) ;; *) continue ;; esac
    if [ -f "$db" ] && [ -n "$(sql "SELECT id FROM results WHERE name = $(q "$name") AND data = $(q "$data")
                                    AND status = 'done' LIMIT 1")" ]; then
        echo "  $arch $task: done before, kept" >&2
        continue
    fi
    t0=$(date +%s)
    resume_cut "$name" "$logs/$arch-$task.log" && continue
    if ! "$bin" run --arch "$arch" --task "$task" --data "$data" --steps "$steps" --threads 1 \
            --db "$db" --name "$name" --save "$scratch/model.safetensors" \
            "${model_keys[@]}" >"$logs/$arch-$task.log" 2>&1; then
        echo "  $arch $task: run failed: $(tail -1 "$logs/$arch-$task.log")" >&2
        continue
    fi
    rm -f "$scratch/model.safetensors"
    echo "  $arch $task: $(grep '^eval  valid' "$logs/$arch-$task.log" | tail -1) ($(( $(date +%s) - t0 )) s)" >&2
done

# MQAR: Zoology's recall task at the size SPEC section 5 measured
mqar_data="builtin:mqar:pairs=4"
mqar_keys=(n_ctx=32 d=64 layers=2 heads=2 batch=32 lr=3e-3 init=fan_in emb_std=1)
mqar_name() { echo "learn-check $1 mqar seed=$2 steps=$mqar_steps"; }
for pair in "${mqar_pairs[@]}"; do
    arch=${pair%%:*}
    [ -z "$only" ] || case " $only " in *" $pair "*) ;; *) continue ;; esac
    for seed in 1 2 3; do
        name=$(mqar_name "$arch" "$seed")
        if [ -f "$db" ] && [ -n "$(sql "SELECT id FROM results WHERE name = $(q "$name") AND status = 'done' LIMIT 1")" ]; then
            echo "  $arch mqar seed $seed: done before, kept" >&2
            continue
        fi
        t0=$(date +%s)
        log="$logs/$arch-mqar-$seed.log"
        resume_cut "$name" "$log" && continue
        if ! "$bin" run --arch "$arch" --task clm --data "$mqar_data" --steps "$mqar_steps" --seed "$seed" \
                --threads 1 --db "$db" --name "$name" --save "$scratch/model.safetensors" \
                "${mqar_keys[@]}" >"$log" 2>&1; then
            echo "  $arch mqar seed $seed: run failed: $(tail -1 "$log")" >&2
            continue
        fi
        rm -f "$scratch/model.safetensors"
        echo "  $arch mqar seed $seed: $(grep '^eval  test' "$log" | tail -1) ($(( $(date +%s) - t0 )) s)" >&2
    done
done
echo "learn_check: trained in $(( $(date +%s) - start )) s" >&2

# the store's unigram entropy when it has one (schema v3 fills it per run)
store_unigram=$(sql "SELECT unigram_nats FROM results WHERE data = $(q "$data")
                     AND name LIKE $(q "learn-check % steps=$steps vocab=$vocab")
                     AND unigram_nats IS NOT NULL LIMIT 1" 2>/dev/null || true)
if [ -n "$store_unigram" ]; then
    unigram=$(printf '%.4f' "$store_unigram") source="the store (results.unigram_nats)"
else
    unigram=$(unigram_from_text "$data" "$vocab") source="the training split's word frequencies, computed by learn_check.sh"
fi

vocab_text=$([ "$vocab" -gt 0 ] && echo "word vocabulary capped at $vocab" || echo "full word vocabulary")
echo "Data $data, $vocab_text; unigram entropy $unigram nats: $source."
echo "$steps steps, d 128, L 4, n 64, default heads and batch, one thread."
echo
echo "| arch | task | unigram nats | final valid loss | gap | verdict |"
echo "|---|---|---:|---:|---:|---|"
for pair in "${pairs[@]}"; do
    arch=${pair%%:*} task=${pair#*:}
    loss=$(sql "SELECT valid_loss FROM results WHERE name = $(q "$(run_name "$arch" "$task")")
                AND data = $(q "$data") AND status = 'done' ORDER BY id DESC LIMIT 1" 2>/dev/null || true)
    if [ -z "$loss" ]; then
        printf "| %s | %s | %.3f | - | - | no finished run |\n" "$arch" "$task" "$unigram"
        continue
    fi
    awk -v a="$arch" -v t="$task" -v u="$unigram" -v l="$loss" 'BEGIN {
        gap = u - l
        printf "| %s | %s | %.3f | %.3f | %+.3f | %s |\n", a, t, u, l, gap, (gap > 0.1 ? "learns" : "NOT LEARNING") }'
done

echo
echo "Recall: $mqar_data (4 key-value pairs, 4 queries), n 32, d 64, L 2, h 2, batch 32, lr 3e-3,"
echo "init=fan_in emb_std=1, $mqar_steps steps, one thread; answer accuracy on the test split, seeds 1, 2, 3."
echo
echo "| arch | seed 1 | seed 2 | seed 3 | mean answer accuracy | mean test loss | verdict |"
echo "|---|---:|---:|---:|---:|---:|---|"
for pair in "${mqar_pairs[@]}"; do
    arch=${pair%%:*}
    cells="" accs="" losses=""
    for seed in 1 2 3; do
        row=$(sql "SELECT printf('%.4f %.4f', test_accuracy, test_loss) FROM results
                   WHERE name = $(q "$(mqar_name "$arch" "$seed")") AND status = 'done'
                   AND test_accuracy IS NOT NULL ORDER BY id DESC LIMIT 1" 2>/dev/null || true)
        cells="$cells ${row%% *}" accs="$accs ${row%% *}" losses="$losses ${row##* }"
        [ -n "$row" ] || cells="$cells -"
    done
    awk -v a="$arch" -v cells="$cells" -v accs="$accs" -v losses="$losses" 'BEGIN {
        nc = split(cells, c, " "); na = split(accs, acc, " "); split(losses, loss, " ")
        line = "| " a
        for (i = 1; i <= 3; i++) line = line " | " (i <= nc ? c[i] : "-")
        if (na < 3) { printf "%s | - | - | %d of 3 seeds finished |\n", line, na; exit }
        lo = 1
        for (i = 1; i <= 3; i++) { sa += acc[i]; sl += loss[i]; if (acc[i] < lo) lo = acc[i] }
        printf "%s | %.4f | %.4f | %s |\n", line, sa / 3, sl / 3, (lo >= 0.9 ? "recalls" : "NOT RECALLING") }'
done

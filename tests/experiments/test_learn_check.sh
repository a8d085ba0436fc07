#!/usr/bin/env bash
# tests/experiments/test_learn_check.sh — experiments/learn_check.sh on a tiny generated
# text: the table lists every valid pair, a trained pair gets its numbers,
# the unigram entropy equals an independent computation (Python, from the
# text, split and capped as docs/data.md says), a finished pair is not
# trained again, and bad arguments are refused in one line.  Not for: whether
# the architectures learn (docs/learn_check.md; that takes minutes).
# Prints "PASS name" / "FAIL name" lines for tests/run.sh.
set -u
. "$(dirname "$0")/../harness.sh"

# 300 lines of words with a skewed, repeatable distribution, no final newline
awk 'BEGIN { srand(7); for (l = 0; l < 300; l++) { s = ""
        for (i = 0; i < 1 + l % 9; i++) s = s (i ? " " : "") "w" int(60 * rand() * rand())
        printf "%s%s", s, (l < 299 ? "\n" : "") } }' > "$T/text.txt"

expected=$(python3 - "$T/text.txt" 40 <<'EOF'
import math, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
train = lines[: int(0.9 * len(lines))]
count = {}
for line in train:
    for w in line.split() + [b"<eos>"]:
        count[w] = count.get(w, 0) + 1
cap = int(sys.argv[2])
words = sorted((w for w in count if w not in (b"<eos>", b"<unk>")), key=lambda w: (-count[w], w))
kept = {w: count[w] for w in words[: cap - 4]}
kept[b"<eos>"] = count[b"<eos>"]
unk = sum(count.values()) - sum(kept.values())
total = sum(count.values())
parts = list(kept.values()) + ([unk] if unk else [])
print("%.4f" % -sum(c / total * math.log(c / total) for c in parts))
EOF
)

LC="experiments/learn_check.sh --data $T/text.txt --steps 2 --vocab 40 --db $T/lc.db"
if $LC --pairs "cumsum:clm" > "$T/out" 2> "$T/err"; then pass learn_check_runs; else fail learn_check_runs "$(tail -2 "$T/err")"; fi

# every pair a sweep accepts, of every registered architecture and task
want=0
for a in $("$MB" complete archs); do
  for t in $("$MB" complete tasks); do
    "$MB" sweep "arch=$a" "task=$t" --dry-run >/dev/null 2>&1 && want=$((want + 1))
  done
done
rows=$(grep -v '^| arch |' "$T/out" | grep -c '^| [a-z]* | [a-z]* |')
if [ "$rows" -eq "$want" ] && [ "$want" -ge 27 ]; then pass learn_check_every_pair
else fail learn_check_every_pair "$rows rows, expected $want"; fi

if grep -qE '^\| cumsum \| clm \| [0-9.]+ \| [0-9.]+ \| [-+][0-9.]+ \| (learns|NOT LEARNING) \|$' "$T/out" &&
   grep -q '^| attention | clm | .* | - | - | no finished run |$' "$T/out"; then
    pass learn_check_row
else
    fail learn_check_row "$(grep 'cumsum | clm' "$T/out")"
fi

got=$(sed -n 's/.*unigram entropy \([0-9.]*\) nats.*/\1/p' "$T/out")
if [ -n "$expected" ] && [ "$got" = "$expected" ]; then pass learn_check_unigram; else fail learn_check_unigram "script $got, python $expected"; fi

$LC --pairs "cumsum:clm" > "$T/out2" 2> "$T/err2"
if grep -q 'cumsum clm: done before, kept' "$T/err2" && cmp -s "$T/out" "$T/out2"; then
    pass learn_check_resumes
else
    fail learn_check_resumes "$(cat "$T/err2")"
fi

$LC --pairs "cumsum:mlm" > /dev/null 2> "$T/err3"; rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l < "$T/err3")" -eq 1 ] && grep -q 'cumsum:mlm is not a valid pair' "$T/err3"; then
    pass learn_check_refuses_pair
else
    fail learn_check_refuses_pair "rc $rc: $(cat "$T/err3")"
fi
experiments/learn_check.sh --data "$T/text.txt" --steps x > /dev/null 2> "$T/err4"; rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l < "$T/err4")" -eq 1 ] && grep -q -- '--steps wants' "$T/err4"; then
    pass learn_check_refuses_steps
else
    fail learn_check_refuses_steps "rc $rc: $(cat "$T/err4")"
fi

# experiments/init_check.sh (the init table): one architecture, 2 steps a
# run on the tiny text: 4 inits x 2 problems x 3 seeds stored, 8 table rows
# with their three seeds and a mean, then resumed without training again
IC="experiments/init_check.sh --data $T/text.txt --steps 2 --mqar-steps 2 --archs cumsum --db $T/ic.db"
if $IC > "$T/ic" 2> "$T/icerr"; then
    runs=$(sqlite3 "$T/ic.db" "SELECT count(*) FROM results WHERE status = 'done' AND name LIKE 'init-check %'")
    rows=$(grep -cE '^\| (mqar|text) \| cumsum \| (gpt2|fan_in) \| (0\.02|1) \| [0-9.]+( \([0-9]+\))? \| [0-9.]+( \([0-9]+\))? \| [0-9.]+( \([0-9]+\))? \| [0-9.]+( \([0-9]+\))? \|$' "$T/ic")
    if [ "$runs" -eq 24 ] && [ "$rows" -eq 8 ]; then pass init_check_table
    else fail init_check_table "$runs runs, $rows rows: $(head -12 "$T/ic")"; fi
    $IC > "$T/ic2" 2> "$T/icerr2"
    if cmp -s "$T/ic" "$T/ic2" && [ "$(sqlite3 "$T/ic.db" 'SELECT count(*) FROM results')" -eq 24 ]; then pass init_check_resumes
    else fail init_check_resumes "$(diff "$T/ic" "$T/ic2" | head -5)"; fi
    # a run cut short before its first checkpoint (as if killed at once) is
    # trained again under its name, the other 23 kept
    sqlite3 "$T/ic.db" "UPDATE runs SET status = 'interrupted' WHERE id = 5"
    cut_name=$(sqlite3 "$T/ic.db" "SELECT name FROM runs WHERE id = 5")
    $IC > "$T/ic3" 2> "$T/icerr3"
    again=$(sqlite3 "$T/ic.db" "SELECT count(*) FROM results WHERE name = '$cut_name' AND status = 'done'")
    if [ "$again" -eq 1 ] && [ "$(sqlite3 "$T/ic.db" "SELECT count(*) FROM results WHERE status = 'done'")" -eq 24 ] &&
       [ "$(grep -c '^| ' "$T/ic3")" -eq 9 ] && ! grep -q 'failed' "$T/icerr3"; then
        pass init_check_cut_run_again
    else
        fail init_check_cut_run_again "$again: $(cat "$T/icerr3")"
    fi
else
    fail init_check_table "$(tail -2 "$T/icerr")"
fi
experiments/init_check.sh --archs fft --data "$T/text.txt" > /dev/null 2> "$T/icerr4"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l < "$T/icerr4")" -eq 1 ] && grep -q "'fft' is not an architecture with a causal mode" "$T/icerr4"; then
    pass init_check_refuses_arch
else
    fail init_check_refuses_arch "rc $rc: $(cat "$T/icerr4")"
fi

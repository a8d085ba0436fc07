#!/usr/bin/env bash
# tests/cli/test_swa_cli.sh — sliding-window attention on the command line
# and in the workbench (docs/mixers.md, "swa"): `run --help` names the arch
# and its key; bad windows are refused in one line before anything is
# stored; a short run carries window in `show` and in its checkpoint's
# metadata, and `generate` decodes from it incrementally; a grid over
# window expands; `bench` has its rows (the fixed-size table and --n); the
# New sweep form lists it, and a ticked swa with window=8 among the extra
# keys makes the form's spec.
. "$(dirname "$0")/../harness.sh"
DB="$T/swa.db"

help=$($MB run --help)
if echo "$help" | grep -q "hyena, gla, swa" && echo "$help" | grep -q "swa: window=W"; then pass help_names_swa
else fail help_names_swa "$help"; fi

for w in 0 -3 70000 x; do
  if ! $MB run --arch swa --data builtin:markov --db "$DB" "window=$w" steps=1 2>"$T/err" >/dev/null &&
     one_line "$T/err" && grep -q "window=$w" "$T/err" && [ ! -e "$DB" ]; then pass "refuses[window=$w]"
  else fail "refuses[window=$w]" "$(cat "$T/err")"; fi
done

CK="$T/swa.safetensors"
if $MB run --arch swa --data builtin:markov --db "$DB" --save "$CK" --quiet steps=3 d=16 n_ctx=16 batch=2 \
     window=5 >"$T/run.out" 2>&1; then pass runs; else fail runs "$(tail -3 "$T/run.out")"; fi
$MB show 1 --db "$DB" >"$T/show.out" 2>&1
if grep -q "arch  *swa" "$T/show.out" && grep -qE "window +5( |$)" "$T/show.out"; then pass show_window
else fail show_window "$(head -20 "$T/show.out")"; fi
if head -c 4000 "$CK" | grep -q '"window":"5"'; then pass ckpt_window
else fail ckpt_window "$(head -c 600 "$CK" | tr -c '[:print:]' ' ')"; fi
if $MB generate --ckpt "$CK" -n 8 --stats >"$T/gen.out" 2>"$T/gen.err" && [ -s "$T/gen.out" ] &&
   grep -q "(incremental)" "$T/gen.err"; then pass generate_incremental
else fail generate_incremental "$(cat "$T/gen.out" "$T/gen.err")"; fi

if $MB sweep --db "$T/sw.db" arch=swa window=4,16 steps=5 d=16 n_ctx=16 --dry-run >"$T/sweep.out" 2>&1 &&
   grep -q "\"window\": \"4\"" "$T/sweep.out" && grep -q "\"window\": \"16\"" "$T/sweep.out"; then pass sweep_window_axis
else fail sweep_window_axis "$(cat "$T/sweep.out")"; fi

if $MB bench --arch swa --config P --task mlm --seconds 0.1 >"$T/bench.out" 2>&1 &&
   grep -qE "^swa +P +mlm +[0-9]+ +[0-9]+" "$T/bench.out"; then pass bench_rows
else fail bench_rows "$(cat "$T/bench.out")"; fi
if $MB bench --arch swa --n 8,48 --seconds 0.1 --json >"$T/n.json" 2>"$T/err" &&
   /usr/bin/python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["lengths"]
assert [(x["arch"], x["n"]) for x in l] == [("swa", 8), ("swa", 48)], l
assert all(x["tokens_per_s"] > 0 and x["generate_ms_per_token"] > 0 for x in l), l' "$T/n.json"
then pass bench_lengths; else fail bench_lengths "$(cat "$T/err" "$T/n.json")"; fi

# the New sweep form: swa among the Archs boxes; tick it (Right from
# attention to its place in the registry's order), window=8 as an extra key
ui_setup mbswa
order=$($MB run --arch nosuch 2>&1 | sed -n "s/.*(known: \(.*\))/\1/p")
moves=$(echo "$order" | tr ' ' '\n' | grep -n "^swa$" | cut -d: -f1)
launch F "$T/form.db" C.UTF-8
wait_for F 10 "The store has no runs yet" || true
TM send-keys -t F "$(tab F "New sweep")"
check form_lists_swa F 5 "\[ \]swa"
TM send-keys -t F Down
for _ in $(seq 2 "${moves:-1}"); do TM send-keys -t F Right; done
TM send-keys -t F Space
check form_ticks_swa F 5 "\[x\]swa"
TM send-keys -t F Down Down Down Down Down Enter "window=8 steps=5" Enter
# the spec wraps: its lines joined
if wait_for F 5 "Same as +mixbench sweep arch=attention,swa " &&
   screen F | sed -n '/Same as/,/Jobs/p' | tr -s ' \n' ' ' | grep -q "arch=attention,swa .* window=8 steps=5"
then pass form_spec; else fail form_spec "$(screen F)"; fi
exit $failures

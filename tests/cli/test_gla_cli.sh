#!/usr/bin/env bash
# tests/cli/test_gla_cli.sh — the gla mixer (docs/mixers.md, "gla") where a
# user meets it: `run --help` names it and its keys; a bad gate, a gate_rank
# out of range and the bidirectional task are refused in one line before
# anything is stored; a short run with each gate trains, `show` and the
# checkpoint carry gate and gate_rank, and `generate` decodes from it
# through its recurrent state (incremental); a
# sweep over gate=fixed,data expands to one job each; `bench` has its row;
# and the New sweep form (tmux) queues gla over both gates.
. "$(dirname "$0")/../harness.sh"
DB="$T/gla.db"

help=$($MB run --help)
echo "$help" | grep -q "mamba, hyena, gla" && echo "$help" | grep -q "gla: gate=fixed|data" &&
  echo "$help" | grep -q "gate_rank=R" && pass help_names_gla || fail help_names_gla "$help"

# refused NAME WANT KEY=VALUE...: `run` exits non-zero with one line holding
# WANT, before the store exists
refused() {
  local name=$1 want=$2; shift 2
  $MB run --arch gla --data builtin:markov --db "$DB" steps=1 "$@" 2>"$T/err" >/dev/null && { fail "$name" "accepted"; return; }
  one_line "$T/err" && grep -qF -- "$want" "$T/err" && [ ! -e "$DB" ] && pass "$name" || fail "$name" "$(cat "$T/err")"
}
refused refuses_bad_gate "gate=foo is not one of fixed|data" gate=foo
refused refuses_rank_0 "gate_rank=0 is out of range [1, 256]" gate_rank=0
refused refuses_rank_300 "gate_rank=300 is out of range [1, 256]" gate_rank=300
refused refuses_mlm "task mlm needs a bidirectional mixer; gla is causal only" --task mlm

CK="$T/gla.safetensors"
if $MB run --arch gla --data builtin:markov --db "$DB" --save "$CK" --quiet steps=3 d=16 n_ctx=16 batch=2 \
     gate_rank=5 >"$T/run.out" 2>&1 &&
   $MB run --arch gla --data builtin:markov --db "$DB" --save "$T/fixed.safetensors" --quiet steps=3 d=16 n_ctx=16 \
     batch=2 gate=fixed >>"$T/run.out" 2>&1; then pass runs_both_gates; else fail runs_both_gates "$(tail -3 "$T/run.out")"; fi
$MB show 1 --db "$DB" >"$T/show1.out" 2>&1
$MB show 2 --db "$DB" >"$T/show2.out" 2>&1
if grep -qE "gate +data" "$T/show1.out" && grep -qE "gate_rank +5" "$T/show1.out" &&
   grep -qE "gate +fixed" "$T/show2.out"; then pass show_keys
else fail show_keys "$(grep gate "$T/show1.out" "$T/show2.out")"; fi
if head -c 4000 "$CK" | grep -q '"gate":"data","gate_rank":"5"' &&
   head -c 4000 "$T/fixed.safetensors" | grep -q '"gate":"fixed"'; then pass ckpt_keys
else fail ckpt_keys "$(head -c 600 "$CK" | tr -c '[:print:]' ' ')"; fi
if $MB generate --ckpt "$CK" -n 20 --stats >"$T/gen.out" 2>"$T/gen.err" && [ -s "$T/gen.out" ] &&
   grep -q "(incremental)" "$T/gen.err" &&
   $MB generate --ckpt "$T/fixed.safetensors" -n 20 >>"$T/gen.out" 2>&1; then pass generate
else fail generate "$(tail -3 "$T/gen.out" "$T/gen.err")"; fi

out=$($MB sweep arch=gla gate=fixed,data steps=2 d=16 n_ctx=16 batch=2 --data builtin:markov --db "$T/sw.db" \
  --dry-run 2>&1)
echo "$out" | grep -q "sweep grid: 2 jobs" && echo "$out" | grep -q '"gate": "fixed"' &&
  echo "$out" | grep -q '"gate": "data"' && pass sweep_expands || fail sweep_expands "$out"

if $MB bench --arch gla --config P --seconds 0.2 --json >"$T/bench.json" 2>"$T/bench.err" &&
   /usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["results"]
assert [(l["arch"], l["task"]) for l in r] == [("gla", "clm")], r
assert r[0]["tokens_per_s"] > 0, r' "$T/bench.json"; then pass bench_row
else fail bench_row "$(cat "$T/bench.err") $(head -c 600 "$T/bench.json")"; fi

# --- the New sweep form: attention off, gla on, gate=fixed,data as the axis
ui_setup mbgla
FDB=$T/form.db
launch A "$FDB" C.UTF-8
check welcome A 10 "The store has no runs yet"
new=$(tab A "New sweep")
TM send-keys -t A "$new"
check form A 5 "Archs +\[x\]attention"
TM send-keys -t A Down Space Right Right Right Right Right Right Right Right Right Right Space
check form_gla_on A 5 "\[x\]gla"
check form_attention_off A 5 "\[ \]attention"
TM send-keys -t A Down Down Down Enter C-u "gate=fixed,data" Enter
TM send-keys -t A Down Enter C-u "steps=2" Enter
TM send-keys -t A Down Enter "d=16 n_ctx=16 batch=2 gate_rank=4 threads=1" Enter
check form_jobs A 5 "Queue 2 jobs"
check form_same_as A 5 "mixbench sweep arch=gla task=clm gate=fixed,data steps=2"
TM send-keys -t A Down Down Down Enter
check queued_message A 5 "queued sweep 1 .*2 jobs"
got=$(q "$FDB" "select group_concat(arch || ':' || json_extract(config_json, '$.gate') || ':' ||
                json_extract(config_json, '$.gate_rank'), ' ') from (select * from runs order by id)")
[ "$got" = "gla:fixed:4 gla:data:4" ] && pass form_queues_gates || fail form_queues_gates "$got"
TM kill-session -t A 2>/dev/null
exit $failures

#!/usr/bin/env bash
# tests/cli/test_ssm_cli.sh — the state-space mixers on the command line
# (docs/mixers-ssm.md): bad keys are refused in one line before anything is
# stored; a short mamba run is trained, `show` and its checkpoint carry its
# keys, and `generate` decodes from it; hyena trains and generates.
. "$(dirname "$0")/../harness.sh"
DB="$T/ssm.db"
for kv in state=100000 state=0 expand=0; do
  key=${kv%%=*}
  if ! $MB run --arch mamba --data builtin:markov --db "$DB" "$kv" steps=1 2>"$T/err" >/dev/null &&
     one_line "$T/err" && grep -q "$key" "$T/err" && [ ! -e "$DB" ]; then pass "refuses_$kv"
  else fail "refuses_$kv" "$(cat "$T/err")"; fi
done

CK="$T/mamba.safetensors"
if $MB run --arch mamba --data builtin:markov --db "$DB" --save "$CK" --quiet steps=3 d=16 n_ctx=16 batch=2 \
     state=5 expand=3 >"$T/run.out" 2>&1; then pass mamba_runs; else fail mamba_runs "$(tail -3 "$T/run.out")"; fi
$MB show 1 --db "$DB" >"$T/show.out" 2>&1
if grep -q "state.*5" "$T/show.out" && grep -q "expand.*3" "$T/show.out"; then pass show_keys
else fail show_keys "$(head -20 "$T/show.out")"; fi
if head -c 4000 "$CK" | grep -q '"state":"5"' && head -c 4000 "$CK" | grep -q '"expand":"3"'; then pass ckpt_keys
else fail ckpt_keys "$(head -c 600 "$CK" | tr -c '[:print:]' ' ')"; fi
if $MB generate --ckpt "$CK" -n 5 >"$T/gen.out" 2>&1 && [ -s "$T/gen.out" ]; then pass generate
else fail generate "$(tail -3 "$T/gen.out")"; fi

# hyena: trains, and generates by recomputing its window
HK="$T/hyena.safetensors"
if $MB run --arch hyena --data builtin:markov --db "$DB" --save "$HK" --quiet steps=3 d=16 n_ctx=16 batch=2 \
     >"$T/hrun.out" 2>&1 && $MB generate --ckpt "$HK" -n 20 >"$T/hgen.out" 2>&1 && [ -s "$T/hgen.out" ]; then
  pass hyena_runs_and_generates
else fail hyena_runs_and_generates "$(tail -3 "$T/hrun.out" "$T/hgen.out")"; fi
exit $failures

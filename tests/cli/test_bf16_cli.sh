#!/usr/bin/env bash
# tests/cli/test_bf16_cli.sh — precision=bf16 through the command line: a run
# stores the key with its config (sqlite3 reads it back, `show` prints it),
# a paused bf16 job resumes from its checkpoint as bf16 and ends with the
# numbers of an undisturbed bf16 run, bit for bit, and different ones from
# float32's; a bad value and `bench --bf16` under bad options get one line;
# `bench --bf16 --json` gives both precisions' tokens/s and their ratio.
# SKIPs when precision=bf16 cannot run here (no AVX512-BF16 or no oneDNN).
set -u
. "$(dirname "$0")/../harness.sh"

TINY="data=builtin:stories d=32 heads=2 n_ctx=16 batch=8 log_every=1000 warmup=5 layers=1"

out=$($MB run --arch attention precision=fp16 steps=2 $TINY --db "$T/bad.db" 2>&1); rc=$?
if [ $rc -ne 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "precision=fp16 is not one of f32|bf16|auto"; then
  pass bad_precision_one_line
else
  fail bad_precision_one_line "rc=$rc: $out"
fi

have_bf16=1
if ! $MB run --arch attention precision=bf16 steps=2 $TINY --db "$T/probe.db" --quiet >"$T/probe" 2>&1; then
  grep -q "precision=bf16 needs" "$T/probe" || { fail bf16_run "$(tail -2 "$T/probe")"; exit 0; }
  have_bf16=0
fi

# precision=auto runs on any CPU: bf16 where bf16 runs, f32 elsewhere, and
# the stored config (what `show` prints) says which one ran; the queued row
# keeps "auto" until a worker starts it
want=f32; [ $have_bf16 = 1 ] && want=bf16
$MB run --arch attention precision=auto steps=2 $TINY --db "$T/auto.db" --quiet >"$T/auto" 2>&1
c=$(q "$T/auto.db" "select json_extract(config_json, '\$.precision') from runs where id = 1")
$MB show 1 --db "$T/auto.db" | grep -qE "precision +$want" && [ "$c" = $want ] && pass auto_stores_what_ran ||
  fail auto_stores_what_ran "config_json precision='$c', want $want: $(tail -2 "$T/auto")"
$MB sweep arch=attention precision=auto steps=2 $TINY --db "$T/autoq.db" >/dev/null 2>&1
queued=$(q "$T/autoq.db" "select json_extract(config_json, '\$.precision') from runs where id = 1")
$MB worker --db "$T/autoq.db" --jobs 1 >/dev/null 2>&1
ran=$(q "$T/autoq.db" "select json_extract(config_json, '\$.precision') from runs where id = 1")
[ "$queued" = auto ] && [ "$ran" = $want ] && pass auto_queued_then_resolved ||
  fail auto_queued_then_resolved "queued '$queued', after the worker '$ran', want $want"
if [ $have_bf16 = 1 ]; then
  a=$(q "$T/auto.db" "select printf('%.17g', test_loss) from results")
  b=$(q "$T/probe.db" "select printf('%.17g', test_loss) from results")
  [ -n "$a" ] && [ "$a" = "$b" ] && pass auto_is_bf16_here || fail auto_is_bf16_here "auto $a, bf16 $b"
fi

if [ $have_bf16 = 0 ]; then
  echo "SKIP bf16_cli: $(head -1 "$T/probe")"
  exit 0
fi
c=$(q "$T/probe.db" "select json_extract(config_json, '\$.precision') from runs where id = 1")
$MB show 1 --db "$T/probe.db" | grep -qE "precision +bf16" && [ "$c" = bf16 ] && pass bf16_stored ||
  fail bf16_stored "config_json precision='$c'"

# a running bf16 job pauses with a checkpoint and resumes to the same numbers
DB=$T/p.db
LONG="steps=3000 ckpt_every=50 seed=5 threads=1 precision=bf16 $TINY"
pause_midway "$DB" $LONG
st=$(q "$DB" "select status from runs where id=1")
$MB resume 1 --db "$DB" >/dev/null && $MB worker --db "$DB" --jobs 1 >/dev/null 2>&1
$MB run --db "$T/ref.db" --quiet --arch attention $LONG >/dev/null 2>&1
$MB run --db "$T/f32.db" --quiet --arch attention ${LONG/precision=bf16/precision=f32} >/dev/null 2>&1
a=$(q "$DB" "select printf('%.17g', test_loss) from results where id=1")
b=$(q "$T/ref.db" "select printf('%.17g', test_loss) from results")
f=$(q "$T/f32.db" "select printf('%.17g', test_loss) from results")
if [ "$st" = paused ] && [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$f" ]; then
  pass bf16_pause_resume_same_numbers
else
  fail bf16_pause_resume_same_numbers "status=$st; paused+resumed $a, undisturbed $b, f32 $f"
fi

out=$($MB bench --bf16 --inference 2>&1); rc=$?
[ $rc -ne 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && pass bench_bf16_refusal || fail bench_bf16_refusal "rc=$rc: $out"

# bench --bf16: both precisions of one model in one JSON line, the speedup their ratio
$MB bench --bf16 --arch cumsum --config S --json >"$T/bench.json" 2>"$T/bench.err"
if python3 - "$T/bench.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
(b,) = r["bf16"]
assert (b["arch"], b["config"], b["task"]) == ("cumsum", "S", "clm"), b
assert b["f32_tokens_per_s"] > 0 and b["bf16_tokens_per_s"] > 0, b
assert abs(b["speedup"] - b["bf16_tokens_per_s"] / b["f32_tokens_per_s"]) < 1e-3, b
assert r["sgemm_gflops"] > 0 and b["bf16_peak_bytes"] > 0, r
PY
then pass bench_bf16_json; else fail bench_bf16_json "$(cat "$T/bench.json" "$T/bench.err")"; fi

#!/usr/bin/env bash
# tests/cli/test_cli.sh — the mixbench binary end to end: run, eval, generate,
# ls, show on small problems, and every kind of bad input the CLI must
# refuse with one clear line on stderr, a non-zero exit, and the store left
# intact.  Prints "PASS name" / "FAIL name" lines for tests/run.sh.
set -u
. "$(dirname "$0")/../harness.sh"
DB=$T/runs.db

# expect_error NAME PATTERN CMD...: non-zero exit, exactly one stderr line matching PATTERN
expect_error() {
  local name=$1 pattern=$2; shift 2
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  local lines; lines=$(wc -l <"$T/err")
  if [ $rc -eq 0 ]; then fail "$name" "exit code 0"; return; fi
  if [ "$lines" -ne 1 ]; then fail "$name" "expected one stderr line, got $lines: $(head -3 "$T/err")"; return; fi
  if ! grep -qE "$pattern" "$T/err"; then fail "$name" "stderr '$(cat "$T/err")' does not match '$pattern'"; return; fi
  pass "$name"
}

SMALL="d=32 layers=1 heads=2 n_ctx=16 batch=4 log_every=5"

# --- a good run, then eval / generate / ls / show on it
if $MB run --arch attention --data builtin:stories --steps 20 $SMALL --db "$DB" --save "$T/a.safetensors" >"$T/run.out" 2>&1 \
   && grep -q "eval  test" "$T/run.out" && [ -s "$T/a.safetensors" ]; then pass run_stories; else fail run_stories "$(tail -3 "$T/run.out")"; fi

n=$(sqlite3 "$DB" "select count(*) from metrics where run_id=1")
st=$(sqlite3 "$DB" "select status from runs where id=1")
[ "$n" = 20 ] && [ "$st" = done ] && pass store_has_run || fail store_has_run "metrics=$n status=$st"
[ "$(sqlite3 "$DB" 'pragma journal_mode')" = wal ] && pass store_wal || fail store_wal "not WAL"

# --- the unigram entropy: printed at start, stored once per data/tokenizer/vocab,
# read back (not recomputed) by the next run on the same data
u=$(sqlite3 "$DB" "select printf('%.2f nats (%.2f bits)', unigram_nats, unigram_bits) from datasets where data='builtin:stories'")
if [ -n "$u" ] && grep -q "^unigram entropy $u per token" "$T/run.out"; then pass unigram_printed
else fail unigram_printed "stored '$u', printed '$(grep unigram "$T/run.out")'"; fi
saved=$(sqlite3 "$DB" "select unigram_nats from datasets where data='builtin:stories'")
sqlite3 "$DB" "update datasets set unigram_nats = 1.2345 where data='builtin:stories'"
$MB run --arch attention --data builtin:stories --steps 2 $SMALL --db "$DB" --save "$T/u.safetensors" >"$T/run2.out" 2>&1
rows=$(sqlite3 "$DB" "select count(*) from datasets where data='builtin:stories' and tokenizer='word'")
if [ "$rows" = 1 ] && grep -q "^unigram entropy 1.23 nats" "$T/run2.out"; then pass unigram_stored_once
else fail unigram_stored_once "rows=$rows, second run printed '$(grep unigram "$T/run2.out")'"; fi
sqlite3 "$DB" "update datasets set unigram_nats = $saved where data='builtin:stories'"
# --- batch-1, one-thread inference samples/s measured at the end of every run that ends
# done: printed, stored in runs, carried by results and sweep_results, shown by show
inf=$(sqlite3 "$DB" "select printf('%.1f', infer_samples_per_s) from runs where id=1 and infer_samples_per_s > 0")
res=$(sqlite3 "$DB" "select printf('%.1f', infer_samples_per_s) from results where id=1")
if [ -n "$inf" ] && [ "$inf" = "$res" ] && grep -q "^inference $inf samples/s (batch 1, 1 thread" "$T/run.out" \
   && $MB show 1 --db "$DB" | grep -q "inference $inf samples/s"; then pass infer_stored
else fail infer_stored "runs '$inf', results '$res', printed '$(grep '^inference' "$T/run.out")'"; fi
# --- the estimate names the runs it comes from (docs/experiments.md "Estimates"): runs 1 and 2 of
# this shape measured it, d=48 is scaled from them, cumsum has none (the built-in model's)
$MB sweep arch=attention,cumsum steps=50 $SMALL --data builtin:stories --db "$DB" --dry-run >"$T/est.out" 2>&1
$MB sweep arch=attention steps=50 d=48 layers=1 heads=2 n_ctx=16 batch=4 --data builtin:stories --db "$DB" --dry-run \
  >"$T/est2.out" 2>&1
if grep -Eq "attention [0-9.]+k? tok/s measured by runs? 1(, 2)? \(this shape\)" "$T/est.out" &&
   grep -q "cumsum .* tok/s the built-in model's (" "$T/est.out" &&
   grep -Eq "attention [0-9.]+k? tok/s from runs? 1(, 2)? \(d=32 layers=1 heads=2 n_ctx=16 batch=4, scaled by FLOPs a token\)" \
     "$T/est2.out"; then pass estimate_names_runs
else fail estimate_names_runs "$(grep estimated "$T/est.out" "$T/est2.out")"; fi
if $MB sweep arch=attention,cumsum steps=2 $SMALL --data builtin:stories --db "$DB" >"$T/sweep.out" 2>&1 \
   && $MB worker --jobs 1 --threads 2 --db "$DB" >"$T/worker.out" 2>&1; then
  n=$(sqlite3 "$DB" "select count(*) from sweep_results where status='done' and infer_samples_per_s > 0")
  [ "$n" = 2 ] && pass infer_in_sweep_results || fail infer_in_sweep_results "$n of 2 sweep jobs have it"
else fail infer_in_sweep_results "$(tail -2 "$T/sweep.out" "$T/worker.out")"; fi
gap=$(sqlite3 "$DB" "select printf('%.6f', unigram_nats - best_valid_loss - unigram_gap) from results where id=1")
[ "$gap" = "0.000000" ] || [ "$gap" = "-0.000000" ] && pass unigram_gap_in_results || fail unigram_gap_in_results "unigram_nats - best_valid - gap = $gap"

if $MB eval --ckpt "$T/a.safetensors" --data builtin:stories --split test --json >"$T/eval.json" 2>&1 \
   && grep -q '"loss"' "$T/eval.json"; then
  # the stored test loss equals what eval recomputes from the checkpoint
  stored=$(sqlite3 "$DB" "select printf('%.5f', loss) from evals where run_id=1 and split='test'")
  got=$(sed -E 's/.*"loss": ([0-9.e+-]+).*/\1/' "$T/eval.json" | xargs printf '%.5f')
  [ "$stored" = "$got" ] && pass eval_matches_run || fail eval_matches_run "stored $stored, eval $got"
else fail eval_matches_run "$(cat "$T/eval.json")"; fi

if $MB generate --ckpt "$T/a.safetensors" --prompt "once upon a time" -n 12 --seed 3 >"$T/gen.out" 2>&1 \
   && [ "$(wc -w <"$T/gen.out")" -ge 12 ]; then pass generate; else fail generate "$(cat "$T/gen.out")"; fi
$MB generate --ckpt "$T/a.safetensors" --prompt "once upon a time" -n 12 --seed 3 >"$T/gen2.out" 2>&1
cmp -s "$T/gen.out" "$T/gen2.out" && pass generate_seeded || fail generate_seeded "two runs with one seed differ"

$MB ls --db "$DB" >"$T/ls.out" 2>&1 && grep -q attention "$T/ls.out" && pass ls || fail ls "$(cat "$T/ls.out")"
$MB show 1 --db "$DB" >"$T/show.out" 2>&1 && grep -q "test" "$T/show.out" && pass show || fail show "$(head -5 "$T/show.out")"

# --- bad input: one line, non-zero, nothing stored damaged
before=$(sqlite3 "$DB" "select count(*) from runs; select count(*) from metrics; select count(*) from evals")
expect_error missing_data 'nonexistent' $MB run --data "$T/nonexistent" --db "$DB" --steps 2
expect_error unknown_arch "unknown architecture 'transformerxl'" $MB run --arch transformerxl --data builtin:stories --db "$DB"
expect_error unknown_task "unknown task" $MB run --task summarize --data builtin:stories --db "$DB"
expect_error empty_option_value "option --steps needs a value" $MB run --steps= --data builtin:stories --db "$DB"
expect_error unknown_short_option "unknown option -x" $MB generate -x 1
expect_error short_option_needs_value "option -n needs a value" $MB generate -n
expect_error unknown_option "unknown option --bogus" $MB run --bogus 3 --data builtin:stories --db "$DB"
expect_error bad_value "layers=abc" $MB run layers=abc --data builtin:stories --db "$DB"
expect_error out_of_range "d=0" $MB run d=0 --data builtin:stories --db "$DB"
expect_error heads_divide "not divisible" $MB run d=30 heads=4 --data builtin:stories --db "$DB"
expect_error unknown_key "unknown key 'lyers'" $MB run lyers=2 --data builtin:stories --db "$DB"
expect_error malformed_builtin "builtin" $MB run --data builtin:nosuchcorpus --db "$DB"
expect_error mlm_loss_not_mlm "mlm_loss=all is a loss of task mlm, not of task clm" $MB run mlm_loss=all --data builtin:stories --db "$DB"
expect_error emb_std_negative "emb_std=-1 is out of range" $MB run emb_std=-1 --data builtin:stories --db "$DB"
expect_error wsd_seconds "decay=wsd needs a budget in steps or tokens" $MB run decay=wsd --seconds 5 --data builtin:stories --db "$DB"
expect_error cooldown_zero "cooldown=0 is out of range \\(0, 1\\]" $MB run decay=wsd cooldown=0 --data builtin:stories --db "$DB"
expect_error report_unknown_preset "unknown preset 'nosuch'" $MB report nosuch --db "$DB"
mkdir -p "$T/ids"; printf '2 3 4\n5 6 7\n' >"$T/ids/train.txt"; printf '2 3 99\n' >"$T/ids/valid.txt"; printf '2 3\n' >"$T/ids/test.txt"
expect_error ids_out_of_range 'valid.txt:1' $MB run --data "$T/ids" --tokenizer ids vocab=10 --db "$DB"
head -c 300 "$T/a.safetensors" >"$T/trunc.safetensors"
expect_error truncated_ckpt 'trunc.safetensors' $MB eval --ckpt "$T/trunc.safetensors" --data builtin:stories
printf 'not a checkpoint at all' >"$T/junk.safetensors"
expect_error corrupt_ckpt 'junk.safetensors' $MB eval --ckpt "$T/junk.safetensors" --data builtin:stories
expect_error missing_ckpt 'nope.safetensors' $MB generate --ckpt "$T/nope.safetensors"
expect_error bad_split "split" $MB eval --ckpt "$T/a.safetensors" --data builtin:stories --split dev
expect_error show_unknown_run "99" $MB show 99 --db "$DB"
expect_error unknown_command "unknown command" $MB frobnicate
after=$(sqlite3 "$DB" "select count(*) from runs; select count(*) from metrics; select count(*) from evals")
[ "$before" = "$after" ] && pass bad_input_leaves_store || fail bad_input_leaves_store "before [$before] after [$after]"

# --- fine-tuning: --init takes every model key from the checkpoint and the training
# keys from the command line; a model key that contradicts the checkpoint is refused
$MB run --arch attention --data builtin:stories --steps 150 d=32 layers=1 heads=2 n_ctx=16 batch=16 warmup=10 lr=3e-3 \
  log_every=50 --threads 1 --db "$DB" --save "$T/ft.safetensors" >"$T/ft.out" 2>&1
ft_id=$(sqlite3 "$DB" "select max(id) from runs")
ft_valid=$(sqlite3 "$DB" "select loss from evals where run_id=$ft_id and split='valid'")
# d=32 is given but equals the checkpoint's: fine; the rest is inherited
if $MB run --init "$T/ft.safetensors" --data builtin:stories --steps 2 batch=64 log_every=1 d=32 --threads 1 \
     --db "$DB" >"$T/init.out" 2>&1; then
  id=$(sqlite3 "$DB" "select max(id) from runs")
  shape=$(sqlite3 "$DB" "select d || ' ' || layers || ' ' || heads || ' ' || n_ctx || ' ' || vocab || ' ' || arch from runs where id=$id")
  want=$(sqlite3 "$DB" "select d || ' ' || layers || ' ' || heads || ' ' || n_ctx || ' ' || vocab || ' ' || arch from runs where id=$ft_id")
  step1=$(sed -nE 's/^step 1\/2  loss ([0-9.]+).*/\1/p' "$T/init.out")
  # the loaded weights: step 1 (before any update) is at the checkpoint's valid loss,
  # far below the untrained ln(652) = 6.48
  close=$(awk -v a="$step1" -v b="$ft_valid" 'BEGIN { d = a - b; if (d < 0) d = -d; print (a != "" && d < 0.4 && b < 5.5) ? 1 : 0 }')
  if [ "$shape" = "$want" ] && [ "$close" = 1 ]; then pass init_inherits
  else fail init_inherits "config '$shape' vs '$want', step 1 loss '$step1' vs checkpoint valid $ft_valid"; fi
else fail init_inherits "$(tail -2 "$T/init.out")"; fi
before=$(sqlite3 "$DB" "select count(*) from runs; select count(*) from metrics")
# bench on 2 threads, twice: each line's own ceiling, the 1-thread run, the
# scaling, the repetition with the median tokens/s with the spread, and the
# share of time in matrix products
if $MB bench --arch cumsum --config S --threads 2 --repeat 2 --json >"$T/bench2.json" 2>"$T/bench2.err" &&
   python3 - "$T/bench2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["sgemm_gflops"] > 0 and r["one_thread_tokens_per_s"] > 0, r
assert abs(r["fraction_of_sgemm"] - r["gflops"] / r["sgemm_gflops"]) < 1e-3, r
assert abs(r["scaling"] - r["tokens_per_s"] / (2 * r["one_thread_tokens_per_s"])) < 1e-3, r
each = r["tokens_per_s_each"]
assert r["repeats"] == 2 and len(each) == 2 and len(r["scaling_each"]) == 2, r
assert abs(r["tokens_per_s"] - max(each)) < 0.1, r          # of two, the upper median
assert abs(r["spread"] - (max(each) - min(each)) / max(each)) < 1e-3, r
assert any(abs(f - r["fraction_of_sgemm"]) < 1e-3 for f in r["fraction_of_sgemm_each"]), r
# the time in products: a share of the threads' time, its rate, and the bound they give
assert 0 < r["product_share"] <= 1 and r["product_gflops"] > 0, r
assert abs(r["bound"] - r["fraction_of_sgemm"] / r["product_share"]) < 2e-3, r
PY
then pass bench_threads_scaling; else fail bench_threads_scaling "$(cat "$T/bench2.json" "$T/bench2.err")"; fi
# bench's options are refused before anything is measured
expect_error bench_bad_task '^mixbench: bench: --task must be clm or mlm$' $MB bench --task foo
expect_error bench_bad_config '^mixbench: bench: --config must be S, P or M$' $MB bench --config X
expect_error bench_bad_seconds '^mixbench: bench: --seconds 0 is not 0.1..3600$' $MB bench --seconds 0
expect_error bench_bad_repeat '^mixbench: bench: --repeat 0 is not 1..9$' $MB bench --repeat 0
expect_error bench_repeat_bf16 '^mixbench: bench: --repeat is for the training table' $MB bench --repeat 2 --bf16
expect_error bench_no_causal_fft '^mixbench: bench: fft has no causal mode' $MB bench --arch fft --task clm
expect_error bench_inference_bf16 '^mixbench: bench: --inference and --bf16 are separate modes' $MB bench --inference --bf16
expect_error bench_inference_config '^mixbench: bench: --inference has its own setting .* drop --config$' $MB bench --inference --config S
expect_error init_refuses_key "^mixbench: --init .*ft.safetensors: d=64 contradicts the checkpoint's d=32\$" \
  $MB run --init "$T/ft.safetensors" --data builtin:stories --steps 2 d=64 --db "$DB"
expect_error init_refuses_arch "arch=mixer contradicts the checkpoint's arch=attention" \
  $MB run --init "$T/ft.safetensors" --data builtin:stories --steps 2 --variant linear-mixer --db "$DB"
expect_error init_refuses_tokenizer "tokenizer=char contradicts the checkpoint's tokenizer=word" \
  $MB run --init "$T/ft.safetensors" --data builtin:stories --steps 2 --tokenizer char --db "$DB"
after=$(sqlite3 "$DB" "select count(*) from runs; select count(*) from metrics")
[ "$before" = "$after" ] && pass init_refusal_stores_nothing || fail init_refusal_stores_nothing "before [$before] after [$after]"
# the ids tokenizer: vocab comes from the checkpoint, not from a vocab= on the command line
mkdir -p "$T/ids2"
for f in train valid test; do seq 0 399 | awk '{ printf "%d ", 2 + ($1 * 7) % 18 } END { print "" }' >"$T/ids2/$f.txt"; done
$MB run --data "$T/ids2" --tokenizer ids vocab=20 --steps 5 $SMALL --threads 1 --db "$DB" --save "$T/ids.safetensors" >"$T/ids.out" 2>&1
if $MB run --init "$T/ids.safetensors" --data "$T/ids2" --tokenizer ids --steps 2 --threads 1 --db "$DB" >"$T/ids_init.out" 2>&1 \
   && [ "$(sqlite3 "$DB" "select vocab || ' ' || status from runs where id=(select max(id) from runs)")" = "20 done" ]; then
  pass init_ids_vocab
else fail init_ids_vocab "$(tail -2 "$T/ids_init.out" "$T/ids.out")"; fi

# --- a diverging run is stored as diverged with its metrics kept
$MB run --arch mixer --data builtin:stories $SMALL layers=10 norm=none act=none lr=10 warmup=0 clip=0 decay=constant \
  --steps 200 --db "$DB" >"$T/nan.out" 2>"$T/nan.err"; rc=$?
st=$(sqlite3 "$DB" "select status from runs order by id desc limit 1")
nm=$(sqlite3 "$DB" "select count(*) from metrics where run_id=(select max(id) from runs)")
if [ $rc -ne 0 ] && [ "$st" = diverged ] && [ "$nm" -gt 0 ] && grep -q "NaN" "$T/nan.err" && [ "$(wc -l <"$T/nan.err")" -eq 1 ]; then
  pass nan_diverged; else fail nan_diverged "rc=$rc status=$st metrics=$nm err=$(cat "$T/nan.err")"; fi
[ "$(sqlite3 "$DB" 'pragma integrity_check')" = ok ] && pass integrity || fail integrity "integrity_check failed"

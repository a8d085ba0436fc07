#!/usr/bin/env bash
# test_extend.sh — `mixbench extend RUN tokens=N` (experiments/extend.h):
#   extend_equals_{clm,mlm}_t{1,2}  a decay=wsd run extended to a larger
#                            budget and trained on (run --resume) ends bit for
#                            bit where a run with that budget from the start
#                            ends: every train loss, valid and test
#   extend_keeps_point       a done wsd run keeps its checkpoint at the step
#                            its cool-down starts; the extension continues from
#                            it, and what came after it is gone from the store
#   extend_refused           a missing run, a smaller budget, a cosine run, a
#                            running one, junk, and a swapped checkpoint: one
#                            line each, non-zero, the store unchanged
#   extend_runs_screen       the Runs screen's `e` extends the selected run
#
# Run from the repository root by tests/run.sh; prints PASS/FAIL lines.
. "$(dirname "$0")/../harness.sh"
cd "$T" || exit 2
finals() { q "$1" "select group_concat(split || '=' || loss) from (select split, loss from evals where run_id = $2
                   and step = (select max(step) from evals where run_id = $2) order by split)"; }

for task in clm mlm; do
  for th in 1 2; do
    db=$task$th.db
    S="--arch attention --task $task --data builtin:markov d=32 layers=1 heads=2 n_ctx=16 batch=4 decay=wsd warmup=5 --threads $th --quiet"
    $MB run --db $db $S --tokens 6400 && $MB extend 1 tokens=16000 --db $db >/dev/null &&
      $MB run --resume 1 --db $db --quiet && $MB run --db $db $S --tokens 16000
    a=$(finals $db 1); b=$(finals $db 2)
    same=$(q $db "select count(*) from metrics a join metrics b on a.step = b.step and b.run_id = 2
                  where a.run_id = 1 and a.train_loss = b.train_loss")
    if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$same" = 250 ] && [ "$(q $db "select count(*) from metrics where run_id = 1")" = 250 ]; then
      pass extend_equals_${task}_t$th
    else
      fail extend_equals_${task}_t$th "extended $a, from the start $b, $same equal steps of 250"
    fi
  done
done

# the kept checkpoint and what the extension removes
S="--arch attention --task clm --data builtin:markov d=32 layers=1 heads=2 n_ctx=16 batch=4 decay=wsd warmup=5 --quiet"
$MB run --db k.db $S --steps 100 eval_every=10
kept=$(q k.db "select step from checkpoints where run_id = 1 order by step")
$MB extend 1 steps=300 --db k.db >"$T/x.out" 2>&1
if [ "$(echo $kept)" = "80 100" ] && grep -q "continues from step 80" "$T/x.out" &&
   [ "$(q k.db "select status || ' ' || total_steps || ' ' || resume_step || ' ' || steps_done from runs")" = "queued 300 80 80" ] &&
   [ "$(q k.db "select count(*) from metrics where step > 80") $(q k.db "select count(*) from evals where step > 80")" = "0 0" ] &&
   [ "$(q k.db "select group_concat(step) from checkpoints")" = 80 ] && [ ! -e k.ckpt/run1.safetensors ]; then
  pass extend_keeps_point
else
  fail extend_keeps_point "kept '$kept': $(cat "$T/x.out")"
fi

# refusals
$MB run --db r.db $S --steps 100
$MB run --db r.db --arch attention --task clm --data builtin:markov d=32 layers=1 heads=2 n_ctx=16 batch=4 --quiet --steps 50
$MB run --db other.db $S --steps 100
before=$(dump r.db)
ok=1; bad=""
for a in "99 tokens=99999" "1 steps=50" "1 steps=100" "2 steps=500" "1 lr=3" "1 tokens=lots" "x steps=9" "1"; do
  $MB extend $a --db r.db >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -eq 0 ] || ! one_line "$T/err" || [ -s "$T/out" ]; then ok=0; bad="$bad [$a: $rc $(cat "$T/err")]"; fi
done
grep -q "decay=cosine" <($MB extend 2 steps=500 --db r.db 2>&1) || { ok=0; bad="$bad [cosine message]"; }
# the other store's checkpoint at run 1's extension point
cp other.ckpt/run1-step80.safetensors r.ckpt/run1-step80.safetensors
$MB extend 1 steps=300 --db r.db >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] || ! one_line "$T/err" || ! grep -q "belongs to store .* (other.db)" "$T/err"; then ok=0; bad="$bad [swapped: $(cat "$T/err")]"; fi
[ "$before" = "$(dump r.db)" ] || { ok=0; bad="$bad [store changed]"; }
[ $ok = 1 ] && pass extend_refused || fail extend_refused "$bad"

# the Runs screen's e
$MB run --db u.db $S --steps 100
SOCK=ext$$   # the harness kills its tmux server on exit
tmux -L "$SOCK" new-session -d -x 100 -y 30 "cd $T && $MB --db u.db --jobs 0"
sleep 1
tmux -L "$SOCK" send-keys e
sleep 0.3
prompt=$(tmux -L "$SOCK" capture-pane -p | sed -n 2p)
tmux -L "$SOCK" send-keys C-u "steps=250" Enter
sleep 0.5
said=$(tmux -L "$SOCK" capture-pane -p | tail -2 | head -1)
tmux -L "$SOCK" kill-server 2>/dev/null
if echo "$prompt" | grep -q "extend run 1 to tokens=12800" && echo "$said" | grep -q "run 1 extended to 250 steps" &&
   [ "$(q u.db "select status || ' ' || total_steps from runs")" = "queued 250" ]; then
  pass extend_runs_screen
else
  fail extend_runs_screen "prompt: $prompt / said: $said"
fi

#!/usr/bin/env bash
# tests/ui/test_ui_fixes.sh — screen bugs found by trying the workbench at
# 60x20, 80x24 and 120x36 (issue 26), each checked on the screen it was
# seen on, in tmux, at the sizes where it shows:
#   AE/Bidir   "both train poorly" is not run (not "holds") while attention
#              has no finished run, and a loss above the unigram level
#              reads "above" (not a negative "below")
#   New sweep  the completion preset shows its own corpus as Dataset, not
#              builtin:stories, and queues it; (none) gives the grid's back
#   Compare    the legend names the budget each run used (tokens=, steps=),
#              not the steps a tokens budget overrode
#   Run        an attention run's config lists no pairconnect or fft keys
#   Generate   another model clears the last one's text; "s stop" in the
#              title as in the footer
#   Run, ASCII the smoothed line ('*') is told apart from the unigram rule
#              ('-') in the plot and the legend
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mbfix

# at COLSxROWS: the workbench watching DB (no workers), in LOCALE
launch_at() { # NAME DB COLSxROWS [LOCALE]
  local loc=${4:-C.UTF-8}
  TM kill-session -t "$1" 2>/dev/null
  TM new-session -d -s "$1" -x "${3%x*}" -y "${3#*x}" \
    "env LANG=$loc LC_ALL=$loc TERM=xterm-256color MIXBENCH_DATA=$MIXBENCH_DATA $MB --db $2 --jobs 0"
  wait_for "$1" 10 "Runs" || fail "launch[$3]" "$(screen "$1")"
}
SIZES="60x20 80x24 120x36"

# ---- a completion sweep: the mixer trained, attention paused (0 of 3 done)
S=$T/s.db
$MB sweep --db "$S" completion --data builtin:stories tokens=1280 d=16 layers=1 n_ctx=16 vocab=200 \
  >/dev/null 2>&1 || { fail store "sweep completion"; exit 1; }
$MB pause --db "$S" 4 5 6 >/dev/null 2>&1
timeout 120 $MB worker --db "$S" --jobs 1 --threads 1 >/dev/null 2>&1
[ "$(q "$S" "select group_concat(arch || ':' || status) from runs")" = \
  "mixer:done,mixer:done,mixer:done,attention:paused,attention:paused,attention:paused" ] &&
  pass store_mixer_only || fail store_mixer_only "$(q "$S" "select id, arch, status from runs")"
above=$(q "$S" "select printf('%.3f', avg(test_loss) - max(unigram_nats)) from results where arch = 'mixer'")

for size in $SIZES; do
  launch_at A "$S" "$size"
  TM send-keys -t A 5   # AE/Bidir (its tab label is cut at 60 columns)
  wait_for A 5 "both train poorly|equally well" || true
  if screen A | grep -Eq "^holds +both train poorly"; then
    fail "ae_poorly_not_decided[$size]" "$(screen A)"
  elif screen A | grep -Eq "^not run +both train poorly"; then
    pass "ae_poorly_not_decided[$size]"
  else
    fail "ae_poorly_not_decided[$size]" "no 'not run' verdict: $(screen A)"
  fi
  if screen A | grep -q -- "-0\.[0-9]* below"; then fail "ae_above[$size]" "$(screen A)"
  elif screen A | grep -q "($above above)"; then pass "ae_above[$size]"
  else fail "ae_above[$size]" "no '($above above)': $(screen A)"; fi
done

# ---- New sweep: the completion preset brings its corpus
launch_at B "$T/new.db" 120x36
TM send-keys -t B "$(tab B 'New sweep')"
wait_for B 5 "Dataset +builtin:stories" || fail new_sweep_form "$(screen B)"
TM send-keys -t B Enter
wait_for B 5 "Pick a preset" || fail new_sweep_list "$(screen B)"
TM send-keys -t B Home; sleep 0.3
n=$(screen B | grep -nE "^ *completion " | head -1 | cut -d: -f1)
first=$(screen B | grep -nE "^ *\(none" | head -1 | cut -d: -f1)
for i in $(seq $((n - first))); do TM send-keys -t B Down; done
TM send-keys -t B Enter
ts_path="$MIXBENCH_DATA/tinystories-sample/tinystories_sample.txt"
check new_sweep_preset_data B 5 "Dataset +$(printf '%s' "$ts_path" | cut -c1-40)"
screen B | grep -q -- "--data" && fail new_sweep_no_override "$(screen B)" || pass new_sweep_no_override
TM send-keys -t B Enter; sleep 0.3; TM send-keys -t B Home; sleep 0.2; TM send-keys -t B Enter   # back to (none)
check new_sweep_grid_data B 5 "Dataset +builtin:stories"

# ---- Compare: two runs, a tokens budget and a steps budget
C=$T/c.db
$MB run --db "$C" --arch attention --data builtin:stories d=16 layers=1 n_ctx=16 batch=4 tokens=1280 threads=1 \
  >/dev/null 2>&1 && $MB run --db "$C" --arch attention --data builtin:stories d=16 layers=1 n_ctx=16 batch=4 steps=12 \
  threads=1 >/dev/null 2>&1 || fail compare_runs "mixbench run failed"
for size in 80x24 120x36; do
  launch_at C "$C" "$size"
  TM send-keys -t C " " j " " c
  wait_for C 5 "Compare: 2 picked runs" || true
  if screen C | grep -q "steps=1000"; then fail "compare_budget_legend[$size]" "$(screen C)"
  elif screen C | grep -q "tokens=1280" && screen C | grep -q "steps=12"; then pass "compare_budget_legend[$size]"
  else fail "compare_budget_legend[$size]" "no tokens=1280 / steps=12: $(screen C)"; fi
done

# ---- Run: an attention run's config has no other architecture's keys
for size in $SIZES; do
  launch_at D "$C" "$size"
  TM send-keys -t D Enter
  wait_for D 5 "config" || true
  if screen D | grep -Eq "hash_size=|fft_mode=|pair_reduce=|level_dropout=|cooldown="; then
    fail "run_config_own_keys[$size]" "$(screen D)"
  elif [ "$size" = 60x20 ] || screen D | grep -q "d=16"; then pass "run_config_own_keys[$size]"
  else fail "run_config_own_keys[$size]" "no config shown: $(screen D)"; fi
done

# ---- Run in ASCII: '*' smoothed, '-' unigram (the unigram level put in by hand)
q "$C" "insert or replace into datasets (data, tokenizer, vocab, train_tokens, unigram_nats, unigram_bits)
        select distinct data, tokenizer, vocab, 1000, 6.0, 6.0 / 0.6931471805599453 from runs"
launch_at E "$C" 100x30 C
TM send-keys -t E Enter
check run_ascii_legend E 5 "\\. raw +\\* smoothed +o valid +- unigram"
[ "$(screen E | grep -c '\*')" -ge 3 ] && pass run_ascii_line || fail run_ascii_line "no '*' line: $(screen E)"

# ---- Generate: another model clears the text
launch_at G "$C" 80x24
TM send-keys -t G "$(tab G Generate)"
wait_for G 5 "Prompt" || fail generate_form "$(screen G)"
screen G | grep -q "Esc stop" && fail generate_title "$(screen G)" || pass generate_title
TM send-keys -t G Enter; TM send-keys -t G C-u; TM send-keys -t G -l "once upon"; TM send-keys -t G Enter
wait_for G 10 "tokens in" || fail generate_text "$(screen G)"
check generate_text G 5 "^ once upon"
TM send-keys -t G Up Right     # Model: the next run
wait_for G 5 "run [12] " || true
if screen G | grep -q "^ once upon"; then fail generate_cleared "$(screen G)"; else pass generate_cleared; fi

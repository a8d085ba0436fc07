#!/usr/bin/env bash
# tests/ui/test_ui_runs.sh — the Runs and Run screens of the workbench, driven
# for real in tmux: the welcome of an empty store, `d` queuing the demo
# whose rows start running and progress, Enter opening a run with its
# header and a braille loss curve, `x` switching the x axis, a resize and
# back, X asking before it cancels (the screen still live while it asks, n
# keeps the job), the `/` filter, quitting with q (running jobs go back to the queue
# with a resume checkpoint), a relaunch listing the same runs, and the
# ASCII curve when the locale is not UTF-8; a diverged run says why; the
# workbench killed with SIGKILL mid-training, then relaunched: the job
# resumes from its checkpoint.  At 80 columns: a picked run's '+' and a
# starred run's '*' apart, a line cut to fit ending in "…" (ASCII "~").
#
# A private tmux server (-L) keeps the test away from other sessions; the
# workbench runs one job on one thread to leave the machine's cores alone.
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mbruns
# the step of the first running row of the Runs screen
running_step() { screen "$1" | sed -nE 's/.* running +([0-9]+)\/.*/\1/p' | head -1; }

# --- an empty store: the welcome, then d queues the demo
A=$T/a.db
launch A "$A" C.UTF-8
wait_for A 10 "press d to queue the demo sweep" && pass welcome || fail welcome "$(screen A)"
screen A | grep -q "Tab / 1-8" && pass welcome_names_screens || fail welcome_names_screens "$(screen A)"
TM send-keys -t A d
wait_for A 10 "demo sweep [0-9]+ queued" && pass demo_queued_message || fail demo_queued_message "$(screen A)"
n=$(q "$A" "select count(*) from runs where sweep_id is not null")
[ "$n" -ge 2 ] && pass demo_queued_jobs || fail demo_queued_jobs "runs in the store: $n"
[ "$(q "$A" "select name from sweeps")" = demo ] && pass demo_sweep_name || fail demo_sweep_name "$(q "$A" "select name from sweeps")"
if wait_for A 15 " running +[0-9]+/"; then
  pass demo_row_running
  s1=$(running_step A)
  end=$((SECONDS + 10)); s2=$s1
  while [ $SECONDS -lt $end ] && [ "${s2:-0}" -le "${s1:-0}" ]; do sleep 0.5; s2=$(running_step A); done
  [ -n "$s1" ] && [ "${s2:-0}" -gt "$s1" ] && pass demo_progresses || fail demo_progresses "step $s1 then $s2"
else
  fail demo_row_running "$(screen A)"
fi
TM send-keys -t A q
wait_exit A 15 && pass demo_quit || fail demo_quit "still running after 15 s"
n=$(q "$A" "select count(*) from runs where status = 'running'")
[ "$n" = 0 ] && pass demo_quit_leaves_nothing_running || fail demo_quit_leaves_nothing_running "$n running"

# --- a small sweep of our own: the Run screen, resize, filter, quit, relaunch
B=$T/b.db
$MB sweep --db "$B" arch=attention,cumsum data=builtin:stories d=32 layers=1 heads=2 n_ctx=16 batch=4 \
  steps=200000 eval_every=100 ckpt_every=200 warmup=5 threads=1 >/dev/null 2>&1 \
  || fail sweep_queued "mixbench sweep failed"
launch B "$B" C.UTF-8
wait_for B 15 "^ +1 attention +clm +running" && pass row_running || fail row_running "$(screen B)"
rows_before=$(screen B | grep -E '^[ *]+[0-9]+ [a-z]+ ' | awk '{print $1, $2}' | tr -d '*')
wait_for B 5 "^ +1 attention .*[0-9]\.[0-9]{3}" && pass row_shows_loss || fail row_shows_loss "$(screen B)"
TM send-keys -t B Enter
wait_for B 10 "^ run 1 .*running" && pass run_header || fail run_header "$(screen B)"
screen B | grep -q "params .*threads 1" && pass run_header_params || fail run_header_params "$(screen B)"
end=$((SECONDS + 10)); nb=0
while [ $SECONDS -lt $end ]; do nb=$(screen B | braille); [ "$nb" -ge 3 ] && break; sleep 0.3; done
[ "$nb" -ge 3 ] && pass braille_curve || fail braille_curve "$(screen B)"
# X asks before cancelling; the screen stays live while it asks; n keeps the job
run_step() { screen B | sed -nE 's/^ run [0-9]+ +[a-z]+ +step ([0-9]+).*/\1/p' | head -1; }
TM send-keys -t B X
if wait_for B 5 "cancel run 1 .*\[y/N\]"; then
  s1=$(run_step); sleep 1.5; s2=$(run_step)
  screen B | grep -q "\[y/N\]" && [ -n "$s1" ] && [ "${s2:-0}" -gt "$s1" ] && pass confirm_stays_live ||
    fail confirm_stays_live "step $s1 then $s2: $(screen B)"
  TM send-keys -t B n
  wait_for B 5 "run 1 left as it is" && pass confirm_no_keeps ||
    fail confirm_no_keeps "$(screen B)"
  [ "$(q "$B" "select status from runs where id = 1")" = running ] && pass confirm_no_still_running ||
    fail confirm_no_still_running "$(q "$B" "select status from runs where id = 1")"
else
  fail confirm_asks "$(screen B)"
fi
screen B | grep -q "x: steps" && pass axis_steps || fail axis_steps "$(screen B)"
TM send-keys -t B x
wait_for B 5 "x: tokens" && pass axis_toggles_tokens || fail axis_toggles_tokens "$(screen B)"
TM send-keys -t B x
wait_for B 5 "x: wall" && pass axis_toggles_wall || fail axis_toggles_wall "$(screen B)"
TM resize-window -t B -x 120 -y 40
wait_for B 5 "^ run 1 .*running" && screen B | grep -q "config" && [ "$(screen B | wc -l)" -ge 38 ] \
  && pass resize_120x40 || fail resize_120x40 "$(screen B)"
TM resize-window -t B -x 80 -y 24
wait_for B 5 "^ run 1 .*running" && [ "$(screen B | wc -l)" -le 24 ] && pass resize_back_80x24 \
  || fail resize_back_80x24 "$(screen B)"
TM send-keys -t B 1
wait_for B 5 "^ +2 cumsum" || fail back_to_runs "$(screen B)"
TM send-keys -t B -l /cum
TM send-keys -t B Enter
if wait_for B 5 "filter: cum"; then
  s=$(screen B)
  echo "$s" | grep -Eq "^ +2 cumsum" && ! echo "$s" | grep -Eq "^ +1 attention" && pass filter_narrows \
    || fail filter_narrows "$s"
else
  fail filter_narrows "$(screen B)"
fi
TM send-keys -t B q
wait_exit B 15 && pass quit_exits || fail quit_exits "still running after 15 s"
n=$(q "$B" "select count(*) from runs where status = 'running'")
bad=$(q "$B" "select count(*) from runs where steps_done > 0 and (status != 'queued' or resume_ckpt is null)")
ck=$(q "$B" "select resume_ckpt from runs where id = 1")
[ "$n" = 0 ] && [ "$bad" = 0 ] && [ -n "$ck" ] && [ -e "$ck" ] && pass quit_requeues_with_checkpoint \
  || fail quit_requeues_with_checkpoint "running=$n not requeued=$bad ckpt=$ck"

# --- relaunch without UTF-8: the same runs, an ASCII curve
launch C "$B" C
wait_for C 10 "^ +2 cumsum" || true
rows_after=$(screen C | grep -E '^[ *]+[0-9]+ [a-z]+ ' | awk '{print $1, $2}' | tr -d '*')
[ -n "$rows_before" ] && [ "$rows_before" = "$rows_after" ] && pass relaunch_same_runs \
  || fail relaunch_same_runs "before: $rows_before / after: $rows_after"
TM send-keys -t C Enter
if wait_for C 10 "^ run 1 " && wait_for C 10 "\+-----"; then
  s=$(screen C)
  if echo "$s" | LC_ALL=C grep -q $'[\x80-\xff]' || echo "$s" | grep -q 'M-'; then
    fail ascii_curve "non-ASCII output: $s"
  else
    pass ascii_curve
  fi
else
  fail ascii_curve "$(screen C)"
fi
TM send-keys -t C q
wait_exit C 15 && pass ascii_quit || fail ascii_quit "still running after 15 s"

# --- a diverged run: the line under the table says why, in the run's words
D=$T/d.db
$MB run --arch mixer --data builtin:stories d=32 heads=2 n_ctx=16 batch=4 layers=10 norm=none act=none lr=10 \
  warmup=0 clip=0 decay=constant threads=1 --steps 200 --db "$D" >/dev/null 2>&1
err=$(q "$D" "select error from runs where id = 1")
launch E "$D" C.UTF-8
if [ -n "$err" ] && wait_for E 10 "^ +1 mixer +clm +diverged"; then
  check diverged_reason E 5 "^ run 1 diverged: .*NaN"
else
  fail diverged_reason "error '$err': $(screen E)"
fi
TM send-keys -t E q
wait_exit E 15 && pass diverged_quit || fail diverged_quit "still running after 15 s"

# --- the workbench killed with SIGKILL while a job trains: the store stays
#     consistent, and the next launch resumes the job from its checkpoint
launch F "$B" C.UTF-8
wait_for F 15 "^ +1 attention +clm +running" || fail kill_setup "$(screen F)"
r0=$(q "$B" "select coalesce(resume_step, 0) from runs where id = 1")
end=$((SECONDS + 20)); r1=$r0
while [ $SECONDS -lt $end ] && [ "$r1" -le "$r0" ]; do sleep 0.3; r1=$(q "$B" "select coalesce(resume_step, 0) from runs where id = 1"); done
m1=$(q "$B" "select count(*) from metrics where run_id = 1")
kill -9 "$(TM display-message -p -t F '#{pane_pid}')"
wait_exit F 10 || fail kill_exits "the session outlived its process"
[ "$(q "$B" "pragma integrity_check")" = ok ] && [ "$r1" -gt "$r0" ] && pass kill_store_consistent ||
  fail kill_store_consistent "integrity $(q "$B" "pragma integrity_check"), checkpoint step $r0 -> $r1"
launch G "$B" C.UTF-8
if wait_for G 15 "^ +1 attention +clm +running +[0-9]+/"; then
  s=$(screen G | sed -nE 's/^ +1 attention +clm +running +([0-9]+)\/.*/\1/p')
  m2=$(q "$B" "select count(*) from metrics where run_id = 1")
  [ -n "$s" ] && [ "$s" -ge "$r1" ] && [ "$m2" -ge "$m1" ] && pass kill_resumes_from_checkpoint ||
    fail kill_resumes_from_checkpoint "step $s, checkpoint $r1, metrics $m1 -> $m2"
else
  fail kill_resumes_from_checkpoint "$(screen G)"
fi
TM send-keys -t G q
wait_exit G 15 && pass kill_relaunch_quits || fail kill_relaunch_quits "still running after 15 s"

# --- at 80 columns: a picked run marked '+' (column 0), a starred one '*'
#     (tags column), and the line under the table cut with an ellipsis
#     ("…", ASCII "~") where a long note does not fit
K=$T/k.db
$MB sweep --db "$K" arch=attention,cumsum data=builtin:stories d=16 layers=1 heads=2 n_ctx=8 batch=2 steps=3 \
  threads=1 >/dev/null 2>&1 && $MB worker --db "$K" --jobs 1 --threads 1 >/dev/null 2>&1 &&
  $MB star 1 --db "$K" >/dev/null &&
  $MB note 1 "a note long enough that the line under the Runs table cannot hold it at eighty columns" --db "$K" >/dev/null ||
  fail marks_store "mixbench sweep/worker/star/note failed"
launch K "$K" C.UTF-8
wait_for K 10 "^ +2 cumsum" || fail marks_launch "$(screen K)"
TM send-keys -t K Home ' '
check picked_mark K 5 "^\+ +1 attention .* \* +[^ ]+$"
screen K | grep -qE "^ +2 cumsum" && pass unpicked_unmarked || fail unpicked_unmarked "$(screen K)"
check starred_footer K 3 "space pick \(\+\)  \* star"
check cut_line_ellipsis K 3 "^ run 1 .*…$"
TM send-keys -t K q
wait_exit K 10 || fail marks_quit "$(screen K)"
launch L "$K" C
wait_for L 10 "^ +2 cumsum" || fail marks_launch_ascii "$(screen L)"
check cut_line_ascii L 5 "^ run 1 .*~$"
TM send-keys -t L q
wait_exit L 10 || fail marks_quit_ascii "$(screen L)"

#!/usr/bin/env bash
# test_ckpt_cli.sh — checkpoints that belong to their store, and runs of
# `mixbench run` that can be resumed after a kill, through the binary:
#   two_stores_own_folders   a.db and b.db in one folder write a.ckpt/ and
#                            b.ckpt/; neither overwrites the other's run 1
#   own_as_alone             generate --run / eval --run on each store give
#                            what the same run gives in a folder of its own
#   swapped_refused          another store's file at a run's path: generate,
#                            eval and run --resume refuse it in one line
#                            naming both stores; neither store changes
#   killed_run_interrupted   SIGKILL of `run` after a checkpoint: ls and the
#                            results view read 'interrupted', no worker takes it
#   resume_bitwise           run --resume ends where an undisturbed run ends,
#                            bit for bit (train losses, valid and test)
#   resumed_step             the restart is recorded (resumed_step)
#   resumed_screen           the Run screen of a resumed run (tmux) says
#                            "resumed from STEP" while it replays
#   live_run_refused         run --resume of a run whose process lives:
#                            refused naming its host and pid
#   ckpt_minutes_resume      a run killed after its first time-based
#                            checkpoint (ckpt_minutes) resumes from it to the
#                            undisturbed numbers
#   gc_orphans               gc --dry-run lists the orphans and removes
#                            nothing; gc removes exactly them
#   gc_keep_where            gc --keep none --where id=1 removes run 1's
#                            checkpoints and no other; --where without
#                            --keep or with a bad filter: one line, unchanged
#   missing_refused          export --sweep 99, show 999, pause 999, report
#                            of an unknown preset, eval/generate --run 999,
#                            run --resume 999, gc --keep junk: one line,
#                            non-zero, store unchanged
#   binary_corpus_refused    a binary file as word data: one line, no store
#
# Run from the repository root by tests/run.sh; prints PASS/FAIL lines.
. "$(dirname "$0")/../harness.sh"
cd "$T" || exit 2
SMALL="--task clm --data builtin:markov d=32 layers=1 heads=2 n_ctx=16 batch=4 --quiet"
sum_of() { md5sum <"$1" | cut -d' ' -f1; }

# --- two stores in one folder, and each store's run alone in a folder
mkdir shared alone_a alone_b
(cd shared && $MB run --db a.db --arch attention $SMALL --steps 40 && $MB run --db b.db --arch mixer $SMALL --steps 20)
(cd alone_a && $MB run --db a.db --arch attention $SMALL --steps 40)
(cd alone_b && $MB run --db b.db --arch mixer $SMALL --steps 20)
if [ -f shared/a.ckpt/run1.safetensors ] && [ -f shared/b.ckpt/run1.safetensors ] && [ ! -e shared/mixbench-ckpt ] &&
   [ "$(sum_of shared/a.ckpt/run1.safetensors)" != "$(sum_of shared/b.ckpt/run1.safetensors)" ] &&
   [ "$(q shared/a.db "select path from checkpoints")" = "$T/shared/a.ckpt/run1.safetensors" ]; then
  pass two_stores_own_folders
else
  fail two_stores_own_folders "$(ls -R shared | tr '\n' ' ')"
fi

ok=1
for s in a b; do
  g1=$(cd shared && $MB generate --run 1 --db $s.db --seed 3 -n 30 2>&1)
  g2=$(cd alone_$s && $MB generate --run 1 --db $s.db --seed 3 -n 30 2>&1)
  e1=$(cd shared && $MB eval --run 1 --db $s.db --json 2>&1)
  e2=$(cd alone_$s && $MB eval --run 1 --db $s.db --json 2>&1)
  [ -n "$g1" ] && [ "$g1" = "$g2" ] && [ "$e1" = "$e2" ] && echo "$e1" | grep -q '"loss"' || ok=0
  # eval --run scores the run's own test split as its final evaluation did
  want=$(q shared/$s.db "select printf('%.6f', loss) from evals where split='test'")
  got=$(echo "$e1" | sed 's/.*"loss": \([0-9.]*\).*/\1/' | xargs printf '%.6f')
  [ "$want" = "$got" ] || ok=0
done
[ $ok = 1 ] && pass own_as_alone || fail own_as_alone "$g1 / $g2 / $e1 / $e2 / $want $got"

# --- a run killed after a checkpoint, in each store (a: attention, b: mixer)
kill_after_ckpt() { # DB ARCH STEPS EXTRA...: starts a run, SIGKILLs it after its first checkpoint
  local db=$1 arch=$2 steps=$3; shift 3
  $MB run --db "$db" --arch "$arch" $SMALL --steps "$steps" "$@" >/dev/null 2>&1 &
  local p=$! i
  for i in $(seq 200); do
    [ -n "$(q "$db" "select resume_step from runs where status='running' and resume_step is not null" 2>/dev/null)" ] && break
    sleep 0.05
  done
  kill -9 $p; wait $p 2>/dev/null
  return 0
}
(cd shared && kill_after_ckpt a.db attention 20000 ckpt_every=500; kill_after_ckpt b.db attention 20000 ckpt_every=500)
st=$(cd shared && $MB ls --db a.db | awk '$1 == 2 {print $2}')
view=$(q shared/a.db "select status from results where id = 2")
queued=$(q shared/a.db "select count(*) from runs where queued_at is not null")
if [ "$st" = interrupted ] && [ "$view" = interrupted ] && [ "$queued" = 0 ] &&
   q shared/a.db "select error from runs where id = 2" | grep -q 'run --resume 2'; then
  pass killed_run_interrupted
else
  fail killed_run_interrupted "ls '$st' view '$view' queued $queued: $(q shared/a.db "select error from runs where id = 2")"
fi

# b's resumable checkpoint copied over a's: refused everywhere, nothing changes
ra=$(q shared/a.db "select resume_ckpt from runs where id = 2")
rb=$(q shared/b.db "select resume_ckpt from runs where id = 2")
cp shared/a.ckpt/run1.safetensors "$T/a_run1.keep"; cp "$ra" "$T/a_resume.keep"
cp shared/b.ckpt/run1.safetensors shared/a.ckpt/run1.safetensors; cp "$rb" "$ra"
before_a=$(dump shared/a.db); before_b=$(dump shared/b.db)
ok=1
(cd shared && $MB generate --run 1 --db a.db -n 5) >/dev/null 2>"$T/e1"; [ $? -ne 0 ] || ok=0
(cd shared && $MB eval --run 1 --db a.db) >/dev/null 2>"$T/e2"; [ $? -ne 0 ] || ok=0
(cd shared && $MB run --resume 2 --db a.db --quiet) >/dev/null 2>"$T/e3"; [ $? -ne 0 ] || ok=0
for e in e1 e2 e3; do
  one_line "$T/$e" && grep -q "belongs to store .* (b.db) run .*, this is store .* (a.db) run" "$T/$e" || ok=0
done
[ "$before_a" = "$(dump shared/a.db)" ] && [ "$before_b" = "$(dump shared/b.db)" ] || ok=0
[ $ok = 1 ] && pass swapped_refused || fail swapped_refused "$(cat "$T"/e1 "$T"/e2 "$T"/e3)"
cp "$T/a_run1.keep" shared/a.ckpt/run1.safetensors; cp "$T/a_resume.keep" "$ra"

# --- resume: the same numbers as an undisturbed run with the same budget
(cd shared && $MB run --resume 2 --db a.db --quiet) >"$T/resume.out" 2>&1
(cd alone_a && $MB run --db a.db --arch attention $SMALL --steps 20000 ckpt_every=500)
got=$(q shared/a.db "select group_concat(split || '=' || loss) from (select * from evals where run_id = 2 order by split)")
want=$(q alone_a/a.db "select group_concat(split || '=' || loss) from (select * from evals where run_id = 2 order by split)")
diff_rows=$(sqlite3 shared/a.db "attach 'alone_a/a.db' as o; select count(*) from metrics m join o.metrics n
  on n.step = m.step and n.run_id = 2 where m.run_id = 2 and m.train_loss != n.train_loss")
n_rows=$(q shared/a.db "select count(*) from metrics where run_id = 2")
if [ "$(q shared/a.db "select status from runs where id = 2")" = done ] && [ -n "$got" ] && [ "$got" = "$want" ] &&
   [ "$diff_rows" = 0 ] && [ "$n_rows" = 20000 ]; then
  pass resume_bitwise
else
  fail resume_bitwise "got $got want $want, $diff_rows rows differ of $n_rows: $(cat "$T/resume.out")"
fi
rs=$(q shared/a.db "select resumed_step from runs where id = 2")
[ -n "$rs" ] && [ $((rs % 500)) = 0 ] && pass resumed_step || fail resumed_step "resumed_step '$rs'"

# --- a live run is not resumed from under its process
$MB run --db shared/a.db --arch attention $SMALL --steps 900000 ckpt_every=200 >/dev/null 2>&1 &
live=$!
for i in $(seq 200); do [ -n "$(q shared/a.db "select resume_step from runs where id = 3")" ] && break; sleep 0.05; done
pid=$(q shared/a.db "select owner_pid from runs where id = 3")
(cd shared && $MB run --resume 3 --db a.db --quiet) >/dev/null 2>"$T/live.err"
rc=$?
kill -INT $live 2>/dev/null; wait $live 2>/dev/null
if [ $rc -ne 0 ] && one_line "$T/live.err" && grep -q "is running on $(hostname) as pid $pid" "$T/live.err"; then
  pass live_run_refused
else
  fail live_run_refused "rc $rc pid $pid: $(cat "$T/live.err")"
fi

# --- ckpt_minutes: a checkpoint by training time, no ckpt_every
kill_after_ckpt shared/a.db attention 20000 ckpt_minutes=0.002
id=$(q shared/a.db "select max(id) from runs")
at=$(q shared/a.db "select resume_step from runs where id = $id")
(cd shared && $MB run --resume "$id" --db a.db --quiet) >/dev/null 2>&1
(cd alone_a && $MB run --db a.db --arch attention $SMALL --steps 20000)
got=$(q shared/a.db "select group_concat(loss) from (select loss from evals where run_id = $id order by split)")
want=$(q alone_a/a.db "select group_concat(loss) from (select loss from evals where run_id = (select max(id) from runs) order by split)")
if [ -n "$at" ] && [ "$at" -gt 0 ] && [ -n "$got" ] && [ "$got" = "$want" ]; then
  pass ckpt_minutes_resume
else
  fail ckpt_minutes_resume "checkpoint at step '$at', got '$got' want '$want'"
fi

# --- an interrupted run keeps no CPU seconds of its first part: they are
#     not the run's, and none may outlive the resume
$MB run --db shared/a.db --arch attention $SMALL --steps 20000 ckpt_every=200 >/dev/null 2>&1 &
p=$!
for i in $(seq 200); do
  [ -n "$(q shared/a.db "select resume_step from runs where status='running' and resume_step is not null")" ] && break
  sleep 0.05
done
kill -INT $p; wait $p 2>/dev/null
id=$(q shared/a.db "select max(id) from runs")
first=$(q shared/a.db "select status || ' ' || coalesce(train_cpu_seconds, 'null') from runs where id = $id")
(cd shared && $MB run --resume "$id" --db a.db --quiet) >/dev/null 2>&1
end=$(q shared/a.db "select status || ' ' || coalesce(train_cpu_seconds, 'null') from runs where id = $id")
if [ "$first" = "interrupted null" ] && [ "$end" = "done null" ]; then
  pass interrupted_own_numbers_not_kept
else
  fail interrupted_own_numbers_not_kept "after the interrupt '$first', after the resume '$end'"
fi

# --- the Run screen of a resumed run says from where it replays
mkdir screen
(cd screen && kill_after_ckpt r.db attention 200000 ckpt_every=2000)
$MB run --resume 1 --db screen/r.db --quiet >/dev/null 2>&1 &
resumed=$!
for i in $(seq 100); do [ "$(q screen/r.db "select status from runs where id = 1")" = running ] && break; sleep 0.05; done
SOCK=ckpt$$   # the harness kills its tmux server on exit
tmux -L "$SOCK" new-session -d -x 100 -y 30 "cd $T/screen && $MB --db r.db --jobs 0"
sleep 1
tmux -L "$SOCK" send-keys Enter
shown=""
for i in $(seq 40); do
  shown=$(tmux -L "$SOCK" capture-pane -p | head -3)
  echo "$shown" | grep -q "resumed from" && break
  sleep 0.1
done
tmux -L "$SOCK" kill-server 2>/dev/null
kill -INT $resumed 2>/dev/null; wait $resumed 2>/dev/null
at=$(q screen/r.db "select resumed_step from runs where id = 1")
if [ -n "$at" ] && echo "$shown" | grep -q "run 1  running  step [0-9]*/200000 (resumed from $at)"; then
  pass resumed_screen
else
  fail resumed_screen "resumed_step '$at': $shown"
fi

# --- gc: exactly the orphans
cp shared/a.ckpt/run1.safetensors shared/a.ckpt/stray.safetensors
cp shared/b.ckpt/run1.safetensors shared/a.ckpt/other-store.safetensors
touch -d '2 hours ago' shared/a.ckpt/stray.safetensors shared/a.ckpt/other-store.safetensors
files_before=$(ls shared/a.ckpt | sort | tr '\n' ' ')
(cd shared && $MB gc --db a.db --dry-run) >"$T/gc_dry" 2>&1
files_dry=$(ls shared/a.ckpt | sort | tr '\n' ' ')
(cd shared && $MB gc --db a.db) >"$T/gc" 2>&1
files_after=$(ls shared/a.ckpt | sort | tr '\n' ' ')
if [ "$files_before" = "$files_dry" ] && grep -q "would remove .*stray.safetensors" "$T/gc_dry" &&
   [ "$(grep -c '^would remove' "$T/gc_dry")" = 1 ] && [ "$(grep -c '^removed' "$T/gc")" = 1 ] &&
   [ ! -e shared/a.ckpt/stray.safetensors ] && [ -e shared/a.ckpt/other-store.safetensors ] &&
   grep -q "another store" "$T/gc" &&
   [ "$files_after" = "$(echo "$files_before" | sed 's/stray.safetensors //')" ] &&
   (cd shared && $MB generate --run 1 --db a.db -n 3 >/dev/null 2>&1); then
  pass gc_orphans
else
  fail gc_orphans "$(cat "$T/gc_dry" "$T/gc")"
fi

# --- gc --keep with --where: only the chosen runs' checkpoints go
mkdir keep
(cd keep && for a in attention mixer; do $MB run --db g.db --arch $a $SMALL --steps 40 decay=wsd; done) >/dev/null 2>&1
rows_before=$(q keep/g.db "select group_concat(run_id || ':' || n) from (select run_id, count(*) n from checkpoints group by run_id)")
before=$(dump keep/g.db)
ok=1; bad=""
for c in "gc --where id=1" "gc --keep none --where nosuchkey=3" "gc --keep none --where"; do
  (cd keep && $MB $c --db g.db) >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -eq 0 ] || ! one_line "$T/err"; then ok=0; bad="$bad [$c: rc $rc $(cat "$T/err")]"; fi
done
[ "$before" = "$(dump keep/g.db)" ] || { ok=0; bad="$bad [a refusal changed the store]"; }
(cd keep && $MB gc --keep none --where id=1 --db g.db) >"$T/gc_where" 2>&1
rows_after=$(q keep/g.db "select group_concat(run_id || ':' || n) from (select run_id, count(*) n from checkpoints group by run_id)")
run2_files=$(q keep/g.db "select count(*) from checkpoints where run_id = 2")
gone=$(grep -c "^removed .*run 1 step" "$T/gc_where")
if [ $ok = 1 ] && [ "$rows_after" = "2:$run2_files" ] && [ "$run2_files" -ge 1 ] && [ "$gone" -ge 1 ] &&
   ! grep -q "run 2 step" "$T/gc_where" && [ -z "$(ls keep/g.ckpt | grep '^run1[.-]')" ] &&
   (cd keep && $MB generate --run 2 --db g.db -n 3 >/dev/null 2>&1); then
  pass gc_keep_where
else
  fail gc_keep_where "before '$rows_before' after '$rows_after' $bad $(cat "$T/gc_where")"
fi

# --- commands about what is not there
before=$(dump shared/a.db)
ok=1; bad=""
for c in "export --csv --sweep 99" "export --json --curves --sweep 99" "show 999" "pause 999" "cancel 999" \
         "resume 999" "report no-such-preset" "eval --run 999" "generate --run 999" "run --resume 999" \
         "gc --keep junk"; do
  (cd shared && $MB $c --db a.db) >"$T/out" 2>"$T/err"
  rc=$?
  if [ $rc -eq 0 ] || ! one_line "$T/err" || [ -s "$T/out" ]; then ok=0; bad="$bad [$c: rc $rc $(cat "$T/err" "$T/out")]"; fi
done
[ "$before" = "$(dump shared/a.db)" ] || { ok=0; bad="$bad [store changed]"; }
[ $ok = 1 ] && pass missing_refused || fail missing_refused "$bad"

# --- a binary file is not a corpus
head -c 200000 "$MB" >bin.dat
$MB run --db bin.db --arch attention --data bin.dat --steps 2 >/dev/null 2>"$T/bin.err"
rc=$?
if [ $rc -ne 0 ] && one_line "$T/bin.err" && grep -q "not a text file" "$T/bin.err" && [ ! -e bin.db ] &&
   $MB run --db bin.db --arch attention --data bin.dat --tokenizer char --steps 2 n_ctx=16 --quiet; then
  pass binary_corpus_refused
else
  fail binary_corpus_refused "rc $rc: $(cat "$T/bin.err")"
fi

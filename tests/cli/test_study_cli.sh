#!/usr/bin/env bash
# tests/cli/test_study_cli.sh -- study files from the command line (issue
# 41, experiments/study.c, app/cmd_study.c): `study list` names the
# fourteen built-in studies (the twelve seed presets, zoology and long-context); `study new NAME` writes a skeleton that `study check`
# reads (its jobs, estimate and claims); `sweep FILE.yaml` queues it with
# overrides and stores the file's text with the sweep, so that `report` in
# another process judges the file's claims; the A/A example checks; a bad
# file is refused in one line naming file, line and column, with "did you
# mean", and nothing is queued; an edited file under a queued study's name
# is refused; `study list` lists ./studies sorted, a broken file named so;
# --until-conclusive keeps a study's own cap; the zoology study's min_d
# claims read in words.
set -u
. "$(dirname "$0")/../harness.sh"
REPO=$PWD
cd "$T" || exit 1

got=$("$MB" study list 2>&1 | grep -c "(built in)")
[ "$got" = 14 ] && pass study_list_builtins || fail study_list_builtins "$("$MB" study list 2>&1)"

"$MB" study new myq >"$T/out" 2>&1 && [ -f myq.yaml ] && pass study_new || fail study_new "$(cat "$T/out")"
"$MB" study check myq.yaml >"$T/check" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "^12 jobs:" "$T/check" && grep -q "^estimated time: " "$T/check" &&
  grep -q "^claims: 2" "$T/check" && grep -q "the mixer is the better causal model at n=32 and n=64" "$T/check" &&
  pass study_check_skeleton || fail study_check_skeleton "rc=$rc $(cat "$T/check")"

"$MB" sweep myq.yaml steps=3 d=16 --db "$T/s.db" >"$T/out" 2>&1 && "$MB" worker --db "$T/s.db" --jobs 2 --threads 1 >/dev/null 2>&1
stored=$(q "$T/s.db" "select count(*) from sweeps where instr(study, 'name: myq') > 0")
jobs=$(q "$T/s.db" "select count(*) from runs where status = 'done' and total_steps = 3")
[ "$stored" = 1 ] && [ "$jobs" = 12 ] && pass study_sweep_stored || fail study_sweep_stored "stored=$stored jobs=$jobs $(cat "$T/out")"
# another process, another folder: the claims come from the stored text
mkdir -p "$T/elsewhere" && (cd "$T/elsewhere" && "$MB" report myq --db "$T/s.db") >"$T/report" 2>&1
grep -q "the mixer is the better causal model at n=32 and n=64" "$T/report" && grep -q "mixer and attention within 5%" "$T/report" &&
  pass study_report_claims || fail study_report_claims "$(cat "$T/report")"

# the file edited, same name: refused (the store judges a study's sweeps by one text)
sed 's/mixer and attention within 5%/mixer and attention within 4%/' myq.yaml >myq2.yaml
"$MB" sweep myq2.yaml steps=3 d=16 --db "$T/s.db" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && one_line "$T/err" && grep -q "myq2.yaml: sweep 1 of this store was queued from a study called 'myq' with other text" "$T/err" &&
  [ "$(q "$T/s.db" "select count(*) from sweeps")" = 1 ] && pass study_edited_refused || fail study_edited_refused "rc=$rc $(cat "$T/err")"

# ./studies: its files sorted after the built-in ones, one that does not read named so
mkdir -p studies && cp myq.yaml studies/ && printf 'name: broken\naxes:\n  arch: [mixer\n' >studies/broken.yaml
"$MB" study list >"$T/list" 2>&1
tail -2 "$T/list" | head -1 | grep -q "^broken.yaml  *-  *studies/broken.yaml: does not read: studies/broken.yaml:4:1: YAML: " &&
  tail -1 "$T/list" | grep -q "^myq  *2  *studies/myq.yaml: my question$" && pass study_list_files ||
  fail study_list_files "$(cat "$T/list")"

"$MB" study check "$REPO/studies/examples/aa-attention.yaml" >"$T/aa" 2>&1 &&
  grep -q "^claims: 2" "$T/aa" && pass study_check_aa || fail study_check_aa "$(cat "$T/aa")"
# the study's own cap (max_hours: 1) holds when --until-conclusive comes without --max-hours
"$MB" sweep "$REPO/studies/examples/aa-attention.yaml" --until-conclusive --dry-run --db "$T/d.db" >"$T/aa" 2>&1
grep -q "at most 1.0 CPU hours" "$T/aa" && pass study_cap_kept || fail study_cap_kept "$(cat "$T/aa")"
"$MB" study check zoology >"$T/zoo" 2>&1 &&
  grep -q "^claims: 3" "$T/zoo" && grep -q "min_d: the smallest d at which answer_accuracy is at least 0.99" "$T/zoo" &&
  grep -q "nearer to \[arch=attention\]'s than \[arch=hyena\]'s" "$T/zoo" && pass study_check_zoology ||
  fail study_check_zoology "$(cat "$T/zoo")"

# refused: one line, file:line:column, nothing queued
printf 'name: bad\nkeys:\n  task: clm\naxes:\n  arch: [mixer]\nbudgt:\n  steps: 3\n' >bad.yaml
before=$(dump "$T/s.db")
"$MB" study check bad.yaml >"$T/out" 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && one_line "$T/err" && grep -q "bad.yaml:6:1: unknown field 'budgt'.*did you mean 'budget'" "$T/err" &&
  pass study_bad_field || fail study_bad_field "rc=$rc $(cat "$T/err")"
sed 's/margin: 0.05/margin: 2/' myq.yaml >badm.yaml
"$MB" sweep badm.yaml --db "$T/s.db" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && one_line "$T/err" && grep -q "badm.yaml:[0-9]*:[0-9]*: .*margin" "$T/err" && [ "$(dump "$T/s.db")" = "$before" ] &&
  pass study_bad_margin || fail study_bad_margin "rc=$rc $(cat "$T/err")"

#!/usr/bin/env bash
# tests/experiments/test_queue_refuse.sh — a sweep whose data cannot be loaded is refused
# before anything is queued (experiments/sweep_check.h), in one line naming
# the problem: a missing path, a folder without recognisable splits (the
# issue's case: `sweep autoencoder --data <a folder holding one .txt>`), a
# file with too few lines to split, ids out of range, a split shorter than
# a job's window; --dry-run refuses the same.  Good data still queues.
set -u
. "$(dirname "$0")/../harness.sh"

mkdir -p "$T/one"
seq 1 300 | awk '{print "the cat sat on the mat number", $1}' >"$T/one/story.txt"
printf 'a b\nc d\n' >"$T/two_lines.txt"
seq 1 60 | awk '{print 2 + $1 % 40, 3, 4}' >"$T/ids.txt"
echo "2 77 3" >>"$T/ids.txt"
seq 1 200 | awk '{print "the cat sat"}' >"$T/short.txt"

# refuse CASE WANT ARGS...: one line on stderr containing WANT, exit != 0, no store
refuse() {
  local name=$1 want=$2; shift 2
  rm -f "$T/q.db"*
  "$MB" sweep --db "$T/q.db" "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$want" "$T/err" && grep -q "nothing queued" "$T/err" &&
     { [ ! -e "$T/q.db" ] || [ "$(q "$T/q.db" "select count(*) from runs")" = 0 ]; }
  then pass "refuse[$name]"
  else fail "refuse[$name]" "rc=$rc err=$(cat "$T/err") out=$(head -3 "$T/out")"; fi
}
refuse folder_one_txt "has no recognisable splits" autoencoder --data "$T/one"
refuse missing_path "not found" arch=attention steps=5 --data "$T/nowhere"
refuse too_few_lines "too few to split" arch=attention steps=5 --data "$T/two_lines.txt"
refuse ids_out_of_range "outside the vocabulary" arch=attention steps=5 vocab=50 --tokenizer ids --data "$T/ids.txt"
refuse split_shorter_than_window "fewer than one window" arch=attention steps=5 n_ctx=16,512 --data "$T/short.txt"
refuse dry_run_too "has no recognisable splits" autoencoder --dry-run --data "$T/one"

# good data queues, and a preset's datasets are loaded once each (7 jobs, one data)
rm -f "$T/q.db"*
"$MB" sweep --db "$T/q.db" autoencoder tokens=2000 --data "$T/one/story.txt" >"$T/out" 2>"$T/err"; rc=$?
n=$(q "$T/q.db" "select count(*) from runs where status = 'queued'" 2>/dev/null)
[ $rc -eq 0 ] && [ "${n:-0}" -gt 1 ] && pass good_data_queues || fail good_data_queues "rc=$rc n=$n $(cat "$T/err")"

#!/usr/bin/env bash
# tests/cli/test_report_earlier.sh -- a report section whose sweep ran an
# earlier form of its preset (other axes than the preset has now, as the
# long store's recall sweep) says so under its "made by" line, and a sweep
# of the preset as it is does not (experiments/report.c preset_changed).
set -u
. "$(dirname "$0")/../harness.sh"

seq 1 300 | awk '{print "the cat sat on the mat number", $1}' >"$T/story.txt"
DB=$T/a.db
"$MB" sweep --db "$DB" autoencoder tokens=2000 --data "$T/story.txt" >/dev/null 2>&1
sqlite3 "$DB" "update runs set status = 'done'"
"$MB" report autoencoder --db "$DB" >"$T/now" 2>&1
grep -q "earlier form of the preset" "$T/now" && fail report_current_form "$(cat "$T/now")" || pass report_current_form
# the runs carry an axis the preset does not have
sqlite3 "$DB" "update runs set coords_json = json_set(coords_json, '$.width', '7')"
"$MB" report autoencoder --db "$DB" >"$T/then" 2>&1
grep -q "^  an earlier form of the preset (axes .*width.*): the description above is autoencoder as it is now" "$T/then" &&
  pass report_earlier_form || fail report_earlier_form "$(head -20 "$T/then")"

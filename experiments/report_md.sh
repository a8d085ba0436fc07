# experiments/report_md.sh — what reproduce.sh and reproduce_long.sh share
# (sourced, not run): the report sections of a store's presets and the
# hand-written discussion after them.
#   report_sections DB DISCUSSION   prints `mixbench report --md` of DB, its
#                                   headings one level down, then the
#                                   DISCUSSION file (when there is one)
report_sections() {
  local db=$1 discussion=$2 tmp
  tmp=$(mktemp)
  "$MB" report --db "$db" --md "$tmp" >/dev/null
  sed 's/^# /## /' "$tmp"
  rm -f "$tmp"
  echo
  [ -f "$discussion" ] && cat "$discussion"
  return 0
}

# experiments/report_md.sh — what reproduce.sh and reproduce_long.sh share
# (sourced, not run): the report sections of a store's presets, with their
# figures, and the hand-written discussion after them.
#   report_sections DB DISCUSSION MD   prints `mixbench report --md` of DB, its
#                                      headings one level down, then the
#                                      DISCUSSION file (when there is one); the
#                                      figures (SVG) go to MD's folder,
#                                      figures/NAME/ (MD = NAME.md), made anew,
#                                      and the sections link them from there
report_sections() {
  local db=$1 discussion=$2 md=$3 dir name tmp
  dir=$(dirname "$md")
  name=$(basename "$md" .md)
  mkdir -p "$dir"
  rm -rf "${dir:?}/figures/$name"
  tmp=$(mktemp "$dir/.report.XXXXXX")
  "$MB" report --db "$db" --md "$tmp" --figures "figures/$name" >/dev/null || { rm -f "$tmp"; return 1; }
  sed 's/^# /## /' "$tmp"
  rm -f "$tmp"
  echo
  [ -f "$discussion" ] && cat "$discussion"
  return 0
}

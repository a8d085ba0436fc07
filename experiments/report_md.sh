# experiments/report_md.sh — what reproduce.sh and reproduce_long.sh share
# (sourced, not run): the report sections of a store's presets, with their
# figures, and the hand-written discussion after them.
#   report_sections DB DISCUSSION MD [PRESET...]
#                                      prints `mixbench report --md` of DB (of
#                                      the PRESETs named, else every one), its
#                                      headings one level down, then the
#                                      DISCUSSION file (when there is one); the
#                                      figures (SVG) go to MD's folder,
#                                      figures/NAME/ (MD = NAME.md), made anew,
#                                      and the sections link them from there
#   study_section DB STUDY MD          prints STUDY's section of DB (a store of
#                                      its own: experiments/study.sh) without
#                                      the report's preamble, its figures beside
#                                      report_sections' (call it after that)
report_sections() {
  local db=$1 discussion=$2 md=$3 dir name tmp
  shift 3
  dir=$(dirname "$md")
  name=$(basename "$md" .md)
  mkdir -p "$dir"
  rm -rf "${dir:?}/figures/$name"
  tmp=$(mktemp "$dir/.report.XXXXXX")
  "$MB" report "$@" --db "$db" --md "$tmp" --figures "figures/$name" >/dev/null || { rm -f "$tmp"; return 1; }
  sed 's/^# /## /' "$tmp"
  rm -f "$tmp"
  echo
  [ -f "$discussion" ] && cat "$discussion"
  return 0
}

study_section() {
  local db=$1 study=$2 md=$3 dir tmp
  dir=$(dirname "$md")
  tmp=$(mktemp "$dir/.report.XXXXXX")
  "$MB" report "$study" --db "$db" --md "$tmp" --figures "figures/$(basename "$md" .md)" >/dev/null ||
    { rm -f "$tmp"; return 1; }
  awk 'f || /^## /{ f = 1; print }' "$tmp"
  rm -f "$tmp"
  echo
  return 0
}

#!/usr/bin/env bash
# tests/cli/test_help.sh — the command line's habits (issue 26): `--help`
# (or -h, anywhere) on every command prints its usage, what it does, its
# options and an example, and exits 0 without touching a store; `mixbench
# help CMD` the same; an unknown one is one line and exit 2; `mixbench
# sweep` alone lists the presets with their jobs and time; `mixbench queue`
# is an aligned table and `--tsv` the raw view for scripts.  `--version`
# (-V) says VERSION; `help --man` is the man page mixbench(1): man renders
# it, and it holds every line of every command's --help (man_renders,
# man_every_command).
set -u
. "$(dirname "$0")/../harness.sh"

cmds=$($MB help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
[ "$(echo "$cmds" | wc -w)" -ge 15 ] && pass help_lists || fail help_lists "$($MB help)"
bad=""
for c in $cmds; do
  out=$(cd "$T" && $MB "$c" --help 2>&1); rc=$?
  first=$(echo "$out" | head -1)
  if [ $rc -ne 0 ] || [[ $first != "usage: mixbench $c"* ]] || ! echo "$out" | grep -q "^example: mixbench $c" ||
     [ "$(echo "$out" | wc -l)" -lt 3 ]; then bad="$bad [$c: rc $rc: $first]"; fi
  [ "$(cd "$T" && $MB "$c" -h | head -1)" = "$first" ] || bad="$bad [$c -h]"
  [ "$(cd "$T" && $MB help "$c" | head -1)" = "$first" ] || bad="$bad [help $c]"
done
[ -z "$bad" ] && pass help_every_command || fail help_every_command "$bad"
ls "$T"/*.db >/dev/null 2>&1 && fail help_touches_nothing "$(ls "$T")" || pass help_touches_nothing
(cd "$T" && $MB sweep layers=1,2 --help) | head -1 | grep -q "^usage: mixbench sweep" && pass help_after_words ||
  fail help_after_words "$(cd "$T" && $MB sweep layers=1,2 --help 2>&1 | head -2)"
$MB help frob >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 2 ] && one_line "$T/err" && grep -q "unknown command 'frob'" "$T/err" && pass help_unknown ||
  fail help_unknown "rc $rc: $(cat "$T/err")"

# sweep alone: every preset, its jobs and a time
out=$(cd "$T" && $MB sweep 2>&1); rc=$?
n=$(echo "$out" | grep -cE "^[a-z-]+ +[0-9]+ +[0-9dhms]+  ")
[ $rc = 0 ] && [ "$n" = 14 ] && echo "$out" | grep -qE "^recall +495 " && echo "$out" | grep -qE "^long-context +102 " && pass sweep_lists_presets ||
  fail sweep_lists_presets "rc $rc, $n presets: $out"

# queue: a table, and --tsv
DB=$T/q.db
$MB sweep --db "$DB" arch=attention,mixer layers=1,2 steps=5 d=16 n_ctx=8 >/dev/null 2>&1
$MB pause --db "$DB" 2 >/dev/null 2>&1
out=$($MB queue --db "$DB")
echo "$out" | head -1 | grep -qE "^ *POS +ID +STATUS +PRI +ARCH +TASK +SWEEP +STEP +POINT" &&
  echo "$out" | grep -qE "^ +1 +1 +queued +0 +attention +clm +grid +0 +layers=1$" &&
  echo "$out" | grep -qE "^ +2 +paused +0 +attention +clm +grid +0 +layers=2$" && pass queue_table ||
  fail queue_table "$out"
tsv=$($MB queue --db "$DB" --tsv)
[ "$(echo "$tsv" | head -1 | awk -F'\t' '{print NF}')" -ge 15 ] && echo "$tsv" | head -1 | grep -q "^position	id	status" &&
  [ "$(echo "$tsv" | wc -l)" = 5 ] && pass queue_tsv || fail queue_tsv "$tsv"

# --version and -V: "mixbench VERSION", the file VERSION (and the checkout's
# git describe when built from one); nothing else needed, no store
mkdir "$T/v"
v=$(cd "$T/v" && $MB --version 2>&1); rc=$?
[ $rc = 0 ] && [[ $v == "mixbench $(cat VERSION)"* ]] && [ "$(echo "$v" | wc -l)" = 1 ] &&
  [ "$(cd "$T/v" && $MB -V 2>&1)" = "$v" ] && [ -z "$(ls "$T/v")" ] && pass version || fail version "rc $rc: $v $(ls "$T/v")"

# the man page: `help --man` is troff that man renders without a warning,
# with the usual sections, and says every line of `mixbench help`'s workbench
# options and of every command's --help (the same texts)
if ! command -v man >/dev/null; then fail man_renders "man not found (make deps installs man-db)"; else
  $MB help --man >"$T/mixbench.1"
  LC_ALL=C MANWIDTH=250 man -l "$T/mixbench.1" >"$T/man.txt" 2>"$T/man.err"; rc=$?
  warn=$(LC_ALL=C groff -man -ww -z "$T/mixbench.1" 2>&1)
  missing=""
  for s in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" FILES ENVIRONMENT "SEE ALSO"; do
    grep -qx "$s" "$T/man.txt" || missing="$missing [$s]"
  done
  [ $rc = 0 ] && [ ! -s "$T/man.err" ] && [ -z "$warn" ] && [ -z "$missing" ] && grep -q "^mixbench $(cat VERSION)" "$T/man.txt" &&
    pass man_renders || fail man_renders "rc $rc: $(cat "$T/man.err") $warn missing:$missing"
  # the rendered page's lines, trimmed, against each help line, trimmed
  sed 's/^ *//; s/ *$//' "$T/man.txt" | sort -u >"$T/man.lines"
  bad=""
  for c in $cmds; do
    grep -qx "$c" "$T/man.lines" || bad="$bad [$c: no section]"
    while IFS= read -r line; do
      line=$(echo "$line" | sed 's/^usage: //; s/^example: //; s/^ *//; s/ *$//')
      [ -z "$line" ] || grep -qxF -- "$line" "$T/man.lines" || bad="$bad [$c: $line]"
    done < <($MB "$c" --help)
  done
  while IFS= read -r line; do
    line=$(echo "$line" | sed 's/^ *//; s/ *$//')
    grep -qxF -- "$line" "$T/man.lines" || bad="$bad [workbench: $line]"
  done < <($MB help | sed -n '1s/^usage: \(.*[^ ]\) *  the workbench$/\1/p')
  [ -z "$bad" ] && pass man_every_command || fail man_every_command "$bad"
fi

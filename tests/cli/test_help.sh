#!/usr/bin/env bash
# tests/cli/test_help.sh — the command line's habits (issue 26): `--help`
# (or -h, anywhere) on every command prints its usage, what it does, its
# options and an example, and exits 0 without touching a store; `mixbench
# help CMD` the same; an unknown one is one line and exit 2; `mixbench
# sweep` alone lists the presets with their jobs and time; `mixbench queue`
# is an aligned table and `--tsv` the raw view for scripts.
set -u
. "$(dirname "$0")/../harness.sh"

cmds=$($MB help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
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
n=$(echo "$out" | grep -cE "^[a-z-]+ +[0-9]+ +[0-9hms]+  ")
[ $rc = 0 ] && [ "$n" = 12 ] && echo "$out" | grep -qE "^recall +24 " && pass sweep_lists_presets ||
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

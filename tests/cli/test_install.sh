#!/usr/bin/env bash
# tests/cli/test_install.sh — the terminal tool's conventions:
#   completion_commands  the bash completion (share/bash-completion/
#                        completions/mixbench, sourced in bash and called as
#                        bash calls it, COMP_WORDS and COMP_CWORD) offers the
#                        commands of `mixbench help` for the first word, the
#                        workbench's options and --version for '-', the
#                        commands after `help`
#   completion_presets   `sweep <TAB>` every preset (`mixbench sweep` lists
#                        them), `sweep mixer-<TAB>` mixer-vs-transformer
#   completion_keys      `sweep lay<TAB>` / `run lay<TAB>` layers= and no
#                        space after it; `run --<TAB>` run's options
#   completion_values    `--arch <TAB>`, `arch=<TAB>`, `--task`, `task=`: the
#                        architectures and tasks (`mixbench complete archs|tasks`)
#   completion_files     `--db <TAB>` files
#   complete_refused     `mixbench complete` of an unknown list or command,
#                        or with words too many: one line, exit 1
#   install              make install DESTDIR=... PREFIX=/usr puts
#                        bin/mixbench, share/man/man1/mixbench.1 and
#                        share/bash-completion/completions/mixbench there;
#                        the installed binary says its --version, man
#                        renders the installed page
#   uninstall            make uninstall with the same DESTDIR and PREFIX
#                        removes the three
set -u
. "$(dirname "$0")/../harness.sh"
ROOT=$PWD

# complete WORD...: the words bash would offer for the command line WORD...
# (the last word is the one being completed), one a line, sorted; on the
# last line "nospace" when the completion asks for no space after the word
complete_words() {
  MB="$MB" ROOT="$ROOT" bash -c '
    . "$ROOT/share/bash-completion/completions/mixbench"
    compopt() { [ "$1 $2" = "-o nospace" ] && nospace=1; }
    COMP_WORDS=("$MB" "${@:1}"); COMP_CWORD=$#; nospace=
    _mixbench
    printf "%s\n" "${COMPREPLY[@]}" | sort
    [ -n "$nospace" ] && echo nospace; true' _ "$@"
}

cmds=$($MB help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | sort)
got=$(complete_words "" | grep -vx help)
first=$(complete_words "-")
after_help=$(complete_words help "" | grep -vx help)
[ -n "$cmds" ] && [ "$got" = "$cmds" ] && [ "$(complete_words sw)" = sweep ] && [ "$after_help" = "$cmds" ] &&
  echo "$first" | grep -qx -- --version && echo "$first" | grep -qx -- --db && echo "$first" | grep -qx -- --jobs &&
  pass completion_commands || fail completion_commands "[$got] [$first] [$after_help]"

presets=$(cd "$T" && $MB sweep | sed -n 's/^\([a-z][a-z-]*\)  *[0-9][0-9]*  .*/\1/p' | sort)
got=$(complete_words sweep "" | grep -v '=$' | grep -v '@paper$')
[ "$(echo "$presets" | wc -l)" -ge 10 ] && [ "$got" = "$presets" ] &&
  [ "$(complete_words sweep mixer-)" = "$(printf 'mixer-vs-transformer\nmixer-vs-transformer@paper')" ] &&
  pass completion_presets || fail completion_presets "[$got] want [$presets]"

run_opts=$(complete_words run --)
[ "$(complete_words sweep lay)" = "$(printf 'layers=\nnospace')" ] && [ "$(complete_words run lay)" = "$(printf 'layers=\nnospace')" ] &&
  complete_words sweep "" | grep -qx "n_ctx=" && complete_words sweep "" | grep -qx "repeats=" &&
  [ -z "$(complete_words sweep layers=1)" ] &&
  echo "$run_opts" | grep -qx -- --arch && echo "$run_opts" | grep -qx -- --resume && ! echo "$run_opts" | grep -qx -- --trials &&
  pass completion_keys || fail completion_keys "[$(complete_words sweep lay)] [$run_opts]"

[ "$(complete_words run --arch att)" = attention ] && [ "$(complete_words run --task ml)" = mlm ] &&
  [ "$(complete_words sweep arch=disp)" = arch=dispatcher ] && [ "$(complete_words run task=autoe)" = task=autoencode ] &&
  [ "$(complete_words run --arch "" | wc -l)" = "$($MB complete archs | wc -l)" ] && [ "$($MB complete archs | wc -l)" -ge 7 ] &&
  $MB complete tasks | grep -qx clm && ! $MB complete archs x 2>/dev/null &&
  pass completion_values || fail completion_values "[$(complete_words run --arch att)] [$(complete_words sweep arch=disp)]"

mkdir -p "$T/c" && touch "$T/c/runs.db" "$T/c/other.txt"
[ "$(complete_words ls --db "$T/c/r")" = "$T/c/runs.db" ] && pass completion_files ||
  fail completion_files "$(complete_words ls --db "$T/c/r")"

# `mixbench complete` with a word it does not know: one line, exit 1
bad=""
for words in "" "frob" "keys extra" "options frob" "options run x"; do
  (cd "$T/c" && $MB complete $words >"$T/out" 2>"$T/err"); rc=$?
  [ $rc = 1 ] && one_line "$T/err" && [ ! -s "$T/out" ] || bad="$bad [$words: rc $rc $(cat "$T/err")]"
done
[ -z "$bad" ] && pass complete_refused || fail complete_refused "$bad"

# ---- make install / uninstall into a staging root
D=$T/stage
out=$(make -s install DESTDIR="$D" PREFIX=/usr 2>&1); rc=$?
files="bin/mixbench share/man/man1/mixbench.1 share/bash-completion/completions/mixbench"
missing=""
for f in $files; do [ -f "$D/usr/$f" ] || missing="$missing $f"; done
v=$("$D/usr/bin/mixbench" --version 2>&1)
[ $rc = 0 ] && [ -z "$missing" ] && [ -x "$D/usr/bin/mixbench" ] && [ "$v" = "$(./mixbench --version)" ] &&
  [[ $v == "mixbench $(cat VERSION)"* ]] && LC_ALL=C man -l "$D/usr/share/man/man1/mixbench.1" 2>/dev/null | grep -q "^SYNOPSIS" &&
  cmp -s "$D/usr/share/bash-completion/completions/mixbench" share/bash-completion/completions/mixbench &&
  pass install || fail install "rc $rc: $out; missing:$missing; $v"
out=$(make -s uninstall DESTDIR="$D" PREFIX=/usr 2>&1); rc=$?
left=$(find "$D" -type f)
[ $rc = 0 ] && [ -z "$left" ] && pass uninstall || fail uninstall "rc $rc: $out; left: $left"

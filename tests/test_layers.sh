#!/usr/bin/env bash
# tests/test_layers.sh — the direction through the code (docs/layout.md):
# engine <- db <- experiments <- ui/draw <- ui screens and app commands,
# checked on the #include lines of every source file, plus the rules that
# keep it honest: SQL only in db/, no weak symbols, no hand-declared
# OpenBLAS functions, no --whole-archive.
. "$(dirname "$0")/harness.sh"
rule() {   # name, offending lines (empty: pass)
  if [ -z "$2" ]; then pass "layers: $1"; else fail "layers: $1"; echo "$2" | head -20; fi
}
# the project folders a file under $1 includes that are not in the allowed list $2
includes_outside() {
  local dir=$1 allowed=$2
  grep -rHn '^#include "' "$dir" --include=*.c --include=*.h | while IFS= read -r line; do
    inc=${line#*#include \"}; inc=${inc%%\"*}
    ok=0
    for a in $allowed; do [[ $inc == $a* ]] && ok=1; done
    [ $ok = 1 ] || echo "$line"
  done
}
rule "engine/ includes only engine/" "$(includes_outside engine 'engine/')"
rule "db/ includes only db/ and engine/" "$(includes_outside db 'db/ engine/')"
rule "experiments/ includes only experiments/, db/ and engine/" \
  "$(includes_outside experiments 'experiments/ db/ engine/')"
rule "ui/draw/ does not include the screens, ncurses or app/" \
  "$(includes_outside ui/draw 'ui/draw/ experiments/ db/ engine/'; grep -rn 'curses' ui/draw --include=*.[ch] | grep include)"
rule "ui/ never includes app/" "$(includes_outside ui 'ui/ experiments/ db/ engine/')"
rule "app/ includes the workbench (ui/ui.h) only in cmd_workbench.c, else only ui/draw/" \
  "$(includes_outside app 'app/ ui/draw/ experiments/ db/ engine/' | grep -v '^app/cmd_workbench.c:[0-9]*:#include "ui/ui.h"')"
# The modules of a folder (X.c + X.h, and X_internal.h: X's private header)
# depend one way: "A B" for every header of module B that a file of module
# A includes; tsort names a loop.  Not engine/ yet: config, mixer, model,
# ops, sparse and task include each other (config.c checks arch and task
# against the registries, which read a Config).
module_of() { local m=${1%.[ch]}; echo "${m%_internal}"; }
include_edges() {
  grep -rHn '^#include "' "$@" --include=*.c --include=*.h | while IFS= read -r line; do
    file=${line%%:*} inc=${line#*#include \"}; inc=${inc%%\"*}
    [ -e "$inc" ] || continue
    a=$(module_of "$file") b=$(module_of "$inc")
    [ "$a" = "$b" ] || echo "$a $b"
  done
}
rule "no include circle between modules in app/, ui/, experiments/, db/" \
  "$(include_edges app ui experiments db | sort -u | tsort 2>&1 >/dev/null)"
rule "SQL and text rows (StoreRowFn) only in db/" \
  "$(grep -rnE 'sqlite3_|store_query|StoreRowFn|store_ui_|"(SELECT|INSERT|UPDATE|DELETE|WITH) ' app ui experiments --include=*.[ch])"
rule "no weak symbols" "$(grep -rn 'pragma weak\|__attribute__((weak' app ui experiments db engine --include=*.[ch])"
rule "no --whole-archive" "$(grep -n 'whole-archive' Makefile)"
rule "OpenBLAS through <cblas.h>, not declared by hand" \
  "$(grep -rn '^void openblas_\|^int openblas_' app ui experiments db engine tests --include=*.[ch])"
rule "every source file starts with a comment saying what it is for" \
  "$(for f in $(find app ui experiments db engine -name '*.[ch]'); do head -1 "$f" | grep -q '^/\*' || echo "$f"; done)"
# (a test's name, as tests/run.sh prints it, is its path under tests/)
rule "every file a comment names exists" \
  "$(grep -rhoE '\b(app|ui|db|experiments|engine|tests|docs)/[A-Za-z0-9_/]+\.(c|h|sh|md|py)\b' \
       app ui experiments db engine tests README.md --include=*.[ch] --include=*.sh --include=*.md |
     sort -u | grep -v NAME | while read -r p; do [ -e "$p" ] || [ -e "tests/$p" ] || echo "$p"; done)"
rule "flags shared between threads are C11 atomics, not volatile" \
  "$(grep -rn 'volatile' app ui experiments db engine --include=*.[ch])"
[ "$failures" -eq 0 ]

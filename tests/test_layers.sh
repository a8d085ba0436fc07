#!/usr/bin/env bash
# tests/test_layers.sh — the direction through the code (README "Layout"):
# engine <- db <- experiments <- ui/draw <- ui screens and app commands,
# checked on the #include lines of every source file, plus the rules that
# keep it honest: SQL only in db/, no weak symbols, no hand-declared
# OpenBLAS functions, no --whole-archive.
cd "$(dirname "$0")/.." || exit 2
fail=0
check() {   # name, offending lines (empty: pass)
  if [ -z "$2" ]; then echo "PASS layers: $1"; else echo "FAIL layers: $1"; echo "$2" | head -20; fail=1; fi
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
check "engine/ includes only engine/" "$(includes_outside engine 'engine/')"
check "db/ includes only db/ and engine/" "$(includes_outside db 'db/ engine/')"
check "experiments/ includes only experiments/, db/ and engine/" \
  "$(includes_outside experiments 'experiments/ db/ engine/')"
check "ui/draw/ does not include the screens, ncurses or app/" \
  "$(includes_outside ui/draw 'ui/draw/ experiments/ db/ engine/'; grep -rn 'curses' ui/draw --include=*.[ch] | grep include)"
check "ui/ never includes app/" "$(includes_outside ui 'ui/ experiments/ db/ engine/')"
check "app/ includes the workbench (ui/ui.h) only in cmd_workbench.c, else only ui/draw/" \
  "$(includes_outside app 'app/ ui/draw/ experiments/ db/ engine/' | grep -v '^app/cmd_workbench.c:[0-9]*:#include "ui/ui.h"')"
check "SQL and text rows (StoreRowFn) only in db/" \
  "$(grep -rnE 'sqlite3_|store_query|StoreRowFn|store_ui_|"(SELECT|INSERT|UPDATE|DELETE|WITH) ' app ui experiments --include=*.[ch])"
check "no weak symbols" "$(grep -rn 'pragma weak\|__attribute__((weak' app ui experiments db engine --include=*.[ch])"
check "no --whole-archive" "$(grep -n 'whole-archive' Makefile)"
check "OpenBLAS through <cblas.h>, not declared by hand" \
  "$(grep -rn '^void openblas_\|^int openblas_' app ui experiments db engine tests --include=*.[ch])"
check "every source file starts with a comment saying what it is for" \
  "$(for f in $(find app ui experiments db engine -name '*.[ch]'); do head -1 "$f" | grep -q '^/\*' || echo "$f"; done)"
check "every file a comment names exists" \
  "$(grep -rhoE '\b(app|ui|db|experiments|engine|tests|docs)/[A-Za-z0-9_/]+\.(c|h|sh|md|py)\b' \
       app ui experiments db engine tests README.md --include=*.[ch] --include=*.sh --include=*.md |
     sort -u | grep -v NAME | while read -r p; do [ -e "$p" ] || echo "$p"; done)"
check "flags shared between threads are C11 atomics, not volatile" \
  "$(grep -rn 'volatile' app ui experiments db engine --include=*.[ch])"
exit $fail

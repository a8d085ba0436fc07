#!/usr/bin/env bash
# tests/cli/test_docs_sql.sh — every SQL example of README.md and docs/*.md
# runs against a store mixbench made (tests/cli/docs_sql.py finds them: the
# statements of code blocks, inline `SELECT ...` spans, `sqlite3 DB "SQL"`
# lines):
#   docs_sql_extract   the finder sees each form the docs use, at its line
#   docs_sql_reports   an example that does not run is named by file, line
#                      and sqlite3's error
#   docs_sql_store     the store: sweep 1 a grid of four tiny runs and sweep
#                      3 a random search of three, trained by `mixbench
#                      worker`; sweep 2 the completion preset, queued;
#                      run 1 tagged good
#   docs_sql_found     the docs hold SQL examples (docs/store.md's at least)
#   docs_sql_run       each one runs: sqlite3 exits 0 and prints no error
#                      (shell lines run as written, in a folder where
#                      mixbench.db is that store)
set -u
. "$(dirname "$0")/../harness.sh"
FIND="python3 $PWD/tests/cli/docs_sql.py"

# run_examples FILE...: runs every example of FILEs in $T/store (its
# mixbench.db); prints "FILE:LINE: error" for each that fails, and on the
# last line the count of examples
run_examples() {
  local where kind text err n=0
  while IFS= read -r -d '' where && IFS= read -r -d '' kind && IFS= read -r -d '' text; do
    n=$((n + 1))
    if [ "$kind" = shell ]; then
      err=$(cd "$T/store" && bash -c "$text" 2>&1 >/dev/null </dev/null) || err="exit $?: $err"
    else
      err=$(sqlite3 -bail "$T/store/mixbench.db" "$text" 2>&1 >/dev/null </dev/null) || err="exit $?: $err"
    fi
    [ -n "$err" ] && echo "$where: $(echo "$err" | tr '\n' ' ')"
  done < <($FIND "$@")
  echo "$n examples"
}

# ---- the finder, on each form
mkdir -p "$T/store" "$T/md"
cat >"$T/md/forms.md" <<'EOF'
# Forms

Inline: the id (`SELECT value
FROM store_info WHERE key = 'store_id'`) and `sqlite3 mixbench.db "select 2"`.

    -- a comment
    SELECT 3,
           4;
    mixbench ls
    sqlite3 mixbench.db "SELECT 5"

```sql
select 6;
```

Prose that says select 7 is no example, nor `select` alone.
EOF
got=$($FIND "$T/md/forms.md" | tr '\0' '|' | tr '\n' ' ')
want="$T/md/forms.md:3|sql|SELECT value FROM store_info WHERE key = 'store_id'|$T/md/forms.md:4|shell|sqlite3 mixbench.db \"select 2\"|"
want+="$T/md/forms.md:7|sql|SELECT 3, 4;|$T/md/forms.md:10|shell|sqlite3 mixbench.db \"SELECT 5\"|$T/md/forms.md:13|sql|select 6;|"
[ "$got" = "$want" ] && pass docs_sql_extract || fail docs_sql_extract "got [$got] want [$want]"

# ---- a failing example is named
sqlite3 "$T/store/mixbench.db" "CREATE TABLE t (run_id INTEGER)"
printf '# Bad\n\n    SELECT run_id FROM t;\n    SELECT id FROM t;\n' >"$T/md/bad.md"
out=$(run_examples "$T/md/bad.md")
[ "$(echo "$out" | wc -l)" = 2 ] && echo "$out" | grep -q "^$T/md/bad.md:4: .*no such column: id" &&
  echo "$out" | tail -1 | grep -qx "2 examples" && pass docs_sql_reports || fail docs_sql_reports "$out"
rm -f "$T/store/mixbench.db"

# ---- the store
DB=$T/store/mixbench.db
TINY="data=builtin:markov d=16 heads=2 n_ctx=16 batch=4 steps=20 eval_every=10"
$MB sweep --db "$DB" $TINY arch=attention,mixer layers=1,2 >/dev/null 2>"$T/err" &&
  $MB sweep --db "$DB" completion --data builtin:stories >/dev/null 2>>"$T/err" &&
  $MB pause --db "$DB" $(q "$DB" "SELECT id FROM runs WHERE sweep_id = 2") >/dev/null 2>>"$T/err" &&
  $MB sweep --db "$DB" $TINY arch=mixer layers=1 "lr=log:1e-4..1e-2" --search random --trials 3 >/dev/null 2>>"$T/err" &&
  $MB worker --db "$DB" --jobs 2 --threads 1 >/dev/null 2>>"$T/err" &&
  $MB resume --db "$DB" $(q "$DB" "SELECT id FROM runs WHERE sweep_id = 2") >/dev/null 2>>"$T/err" &&
  $MB tag --db "$DB" 1 good >/dev/null 2>>"$T/err"
shape=$(q "$DB" "SELECT group_concat(s.id || ':' || s.preset || ':' || (SELECT group_concat(DISTINCT status)
                 FROM runs WHERE sweep_id = s.id), ' ') FROM sweeps s")
[ "$shape" = "1:grid:done 2:completion:queued 3:search:done" ] && pass docs_sql_store ||
  { fail docs_sql_store "$shape $(cat "$T/err")"; exit 0; }

# ---- every example of the docs
out=$(run_examples README.md docs/*.md)
n=$(echo "$out" | tail -1 | cut -d' ' -f1)
[ "$n" -ge 8 ] && [ "$($FIND docs/store.md | tr -cd '\0' | wc -c)" -ge 24 ] &&
  pass docs_sql_found || fail docs_sql_found "$out"
bad=$(echo "$out" | sed '$d')
[ -z "$bad" ] && pass docs_sql_run || fail docs_sql_run "$(echo "$bad" | tr '\n' ';')"

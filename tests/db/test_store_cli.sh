#!/usr/bin/env bash
# tests/db/test_store_cli.sh — the store under concurrent access from other processes,
# and `mixbench ls` / `show` on it.
#
# A helper program (compiled here into a temp folder from db/ and engine/)
# appends metrics for a few seconds while this script reads the same file
# with the sqlite3 CLI many times: every read must succeed, the counts must
# never go down, the file must stay in WAL mode and pass integrity_check.
# Then a second helper that calls cmd_ls / cmd_show (app/cmd_store.c) checks
# their output in UTF-8 and ASCII locales, --json, and their errors.
#
# Run from the repository root by tests/run.sh; prints PASS/FAIL lines.
# Builds nothing in the repository; links the helpers with build/libmixbench.a.
. "$(dirname "$0")/../harness.sh"
CC=${CC:-cc}

cat >"$T/writer.c" <<'EOF'
/* writer.c — appends metrics to a new run for SECONDS, then finishes it.
   usage: writer DB SECONDS STATUS [NAME]; prints the number of metric rows. */
#include "db/store.h"
#include "engine/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    char err[ERR_LEN];
    Store *s;
    if (store_open(argv[1], &s, err)) { fprintf(stderr, "%s\n", err); return 1; }
    RunInfo info = {.name = argc > 4 ? argv[4] : NULL, .arch = "attention", .task = "clm",
                    .data = "builtin/markov", .tokenizer = "word",
                    .config_json = "{\"arch\":\"attention\",\"task\":\"clm\",\"d\":64,"
                                   "\"layers\":2,\"lr\":0.001,\"tie\":true}",
                    .n_params = 123456, .n_params_nonembedding = 98765, .total_steps = 0,
                    .seed = 1, .threads = 1, .d = 64, .layers = 2, .heads = 4, .n_ctx = 32,
                    .vocab = 500};
    int64_t run;
    if (store_run_create(s, &info, &run, err)) { fprintf(stderr, "%s\n", err); return 1; }
    char ready[4096];
    snprintf(ready, sizeof ready, "%s.ready", argv[1]);
    FILE *f = fopen(ready, "w");
    if (f) fclose(f);
    double seconds = atof(argv[2]), start = now_seconds(), smooth = 6.0;
    int64_t step = 0;
    struct timespec pause = {0, 2000000};
    while (now_seconds() - start < seconds) {
        MetricRow rows[10];
        for (int i = 0; i < 10; i++) {
            step++;
            double loss = 2.0 + 4.0 * exp(-step / 800.0) + 0.2 * sin(step * 0.7);
            smooth = 0.95 * smooth + 0.05 * loss;
            rows[i] = (MetricRow){step, step * 256, now_seconds() - start, loss, smooth,
                                  1e-3, 1.0, 5000.0};
        }
        if (store_metrics_append(s, run, rows, 10, err)) { fprintf(stderr, "%s\n", err); return 1; }
        if (step % 500 == 0) {
            EvalRow v = {step, "valid", smooth + 0.1, 0.3, NAN, 4096};
            if (store_eval_add(s, run, &v, err)) { fprintf(stderr, "%s\n", err); return 1; }
        }
        nanosleep(&pause, NULL);
    }
    EvalRow v = {step, "valid", smooth + 0.1, 0.31, NAN, 4096};
    EvalRow t = {step, "test", smooth + 0.15, 0.30, NAN, 4096};
    if (store_eval_add(s, run, &v, err) || store_eval_add(s, run, &t, err) ||
        store_checkpoint_add(s, run, step, "runs/last.safetensors", err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    RunEnd end = {argv[3], argv[3][0] == 'd' && argv[3][1] == 'i' ? "loss became NaN" : NULL,
                  step, step * 256, now_seconds() - start, 5000.0, 12.5, NAN, NAN};
    if (store_run_finish(s, run, &end, err)) { fprintf(stderr, "%s\n", err); return 1; }
    store_close(s);
    printf("%lld\n", (long long)step);
    return 0;
}
EOF

cat >"$T/cli.c" <<'EOF'
/* cli.c — `cli ls ...` / `cli show ...` call the real commands. */
#include "app/commands.h"
#include <string.h>
int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "ls") == 0) return cmd_ls(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "show") == 0) return cmd_show(argc - 2, argv + 2);
    return 2;
}
EOF

flags="-std=c11 -O2 -Wall -Wextra -D_GNU_SOURCE -I."
if ! $CC $flags -o "$T/writer" "$T/writer.c" build/libmixbench.a \
        -lopenblas -lfftw3f -lsqlite3 -lm -lpthread 2>"$T/cc.log"; then
    fail build_writer "$(head -c 300 "$T/cc.log")"
    exit 1
fi
if ! $CC $flags -o "$T/cli" "$T/cli.c" app/cmd_store.c app/cli.c build/libmixbench.a \
        -lopenblas -lfftw3f -lsqlite3 -lm -lpthread 2>"$T/cc.log"; then
    fail build_cli "$(head -c 300 "$T/cc.log")"
    exit 1
fi
pass build_helpers
if ! command -v sqlite3 >/dev/null; then
    fail sqlite3_cli "the sqlite3 command is not installed (make deps)"
    exit 1
fi

# ---- concurrent reads while a run writes --------------------------------------
db="$T/live.db"
"$T/writer" "$db" 3 done baseline >"$T/writer.out" 2>"$T/writer.err" &
writer=$!
for _ in $(seq 100); do [ -e "$db.ready" ] && break; sleep 0.05; done
if [ ! -e "$db.ready" ]; then
    fail writer_started "$(cat "$T/writer.err")"
    kill "$writer" 2>/dev/null
    exit 1
fi
reads=0 bad_reads=0 decreasing=0 not_wal=0 prev=0 first_error=""
while kill -0 "$writer" 2>/dev/null; do
    # WAL readers do not wait for the writer's transactions, but a reader that
    # catches the WAL index mid-update may get SQLITE_BUSY for an instant
    # (documented SQLite behaviour), so readers set a busy timeout, as the
    # store itself does.
    if out=$(sqlite3 -cmd ".timeout 5000" "$db" \
                 "SELECT count(*) FROM metrics; PRAGMA journal_mode;" 2>&1); then
        count=$(sed -n 1p <<<"$out")
        mode=$(sed -n 2p <<<"$out")
        if ! [[ $count =~ ^[0-9]+$ ]]; then
            bad_reads=$((bad_reads + 1)); first_error=${first_error:-$out}
        else
            [ "$count" -lt "$prev" ] && decreasing=$((decreasing + 1))
            prev=$count
        fi
        [ "$mode" = wal ] || not_wal=$((not_wal + 1))
    else
        bad_reads=$((bad_reads + 1)); first_error=${first_error:-$out}
    fi
    reads=$((reads + 1))
done
wait "$writer"
writer_rc=$?
steps=$(cat "$T/writer.out")
if [ "$writer_rc" -eq 0 ] && [[ $steps =~ ^[0-9]+$ ]] && [ "$steps" -gt 0 ]; then
    pass writer_finished
else
    fail writer_finished "exit $writer_rc: $(head -c 300 "$T/writer.err")"
fi
echo "  $reads sqlite3 reads while the writer ran, last count $prev"
if [ "$reads" -ge 10 ] && [ "$bad_reads" -eq 0 ]; then
    pass concurrent_reads_succeed
else
    fail concurrent_reads_succeed "$bad_reads of $reads reads failed: $first_error"
fi
if [ "$decreasing" -eq 0 ] && [ "$prev" -gt 0 ]; then
    pass concurrent_counts_nondecreasing
else
    fail concurrent_counts_nondecreasing "$decreasing decreases, last count $prev"
fi
[ "$not_wal" -eq 0 ] && pass journal_mode_wal || fail journal_mode_wal "$not_wal reads not wal"
final=$(sqlite3 "$db" "SELECT count(*) FROM metrics")
[ "$final" = "$steps" ] && pass all_rows_stored || fail all_rows_stored "$final rows, $steps steps"
check=$(sqlite3 "$db" "PRAGMA integrity_check; PRAGMA foreign_key_check;")
[ "$check" = ok ] && pass integrity_check || fail integrity_check "$check"
row=$(sqlite3 "$db" "SELECT status, steps_done, valid_loss IS NOT NULL, test_loss IS NOT NULL
                     FROM results WHERE id = 1")
[ "$row" = "done|$steps|1|1" ] && pass results_view || fail results_view "$row"

# A second, short run that diverged.
"$T/writer" "$db" 0.2 diverged >/dev/null 2>"$T/writer.err" ||
    fail second_writer "$(cat "$T/writer.err")"

# ---- several jobs creating and writing one new store at once (a sweep) ----------
par="$T/parallel.db"
pids=()
for i in 1 2 3 4 5 6; do
    "$T/writer" "$par" 0.5 done "job$i" >"$T/par$i.out" 2>"$T/par$i.err" &
    pids+=($!)
done
par_failed=0 par_steps=0
for i in "${!pids[@]}"; do
    if wait "${pids[$i]}"; then
        par_steps=$((par_steps + $(cat "$T/par$((i + 1)).out")))
    else
        par_failed=$((par_failed + 1))
        first_error=$(cat "$T/par$((i + 1)).err")
    fi
done
got=$(sqlite3 "$par" "SELECT count(*) FROM runs; SELECT count(*) FROM metrics;
                      SELECT count(*) FROM pragma_user_version WHERE user_version > 0;
                      PRAGMA integrity_check;" | tr '\n' ' ')
if [ "$par_failed" -eq 0 ] && [ "$got" = "6 $par_steps 1 ok " ]; then
    pass parallel_writers
else
    fail parallel_writers "$par_failed failed ($first_error); got '$got', want '6 $par_steps 1 ok '"
fi

# ---- mixbench ls ---------------------------------------------------------------
missing="$T/none.db"
err=$("$T/cli" ls --db "$missing" 2>&1 >/dev/null); rc=$?
want="mixbench: $missing: no such store (run \`mixbench run\` first)"
if [ "$rc" -ne 0 ] && [ "$err" = "$want" ] && [ ! -e "$missing" ]; then
    pass ls_missing_store
else
    fail ls_missing_store "exit $rc, '$err', file created: $([ -e "$missing" ] && echo yes || echo no)"
fi

out=$(LC_ALL=C.UTF-8 "$T/cli" ls --db "$db" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q '^ID  *STATUS  *ARCH' <<<"$out" &&
   grep -Eq '^ *1  done  *attention  *clm  *markov ' <<<"$out" &&
   grep -Eq '^ *2  diverged ' <<<"$out" && grep -q 'baseline' <<<"$out" &&
   grep -q '[▁▂▃▄▅▆▇█]' <<<"$out"; then
    pass ls_table
else
    fail ls_table "exit $rc: $out"
fi

out=$(LC_ALL=C "$T/cli" ls --db "$db" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && ! LC_ALL=C grep -q $'[\x80-\xff]' <<<"$out" && grep -q 'done' <<<"$out"; then
    pass ls_ascii_locale
else
    fail ls_ascii_locale "exit $rc: $out"
fi

out=$("$T/cli" ls --db "$db" --status diverged 2>&1)
if grep -q diverged <<<"$out" && ! grep -Eq '^ *1  done' <<<"$out"; then
    pass ls_status_filter
else
    fail ls_status_filter "$out"
fi
err=$("$T/cli" ls --db "$db" --status bogus 2>&1 >/dev/null); rc=$?
[ "$rc" -ne 0 ] && [[ $err == "mixbench: ls: unknown status bogus"* ]] &&
    pass ls_bad_status || fail ls_bad_status "exit $rc: $err"

"$T/cli" ls --json --db "$db" >"$T/ls.json" 2>&1
q="CAST(readfile('$T/ls.json') AS TEXT)"
got=$(sqlite3 :memory: "SELECT json_valid($q), json_array_length($q),
                               json_extract($q, '\$[0].status'),
                               json_extract($q, '\$[0].steps_done'),
                               json_type($q, '\$[0].test_loss')")
[ "$got" = "1|2|done|$steps|real" ] && pass ls_json || fail ls_json "$got: $(head -c 300 "$T/ls.json")"

# ---- mixbench show --------------------------------------------------------------
out=$(LC_ALL=C.UTF-8 "$T/cli" show 1 --db "$db" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q '^run 1  baseline  \[done\]' <<<"$out" &&
   grep -q 'params 123,456 (non-embedding 98,765)' <<<"$out" &&
   grep -Eq '^config$' <<<"$out" && grep -Eq ' lr +0\.001' <<<"$out" &&
   grep -Eq ' tie +true' <<<"$out" &&
   grep -Eq '^ +STEP  SPLIT' <<<"$out" && grep -Eq " $steps  test " <<<"$out" &&
   grep -q 'runs/last.safetensors' <<<"$out" && grep -q '^train loss by step' <<<"$out" &&
   grep -q '┤' <<<"$out" && grep -q '└' <<<"$out"; then
    pass show_run
else
    fail show_run "exit $rc: $out"
fi
plot_lines=$(sed -n '/^train loss by step/,$p' <<<"$out" | tail -n +2 | wc -l)
widest=$(sed -n '/^train loss by step/,$p' <<<"$out" | tail -n +2 |
         while IFS= read -r l; do echo "${#l}"; done | sort -n | tail -1)
[ "$plot_lines" -eq 14 ] && [ "$widest" -le 72 ] && pass show_plot_72x14 ||
    fail show_plot_72x14 "$plot_lines lines, widest $widest"

out=$(LC_ALL=C "$T/cli" show 1 --db "$db" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && ! LC_ALL=C grep -q $'[\x80-\xff]' <<<"$out" && grep -q -- '+---' <<<"$out"; then
    pass show_ascii_locale
else
    fail show_ascii_locale "exit $rc: $out"
fi

out=$("$T/cli" show 2 --db "$db" --log 2>&1)
grep -q 'error: loss became NaN' <<<"$out" && grep -q 'log scale' <<<"$out" &&
    pass show_error_and_log || fail show_error_and_log "$out"
out=$("$T/cli" show baseline --db "$db" 2>&1)
grep -q '^run 1 ' <<<"$out" && pass show_by_name || fail show_by_name "$out"

err=$("$T/cli" show 999 --db "$db" 2>&1 >/dev/null); rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <<<"$err")" -eq 1 ] &&
   [ "$err" = "mixbench: show: no run 999 in ${db##*/} (see \`mixbench ls\`)" ]; then
    pass show_unknown_run
else
    fail show_unknown_run "exit $rc: $err"
fi
err=$("$T/cli" show 1 --db "$missing" 2>&1 >/dev/null); rc=$?
[ "$rc" -ne 0 ] && [ ! -e "$missing" ] && [[ $err == *"no such store"* ]] &&
    pass show_missing_store || fail show_missing_store "exit $rc: $err"
err=$("$T/cli" show --db "$db" --frobnicate 1 2>&1 >/dev/null); rc=$?
[ "$rc" -ne 0 ] && [[ $err == "mixbench: show: unknown option --frobnicate"* ]] &&
    pass show_bad_option || fail show_bad_option "exit $rc: $err"

"$T/cli" show 1 --json --db "$db" >"$T/show.json" 2>&1
q="CAST(readfile('$T/show.json') AS TEXT)"
got=$(sqlite3 :memory: "SELECT json_valid($q), json_extract($q, '\$.status'),
                               json_extract($q, '\$.config.d'),
                               json_type($q, '\$.evals'),
                               json_extract($q, '\$.evals[#-1].split'),
                               json_array_length($q, '\$.metrics'),
                               json_extract($q, '\$.checkpoints[0].path'),
                               json_type($q, '\$.results.test_loss')")
[ "$got" = "1|done|64|array|test|$steps|runs/last.safetensors|real" ] &&
    pass show_json || fail show_json "$got: $(head -c 300 "$T/show.json")"

[ "$failures" -eq 0 ]

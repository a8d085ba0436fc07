/*
 * cmd_gc.c — `mixbench gc [--db FILE] [--dry-run] [--keep last|best|none
 * [--where EXPR]]`: removes the checkpoint files of the store's folder
 * (NAME.ckpt/) that no run names, and with --keep the older checkpoints of
 * finished runs (all but the latest, all but the one at the best valid
 * evaluation, or all) -- of the runs EXPR chooses (experiments/run_filter.h,
 * in the trash too) when given -- printing each file and what it frees
 * (db/ckpt_gc.h says what is never removed).  --dry-run prints the same and
 * removes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "db/ckpt_gc.h"
#include "db/ckpt_owner.h"
#include "db/store.h"
#include "engine/common.h"
#include "experiments/format.h"
#include "experiments/run_filter.h"


int cmd_gc(int argc, char **argv)
{
    const char *db = "mixbench.db", *dry = NULL, *keep_text = NULL, *where = NULL;
    CliOpt opts[] = {{"db", 1, &db, NULL},
                     {"dry-run", 0, &dry, NULL},
                     {"keep", 1, &keep_text, NULL},
                     {"where", 1, &where, NULL},
                     {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("gc: %s", err);
    GcKeep keep = GC_KEEP_ALL;
    if (keep_text && (gc_keep_parse(keep_text, &keep) || keep == GC_KEEP_ALL))
        return cli_fail("gc: --keep %s is not last, best or none", keep_text);
    if (where && !keep_text) return cli_fail("gc: --where chooses the runs whose checkpoints --keep removes: give --keep");
    RunFilter filter;
    if (where && run_filter_parse(where, &filter, err)) return cli_fail("gc: %s", err);
    Store *s;
    if (store_open_existing(db, &s, err)) return cli_fail("%s", err);
    /* the runs --where chooses, in the store and in its trash */
    int64_t *only = NULL, *trash = NULL;
    int n_only = 0, n_trash = 0, rc = 0;
    if (where && (run_filter_select(s, where, 0, &only, &n_only, err) ||
                  run_filter_select(s, where, 1, &trash, &n_trash, err)))
        rc = -1;
    if (rc == 0 && n_trash) {
        int64_t *all = realloc(only, (size_t)(n_only + n_trash) * sizeof *all);
        if (!all) rc = err_set(err, "out of memory");
        else {
            memcpy(all + n_only, trash, (size_t)n_trash * sizeof *all);
            only = all, n_only += n_trash;
        }
    }
    free(trash);
    if (rc) {
        free(only);
        store_close(s);
        return cli_fail("gc: %s", err);
    }
    GcPlan plan;
    if (where && !only) only = calloc(1, sizeof *only);   /* no run matched: none of them */
    rc = where && !only ? err_set(err, "out of memory") : store_gc_plan_runs(s, keep, only, n_only, &plan, err);
    free(only);
    if (rc == 0 && !dry) rc = store_gc_apply(s, &plan, err);
    if (rc) {
        store_close(s);
        return cli_fail("gc: %s", err);
    }
    char size[32];
    for (int i = 0; i < plan.n; i++) {
        const GcItem *it = &plan.items[i];
        fmt_bytes(it->bytes, size, sizeof size);
        if (it->run_id)
            printf("%s %s (%s, run %lld step %lld)\n", dry ? "would remove" : "removed", it->path, size,
                   (long long)it->run_id, (long long)it->step);
        else
            printf("%s %s (%s, named by no run)\n", dry ? "would remove" : "removed", it->path, size);
    }
    fmt_bytes(plan.bytes, size, sizeof size);
    printf("%s %s in %d file%s of %s\n", dry ? "would free" : "freed", size, plan.n, plan.n == 1 ? "" : "s",
           store_file_name(s));
    if (plan.kept_foreign)
        printf("kept %d file%s of the folder that another store's metadata names\n", plan.kept_foreign,
               plan.kept_foreign == 1 ? "" : "s");
    if (plan.kept_outside)
        printf("kept %d older checkpoint%s outside the store's folder that name no store (written before "
               "checkpoints named theirs; such folders were shared)\n", plan.kept_outside,
               plan.kept_outside == 1 ? "" : "s");
    gc_plan_free(&plan);
    store_close(s);
    return 0;
}

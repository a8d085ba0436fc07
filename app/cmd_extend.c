/*
 * cmd_extend.c — `mixbench extend RUN tokens=N|steps=N [--db FILE]` (RUN an id
 * or a unique name, db/organise.h store_run_lookup): a done
 * or stopped decay=wsd run continues to a larger budget from its checkpoint
 * before the cool-down (experiments/extend.h): it is queued, and `mixbench
 * worker`, the workbench or `mixbench run --resume RUN` trains it.
 */
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "db/organise.h"
#include "db/store.h"
#include "engine/common.h"
#include "engine/text.h"
#include "experiments/extend.h"
#include "experiments/format.h"


int cmd_extend(int argc, char **argv)
{
    const char *db = "mixbench.db";
    const char *words[3] = {NULL, NULL, NULL};
    int n = 0;
    CliOpt opts[] = {{"db", 1, &db, NULL}, {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, words, 3, &n, err)) return cli_fail("extend: %s", err);
    if (n != 2) return cli_fail("extend: give a run and its new budget: mixbench extend RUN tokens=N|steps=N");
    int64_t run_id = 0;
    Store *s;
    if (store_open_existing(db, &s, err)) return cli_fail("%s", err);
    Extension x;
    int rc = store_run_lookup(s, words[0], 0, &run_id, err);
    if (rc == 0) rc = run_extend(s, run_id, words[1], &x, err);
    store_close(s);
    char shown[TEXT_SHOWN_CAP(ERR_LEN)];
    if (rc) return cli_fail("extend: %s", text_shown(err, shown, sizeof shown));
    char from[32], to[32];
    fmt_count(x.old_steps, from, sizeof from);
    fmt_count(x.new_steps, to, sizeof to);
    printf("run %lld extended from %s to %s steps; ", (long long)run_id, from, to);
    if (x.ckpt[0]) printf("it continues from step %lld (%s)\n", (long long)x.from_step, x.ckpt);
    else printf("no checkpoint before its cool-down: it trains again from the start\n");
    printf("queued: `mixbench worker`, the workbench or `mixbench run --resume %lld` trains it\n", (long long)run_id);
    return 0;
}

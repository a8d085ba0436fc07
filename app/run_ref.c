/*
 * run_ref.c — `--run RUN` for the commands that load a run's checkpoint
 * (run_ref.h); RUN as every command takes it (db/organise.h
 * store_run_lookup).
 */
#include "app/run_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/ckpt_owner.h"
#include "db/organise.h"
#include "db/runs_read.h"
#include "db/store.h"
#include "engine/common.h"
#include "engine/text.h"

/* The index of key in config.c's table, -1 when it is not one. */
static int key_index(const char *key)
{
    for (int k = 0; k < config_key_count(); k++)
        if (!strcmp(config_key_name(k), key)) return k;
    return -1;
}

/* The run's data keys onto c: what its evaluations read. */
static int apply_data_keys(Store *s, int64_t run_id, Config *c, char *err)
{
    RunConfigEntry *items = NULL;
    int n = 0;
    if (runs_read_config(s, run_id, &items, &n, err)) return -1;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        int k = key_index(items[i].key);
        if (k < 0 || !items[i].scalar) continue;
        if (config_key_group(k) != KEY_DATA && strcmp(items[i].key, "eval_tokens")) continue;
        char e[ERR_LEN];
        if (config_set(c, items[i].key, items[i].value, e))
            rc = err_set(err, "run %lld's stored %s: %s", (long long)run_id, items[i].key, e);
    }
    free(items);
    return rc;
}

int run_ref_open(const char *db_path, const char *run, RunRef *ref, Config *data_cfg, char *err)
{
    memset(ref, 0, sizeof *ref);
    Store *s;
    if (store_open_existing(db_path, &s, err)) return -1;
    int rc = store_run_lookup(s, run, 0, &ref->run_id, err);
    if (rc == 0) rc = store_run_checkpoint(s, ref->run_id, ref->ckpt, sizeof ref->ckpt, &ref->step, err);
    if (rc == 0 && data_cfg) rc = apply_data_keys(s, ref->run_id, data_cfg, err);
    store_close(s);
    return rc;
}

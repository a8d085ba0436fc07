/*
 * extend.c — continuing a run to a larger budget (extend.h).
 */
#include "experiments/extend.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/ckpt_owner.h"
#include "db/jobs.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/config.h"
#include "engine/io/json.h"
#include "engine/io/safetensors.h"
#include "engine/optim.h"

#define MAX_CANDIDATES 64

/* The run's stored config. */
static int stored_config(const RunForExtend *r, int64_t run_id, Config *c, char *err)
{
    config_defaults(c);
    char e[ERR_LEN];
    JsonValue *obj = json_parse(r->config_json, strlen(r->config_json), e);
    int rc = !obj || config_from_json(c, obj, 1, e);
    json_free(obj);
    return rc ? err_set(err, "run %lld's stored config: %s", (long long)run_id, e) : 0;
}

/* The run's config with the budget key=value (the other budget keys
   cleared, as a sweep's budget axis does). */
static int new_budget(const Config *c, const char *budget, Config *out, char *err)
{
    *out = *c;
    const char *eq = strchr(budget, '=');
    int is_tokens = eq && (size_t)(eq - budget) == 6 && !strncmp(budget, "tokens", 6);
    int is_steps = eq && (size_t)(eq - budget) == 5 && !strncmp(budget, "steps", 5);
    if (!is_tokens && !is_steps) return err_set(err, "extend: the budget is tokens=N or steps=N, not '%s'", budget);
    char e[ERR_LEN];
    if (config_set_arg(out, budget, e)) return err_set(err, "extend: %s", e);
    out->seconds = 0;
    if (is_steps) out->tokens = 0;
    return 0;
}

/* The latest resumable checkpoint of the run at or before step upto, into
   out (path, step); none: step 0 and "".  One that is not the run's own
   (db/ckpt_owner.h) is an error. */
static int continue_point(Store *s, int64_t run_id, int64_t upto, Extension *out, char *err)
{
    char (*paths)[1024] = malloc(sizeof *paths * MAX_CANDIDATES);
    int64_t steps[MAX_CANDIDATES];
    int n = 0;
    if (!paths) return err_set(err, "out of memory");
    int rc = store_run_checkpoints_upto(s, run_id, upto, paths, steps, MAX_CANDIDATES, &n, err);
    out->from_step = 0;
    out->ckpt[0] = 0;
    /* the latest one: a file that is not the run's own is refused (it is
       not silently passed over for an older one) */
    for (int i = 0; rc == 0 && i < n; i++) {
        char why[ERR_LEN];
        int bad = store_checkpoint_verify(s, run_id, paths[i], why);
        if (bad == STORE_CKPT_MISSING) continue;   /* gone: an earlier one, or the start */
        if (bad) {
            rc = err_set(err, "extend: %.*s", ERR_LEN - 16, why);
            break;
        }
        if (!checkpoint_is_resumable(paths[i])) continue;   /* a model-only checkpoint (--save, an old final one) */
        out->from_step = steps[i];
        snprintf(out->ckpt, sizeof out->ckpt, "%s", paths[i]);
        break;
    }
    free(paths);
    return rc;
}

/* The files of the checkpoints the extension dropped: removed (when
   unlink_files) if they name this store (an old file in a shared folder may
   be another's); the list is freed. */
static void remove_dropped(Store *s, char **paths, int n, int unlink_files)
{
    char id[STORE_ID_LEN], e[ERR_LEN];
    int known = unlink_files && store_identity(s, id, sizeof id, e) == 0;
    for (int i = 0; i < n; i++) {
        StFile f;
        if (known && st_read_meta(paths[i], &f, e) == 0) {
            const char *owner = st_meta(&f, CKPT_META_STORE_ID);
            if (owner && !strcmp(owner, id)) unlink(paths[i]);
            st_free(&f);
        }
        free(paths[i]);
    }
    free(paths);
}

int run_extend(Store *s, int64_t run_id, const char *budget, Extension *out, char *err)
{
    assert(s && run_id > 0 && err);
    memset(out, 0, sizeof *out);
    RunForExtend *r = malloc(sizeof *r);
    if (!r) return err_set(err, "out of memory");
    Config c, c2;
    int rc = store_run_for_extend(s, run_id, r, err);
    if (rc == 0 && r->status != RUN_DONE && r->status != RUN_PAUSED && r->status != RUN_INTERRUPTED &&
        r->status != RUN_CANCELLED && r->status != RUN_PRUNED)
        rc = err_set(err, "run %lld is %s; only a run that is done, paused, interrupted, cancelled or pruned can be "
                          "extended", (long long)run_id, run_status_name(r->status));
    if (rc == 0) rc = stored_config(r, run_id, &c, err);
    /* a run its own rule stopped early (stop_accuracy, patience) before its
       cool-down: a larger budget keeps its steps up to there as they were,
       so the same rule would end it at the same step again */
    if (rc == 0 && c.decay == DECAY_WSD && r->status == RUN_DONE && r->total_steps > 0 &&
        r->steps_done < r->total_steps && r->steps_done < wsd_cooldown_start(&c, r->total_steps))
        rc = err_set(err, "run %lld stopped early at step %lld of %lld, before its cool-down (%s): with a larger "
                          "budget the same steps would stop it there again",
                     (long long)run_id, (long long)r->steps_done, (long long)r->total_steps, r->error);
    free(r);
    if (rc) return -1;
    if (c.decay != DECAY_WSD) {
        char decay[32];
        config_get(&c, "decay", decay, sizeof decay);
        return err_set(err, "run %lld has decay=%s: its learning rate at every step depends on the budget, so no "
                            "checkpoint of it continues to a larger one (runs with decay=wsd can be extended)",
                       (long long)run_id, decay);
    }
    if (new_budget(&c, budget, &c2, err)) return -1;
    out->old_steps = config_total_steps(&c);
    out->new_steps = config_total_steps(&c2);
    if (out->new_steps <= out->old_steps)
        return err_set(err, "extend: %s is %lld steps, not more than run %lld's %lld", budget,
                       (long long)out->new_steps, (long long)run_id, (long long)out->old_steps);
    if (continue_point(s, run_id, wsd_cooldown_start(&c, out->old_steps), out, err)) return -1;
    StrBuf json;
    sb_init(&json);
    config_to_json(&c2, &json);
    char **dropped = NULL;
    int n_dropped = 0;
    rc = sb_ok(&json) ? store_run_extend(s, run_id, json.data, out->new_steps, out->ckpt[0] ? out->ckpt : NULL,
                                         out->from_step, &dropped, &n_dropped, err)
                      : err_set(err, "out of memory");
    sb_free(&json);
    /* inside a caller's transaction a rollback would bring the rows back:
       their files stay then, and `mixbench gc` finds them once unnamed */
    if (rc == 0) remove_dropped(s, dropped, n_dropped, !store_in_transaction(s));
    return rc;
}

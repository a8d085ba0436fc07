/*
 * run_ref.h — a run of the store named on the command line (`--run RUN
 * [--db FILE]`, as `eval`, `generate` and `extend` take it): its latest
 * checkpoint, checked to be that run's own (db/ckpt_owner.h), and the data
 * keys it trained with, so that `eval --run 3` scores the run's own test
 * split as its evaluations did.
 */
#ifndef MIXBENCH_RUN_REF_H
#define MIXBENCH_RUN_REF_H

#include <stddef.h>
#include <stdint.h>

#include "engine/config.h"

typedef struct {
    int64_t run_id;
    char ckpt[1024];        /* its latest checkpoint, verified */
    int64_t step;           /* the step that checkpoint holds */
} RunRef;

/* Looks up run `run` (an id or a unique name: db/organise.h
   store_run_lookup, not one in the trash) in the store at db_path, which
   must exist.
   With data_cfg not NULL, the data keys of the run's config (KEY_DATA of
   config.c's table, and eval_tokens) are applied to *data_cfg. */
int run_ref_open(const char *db_path, const char *run, RunRef *ref, Config *data_cfg, char *err);

#endif

/*
 * config.h — every model and training key of SPEC sections 1 and 5, with one
 * name each, used alike by the CLI (`key=value`), sweeps, the store (config
 * JSON) and checkpoint metadata.  One table (config.c) holds each key's name,
 * type, default and allowed values; everything else is derived from it.
 */
#ifndef MIXBENCH_CONFIG_H
#define MIXBENCH_CONFIG_H

#include <stdint.h>

#include "engine/io/json.h"

enum { ACT_GELU, ACT_RELU, ACT_NONE };
enum { NORM_PRE, NORM_POST, NORM_NONE };
enum { POS_DEFAULT, POS_LEARNED, POS_SINUSOIDAL, POS_NONE };
enum { REDUCE_MEAN, REDUCE_SUM };
enum { FFT_ND, FFT_FNET };
enum { TABLE_ADAMW, TABLE_LAZY };
enum { DECAY_CONSTANT, DECAY_LINEAR, DECAY_COSINE, DECAY_WSD };
enum { ORDER_RANDOM, ORDER_SEQUENTIAL };
enum { MLM_LOSS_MASKED, MLM_LOSS_ALL };
/* the key init (SPEC section 5): how linear layers' weights start */
enum { WEIGHT_INIT_GPT2, WEIGHT_INIT_FAN_IN };
enum { FEATURE_ELU1, FEATURE_TAYLOR };   /* linattn's feature_map (docs/mixers.md) */
enum { GATE_FIXED, GATE_DATA };          /* gla's gate (docs/mixers.md) */

typedef struct Config {
    /* model (SPEC section 1); these go into checkpoint metadata */
    char arch[32];
    char task[32];
    int vocab;           /* 0 = take it from the dataset */
    int d, layers, heads, n_ctx, ffn_mult;
    int act, norm, pos, tie;
    double dropout;
    int hash_size, hash_seed, pair_reduce, d_pair, fft_mode;
    double level_dropout;
    int table_optim;
    double emb_std;      /* token embedding init std; 0 = the arch's default */
    int init;            /* WEIGHT_INIT_GPT2: linear weights N(0, 0.02);
                            WEIGHT_INIT_FAN_IN: N(0, 1/sqrt(fan_in)) */
    int feature_map, feature_dim;   /* linattn: FEATURE_*, Based's d' (taylor) */
    int state, expand;   /* mamba: state size N per channel, inner width expand*d */
    int ema_span;        /* ema: the longest of its initial time scales */
    int gate, gate_rank; /* gla: GATE_*, the data gate's low rank */
    int window;          /* swa: the keys a query sees, itself included (docs/mixers.md) */
    /* training (SPEC section 5) */
    double lr;
    int warmup, decay;
    double cooldown;     /* decay = wsd: the cool-down's fraction of the steps, (0, 1] */
    double weight_decay, clip;
    int batch;
    int64_t seed;
    int order;
    int mlm_loss;        /* MLM_LOSS_MASKED | MLM_LOSS_ALL (SPEC section 3) */
    int64_t steps, tokens;
    double seconds;
    int eval_every;      /* valid evaluation every N steps; 0 none but the
                            final one; -1 "auto" (experiments/estimate.h) */
    int log_every, threads;
    int precision;       /* PRECISION_F32 | PRECISION_BF16 | PRECISION_AUTO (engine/gemm.h) */
    int64_t eval_tokens;     /* 0: every window; else a prefix of each split */
    int ckpt_every;      /* resumable checkpoint every N steps (0: at the end) */
    double ckpt_minutes; /* and at least every M minutes of training wall time
                            (0: off; experiments/job.c) */
    int metrics_every;   /* a metrics row every N steps (>= 1), holding the mean
                            train loss since the previous row (experiments/job.c) */
    int patience;        /* early stop after N evaluations without a better
                            valid loss (0: never) */
    double stop_accuracy; /* stop once an evaluation's valid accuracy (top-1
                            over the scored tokens: answer accuracy on
                            builtin:mqar, copy, selective-copy) reaches it
                            (0: never) */
    /* data */
    char data[1024];
    char tokenizer[16];
    int min_count;
} Config;

typedef enum { KEY_MODEL, KEY_TRAIN, KEY_DATA } KeyGroup;

/* Fills every key with its default. */
void config_defaults(Config *c);
/* Sets one key from text ("layers", "4").  Unknown keys and bad values are
   errors naming the key and the allowed values. */
int config_set(Config *c, const char *key, const char *value, char *err);
/* Parses "key=value". */
int config_set_arg(Config *c, const char *arg, char *err);
/* The value of a key as text (into buf).  Returns -1 for an unknown key.
   A key whose 0 or "default" means "the architecture's default" (emb_std,
   pos) gives the value actually used, so config_json and checkpoint
   metadata say what a run used, whatever later versions make the default.
   Numbers are written with the fewest digits that read back to the same
   double (at least 9), so a stored config rebuilds the same model bit for
   bit. */
int config_get(const Config *c, const char *key, char *buf, int cap);
/* Iteration over the key table. */
int config_key_count(void);
const char *config_key_name(int i);
KeyGroup config_key_group(int i);
/* 1 for a key that changes neither what a run learns nor what it reports
   (log_every, ckpt_every, ckpt_minutes, eval_every, metrics_every,
   threads): runs equal on every other key (seed apart) are one seed group,
   and Compare does not name these as differences. */
int config_key_bookkeeping(int i);
int config_is_key(const char *key);
/* What kind of number a key holds: whole (d, layers, batch, steps, seed,
   ...), real (lr, dropout, cooldown, ...) or none (arch, task, data, the
   enums and booleans): a sweep's random search draws values by it. */
typedef enum { CONFIG_NOT_NUMBER, CONFIG_WHOLE, CONFIG_REAL } ConfigNumber;
ConfigNumber config_key_number(const char *key);
/* 0 for a key that changes nothing of a run of c: another architecture's
   (hash_size for attention), a schedule's or task's it does not use
   (cooldown without decay=wsd, mlm_loss outside mlm), or a budget that is
   not the run's (tokens=0; steps under tokens or seconds); else 1. */
int config_key_applies(const Config *c, const char *key);

/* Applies a named variant of the seeds (linear-mixer, dispatcher-block,
   fnet): a bundle of keys, applied before the user's own keys. */
int config_apply_variant(Config *c, const char *name, char *err);

/* The positional embedding actually used (resolves POS_DEFAULT per arch,
   and for the autoencode task per the mixer's autoencode_pos). */
int config_pos(const Config *c);
/* The token embedding init std actually used (SPEC section 5): emb_std, or
   when it is 0 the architecture's default (1.0 for mixer and ema, 2 sqrt(n_ctx)
   for cumsum, else 0.02). */
double config_emb_std(const Config *c);
/* The steps a budget means (docs/spec-choices.md, "Budgets"): ceil(tokens / (batch *
   n_ctx)) when tokens > 0, else 0 (unknown) for a seconds budget, else
   steps. */
int64_t config_total_steps(const Config *c);
/* Checks ranges and the arch/task pair (SPEC section 3); call after the
   dataset fixed vocab. */
int config_validate(const Config *c, char *err);

/* Every key as a JSON object of strings (the store's config_json). */
void config_to_json(const Config *c, StrBuf *sb);
/* Applies a JSON object of key -> string (unknown keys are ignored when
   ignore_unknown is set, as checkpoint readers must). */
int config_from_json(Config *c, const JsonValue *obj, int ignore_unknown, char *err);

#endif

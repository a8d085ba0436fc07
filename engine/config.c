/*
 * config.c — the key table behind config.h.  Adding a key means one line in
 * KEYS (and a field in Config); parsing, printing, JSON and checkpoint
 * metadata all follow from the table.
 */
#include "engine/config.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/text.h"
#include "engine/mixer.h"
#include "engine/task.h"

typedef enum { T_INT, T_INT64, T_FLOAT, T_ENUM, T_BOOL, T_STRING } KeyType;

typedef struct {
    const char *name;
    KeyType type;
    KeyGroup group;
    size_t offset;
    size_t size;           /* T_STRING: buffer size */
    const char *def;
    const char *choices;   /* T_ENUM: "a|b|c" in enum order; T_INT: the
                              word that means -1 (eval_every=auto) */
    double lo, hi;         /* numeric range (inclusive) */
    int bookkeeping;       /* 1: changes neither what a run learns nor what
                              it reports (how often it logs, checkpoints,
                              evaluates, its thread count): runs that differ
                              only in these are the same experiment */
} Key;

#define F(field) offsetof(Config, field), sizeof(((Config *)0)->field)

static const Key KEYS[] = {
    {"arch", T_STRING, KEY_MODEL, F(arch), "attention", NULL, 0, 0, 0},
    {"task", T_STRING, KEY_MODEL, F(task), "clm", NULL, 0, 0, 0},
    {"vocab", T_INT, KEY_MODEL, F(vocab), "0", NULL, 0, 1 << 24, 0},
    {"d", T_INT, KEY_MODEL, F(d), "128", NULL, 1, 65536, 0},
    {"layers", T_INT, KEY_MODEL, F(layers), "2", NULL, 1, 256, 0},
    {"heads", T_INT, KEY_MODEL, F(heads), "4", NULL, 1, 1024, 0},
    {"n_ctx", T_INT, KEY_MODEL, F(n_ctx), "64", NULL, 1, 65536, 0},
    {"ffn_mult", T_INT, KEY_MODEL, F(ffn_mult), "4", NULL, 1, 64, 0},
    {"act", T_ENUM, KEY_MODEL, F(act), "gelu", "gelu|relu|none", 0, 0, 0},
    {"norm", T_ENUM, KEY_MODEL, F(norm), "pre", "pre|post|none", 0, 0, 0},
    {"pos", T_ENUM, KEY_MODEL, F(pos), "default", "default|learned|sinusoidal|none", 0, 0, 0},
    {"tie", T_BOOL, KEY_MODEL, F(tie), "false", NULL, 0, 1, 0},
    {"dropout", T_FLOAT, KEY_MODEL, F(dropout), "0", NULL, 0, 0.99, 0},
    {"hash_size", T_INT, KEY_MODEL, F(hash_size), "1000", NULL, 1, 100000000, 0},
    {"hash_seed", T_INT, KEY_MODEL, F(hash_seed), "0", NULL, 0, 2147483647, 0},
    {"pair_reduce", T_ENUM, KEY_MODEL, F(pair_reduce), "mean", "mean|sum", 0, 0, 0},
    {"d_pair", T_INT, KEY_MODEL, F(d_pair), "0", NULL, 0, 65536, 0},
    {"fft_mode", T_ENUM, KEY_MODEL, F(fft_mode), "nd", "nd|fnet", 0, 0, 0},
    {"level_dropout", T_FLOAT, KEY_MODEL, F(level_dropout), "0", NULL, 0, 1, 0},
    {"table_optim", T_ENUM, KEY_MODEL, F(table_optim), "adamw", "adamw|lazy", 0, 0, 0},
    /* 0 = the architecture's default (config_emb_std; cumsum's 2 sqrt(n_ctx)
       reaches 512 at the largest n_ctx, and it must read back) */
    {"emb_std", T_FLOAT, KEY_MODEL, F(emb_std), "0", NULL, 0, 1000, 0},
    /* linear weights' init (SPEC section 5); gpt2 keeps every stored run's */
    {"init", T_ENUM, KEY_MODEL, F(init), "gpt2", "gpt2|fan_in", 0, 0, 0},
    /* linattn (docs/mixers.md) */
    {"feature_map", T_ENUM, KEY_MODEL, F(feature_map), "taylor", "elu1|taylor", 0, 0, 0},
    {"feature_dim", T_INT, KEY_MODEL, F(feature_dim), "16", NULL, 1, 64, 0},
    /* mamba (docs/mixers-ssm.md): the state size N of each inner channel and
       the inner width expand * d */
    {"state", T_INT, KEY_MODEL, F(state), "16", NULL, 1, 256, 0},
    {"expand", T_INT, KEY_MODEL, F(expand), "2", NULL, 1, 16, 0},
    /* ema (docs/mixers.md): its channels start averaging over 2 to ema_span positions */
    {"ema_span", T_INT, KEY_MODEL, F(ema_span), "256", NULL, 2, 1000000, 0},
    /* gla (docs/mixers.md): RetNet's fixed decay per head or GLA's gates
       from the data, through a bottleneck of gate_rank */
    {"gate", T_ENUM, KEY_MODEL, F(gate), "data", "fixed|data", 0, 0, 0},
    {"gate_rank", T_INT, KEY_MODEL, F(gate_rank), "16", NULL, 1, 256, 0},
    /* swa (docs/mixers.md): query i sees keys i - window < j <= i; at most
       the longest n_ctx (window >= n_ctx is attention) */
    {"window", T_INT, KEY_MODEL, F(window), "32", NULL, 1, 65536, 0},
    {"lr", T_FLOAT, KEY_TRAIN, F(lr), "0.001", NULL, 0, 10, 0},
    {"warmup", T_INT, KEY_TRAIN, F(warmup), "50", NULL, 0, 1 << 30, 0},
    {"decay", T_ENUM, KEY_TRAIN, F(decay), "cosine", "constant|linear|cosine|wsd", 0, 0, 0},
    /* decay = wsd: the cool-down's fraction of the steps, in (0, 1] (0 is
       refused by config_validate; SPEC section 5, engine/optim.c) */
    {"cooldown", T_FLOAT, KEY_TRAIN, F(cooldown), "0.2", NULL, 0, 1, 0},
    {"weight_decay", T_FLOAT, KEY_TRAIN, F(weight_decay), "0.01", NULL, 0, 10, 0},
    {"clip", T_FLOAT, KEY_TRAIN, F(clip), "1.0", NULL, 0, 1e9, 0},
    {"batch", T_INT, KEY_TRAIN, F(batch), "16", NULL, 1, 1 << 16, 0},
    {"seed", T_INT64, KEY_TRAIN, F(seed), "1", NULL, 0, 9e18, 0},
    {"mlm_loss", T_ENUM, KEY_TRAIN, F(mlm_loss), "masked", "masked|all", 0, 0, 0},
    {"order", T_ENUM, KEY_TRAIN, F(order), "random", "random|sequential", 0, 0, 0},
    {"steps", T_INT64, KEY_TRAIN, F(steps), "1000", NULL, 0, 1e15, 0},
    {"tokens", T_INT64, KEY_TRAIN, F(tokens), "0", NULL, 0, 1e18, 0},
    {"seconds", T_FLOAT, KEY_TRAIN, F(seconds), "0", NULL, 0, 1e9, 0},
    /* auto (-1): about 20 evaluations a run, fewer when they would cost
       more than a tenth of its training (experiments/estimate.h); sweeps
       and presets use it unless they name eval_every */
    {"eval_every", T_INT, KEY_TRAIN, F(eval_every), "0", "auto", -1, 1 << 30, 1},
    /* 0 = every window of valid and test (SPEC section 4); N = their first
       max(1, N / n_ctx) windows, in order (trainer_eval_windows) */
    {"eval_tokens", T_INT64, KEY_TRAIN, F(eval_tokens), "0", NULL, 0, 1e18, 0},
    {"log_every", T_INT, KEY_TRAIN, F(log_every), "10", NULL, 1, 1 << 30, 1},
    /* bf16: dense products with bfloat16 operands (engine/gemm.h); auto:
       bf16 where the CPU and oneDNN can, f32 elsewhere, resolved when a job
       starts (experiments/job.c), so a started run's config says which */
    {"precision", T_ENUM, KEY_TRAIN, F(precision), "f32", "f32|bf16|auto", 0, 0, 0},
    {"threads", T_INT, KEY_TRAIN, F(threads), "0", NULL, 0, 1024, 1},
    {"ckpt_every", T_INT, KEY_TRAIN, F(ckpt_every), "0", NULL, 0, 1 << 30, 1},
    /* a kill loses at most this much training; fractions too (tests) */
    {"ckpt_minutes", T_FLOAT, KEY_TRAIN, F(ckpt_minutes), "10", NULL, 0, 1e9, 1},
    {"metrics_every", T_INT, KEY_TRAIN, F(metrics_every), "1", NULL, 1, 1 << 30, 1},
    {"patience", T_INT, KEY_TRAIN, F(patience), "0", NULL, 0, 1 << 30, 0},
    /* stop solved runs: experiments/job.c step_evaluate */
    {"stop_accuracy", T_FLOAT, KEY_TRAIN, F(stop_accuracy), "0", NULL, 0, 1, 0},
    {"data", T_STRING, KEY_DATA, F(data), "builtin:stories", NULL, 0, 0, 0},
    {"tokenizer", T_STRING, KEY_DATA, F(tokenizer), "", NULL, 0, 0, 0},
    {"min_count", T_INT, KEY_DATA, F(min_count), "1", NULL, 1, 1 << 30, 0},
};
#define N_KEYS ((int)(sizeof KEYS / sizeof KEYS[0]))

/* T_FLOAT keys whose 0 means "depends on other keys", with the value then
   actually used: config_get prints it instead of 0, so that the store's
   config_json and checkpoint metadata show the number a run used. */
static const struct {
    const char *name;
    double (*resolve)(const Config *c);
} RESOLVED[] = {
    {"emb_std", config_emb_std},
};

/* Keys that change a run only under some other key: one architecture's
   (the rest ignore them), a schedule's, a task's, and the budget's order
   (tokens, else seconds, else steps: config_total_steps). */
static int is_pairconnect(const Config *c) { return !strcmp(c->arch, "pairconnect"); }
static int is_fft(const Config *c) { return !strcmp(c->arch, "fft"); }
static int is_dispatcher(const Config *c) { return !strcmp(c->arch, "dispatcher"); }
static int is_linattn(const Config *c) { return !strcmp(c->arch, "linattn"); }
static int is_taylor(const Config *c) { return is_linattn(c) && c->feature_map == FEATURE_TAYLOR; }
static int is_mamba(const Config *c) { return !strcmp(c->arch, "mamba"); }
static int is_ema(const Config *c) { return !strcmp(c->arch, "ema"); }
static int is_gla(const Config *c) { return !strcmp(c->arch, "gla"); }
static int is_gla_data(const Config *c) { return is_gla(c) && c->gate == GATE_DATA; }
static int is_swa(const Config *c) { return !strcmp(c->arch, "swa"); }
static int is_wsd(const Config *c) { return c->decay == DECAY_WSD; }
static int is_mlm(const Config *c) { return !strcmp(c->task, "mlm"); }
static int steps_budget(const Config *c) { return c->tokens <= 0 && c->seconds <= 0; }
static int seconds_budget(const Config *c) { return c->tokens <= 0 && c->seconds > 0; }
static int tokens_budget(const Config *c) { return c->tokens > 0; }

static const struct {
    const char *name;
    int (*applies)(const Config *c);
} APPLIES[] = {
    {"hash_size", is_pairconnect}, {"hash_seed", is_pairconnect}, {"pair_reduce", is_pairconnect},
    {"d_pair", is_pairconnect},    {"table_optim", is_pairconnect}, {"fft_mode", is_fft},
    {"level_dropout", is_dispatcher}, {"cooldown", is_wsd},       {"mlm_loss", is_mlm},
    {"state", is_mamba},           {"expand", is_mamba},          {"window", is_swa},
    {"steps", steps_budget},       {"seconds", seconds_budget},   {"tokens", tokens_budget},
    {"feature_map", is_linattn},   {"feature_dim", is_taylor},
    {"ema_span", is_ema},
    {"gate", is_gla},              {"gate_rank", is_gla_data},
};

int config_key_applies(const Config *c, const char *key)
{
    assert(c && key);
    for (size_t i = 0; i < sizeof APPLIES / sizeof APPLIES[0]; i++)
        if (!strcmp(APPLIES[i].name, key)) return APPLIES[i].applies(c);
    return 1;
}

static double float_value(const Config *c, const Key *k)
{
    double v = *(const double *)((const char *)c + k->offset);
    for (size_t i = 0; v == 0 && i < sizeof RESOLVED / sizeof RESOLVED[0]; i++)
        if (!strcmp(RESOLVED[i].name, k->name)) v = RESOLVED[i].resolve(c);
    return v;
}

/* An enum key's value; pos = default is printed as the pos actually used
   (when the arch is known), for the reason above: a run stored while an
   arch's default was one table must not read as another once the default
   changes (the dispatcher autoencoder's did, SPEC section 1). */
static int enum_value(const Config *c, const Key *k)
{
    int v = *(const int *)((const char *)c + k->offset);
    if (k->offset == offsetof(Config, pos) && v == POS_DEFAULT && mixer_find(c->arch)) v = config_pos(c);
    return v;
}

/* The fewest digits (9 to 17) that read back to exactly v, so that a value
   computed from other keys (emb_std = 2 sqrt(n_ctx)) survives the store and
   checkpoint metadata bit for bit, while 0.001 stays "0.001". */
static void format_double(double v, char *buf, int cap)
{
    for (int digits = 9; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, v);
        double back;
        if (text_to_double(buf, &back) == 0 && back == v) return;
    }
}

static const Key *find_key(const char *name)
{
    for (int i = 0; i < N_KEYS; i++)
        if (strcmp(KEYS[i].name, name) == 0) return &KEYS[i];
    return NULL;
}

int config_key_count(void) { return N_KEYS; }
const char *config_key_name(int i) { return KEYS[i].name; }
KeyGroup config_key_group(int i) { return KEYS[i].group; }
int config_key_bookkeeping(int i) { return KEYS[i].bookkeeping; }
int config_is_key(const char *key) { return find_key(key) != NULL; }

ConfigNumber config_key_number(const char *key)
{
    const Key *k = find_key(key);
    if (!k) return CONFIG_NOT_NUMBER;
    if (k->type == T_INT || k->type == T_INT64) return CONFIG_WHOLE;
    return k->type == T_FLOAT ? CONFIG_REAL : CONFIG_NOT_NUMBER;
}

/* Index of word in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *word)
{
    size_t wl = strlen(word);
    int idx = 0;
    for (const char *p = choices;; idx++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == wl && strncmp(p, word, wl) == 0) return idx;
        if (!bar) return -1;
        p = bar + 1;
    }
}

static void choice_name(const char *choices, int idx, char *buf, int cap)
{
    const char *p = choices;
    for (int i = 0; i < idx && p; i++) {
        p = strchr(p, '|');
        if (p) p++;
    }
    if (!p) { snprintf(buf, cap, "%d", idx); return; }
    const char *bar = strchr(p, '|');
    int len = bar ? (int)(bar - p) : (int)strlen(p);
    snprintf(buf, cap, "%.*s", len, p);
}

static int set_key(Config *c, const Key *k, const char *value, char *err)
{
    char *base = (char *)c + k->offset;
    if (!value || !*value) {
        if (k->type == T_STRING) { base[0] = 0; return 0; }
        return err_set(err, "config: %s needs a value", k->name);
    }
    switch (k->type) {
    case T_INT:
    case T_INT64: {
        double v;
        if (k->type == T_INT && k->choices && !strcmp(value, k->choices)) {
            *(int *)base = -1;
            return 0;
        }
        if (text_to_double(value, &v) || v != floor(v))
            return err_set(err, "config: %s=%s is not a whole number", k->name, value);
        if (v < k->lo || v > k->hi)
            return err_set(err, "config: %s=%s is out of range [%.0f, %.0f]", k->name, value, k->lo, k->hi);
        if (k->type == T_INT) *(int *)base = (int)v;
        else *(int64_t *)base = (int64_t)v;
        return 0;
    }
    case T_FLOAT: {
        double v;
        if (text_to_double(value, &v))
            return err_set(err, "config: %s=%s is not a number", k->name, value);
        if (v < k->lo || v > k->hi)
            return err_set(err, "config: %s=%s is out of range [%g, %g]", k->name, value, k->lo, k->hi);
        *(double *)base = v;
        return 0;
    }
    case T_BOOL:
        if (!strcmp(value, "true") || !strcmp(value, "1") || !strcmp(value, "yes")) *(int *)base = 1;
        else if (!strcmp(value, "false") || !strcmp(value, "0") || !strcmp(value, "no")) *(int *)base = 0;
        else return err_set(err, "config: %s=%s must be true or false", k->name, value);
        return 0;
    case T_ENUM: {
        int idx = choice_index(k->choices, value);
        if (idx < 0) return err_set(err, "config: %s=%s is not one of %s", k->name, value, k->choices);
        *(int *)base = idx;
        return 0;
    }
    case T_STRING:
        /* config_to_json writes invalid UTF-8 as U+FFFD, so such a value
           would not read back from the store or a checkpoint as it was set
           (found by tests/fuzz/fuzz_config.c) */
        if (!json_utf8_valid(value, strlen(value)))
            return err_set(err, "config: %s=%s is not valid UTF-8", k->name, value);
        if (strlen(value) >= k->size)
            return err_set(err, "config: %s is longer than %zu characters", k->name, k->size - 1);
        memcpy(base, value, strlen(value) + 1);
        return 0;
    }
    return err_set(err, "config: %s has an unknown type", k->name);
}

void config_defaults(Config *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < N_KEYS; i++) set_key(c, &KEYS[i], KEYS[i].def, NULL);
}

static void list_keys(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < N_KEYS && len + 20 < cap; i++)
        len += snprintf(buf + len, cap - len, "%s%s", i ? " " : "", KEYS[i].name);
}

int config_set(Config *c, const char *key, const char *value, char *err)
{
    const Key *k = find_key(key);
    if (!k) {
        char known[400];
        list_keys(known, sizeof known);
        return err_set(err, "config: unknown key '%s' (known: %s)", key, known);
    }
    return set_key(c, k, value, err);
}

int config_set_arg(Config *c, const char *arg, char *err)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) return err_set(err, "config: '%s' is not key=value", arg);
    char key[64];
    size_t kl = (size_t)(eq - arg);
    if (kl >= sizeof key) return err_set(err, "config: key in '%s' is too long", arg);
    memcpy(key, arg, kl);
    key[kl] = 0;
    return config_set(c, key, eq + 1, err);
}

int config_get(const Config *c, const char *key, char *buf, int cap)
{
    const Key *k = find_key(key);
    if (!k) return -1;
    const char *base = (const char *)c + k->offset;
    switch (k->type) {
    case T_INT:
        if (k->choices && *(const int *)base == -1) snprintf(buf, cap, "%s", k->choices);
        else snprintf(buf, cap, "%d", *(const int *)base);
        break;
    case T_INT64: snprintf(buf, cap, "%lld", (long long)*(const int64_t *)base); break;
    case T_FLOAT: format_double(float_value(c, k), buf, cap); break;
    case T_BOOL: snprintf(buf, cap, "%s", *(const int *)base ? "true" : "false"); break;
    case T_ENUM: choice_name(k->choices, enum_value(c, k), buf, cap); break;
    case T_STRING: snprintf(buf, cap, "%s", base); break;
    }
    return 0;
}

/* The seeds' named variants: a bundle of keys applied before the user's. */
static const struct {
    const char *name, *keys, *what;
} VARIANTS[] = {
    {"linear-mixer", "arch=mixer act=none norm=none", "Masked Mixers II: the fully linear masked mixer"},
    {"dispatcher-block", "arch=dispatcher norm=post act=relu pos=sinusoidal",
     "the Dispatcher paper's block: post-norm, ReLU, sinusoidal positions"},
    {"fnet", "arch=fft fft_mode=fnet norm=post task=mlm", "FNet: Re(DFT2) token mixing, post-norm encoder"},
};

int config_apply_variant(Config *c, const char *name, char *err)
{
    for (size_t i = 0; i < sizeof VARIANTS / sizeof VARIANTS[0]; i++) {
        if (strcmp(VARIANTS[i].name, name)) continue;
        char keys[256];
        snprintf(keys, sizeof keys, "%s", VARIANTS[i].keys);
        for (char *save = NULL, *kv = strtok_r(keys, " ", &save); kv; kv = strtok_r(NULL, " ", &save))
            if (config_set_arg(c, kv, err)) return -1;
        return 0;
    }
    char names[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < sizeof VARIANTS / sizeof VARIANTS[0]; i++)
        len += snprintf(names + len, sizeof names - len, "%s%s", i ? " " : "", VARIANTS[i].name);
    return err_set(err, "unknown variant '%s' (known: %s)", name, names);
}

int config_pos(const Config *c)
{
    if (c->pos != POS_DEFAULT) return c->pos;
    const MixerOps *m = mixer_find(c->arch);
    if (!m) return POS_NONE;
    if (m->autoencode_pos != POS_DEFAULT && !strcmp(c->task, "autoencode")) return m->autoencode_pos;
    return m->default_pos;
}

double config_emb_std(const Config *c)
{
    if (c->emb_std > 0) return c->emb_std;
    const MixerOps *m = mixer_find(c->arch);
    return m && m->default_emb_std ? m->default_emb_std(c) : 0.02;
}

/* wsd's cool-down is the last cooldown * S steps (SPEC section 5), so it
   needs S, which a seconds budget does not fix. */
static int check_schedule(const Config *c, char *err)
{
    if (c->cooldown <= 0) return err_set(err, "config: cooldown=0 is out of range (0, 1]");
    if (c->decay == DECAY_WSD && c->seconds > 0 && c->tokens <= 0)
        return err_set(err, "config: decay=wsd needs a budget in steps or tokens (seconds=%g leaves the step its "
                            "cool-down starts at unknown)", c->seconds);
    return 0;
}

int64_t config_total_steps(const Config *c)
{
    int64_t tokens_per_step = (int64_t)c->batch * c->n_ctx;
    if (c->tokens > 0) return (c->tokens + tokens_per_step - 1) / tokens_per_step;
    return c->seconds > 0 ? 0 : c->steps;
}

int config_validate(const Config *c, char *err)
{
    const MixerOps *m = mixer_find(c->arch);
    if (!m) {
        char names[256];
        mixer_names(names, sizeof names);
        return err_set(err, "unknown architecture '%s' (known: %s)", c->arch, names);
    }
    const TaskOps *t = task_find(c->task);
    if (!t) {
        char names[256];
        task_names(names, sizeof names);
        return err_set(err, "unknown task '%s' (known: %s)", c->task, names);
    }
    if (c->d % c->heads)
        return err_set(err, "config: d=%d is not divisible by heads=%d", c->d, c->heads);
    if (c->vocab < 3) return err_set(err, "config: vocab=%d is too small", c->vocab);
    if (c->steps == 0 && c->tokens == 0 && c->seconds == 0)
        return err_set(err, "config: no budget: set steps, tokens or seconds");
    if (check_schedule(c, err)) return -1;
    if ((c->patience > 0 || c->stop_accuracy > 0) && c->eval_every == 0)
        return err_set(err, "config: %s stops a run on its evaluations during training, and eval_every=0 makes none "
                            "(set eval_every=N or auto)",
                       c->patience > 0 ? "patience" : "stop_accuracy");
    if (c->mlm_loss == MLM_LOSS_ALL && !t->has_loss_all)
        return err_set(err, "config: mlm_loss=all is a loss of task mlm, not of task %s", c->task);
    if (t->check_arch(m, c, err)) return -1;
    if (m->check_config && m->check_config(c, err)) return -1;
    return 0;
}

void config_to_json(const Config *c, StrBuf *sb)
{
    char value[1100];
    sb_append(sb, "{");
    for (int i = 0; i < N_KEYS; i++) {
        config_get(c, KEYS[i].name, value, sizeof value);
        if (i) sb_append(sb, ", ");
        sb_json_string(sb, KEYS[i].name);
        sb_append(sb, ": ");
        sb_json_string(sb, value);
    }
    sb_append(sb, "}");
}

int config_from_json(Config *c, const JsonValue *obj, int ignore_unknown, char *err)
{
    if (!obj || obj->type != JSON_OBJECT) return err_set(err, "config: expected a JSON object");
    for (int i = 0; i < obj->count; i++) {
        const Key *k = find_key(obj->keys[i]);
        if (!k) {
            if (ignore_unknown) continue;
            return err_set(err, "config: unknown key '%s'", obj->keys[i]);
        }
        const JsonValue *v = &obj->items[i];
        if (v->type != JSON_STRING) return err_set(err, "config: value of '%s' is not a string", k->name);
        if (set_key(c, k, v->string, err)) return -1;
    }
    return 0;
}

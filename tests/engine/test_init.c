/*
 * test_init.c — the key init = gpt2 | fan_in (SPEC section 5): under fan_in
 * every linear layer's weight has std 1/sqrt(fan_in) (5%, on layers of at
 * least 4,096 draws), the SPEC's list of linear weights is exactly the one
 * the engine scales, and every other parameter is bit for bit what gpt2
 * gives it; gpt2's linear weights are the 0.02 draws they always were
 * (stored runs rebuild the same); the key reads back from config JSON and
 * checkpoint metadata, a file without it loads as gpt2, and init=xavier is
 * refused in one line naming the two choices.
 */
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/io/json.h"
#include "engine/io/safetensors.h"
#include "engine/mixer.h"
#include "engine/rng.h"
#include "engine/task.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <stdlib.h>
#include <string.h>

/* The linear weights of SPEC section 5, by the name under blocks.{i}. (or
   the whole name for the head), per mixer; NULL ends a list. */
static const struct {
    const char *arch;
    const char *mix[5];
} LINEAR_MIX[] = {
    {"attention", {"mix.wq", "mix.wk", "mix.wv", "mix.wo", NULL}},
    {"dispatcher", {"mix.win", "mix.wout", NULL}},
    {"pairconnect", {"mix.mlpx.w1", "mix.mlpx.w2", "mix.mlpp.w1", "mix.mlpp.w2", NULL}},
    {"mixer", {NULL}},
    {"fft", {NULL}},
    {"cumsum", {NULL}},
    {"conv", {NULL}},
};

/* 1 when a parameter named name (of a model of arch) is one of the SPEC's
   linear weights; -1 when the table does not know arch's mixer params. */
static int spec_linear(const char *arch, const char *name)
{
    const char *b = strstr(name, "blocks.");
    const char *tail = b ? strchr(b + 7, '.') : NULL;   /* ".ffn.w1", ".mix.wq" */
    if (!strcmp(name, "lm_head.w")) return 1;
    if (!tail) return 0;
    tail++;
    if (!strcmp(tail, "ffn.w1") || !strcmp(tail, "ffn.w2")) return 1;
    if (strncmp(tail, "mix.", 4)) return 0;
    for (size_t i = 0; i < sizeof LINEAR_MIX / sizeof LINEAR_MIX[0]; i++) {
        if (strcmp(LINEAR_MIX[i].arch, arch)) continue;
        for (int k = 0; LINEAR_MIX[i].mix[k]; k++)
            if (!strcmp(LINEAR_MIX[i].mix[k], tail)) return 1;
        return 0;
    }
    return -1;
}

static double rms(const float *w, size_t n)
{
    double sumsq = 0;
    for (size_t i = 0; i < n; i++) sumsq += (double)w[i] * w[i];
    return sqrt(sumsq / (double)n);
}

/* A model of arch at d 128 (the FFN's w2 has fan_in 512), in its first
   task: clm where it is causal, else mlm. */
static int build(Model *m, Config *c, const MixerOps *ops, const char *init)
{
    char a[64], t[32], i[32];
    snprintf(a, sizeof a, "arch=%s", ops->name);
    snprintf(t, sizeof t, "task=%s", ops->has_causal ? "clm" : "mlm");
    snprintf(i, sizeof i, "init=%s", init);
    return tm_build(m, c, a, t, i, "vocab=300", "d=128", "heads=2", "n_ctx=16", "layers=1", "hash_size=100",
                    "seed=7", NULL);
}

static void test_fan_in_std(void)
{
    for (int a = 0; a < mixer_count(); a++) {
        const MixerOps *ops = mixer_at(a);
        Model g, f;
        Config cg, cf;
        if (build(&g, &cg, ops, "gpt2") || build(&f, &cf, ops, "fan_in")) {
            CHECK(0, "%s does not build", ops->name);
            continue;
        }
        CHECK(g.n_params == f.n_params && g.n_floats == f.n_floats, "%s: the two inits built different tables",
              ops->name);
        int n_linear = 0, n_large = 0;
        for (int p = 0; p < g.n_params && g.n_params == f.n_params; p++) {
            const Param *P = &g.params[p];
            const float *wg = model_param(&g, p), *wf = model_param(&f, p);
            int spec = spec_linear(ops->name, P->name);
            int linear = P->init == INIT_LINEAR;
            if (spec >= 0)
                CHECK(spec == linear, "%s: %s is %sa linear weight to the engine, %sto SPEC section 5", ops->name,
                      P->name, linear ? "" : "not ", spec ? "" : "not ");
            if (!linear) {
                CHECK(memcmp(wg, wf, sizeof(float) * P->numel) == 0, "%s: %s differs between gpt2 and fan_in",
                      ops->name, P->name);
                continue;
            }
            n_linear++;
            /* gpt2: exactly the N(0, 0.02) draws of the parameter's own
               stream, as before the key existed */
            Rng r;
            rng_seed(&r, (uint64_t)cg.seed ^ rng_hash_string(P->name));
            int same = 1;
            for (size_t j = 0; j < P->numel && same; j++) same = wg[j] == (float)(0.02 * rng_normal(&r));
            CHECK(same, "%s: gpt2's %s is not N(0, 0.02) from its stream", ops->name, P->name);
            if (P->numel < 4096) continue;
            n_large++;
            double want = 1.0 / sqrt((double)P->shape[1]), got = rms(wf, P->numel);
            CHECK(fabs(got / want - 1) < 0.05, "%s: fan_in's %s [%lld, %lld] has std %.5f, want %.5f", ops->name,
                  P->name, (long long)P->shape[0], (long long)P->shape[1], got, want);
            CHECK(fabs(rms(wg, P->numel) / 0.02 - 1) < 0.05, "%s: gpt2's %s std %.5f", ops->name, P->name,
                  rms(wg, P->numel));
        }
        /* at least the FFN's two and the head */
        CHECK(n_linear >= 3 && n_large >= 3, "%s: %d linear weights, %d large", ops->name, n_linear, n_large);
        model_free(&g);
        model_free(&f);
    }
}

/* config JSON and metadata say init=fan_in; a checkpoint loads back with
   it; the same file without the key (as mixbench wrote before it) loads as
   gpt2 and is then named as different from the fan_in model. */
static void test_init_metadata(void)
{
    CHECK(tmp_dir_make("test_init") == 0, "scratch folder");
    Model m, back;
    Config c, cb;
    char err[ERR_LEN] = "", path[400], old_path[400];
    if (tm_build(&m, &c, "arch=attention", "init=fan_in", "d=32", "vocab=50", NULL)) {
        CHECK(0, "build");
        return;
    }
    StrBuf json;
    sb_init(&json);
    config_to_json(&c, &json);
    CHECK(json.data && strstr(json.data, "\"init\": \"fan_in\""), "config_json: %s", json.data);
    JsonValue *obj = json.data ? json_parse(json.data, strlen(json.data), err) : NULL;
    config_defaults(&cb);
    CHECK(obj && config_from_json(&cb, obj, 0, err) == 0 && cb.init == WEIGHT_INIT_FAN_IN, "from json: %s", err);
    json_free(obj);
    sb_free(&json);

    snprintf(path, sizeof path, "%s/fan_in.safetensors", tmp_dir);
    CHECK(checkpoint_save(path, &m, NULL, NULL, 0, err) == 0, "save: %s", err);
    StFile f;
    if (st_read(path, &f, err)) {
        CHECK(0, "read: %s", err);
        model_free(&m);
        return;
    }
    const char *stored = st_meta(&f, "init");
    CHECK(stored && !strcmp(stored, "fan_in"), "metadata init is %s", stored ? stored : "missing");
    config_defaults(&cb);
    CHECK(checkpoint_load(path, &cb, &back, NULL, err) == 0, "load: %s", err);
    CHECK(back.cfg.init == WEIGHT_INIT_FAN_IN && cb.init == WEIGHT_INIT_FAN_IN, "loaded init %d", back.cfg.init);
    CHECK(memcmp(back.w, m.w, sizeof(float) * m.n_floats) == 0, "weights differ after loading");
    model_free(&back);

    snprintf(old_path, sizeof old_path, "%s/old.safetensors", tmp_dir);
    CHECK(st_write_without(&f, "init", old_path, err) == 0, "write: %s", err);
    Config keyless;
    config_defaults(&keyless);
    CHECK(checkpoint_load(old_path, &keyless, &back, NULL, err) == 0 && back.cfg.init == WEIGHT_INIT_GPT2,
          "a file without init loads as %d (%s)", back.cfg.init, err);
    model_free(&back);
    CHECK(checkpoint_config_agrees(&keyless, &c, err) != 0 && strstr(err, "init=fan_in") && strstr(err, "init=gpt2"),
          "fan_in against a gpt2 file: %s", err);
    st_free(&f);
    model_free(&m);
    tmp_dir_remove();
}

static void test_init_refused(void)
{
    Config c;
    config_defaults(&c);
    char err[ERR_LEN] = "";
    CHECK(c.init == WEIGHT_INIT_GPT2, "default init %d", c.init);
    CHECK(config_set(&c, "init", "xavier", err) != 0, "init=xavier accepted");
    CHECK(strstr(err, "xavier") && strstr(err, "gpt2") && strstr(err, "fan_in") && !strchr(err, '\n'),
          "message: %s", err);
    CHECK(c.init == WEIGHT_INIT_GPT2, "a refused value changed init to %d", c.init);
    CHECK(config_set(&c, "init", "fan_in", err) == 0 && c.init == WEIGHT_INIT_FAN_IN, "fan_in: %s", err);
    char buf[32];
    CHECK(config_get(&c, "init", buf, sizeof buf) == 0 && !strcmp(buf, "fan_in"), "config_get: %s", buf);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_fan_in_std);
    RUN(test_init_metadata);
    RUN(test_init_refused);
    CHECK_EXIT();
}

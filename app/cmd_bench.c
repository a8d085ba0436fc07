/*
 * cmd_bench.c — `mixbench bench [--arch A] [--config S|M] [--threads T]
 * [--json]`: training throughput of each architecture on random tokens, and,
 * in the same run on the same threads, the machine's sgemm rate.
 *
 * --inference: batch-1 single-thread forward samples/s of every
 * architecture at the PairConnect paper's setting, and incremental
 * generation tokens/s for the causal ones, each beside attention's
 * (bench_inference below).
 *
 * Each mixer trains on its home task: clm, or mlm for bidirectional-only
 * mixers (fft), whose head runs on the chosen 13.5% of positions only and
 * is counted so.
 *
 * FLOP rule: a training step costs, per input token, 6 x the parameters used
 * in dense matrix products (QKV/O projections, FFN, lm_head; tied heads
 * counted once as lm_head) plus the mixer's own work (attention: 12 n d per
 * layer; masked mixer: 6 n d bidirectional, 3 n d causal).  Achieved GFLOP/s
 * = that x tokens/s; the ratio divides by the sgemm GFLOP/s measured with
 * 1024^3 single-threaded sgemm calls running on every bench thread at once.
 *   S = {d 256, L 4, h 4, n 64, V 10000, batch 32}
 *   M = {d 512, L 8, h 8, n 128, V 10000, batch 16}
 *
 * Under mpirun (engine/dist.h) each model is timed twice: on rank 0 alone
 * (the others wait without spinning), then data-parallel over every rank,
 * the same global batch split between them.  The table adds the time each
 * step spends summing gradients over ranks, its share of the step, and the
 * scaling efficiency: tokens/s over N ranks / (N x tokens/s on one).  The
 * sgemm rate is then every rank's at once, summed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "engine/common.h"
#include "engine/dist.h"
#include "engine/generate.h"
#include "engine/infer_bench.h"
#include "engine/ops.h"
#include "engine/pool.h"
#include "engine/rng.h"
#include "engine/text.h"
#include "engine/trainer.h"

typedef struct {
    int size;
    float *a[64], *b[64], *c[64];
} SgemmArgs;

static void sgemm_thread(void *arg, int i, int n)
{
    (void)n;
    SgemmArgs *s = arg;
    int k = s->size;
    matmul(0, 0, k, k, k, 1.0f, s->a[i], k, s->b[i], k, 0.0f, s->c[i], k);
}

/* Total GFLOP/s of `threads` concurrent single-threaded sgemms. */
static double measure_sgemm(int threads, char *err)
{
    Pool *pool = pool_create(threads, err);
    if (!pool) return -1;
    SgemmArgs s = {.size = 1024};
    size_t bytes = sizeof(float) * 1024 * 1024;
    Rng r;
    rng_seed(&r, 1);
    for (int i = 0; i < threads; i++) {
        s.a[i] = malloc(bytes);
        s.b[i] = malloc(bytes);
        s.c[i] = malloc(bytes);
        for (size_t j = 0; j < 1024 * 1024; j++) {
            s.a[i][j] = rng_float(&r) - 0.5f;
            s.b[i][j] = rng_float(&r) - 0.5f;
        }
    }
    pool_run(pool, sgemm_thread, &s); /* warm-up */
    double best = 0;
    for (int rep = 0; rep < 7; rep++) {
        double t0 = now_seconds();
        pool_run(pool, sgemm_thread, &s);
        double dt = now_seconds() - t0;
        double rate = threads * 2.0 * 1024.0 * 1024.0 * 1024.0 / dt / 1e9;
        if (rate > best) best = rate;
    }
    for (int i = 0; i < threads; i++) {
        free(s.a[i]);
        free(s.b[i]);
        free(s.c[i]);
    }
    pool_destroy(pool);
    return best;
}

typedef struct {
    double tokens_per_s, gflops, flops_per_token;
    double comm_seconds, step_seconds;   /* per step: gradient exchange, whole step */
    int64_t params;
    int steps;
} BenchResult;

/* Trains on random tokens for at least 3 steps and 4 s (rank 0's clock,
   which every rank of dist follows) after 2 warm-up steps. */
static int bench_train(const char *arch, const char *size, int threads, Dist *dist, BenchResult *out, char *err)
{
    Config c;
    config_defaults(&c);
    const char *common[] = {"vocab=10000", "warmup=0", "decay=constant", "seed=1", NULL};
    for (int i = 0; common[i]; i++) config_set_arg(&c, common[i], err);
    if (config_set(&c, "arch", arch, err)) return -1;
    /* the mixer's home task: clm, or mlm for bidirectional-only mixers */
    int mlm = !mixer_find(arch)->has_causal;
    config_set(&c, "task", mlm ? "mlm" : "clm", err);
    if (!strcmp(size, "S")) {
        const char *s[] = {"d=256", "layers=4", "heads=4", "n_ctx=64", "batch=32", NULL};
        for (int i = 0; s[i]; i++) config_set_arg(&c, s[i], err);
    } else {
        const char *s[] = {"d=512", "layers=8", "heads=8", "n_ctx=128", "batch=16", NULL};
        for (int i = 0; s[i]; i++) config_set_arg(&c, s[i], err);
    }
    if (config_validate(&c, err)) return -1;
    Model m;
    if (model_build(&m, &c, err)) return -1;
    /* random tokens: throughput does not depend on the text */
    Dataset ds;
    memset(&ds, 0, sizeof ds);
    size_t len = 200000;
    ds.split[SPLIT_TRAIN].ids = malloc(sizeof(int32_t) * len);
    ds.split[SPLIT_TRAIN].len = len;
    ds.vocab = c.vocab;
    Rng r;
    rng_seed(&r, 2);
    for (size_t i = 0; i < len; i++) ds.split[SPLIT_TRAIN].ids[i] = 2 + (int32_t)rng_below(&r, c.vocab - 2);
    Trainer *tr = NULL;
    int rc = -1;
    if (trainer_create_dist(&tr, &m, &ds, threads, 1, dist, err)) goto done;
    TrainProgress p;
    for (int i = 0; i < 2; i++) /* warm-up */
        if (trainer_step(tr, &p, err)) goto done;
    double t0 = p.train_seconds, elapsed = 0, comm = 0;
    int steps = 0;
    while (steps < 3 || elapsed < 4.0) {
        if (trainer_step(tr, &p, err)) goto done;
        steps++;
        comm += p.comm_seconds;
        elapsed = p.train_seconds - t0;
    }
    out->steps = steps;
    out->comm_seconds = comm / steps;
    out->step_seconds = elapsed / steps;
    out->tokens_per_s = (double)steps * c.batch * c.n_ctx / elapsed;
    out->flops_per_token = model_train_flops_per_token(&m);
    if (mlm) /* the head runs on the chosen positions only: 0.9 x 0.15 of them */
        out->flops_per_token -= 6.0 * (double)m.params[m.head_w].numel * (1.0 - 0.9 * 0.15);
    out->gflops = out->tokens_per_s * out->flops_per_token / 1e9;
    out->params = model_count_params(&m, NULL);
    rc = 0;
done:
    trainer_free(tr);
    free(ds.split[SPLIT_TRAIN].ids);
    model_free(&m);
    return rc;
}

/* The PairConnect paper's Table 3 setting: batch 1, one thread, a full
   forward pass (every position through the head) per sample, measured by
   engine/infer_bench.c as at the end of every run; the home task of the
   mixer: mlm when it has a bidirectional mode, else clm.  Causal mixers
   also report incremental generation tokens/s: n_ctx tokens from an empty
   sequence, repeated for at least 1 s after one untimed pass. */
typedef struct {
    double samples_per_s, gen_tokens_per_s;   /* gen 0: no causal mode */
} InferFigures;

static int bench_inference_one(const char *arch, int hash_size, InferFigures *out, char *err)
{
    Config c;
    config_defaults(&c);
    const MixerOps *mx = mixer_find(arch);
    const char *keys[] = {"vocab=10000", "d=256", "layers=6", "heads=4", "n_ctx=64", "batch=1", "seed=1", NULL};
    for (int i = 0; keys[i]; i++) config_set_arg(&c, keys[i], err);
    config_set(&c, "arch", arch, err);
    config_set(&c, "task", mx->has_bidir ? "mlm" : "clm", err);
    if (hash_size) c.hash_size = hash_size;
    Model m;
    if (config_validate(&c, err) || model_build(&m, &c, err)) return -1;
    InferBenchLimits limits = {.warmup = 3, .min_samples = 10, .min_seconds = 2.0};
    InferBenchResult ir;
    if (infer_bench(&m, &limits, &ir, err)) {
        model_free(&m);
        return -1;
    }
    out->samples_per_s = ir.samples_per_s;
    out->gen_tokens_per_s = 0;
    if (mx->has_causal) {
        /* generation from a clm model of the same size */
        model_free(&m);
        config_set(&c, "task", "clm", err);
        Generator *g = NULL;
        if (model_build(&m, &c, err)) return -1;
        if (generator_create(&g, &m, 1, err)) {
            model_free(&m);
            return -1;
        }
        int n = c.n_ctx;
        double g0 = 0, elapsed = 0;
        long tokens = 0;
        for (int rep = -1; rep < 3 || elapsed < 1.0; rep++) {
            if (rep == 0) g0 = now_seconds();
            generator_reset(g);
            for (int t = 0; t < n; t++) generator_push(g, 2 + t);
            if (rep < 0) continue;
            tokens += n;
            elapsed = now_seconds() - g0;
        }
        out->gen_tokens_per_s = tokens / elapsed;
        generator_free(g);
    }
    model_free(&m);
    return 0;
}

static void print_inference(const char *arch, int hash_size, const InferFigures *f, const InferFigures *ref,
                            int json, int *first)
{
    const MixerOps *mx = mixer_find(arch);
    const char *task = mx->has_bidir ? "mlm" : "clm";
    double ratio = f->samples_per_s / ref->samples_per_s;
    double gen_ratio = f->gen_tokens_per_s > 0 && ref->gen_tokens_per_s > 0 ? f->gen_tokens_per_s / ref->gen_tokens_per_s : 0;
    if (json) {
        printf("%s{\"arch\": \"%s\", \"hash_size\": %d, \"task\": \"%s\", \"samples_per_s\": %.2f, "
               "\"ms_per_sample\": %.3f, \"samples_vs_attention\": %.3f, \"generate_tokens_per_s\": %.1f, "
               "\"generate_vs_attention\": %.3f}",
               *first ? "" : ", ", arch, hash_size, task, f->samples_per_s, 1000.0 / f->samples_per_s, ratio,
               f->gen_tokens_per_s, gen_ratio);
    } else {
        char label[64], gen[32], gen_r[32];
        snprintf(label, sizeof label, hash_size ? "%s K=%d" : "%s", arch, hash_size);
        snprintf(gen, sizeof gen, f->gen_tokens_per_s > 0 ? "%.0f" : "-", f->gen_tokens_per_s);
        snprintf(gen_r, sizeof gen_r, gen_ratio > 0 ? "%.2f" : "-", gen_ratio);
        printf("%-22s %-5s %10.1f %10.3f %9.2f %14s %9s\n", label, task, f->samples_per_s,
               1000.0 / f->samples_per_s, ratio, gen, gen_r);
    }
    fflush(stdout);
    *first = 0;
}

/* Every architecture (pairconnect at K = 100, 1000, 10000), or --arch's,
   each beside attention's figures from the same run. */
static int bench_inference(const char *arch, int json, char *err)
{
    if (json) printf("{\"inference\": [");
    else printf("batch 1, 1 thread, d 256, L 6, h 4, n 64, V 10000; x att = / attention's\n"
                "%-22s %-5s %10s %10s %9s %14s %9s\n", "arch", "task", "samples/s", "ms/sample", "x att",
                "generate tok/s", "x att");
    int first = 1;
    InferFigures ref;
    if (bench_inference_one("attention", 0, &ref, err)) return -1;
    print_inference("attention", 0, &ref, &ref, json, &first);
    for (int i = 0; i < mixer_count(); i++) {
        const MixerOps *mx = mixer_at(i);
        if ((arch && strcmp(arch, mx->name)) || !strcmp(mx->name, "attention")) continue;
        int ks[] = {100, 1000, 10000}, nk = !strcmp(mx->name, "pairconnect") ? 3 : 1;
        for (int k = 0; k < nk; k++) {
            int K = nk > 1 ? ks[k] : 0;
            InferFigures f;
            if (bench_inference_one(mx->name, K, &f, err)) return -1;
            print_inference(mx->name, K, &f, &ref, json, &first);
        }
    }
    if (json) printf("]}\n");
    return 0;
}

/* One model under mpirun: rank 0 alone, then every rank; 0 or -1 on every
   rank (rank 0's err says why). */
static int bench_ranks(Dist *d, const char *arch, const char *size, int threads, BenchResult *one,
                       BenchResult *all, char *err)
{
    int rc = 0;
    if (dist_rank(d) == 0) {
        rc = bench_train(arch, size, threads, NULL, one, err);
        for (int k = 1; k < dist_size(d); k++) dist_send(d, k, 11, &rc, sizeof rc, err);
    } else {
        int src, tag;
        size_t bytes;
        dist_wait(d, 0, 11, -1, &src, &tag, &bytes);   /* sleeps: rank 0 runs alone */
        dist_recv(d, 0, 11, &rc, sizeof rc, err);
    }
    if (rc) return -1;
    rc = bench_train(arch, size, threads, d, all, err);
    return dist_agree(d, rc != 0, err);
}

/* `bench` under mpirun: the table with the ranks' columns; rank 0 prints. */
static int bench_mpi(Dist *d, const char *arch, const char *size, int threads, int json, char *err)
{
    int N = dist_size(d), rank = dist_rank(d);
    double sgemm = measure_sgemm(threads, err);   /* every rank's at once */
    if (dist_agree(d, sgemm < 0, err)) return -1;
    if (dist_sum_doubles(d, &sgemm, 1, err)) return -1;
    if (rank == 0) {
        if (json) printf("{\"ranks\": %d, \"threads\": %d, \"sgemm_gflops\": %.2f, \"results\": [", N, threads, sgemm);
        else printf("%d ranks x %d thread%s; sgemm 1024^3 on all of them at once: %.1f GFLOP/s\n"
                    "%-12s %-6s %10s %12s %12s %6s %10s %6s %10s %8s\n", N, threads, threads > 1 ? "s" : "", sgemm,
                    "arch", "config", "params", "tokens/s", "1 rank", "eff", "sum ms", "share", "GFLOP/s", "of sgemm");
    }
    const char *sizes[] = {"S", "M"};
    int first = 1;
    for (int i = 0; i < mixer_count(); i++) {
        const MixerOps *mx = mixer_at(i);
        if (arch && strcmp(arch, mx->name)) continue;
        for (int s = 0; s < 2; s++) {
            if (size && strcmp(size, sizes[s])) continue;
            BenchResult one, all;
            if (bench_ranks(d, mx->name, sizes[s], threads, &one, &all, err)) return -1;
            if (rank) continue;
            double eff = all.tokens_per_s / (N * one.tokens_per_s), share = all.comm_seconds / all.step_seconds;
            if (json)
                printf("%s{\"arch\": \"%s\", \"config\": \"%s\", \"params\": %lld, \"tokens_per_s\": %.1f, "
                       "\"one_rank_tokens_per_s\": %.1f, \"efficiency\": %.4f, \"allreduce_ms_per_step\": %.3f, "
                       "\"allreduce_share\": %.4f, \"gradient_bytes\": %lld, \"gflops\": %.2f, "
                       "\"fraction_of_sgemm\": %.4f}",
                       first ? "" : ", ", mx->name, sizes[s], (long long)all.params, all.tokens_per_s,
                       one.tokens_per_s, eff, 1e3 * all.comm_seconds, share, (long long)all.params * 4, all.gflops,
                       all.gflops / sgemm);
            else
                printf("%-12s %-6s %10lld %12.0f %12.0f %5.0f%% %10.2f %5.1f%% %10.1f %7.1f%%\n", mx->name, sizes[s],
                       (long long)all.params, all.tokens_per_s, one.tokens_per_s, 100 * eff, 1e3 * all.comm_seconds,
                       100 * share, all.gflops, 100.0 * all.gflops / sgemm);
            fflush(stdout);
            first = 0;
        }
    }
    if (json && rank == 0) printf("]}\n");
    return 0;
}

/* A refusal: one line, from rank 0 only under mpirun. */
#define BENCH_FAIL(...) (dist_rank(d) == 0 ? cli_fail(__VA_ARGS__) : 1)

static int bench(Dist *d, int argc, char **argv)
{
    const char *arch = NULL, *size = NULL, *threads_s = "1", *json = NULL, *inference = NULL;
    CliOpt opts[] = {{"arch", 1, &arch, NULL},  {"config", 1, &size, NULL},          {"threads", 1, &threads_s, NULL},
                     {"json", 0, &json, NULL},  {"inference", 0, &inference, NULL}, {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return BENCH_FAIL("bench: %s", err);
    int threads;
    if (text_to_int(threads_s, 0, 64, &threads)) return BENCH_FAIL("bench: --threads %s is not 0..64", threads_s);
    if (threads == 0) threads = pool_cores();
    if (size && strcmp(size, "S") && strcmp(size, "M")) return BENCH_FAIL("bench: --config must be S or M");
    if (arch && !mixer_find(arch)) {
        char names[256];
        mixer_names(names, sizeof names);
        return BENCH_FAIL("bench: unknown architecture '%s' (known: %s)", arch, names);
    }
    if (inference && d) return BENCH_FAIL("bench: --inference is batch 1 on one thread: run it without mpirun");
    if (inference) return bench_inference(arch, json != NULL, err) ? BENCH_FAIL("bench: %s", err) : 0;
    if (d) {
        if (dist_same(d, dist_binary_hash(), "runs a different mixbench binary than rank 0", err) ||
            bench_mpi(d, arch, size, threads, json != NULL, err))
            return BENCH_FAIL("bench: %s", err);
        return 0;
    }
    double sgemm = measure_sgemm(threads, err);
    if (sgemm < 0) return BENCH_FAIL("bench: %s", err);
    if (json) printf("{\"threads\": %d, \"sgemm_gflops\": %.2f, \"results\": [", threads, sgemm);
    else printf("sgemm 1024^3 on %d thread%s: %.1f GFLOP/s\n%-12s %-6s %10s %12s %10s %10s %8s\n", threads,
                threads > 1 ? "s" : "", sgemm, "arch", "config", "params", "tokens/s", "GFLOP/tok", "GFLOP/s",
                "of sgemm");
    const char *sizes[] = {"S", "M"};
    int first = 1;
    for (int i = 0; i < mixer_count(); i++) {
        const MixerOps *mx = mixer_at(i);
        if (arch && strcmp(arch, mx->name)) continue;
        for (int s = 0; s < 2; s++) {
            if (size && strcmp(size, sizes[s])) continue;
            BenchResult r;
            if (bench_train(mx->name, sizes[s], threads, NULL, &r, err)) return BENCH_FAIL("bench %s: %s", mx->name, err);
            if (json)
                printf("%s{\"arch\": \"%s\", \"config\": \"%s\", \"params\": %lld, \"tokens_per_s\": %.1f, "
                       "\"flops_per_token\": %.0f, \"gflops\": %.2f, \"fraction_of_sgemm\": %.4f}",
                       first ? "" : ", ", mx->name, sizes[s], (long long)r.params, r.tokens_per_s,
                       r.flops_per_token, r.gflops, r.gflops / sgemm);
            else
                printf("%-12s %-6s %10lld %12.0f %10.4f %10.1f %7.1f%%\n", mx->name, sizes[s], (long long)r.params,
                       r.tokens_per_s, r.flops_per_token / 1e9, r.gflops, 100.0 * r.gflops / sgemm);
            fflush(stdout);
            first = 0;
        }
    }
    if (json) printf("]}\n");
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    Dist *d = NULL;
    char err[ERR_LEN];
    if (dist_init(&d, err)) return cli_fail("bench: %s", err);
    int rc = bench(d, argc, argv);
    dist_finalize(d);
    return rc;
}

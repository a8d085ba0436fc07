/*
 * cmd_bench.c — `mixbench bench [--arch A] [--config S|P|M] [--threads T]
 * [--seconds W] [--json]`: training throughput of each architecture on
 * random tokens, and, in the same run on the same threads, the machine's
 * sgemm rate.  Each model trains 2 warm-up steps, then at least 3 steps and
 * W seconds (default 4) are timed; --json adds the tokens per CPU-second
 * of the process over them (tokens_per_cpu_s: on a machine shared with
 * other tenants, what their preemption does not move).
 *
 * --n LIST: throughput and memory against the sequence length
 * (app/bench_length.c).
 *
 * --inference: batch-1 single-thread forward samples/s of every
 * architecture at the PairConnect paper's setting, and incremental
 * generation tokens/s for the causal ones, each beside attention's
 * (bench_inference below).
 *
 * Each mixer trains on every task it has of clm (causal) and mlm
 * (bidirectional), one line each (--task picks one), so clm and mlm compare
 * per FLOP on the same architecture.  mlm's head and its last block's FFN
 * run on the chosen positions only (0.9 x (0.15 + 0.85^n / n) of them on
 * average) and are counted so.
 *
 * Memory: around each model the peak resident set is reset (glibc's free
 * lists trimmed, `5` written to /proc/self/clear_refs) and VmHWM read from
 * /proc/self/status after training; the table shows that peak less the
 * resident set before the model ("peak"), beside engine/memory.h's estimate
 * of the job (parameters, moments, gradients, one step's activations, data;
 * "estimate"); the JSON adds the parts and the process's own peak.
 *
 * --bf16 (bench_bf16 below): every model trained in float32 and then with
 * precision=bf16 (engine/gemm.h), one after the other on the same threads:
 * tokens/s of both, the speedup, and each one's GFLOP/s over the same
 * float32 sgemm rate (bf16's can pass 1x: its products are not sgemm).
 *
 * The sgemm rate is measured at the start and again just before and just
 * after each model (best of 7 calls each); a line's "of sgemm" divides by
 * the higher of the two around it, since this machine's speed drifts by
 * several percent over the minutes a table takes (under mpirun: the
 * start's).  With --threads T > 1 each model also trains on 1 thread just
 * before: "1 thread" is that tokens/s and "scaling" tokens/s over T x it.
 *
 * FLOP rule: a training step costs, per input token, 6 x the parameters used
 * in dense matrix products (QKV/O projections, FFN, lm_head; tied heads
 * counted once as lm_head) plus the mixer's own work (attention: 12 n d per
 * layer; masked mixer: 6 n d bidirectional, 3 n d causal).  Achieved GFLOP/s
 * = that x tokens/s; the ratio divides by the sgemm GFLOP/s measured with
 * 1024^3 single-threaded sgemm calls running on every bench thread at once.
 *   S = {d 256, L 4, h 4, n 64, V 10000, batch 32}
 *   P = {d 128, L 4, h 4, n 64, V 4096, batch 8}  (the presets' own shape)
 *   M = {d 512, L 8, h 8, n 128, V 10000, batch 16}
 * tests/engine/crosscheck/bench_torch.py runs these beside PyTorch (the same
 * models on the same threads) and prints the ratios.
 *
 * The products' share: TrainProgress carries each step's time inside
 * matrix products and their FLOPs, summed over the threads (engine/gemm.h
 * clocks every product); "in prods" is that time over threads x the step's,
 * "prod rate" their GFLOP/s (threads x FLOPs / time) over the line's sgemm,
 * and "bound" = "of sgemm" / "in prods": the fraction with everything
 * outside the products taking no time.
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
#include <time.h>

#include "app/bench.h"
#include "app/blas_core.h"
#include "app/cli.h"
#include "app/commands.h"
#include "engine/common.h"
#include "engine/dist.h"
#include "engine/gemm.h"
#include "engine/generate.h"
#include "engine/infer_bench.h"
#include "engine/memory.h"
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
    matmul(NULL, 0, 0, k, k, k, 1.0f, s->a[i], k, s->b[i], k, 0.0f, s->c[i], k);
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

/* The process's CPU time so far, every thread, seconds. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_window = 4.0;

/* The bench's model of arch at size S, P or M on task into c. */
static int bench_config(Config *c, const char *arch, const char *size, const char *task, int precision, char *err)
{
    config_defaults(c);
    const char *common[] = {"warmup=0", "decay=constant", "seed=1", NULL};
    const char *s[] = {"vocab=10000", "d=256", "layers=4", "heads=4", "n_ctx=64", "batch=32", NULL};
    const char *p[] = {"vocab=4096", "d=128", "layers=4", "heads=4", "n_ctx=64", "batch=8", NULL};
    const char *m[] = {"vocab=10000", "d=512", "layers=8", "heads=8", "n_ctx=128", "batch=16", NULL};
    const char **sized = !strcmp(size, "S") ? s : !strcmp(size, "P") ? p : m;
    for (int i = 0; common[i]; i++) config_set_arg(c, common[i], err);
    for (int i = 0; sized[i]; i++) config_set_arg(c, sized[i], err);
    if (config_set(c, "arch", arch, err) || config_set(c, "task", task, err)) return -1;
    c->precision = precision;
    return config_validate(c, err);
}

/* Trains on random tokens for at least 3 steps and bench_window seconds
   (rank 0's clock, which every rank of dist follows) after 2 warm-up
   steps. */
static int bench_train(const char *arch, const char *size, const char *task, int threads, int precision, Dist *dist,
                       BenchResult *out, char *err)
{
    Config c;
    if (bench_config(&c, arch, size, task, precision, err)) return -1;
    return bench_train_config(&c, threads, dist, out, err);
}

int bench_train_config(const Config *cfg, int threads, Dist *dist, BenchResult *out, char *err)
{
    Config c = *cfg;
    int mlm = !strcmp(c.task, "mlm");
    /* random tokens (at least 4 windows): throughput does not depend on the text */
    size_t len = 200000 > 4 * ((size_t)c.n_ctx + 1) ? 200000 : 4 * ((size_t)c.n_ctx + 1);
    if (job_memory_bytes(&c, threads, 4.0 * (double)len, 0, &out->need, err)) return -1;
    out->base_bytes = memory_peak_reset();
    Model m;
    if (model_build(&m, &c, err)) return -1;
    Dataset ds;
    memset(&ds, 0, sizeof ds);
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
    double t0 = p.train_seconds, elapsed = 0, comm = 0, prod_s = 0, prod_f = 0, cpu0 = cpu_seconds();
    int steps = 0;
    while (steps < 3 || elapsed < bench_window) {
        if (trainer_step(tr, &p, err)) goto done;
        steps++;
        comm += p.comm_seconds;
        prod_s += p.product_seconds;
        prod_f += p.product_flops;
        elapsed = p.train_seconds - t0;
    }
    out->cpu_seconds = cpu_seconds() - cpu0;
    out->product_share = prod_s / (threads * elapsed);
    out->product_gflops = prod_s > 0 ? prod_f * threads / prod_s / 1e9 : 0.0;
    out->steps = steps;
    out->comm_seconds = comm / steps;
    out->step_seconds = elapsed / steps;
    out->tokens_per_s = (double)steps * c.batch * c.n_ctx / elapsed;
    out->flops_per_token = model_train_flops_per_token(&m);
    if (mlm) { /* the head and the last block's FFN run on the chosen positions only
                  (mlm.c: 90% of windows, 15% and at least one; stack.c's StackCall.rows) */
        double chosen = 0.9 * (0.15 + pow(0.85, c.n_ctx) / c.n_ctx);
        const BlockParams *last = &m.stacks[0].blocks[c.layers - 1];
        double tail = (double)(m.params[m.head_w].numel + m.params[last->w1].numel + m.params[last->w2].numel);
        out->flops_per_token -= 6.0 * tail * (1.0 - chosen);
    }
    out->gflops = out->tokens_per_s * out->flops_per_token / 1e9;
    out->params = model_count_params(&m, NULL);
    rc = 0;
done:
    out->peak_bytes = memory_peak_bytes();
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
static int bench_ranks(Dist *d, const char *arch, const char *size, const char *task, int threads,
                       BenchResult *one, BenchResult *all, char *err)
{
    int rc = 0;
    if (dist_rank(d) == 0) {
        rc = bench_train(arch, size, task, threads, PRECISION_F32, NULL, one, err);
        for (int k = 1; k < dist_size(d); k++) dist_send(d, k, 11, &rc, sizeof rc, err);
    } else {
        int src, tag;
        size_t bytes;
        dist_wait(d, 0, 11, -1, &src, &tag, &bytes);   /* sleeps: rank 0 runs alone */
        dist_recv(d, 0, 11, &rc, sizeof rc, err);
    }
    if (rc) return -1;
    rc = bench_train(arch, size, task, threads, PRECISION_F32, d, all, err);
    return dist_agree(d, rc != 0, err);
}

/* The rows of the training table: every architecture (or arch) x size (or
   size) x task it has among clm and mlm (or task). */
typedef struct {
    const char *arch, *size, *task;
} BenchCase;

static int bench_cases(const char *arch, const char *size, const char *task, BenchCase *out, int cap)
{
    const char *sizes[] = {"S", "P", "M"}, *tasks[] = {"clm", "mlm"};
    int n = 0;
    for (int i = 0; i < mixer_count(); i++) {
        const MixerOps *mx = mixer_at(i);
        if (arch && strcmp(arch, mx->name)) continue;
        for (int s = 0; s < 3; s++)
            for (int t = 0; t < 2; t++) {
                if ((size && strcmp(size, sizes[s])) || (task && strcmp(task, tasks[t]))) continue;
                if (!(t ? mx->has_bidir : mx->has_causal) || n == cap) continue;
                out[n++] = (BenchCase){mx->name, sizes[s], tasks[t]};
            }
    }
    return n;
}

/* err prefixed with the line's model ("attention S clm: ..."); -1. */
static int case_error(const BenchCase *bc, char *err)
{
    char why[ERR_LEN];
    snprintf(why, sizeof why, "%s", err);
    snprintf(err, ERR_LEN, "%s %s %s: %.400s", bc->arch, bc->size, bc->task, why);
    return -1;
}

/* The memory columns' JSON: what the estimate counts, and the peak. */
static void print_memory_json(const BenchResult *r)
{
    const MemoryNeed *n = &r->need;
    printf("\"peak_bytes\": %.0f, \"process_peak_bytes\": %.0f, \"estimate_bytes\": %.0f, \"estimate\": "
           "{\"params\": %.0f, \"optimizer\": %.0f, \"gradients\": %.0f, \"activations\": %.0f, \"data\": %.0f, "
           "\"other\": %.0f}",
           r->peak_bytes - r->base_bytes, r->peak_bytes, n->total, n->params, n->optimizer, n->gradients,
           n->activations, n->data, n->other);
}

/* One line of the table in one process: the sgemm rate just before, the
   1-thread run when threads > 1 (into *one), the model on `threads`, the
   sgemm rate just after; *ceiling is the higher of the two rates. */
static int bench_line(const BenchCase *bc, int threads, BenchResult *one, BenchResult *r, double *ceiling,
                      char *err)
{
    double before = measure_sgemm(threads, err);
    if (before < 0) return -1;
    if ((threads > 1 && bench_train(bc->arch, bc->size, bc->task, 1, PRECISION_F32, NULL, one, err)) ||
        bench_train(bc->arch, bc->size, bc->task, threads, PRECISION_F32, NULL, r, err)) {
        return case_error(bc, err);
    }
    double after = measure_sgemm(threads, err);
    if (after < 0) return -1;
    *ceiling = after > before ? after : before;
    return 0;
}

#define MAX_REPEAT 9

/* The training table, in one process or under mpirun (d: rank 0 alone,
   then every rank, with the ranks' columns); rank 0 prints. */
static int bench_table(Dist *d, const char *arch, const char *size, const char *task, int threads, int repeat,
                       int json, char *err)
{
    int N = d ? dist_size(d) : 1, rank = d ? dist_rank(d) : 0;
    char core[128];
    double sgemm = measure_sgemm(threads, err);   /* under mpirun every rank's at once */
    if (d && (dist_agree(d, sgemm < 0, err) || dist_sum_doubles(d, &sgemm, 1, err))) return -1;
    if (sgemm < 0) return -1;
    if (rank == 0 && json) {
        if (d) printf("{\"ranks\": %d, ", N);
        else printf("{");
        printf("\"threads\": %d, \"blas\": \"%s\", \"sgemm_gflops\": %.2f, \"results\": [", threads,
               blas_core_describe(core, sizeof core), sgemm);
    } else if (rank == 0 && d) {
        printf("%d ranks x %d thread%s; sgemm 1024^3 (%s) on all of them at once: %.1f GFLOP/s\n"
               "%-12s %-6s %-4s %10s %12s %12s %6s %10s %6s %10s %8s %8s %8s\n", N, threads,
               threads > 1 ? "s" : "", blas_core_describe(core, sizeof core), sgemm, "arch", "config", "task", "params", "tokens/s", "1 rank", "eff",
               "sum ms", "share", "GFLOP/s", "of sgemm", "peak MB", "est MB");
    } else if (rank == 0) {
        printf("sgemm 1024^3 (%s) on %d thread%s: %.1f GFLOP/s; again around each model (\"sgemm\")\n",
               blas_core_describe(core, sizeof core), threads, threads > 1 ? "s" : "", sgemm);
        printf("%-12s %-6s %-4s %10s %12s %10s %10s %8s %8s %8s %9s %8s %8s %8s", "arch", "config", "task", "params",
               "tokens/s", "GFLOP/tok", "GFLOP/s", "sgemm", "of sgemm", "in prods", "prod rate", "bound", "peak MB",
               "est MB");
        if (threads > 1) printf(" %10s %8s", "1 thread", "scaling");
        if (repeat > 1) printf(" %8s", "spread");
        printf("\n");
    }
    BenchCase cases[64];
    int n_cases = bench_cases(arch, size, task, cases, 64);
    for (int i = 0; i < n_cases; i++) {
        const BenchCase *bc = &cases[i];
        BenchResult one, r;
        double here = sgemm, tok[MAX_REPEAT] = {0}, frac[MAX_REPEAT] = {0}, scal[MAX_REPEAT] = {0}, spread = 0;
        int single = !d && threads > 1;
        if (d) {
            if (bench_ranks(d, bc->arch, bc->size, bc->task, threads, &one, &r, err)) {
                return case_error(bc, err);
            }
        } else {
            /* this machine's rate drifts over minutes (other tenants): each
               line has its own ceiling, and with --repeat R the line is the
               repetition with the median tokens/s, the spread (max - min) /
               median beside it */
            BenchResult ones[MAX_REPEAT], rs[MAX_REPEAT];
            double ceil[MAX_REPEAT];
            for (int k = 0; k < repeat; k++) {
                if (bench_line(bc, threads, &ones[k], &rs[k], &ceil[k], err)) return -1;
                tok[k] = rs[k].tokens_per_s;
                frac[k] = rs[k].gflops / ceil[k];
                scal[k] = single ? rs[k].tokens_per_s / (threads * ones[k].tokens_per_s) : 1.0;
            }
            int med = 0;
            for (int k = 0; k < repeat; k++) { /* the one with as many below as above */
                int below = 0;
                for (int q = 0; q < repeat; q++) below += tok[q] < tok[k] || (tok[q] == tok[k] && q < k);
                if (below == repeat / 2) med = k;
            }
            double lo = tok[0], hi = tok[0];
            for (int k = 1; k < repeat; k++) {
                lo = tok[k] < lo ? tok[k] : lo;
                hi = tok[k] > hi ? tok[k] : hi;
            }
            spread = (hi - lo) / tok[med];
            one = ones[med];
            r = rs[med];
            here = ceil[med];
        }
        if (rank) continue;
        double peak_mb = (r.peak_bytes - r.base_bytes) / 1e6, est_mb = r.need.total / 1e6;
        /* the fraction of sgemm with everything outside the products taking no time */
        double bound = r.product_share > 0 ? r.gflops / here / r.product_share : 0.0;
        if (json) {
            printf("%s{\"arch\": \"%s\", \"config\": \"%s\", \"task\": \"%s\", \"params\": %lld, "
                   "\"tokens_per_s\": %.1f, \"flops_per_token\": %.0f, \"gflops\": %.2f, \"sgemm_gflops\": %.2f, "
                   "\"fraction_of_sgemm\": %.4f, \"product_share\": %.4f, \"product_gflops\": %.2f, "
                   "\"bound\": %.4f, \"steps\": %d, \"tokens_per_cpu_s\": %.1f, ",
                   i ? ", " : "", bc->arch, bc->size, bc->task, (long long)r.params, r.tokens_per_s,
                   r.flops_per_token, r.gflops, here, r.gflops / here, r.product_share, r.product_gflops, bound,
                   r.steps, r.tokens_per_s * r.step_seconds * r.steps / r.cpu_seconds);
            if (single)
                printf("\"one_thread_tokens_per_s\": %.1f, \"scaling\": %.4f, ", one.tokens_per_s,
                       r.tokens_per_s / (threads * one.tokens_per_s));
            if (!d && repeat > 1) {
                const double *each[3] = {tok, frac, scal};
                const char *name[3] = {"tokens_per_s_each", "fraction_of_sgemm_each", "scaling_each"};
                printf("\"repeats\": %d, \"spread\": %.4f, ", repeat, spread);
                for (int e = 0; e < (single ? 3 : 2); e++) {
                    printf("\"%s\": [", name[e]);
                    for (int k = 0; k < repeat; k++) printf("%s%.4f", k ? ", " : "", each[e][k]);
                    printf("], ");
                }
            }
            if (d)
                printf("\"one_rank_tokens_per_s\": %.1f, \"efficiency\": %.4f, \"allreduce_ms_per_step\": %.3f, "
                       "\"allreduce_share\": %.4f, \"gradient_bytes\": %lld, ",
                       one.tokens_per_s, r.tokens_per_s / (N * one.tokens_per_s), 1e3 * r.comm_seconds,
                       r.comm_seconds / r.step_seconds, (long long)r.params * 4);
            print_memory_json(&r);
            printf("}");
        } else if (d) {
            printf("%-12s %-6s %-4s %10lld %12.0f %12.0f %5.0f%% %10.2f %5.1f%% %10.1f %7.1f%% %8.0f %8.0f\n",
                   bc->arch, bc->size, bc->task, (long long)r.params, r.tokens_per_s, one.tokens_per_s,
                   100 * r.tokens_per_s / (N * one.tokens_per_s), 1e3 * r.comm_seconds,
                   100 * r.comm_seconds / r.step_seconds, r.gflops, 100.0 * r.gflops / sgemm, peak_mb, est_mb);
        } else {
            printf("%-12s %-6s %-4s %10lld %12.0f %10.4f %10.1f %8.1f %7.1f%% %7.1f%% %8.1f%% %7.1f%% %8.0f %8.0f",
                   bc->arch, bc->size, bc->task, (long long)r.params, r.tokens_per_s, r.flops_per_token / 1e9,
                   r.gflops, here, 100.0 * r.gflops / here, 100.0 * r.product_share,
                   100.0 * r.product_gflops / here, 100.0 * bound, peak_mb, est_mb);
            if (single) printf(" %10.0f %7.2fx", one.tokens_per_s, r.tokens_per_s / (threads * one.tokens_per_s));
            if (repeat > 1) printf(" %7.1f%%", 100.0 * spread);
            printf("\n");
        }
        fflush(stdout);
    }
    if (json && rank == 0) printf("]}\n");
    return 0;
}

/* ---- --bf16: every model in float32 and in precision=bf16, one after the other ---- */

static int bench_bf16(const char *arch, const char *size, const char *task, int threads, int json, char *err)
{
    if (!gemm_bf16_available(err)) return -1;
    char core[128];
    double sgemm = measure_sgemm(threads, err);
    if (sgemm < 0) return -1;
    blas_core_describe(core, sizeof core);
    if (json)
        printf("{\"threads\": %d, \"blas\": \"%s\", \"sgemm_gflops\": %.2f, \"bf16\": [", threads, core, sgemm);
    else
        printf("f32: OpenBLAS sgemm (%s, %.1f GFLOP/s on %d thread%s); bf16: oneDNN, bf16 operands, float32 sums\n"
               "%-12s %-6s %-4s %12s %12s %8s %9s %9s %9s %9s\n",
               core, sgemm, threads, threads > 1 ? "s" : "", "arch", "config", "task", "f32 tok/s", "bf16 tok/s",
               "speedup", "f32 of sg", "bf16 x sg", "f32 MB", "bf16 MB");
    BenchCase cases[64];
    int n_cases = bench_cases(arch, size, task, cases, 64);
    for (int i = 0; i < n_cases; i++) {
        const BenchCase *bc = &cases[i];
        BenchResult r32, r16;
        if (bench_train(bc->arch, bc->size, bc->task, threads, PRECISION_F32, NULL, &r32, err) ||
            bench_train(bc->arch, bc->size, bc->task, threads, PRECISION_BF16, NULL, &r16, err)) {
            return case_error(bc, err);
        }
        double mb32 = (r32.peak_bytes - r32.base_bytes) / 1e6, mb16 = (r16.peak_bytes - r16.base_bytes) / 1e6;
        if (json)
            printf("%s{\"arch\": \"%s\", \"config\": \"%s\", \"task\": \"%s\", \"f32_tokens_per_s\": %.1f, "
                   "\"bf16_tokens_per_s\": %.1f, \"speedup\": %.4f, \"f32_fraction_of_sgemm\": %.4f, "
                   "\"bf16_gflops\": %.2f, \"f32_peak_bytes\": %.0f, \"bf16_peak_bytes\": %.0f}",
                   i ? ", " : "", bc->arch, bc->size, bc->task, r32.tokens_per_s, r16.tokens_per_s,
                   r16.tokens_per_s / r32.tokens_per_s, r32.gflops / sgemm, r16.gflops, mb32 * 1e6, mb16 * 1e6);
        else
            printf("%-12s %-6s %-4s %12.0f %12.0f %7.2fx %8.1f%% %8.2fx %9.0f %9.0f\n", bc->arch, bc->size, bc->task,
                   r32.tokens_per_s, r16.tokens_per_s, r16.tokens_per_s / r32.tokens_per_s,
                   100.0 * r32.gflops / sgemm, r16.gflops / sgemm, mb32, mb16);
        fflush(stdout);
    }
    if (json) printf("]}\n");
    return 0;
}

/* A refusal: one line, from rank 0 only under mpirun. */
#define BENCH_FAIL(...) (dist_rank(d) == 0 ? cli_fail(__VA_ARGS__) : 1)

static int bench(Dist *d, int argc, char **argv)
{
    const char *arch = NULL, *size = NULL, *threads_s = "1", *json = NULL, *inference = NULL;
    const char *task = NULL, *bf16 = NULL, *repeat_s = "1", *seconds_s = NULL, *lengths = NULL;
    CliOpt opts[] = {{"arch", 1, &arch, NULL},  {"config", 1, &size, NULL},          {"threads", 1, &threads_s, NULL},
                     {"json", 0, &json, NULL},  {"inference", 0, &inference, NULL}, {"task", 1, &task, NULL},
                     {"bf16", 0, &bf16, NULL},  {"repeat", 1, &repeat_s, NULL},     {"seconds", 1, &seconds_s, NULL},
                     {"n", 1, &lengths, NULL},  {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return BENCH_FAIL("bench: %s", err);
    int threads;
    if (text_to_int(threads_s, 0, 64, &threads)) return BENCH_FAIL("bench: --threads %s is not 0..64", threads_s);
    if (threads == 0) threads = pool_cores();
    int repeat;
    if (text_to_int(repeat_s, 1, MAX_REPEAT, &repeat))
        return BENCH_FAIL("bench: --repeat %s is not 1..%d", repeat_s, MAX_REPEAT);
    if (repeat > 1 && (inference || bf16 || d))
        return BENCH_FAIL("bench: --repeat is for the training table in one process (not --inference, --bf16 or mpirun)");
    if (seconds_s && (text_to_double(seconds_s, &bench_window) || !(bench_window >= 0.1 && bench_window <= 3600)))
        return BENCH_FAIL("bench: --seconds %s is not 0.1..3600", seconds_s);
    if (seconds_s && inference) return BENCH_FAIL("bench: --seconds is for training: --inference times its own way");
    if (size && strcmp(size, "S") && strcmp(size, "P") && strcmp(size, "M"))
        return BENCH_FAIL("bench: --config must be S, P or M");
    if (task && strcmp(task, "clm") && strcmp(task, "mlm")) return BENCH_FAIL("bench: --task must be clm or mlm");
    if (arch && !mixer_find(arch)) {
        char names[256];
        mixer_names(names, sizeof names);
        return BENCH_FAIL("bench: unknown architecture '%s' (known: %s)", arch, names);
    }
    if (arch && task && !(strcmp(task, "mlm") ? mixer_find(arch)->has_causal : mixer_find(arch)->has_bidir))
        return BENCH_FAIL("bench: %s has no %s mode, so it does not train on %s", arch,
                          strcmp(task, "mlm") ? "causal" : "bidirectional", task);
    if (lengths && (inference || bf16 || size || task || repeat > 1 || d))
        return BENCH_FAIL("bench: --n has its own model (d 128, L 2, h 4, batch 1, clm) in one process: drop --%s",
                          inference ? "inference" : bf16 ? "bf16" : size ? "config" : task ? "task" : repeat > 1 ? "repeat" : "n (mpirun)");
    if (lengths) return bench_lengths(arch, lengths, threads, json != NULL, err) ? BENCH_FAIL("bench: %s", err) : 0;
    if (inference && bf16) return BENCH_FAIL("bench: --inference and --bf16 are separate modes: pick one");
    if (inference && (size || task))
        return BENCH_FAIL("bench: --inference has its own setting (batch 1, the PairConnect size, each "
                          "architecture's home task): drop --%s", size ? "config" : "task");
    if (inference && d) return BENCH_FAIL("bench: --inference is batch 1 on one thread: run it without mpirun");
    if (inference) return bench_inference(arch, json != NULL, err) ? BENCH_FAIL("bench: %s", err) : 0;
    if (bf16 && d) return BENCH_FAIL("bench: --bf16 compares precisions in one process: run it without mpirun");
    if (bf16) return bench_bf16(arch, size, task, threads, json != NULL, err) ? BENCH_FAIL("bench: %s", err) : 0;
    if (d && dist_same(d, dist_binary_hash(), "runs a different mixbench binary than rank 0", err))
        return BENCH_FAIL("bench: %s", err);
    return bench_table(d, arch, size, task, threads, repeat, json != NULL, err) ? BENCH_FAIL("bench: %s", err) : 0;
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

/*
 * bench_length.c — `mixbench bench --n LIST [--arch A] [--threads T]
 * [--seconds W] [--json]`: what each architecture costs as the context
 * grows.  For every architecture with a causal mode (or --arch) and every
 * length n of LIST, at one small model (d 128, L 2, h 4, batch 1, V 1000,
 * clm on random tokens):
 *   training   tokens/s, tokens per CPU-second of the process (what other
 *              tenants' preemption does not move), GFLOP/s by the bench's
 *              FLOP rule (cmd_bench.c),
 *              the peak resident memory of the job and engine/memory.h's
 *              estimate of it (app/cmd_bench.c's bench_train_config);
 *   generation batch 1, one sequence grown token by token to n (the KV
 *              cache of attention, the running state of the others): the
 *              milliseconds of the last GEN_TIMED tokens, per token.
 * Every (architecture, length) is checked against the memory this process
 * may use (engine/memory.h) before anything runs: with --arch one that would
 * not fit is refused in one line with the estimate; for every architecture
 * it is skipped (a line saying so; "skipped" in the JSON), and refused only
 * when nothing fits.  Lengths that are not whole numbers in 1..MAX_N are
 * refused.  `mixbench plot bench FILE.json` draws the --json.
 *
 * Not for: the fixed-size tables (cmd_bench.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench.h"
#include "engine/common.h"
#include "engine/io/json.h"
#include "engine/generate.h"
#include "engine/memory.h"
#include "engine/mixer.h"
#include "engine/model.h"
#include "engine/text.h"
#include "ui/draw/figure_bench.h"

enum { MAX_LENGTHS = 16, MAX_N = 65536, GEN_TIMED = 32 };

/* The lengths of a comma-separated list into ns (count into *count). */
static int parse_lengths(const char *list, int *ns, int *count, char *err)
{
    *count = 0;
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        char word[32];
        snprintf(word, sizeof word, "%.*s", (int)(len < 31 ? len : 31), p);
        if (*count == MAX_LENGTHS) return err_set(err, "--n: at most %d lengths", MAX_LENGTHS);
        if (len == 0 || len > 30 || text_to_int(word, 1, MAX_N, &ns[*count]))
            return err_set(err, "--n: '%s' is not a length (a whole number 1..%d)", word, MAX_N);
        (*count)++;
        if (!p[len]) return 0;
        p += len + 1;
    }
}

/* The random tokens bench_train_config trains on (as it counts them). */
static double data_len(int n)
{
    return 200000 > 4.0 * (n + 1) ? 200000 : 4.0 * (n + 1);
}

/* The model every line trains: arch at length n. */
static int length_config(Config *c, const char *arch, int n, char *err)
{
    config_defaults(c);
    const char *keys[] = {"warmup=0", "decay=constant", "seed=1", "vocab=1000", "d=128",
                          "layers=2", "heads=4", "batch=1", "task=clm", NULL};
    for (int i = 0; keys[i]; i++)
        if (config_set_arg(c, keys[i], err)) return -1;
    char nn[32];
    snprintf(nn, sizeof nn, "n_ctx=%d", n);
    if (config_set_arg(c, nn, err) || config_set(c, "arch", arch, err)) return -1;
    return config_validate(c, err);
}

/* Batch-1 generation at context n: the sequence grown to n - GEN_TIMED
   tokens untimed, then the milliseconds per token of the last ones. */
static int generate_ms(const Config *c, double *ms, char *err)
{
    Model m;
    Generator *g = NULL;
    if (model_build(&m, c, err)) return -1;
    if (generator_create(&g, &m, 1, err)) {
        model_free(&m);
        return -1;
    }
    int n = c->n_ctx, timed = n < GEN_TIMED ? n : GEN_TIMED;
    generator_reset(g);
    /* the context fed, not pushed: a mixer without caches (hyena, fft, ...) reads it
       once at the first timed token instead of once per token (n full windows) */
    for (int t = 0; t < n - timed; t++) generator_feed(g, 2 + t % (c->vocab - 2));
    double t0 = now_seconds();
    for (int t = n - timed; t < n; t++) generator_push(g, 2 + t % (c->vocab - 2));
    *ms = 1e3 * (now_seconds() - t0) / timed;
    generator_free(g);
    model_free(&m);
    return 0;
}

/* 1 when the job of arch at length n fits in `available` by
   engine/memory.h's estimate, 0 when not (why: its need and the room), -1
   when the config is refused (why says why). */
static int line_fits(const char *arch, int n, int threads, double available, const char *source, char *why)
{
    Config c;
    MemoryNeed need;
    if (length_config(&c, arch, n, why) || job_memory_bytes(&c, threads, 4.0 * data_len(n), 0, &need, why))
        return -1;
    return memory_check(&need, available, source, why) ? 0 : 1;
}

/* s as a JSON string on stdout. */
static void json_print_string(const char *s)
{
    StrBuf sb;
    sb_init(&sb);
    sb_json_string(&sb, s);
    printf("%s", sb_ok(&sb) ? sb.data : "\"\"");
    sb_free(&sb);
}

int bench_lengths(const char *arch, const char *n_list, int threads, int json, char *err)
{
    int ns[MAX_LENGTHS], n_lengths;
    if (parse_lengths(n_list, ns, &n_lengths, err)) return -1;
    const char *archs[64];
    int n_archs = 0;
    for (int i = 0; i < mixer_count() && n_archs < 64; i++) {
        const MixerOps *mx = mixer_at(i);
        if (arch ? !strcmp(arch, mx->name) : mx->has_causal) archs[n_archs++] = mx->name;
    }
    if (arch && !mixer_find(arch)->has_causal)
        return err_set(err, "--n: %s has no causal mode (the lengths are measured on clm)", arch);
    /* every line's estimate first: with --arch nothing runs when one
       would not fit; for every architecture those lines are skipped (the
       masked mixer's [n, n] matrices outgrow memory long before the others) */
    const char *source;
    double available = memory_available(&source);
    int runnable = 0;
    char first_why[ERR_LEN] = "";
    for (int a = 0; a < n_archs; a++)
        for (int k = 0; k < n_lengths; k++) {
            char why[ERR_LEN];
            int fits = line_fits(archs[a], ns[k], threads, available, source, why);
            if (fits < 0 || (!fits && arch)) return err_set(err, "--n %d: %s %.400s", ns[k], archs[a], why);
            if (!fits && !first_why[0]) snprintf(first_why, sizeof first_why, "%s %.400s", archs[a], why);
            runnable += fits;
        }
    if (!runnable) return err_set(err, "--n %s: no architecture fits (%.400s)", n_list, first_why);
    if (json)
        printf("{\"threads\": %d, \"model\": {\"d\": 128, \"layers\": 2, \"heads\": 4, \"batch\": 1, \"vocab\": 1000, "
               "\"task\": \"clm\"}, \"lengths\": [",
               threads);
    else
        printf("d 128, L 2, h 4, batch 1, V 1000, clm on random tokens, %d thread%s; generate: batch 1, ms per token "
               "at context n\n%-12s %8s %12s %12s %10s %9s %9s %12s\n",
               threads, threads > 1 ? "s" : "", "arch", "n", "tokens/s", "tok/CPU-s", "GFLOP/s", "peak MB", "est MB",
               "gen ms/tok");
    int first = 1;
    for (int a = 0; a < n_archs; a++)
        for (int k = 0; k < n_lengths; k++) {
            Config c;
            BenchResult r;
            double ms = 0;
            char why[ERR_LEN];
            if (line_fits(archs[a], ns[k], threads, available, source, why) == 0) {
                if (json) {
                    printf("%s{\"arch\": \"%s\", \"n\": %d, \"skipped\": ", first ? "" : ", ", archs[a], ns[k]);
                    json_print_string(why);
                    printf("}");
                } else {
                    printf("%-12s %8d  skipped: %s\n", archs[a], ns[k], why);
                }
                first = 0;
                continue;
            }
            if (length_config(&c, archs[a], ns[k], err) || bench_train_config(&c, threads, NULL, &r, err) ||
                generate_ms(&c, &ms, err)) {
                char why[ERR_LEN];
                snprintf(why, sizeof why, "%s", err);
                return err_set(err, "%s n %d: %.400s", archs[a], ns[k], why);
            }
            double peak = r.peak_bytes - r.base_bytes;
            if (json)
                printf("%s{\"arch\": \"%s\", \"n\": %d, \"params\": %lld, \"tokens_per_s\": %.1f, \"gflops\": %.3f, "
                       "\"tokens_per_cpu_s\": %.1f, \"steps\": %d, \"peak_bytes\": %.0f, \"estimate_bytes\": %.0f, "
                       "\"generate_ms_per_token\": %.4f}",
                       first ? "" : ", ", archs[a], ns[k], (long long)r.params, r.tokens_per_s, r.gflops,
                       r.tokens_per_s * r.step_seconds * r.steps / r.cpu_seconds, r.steps, peak, r.need.total, ms);
            else
                printf("%-12s %8d %12.0f %12.0f %10.2f %9.0f %9.0f %12.3f\n", archs[a], ns[k], r.tokens_per_s,
                       r.tokens_per_s * r.step_seconds * r.steps / r.cpu_seconds, r.gflops, peak / 1e6,
                       r.need.total / 1e6, ms);
            fflush(stdout);
            first = 0;
        }
    if (json) printf("]}\n");
    return 0;
}

/* The lines of one --json output into pts (from *count on, at most cap). */
static int read_points(const char *path, BenchPoint *pts, int cap, int *count, char *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return err_set(err, "cannot read %s", path);
    char *text = NULL;
    size_t len = 0, got;
    char chunk[65536];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        char *grown = realloc(text, len + got + 1);
        if (!grown) {
            free(text);
            fclose(f);
            return err_set(err, "out of memory reading %s", path);
        }
        text = grown;
        memcpy(text + len, chunk, got);
        len += got;
    }
    fclose(f);
    char jerr[ERR_LEN];
    int empty = text == NULL;
    JsonValue *root = empty ? NULL : json_parse(text, len, jerr);
    free(text);
    if (!root) return err_set(err, "%s: %s", path, empty ? "empty file" : jerr);
    const JsonValue *lines = json_get(root, "lengths");
    int rc = lines && lines->type == JSON_ARRAY ? 0
             : err_set(err, "%s: not the output of mixbench bench --n --json (no \"lengths\")", path);
    for (int i = 0; !rc && i < lines->count; i++) {
        if (json_get(&lines->items[i], "skipped")) continue;   /* did not fit in memory */
        const JsonValue *l = &lines->items[i], *arch = json_get(l, "arch"), *n = json_get(l, "n"),
                        *tok = json_get(l, "tokens_per_s"), *peak = json_get(l, "peak_bytes"),
                        *gen = json_get(l, "generate_ms_per_token");
        if (!arch || arch->type != JSON_STRING || !n || n->type != JSON_NUMBER || !tok || tok->type != JSON_NUMBER ||
            !peak || peak->type != JSON_NUMBER || !gen || gen->type != JSON_NUMBER || !(n->number >= 1))
            rc = err_set(err, "%s: line %d of \"lengths\" lacks arch, n, tokens_per_s, peak_bytes or "
                         "generate_ms_per_token", path, i + 1);
        else if (*count == cap)
            rc = err_set(err, "more than %d bench lines", cap);
        else {
            BenchPoint *p = &pts[(*count)++];
            snprintf(p->arch, sizeof p->arch, "%s", arch->string);
            p->n = (int)n->number;
            p->tokens_per_s = tok->number;
            p->peak_bytes = peak->number;
            p->generate_ms = gen->number;
        }
    }
    json_free(root);
    return rc;
}

int bench_lengths_figure(const char *const *paths, int n_paths, Figure *fig, char *err)
{
    enum { CAP = 4096 };
    BenchPoint *pts = malloc(sizeof(BenchPoint) * CAP);
    if (!pts) return err_set(err, "out of memory");
    int count = 0, rc = n_paths ? 0 : err_set(err, "name the JSON of mixbench bench --n --json (one or more files)");
    for (int i = 0; i < n_paths && !rc; i++) rc = read_points(paths[i], pts, CAP, &count, err);
    if (!rc) rc = figure_bench(pts, count, fig, err);
    free(pts);
    return rc;
}

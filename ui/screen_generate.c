/*
 * screen_generate.c — the Generate screen: text sampled from a finished
 * causal language model (task clm) of the store, with a prompt and the
 * sampling settings of `mixbench generate` (temperature, top-k, length,
 * seed), shown word-wrapped as it is produced.
 *
 * The model is the run opened elsewhere (ctx->run_id) when it is a clm run
 * with a checkpoint, else one picked from the list of such runs.  Sampling
 * runs in a thread of its own: the UI thread only starts it, asks it to
 * stop, and copies the text it has produced so far, so a large model never
 * freezes the workbench (text appears token by token).  The loaded model is
 * kept while the same checkpoint is used again.
 *
 * Not for: the sampling rule (engine/sample.h, shared with `mixbench
 * generate`) or computing logits (engine/generate.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <ncurses.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/ckpt_owner.h"
#include "db/queue_read.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/sample_text.h"
#include "engine/text.h"
#include "ui/ui.h"

enum { F_MODEL, F_PROMPT, F_TEMP, F_TOPK, F_LENGTH, F_SEED, F_GO, N_FIELDS };
enum { MAX_RUNS = 200, MAX_LENGTH = 2000, OUTPUT_CAP = 1 << 18, LABEL_WIDTH = 8 };

/* How often the list of runs is read again. */
#define RUNS_REFRESH_SECONDS 3.0

/* What one generation was asked for (a copy the thread owns). */
typedef struct {
    char ckpt[1024];
    char prompt[UI_FIELD_CAP];
    double temperature;
    int top_k, length;
    uint64_t seed;
} GenRequest;

typedef struct {
    /* the runs one can pick, newest first */
    CkptRun runs[MAX_RUNS];
    int n_runs;
    double runs_at;
    int64_t chosen_id;           /* the run generating (0: none yet) */
    CkptRun chosen;
    int64_t ctx_run_seen;        /* the last ctx->run_id taken */
    char notice[300];            /* why ctx->run_id cannot generate */
    int list_open;
    UiList list;                 /* the open list of runs (over runs) */
    /* the form */
    int field, editing;
    UiTextField text[N_FIELDS];  /* F_PROMPT .. F_SEED */
    int scroll;                  /* output lines scrolled up from the end */
    /* the generation thread; everything below `lock` is shared with it,
       under the lock (stop, an atomic, without) */
    pthread_t thread;
    int thread_live;             /* started and not joined yet */
    GenRequest req;
    Model model;                 /* kept between generations (thread's while live) */
    Tokenizer *tok;
    Config cfg;
    char loaded_ckpt[1024];      /* "" when nothing is loaded */
    pthread_mutex_t lock;
    int running;
    atomic_int stop;             /* set by the UI thread, read by the thread per token */
    char *output;                /* [OUTPUT_CAP] the prompt and the text so far */
    size_t out_len;
    int tokens_done;
    double seconds;
    int incremental;
    char error[ERR_LEN];
    /* the UI thread's copy of output, for drawing */
    char *shown;
} GenScreen;

static int is_text_field(int f)
{
    return f >= F_PROMPT && f <= F_SEED;
}

/* ---- the generation thread -------------------------------------------- */

/* Appends text to the output (under the lock). */
static void output_append(GenScreen *g, const char *text)
{
    size_t n = strlen(text);
    pthread_mutex_lock(&g->lock);
    if (g->out_len + n + 1 < OUTPUT_CAP) {
        memcpy(g->output + g->out_len, text, n + 1);
        g->out_len += n;
    }
    pthread_mutex_unlock(&g->lock);
}

static int stop_requested(GenScreen *g)
{
    return atomic_load(&g->stop);
}

/* Loads req->ckpt unless it is the model already loaded. */
static int ensure_model(GenScreen *g, char *err)
{
    if (g->loaded_ckpt[0] && !strcmp(g->loaded_ckpt, g->req.ckpt)) return 0;
    if (g->loaded_ckpt[0]) {
        model_free(&g->model);
        tokenizer_free(g->tok);
        g->tok = NULL;
        g->loaded_ckpt[0] = 0;
    }
    config_defaults(&g->cfg);
    if (checkpoint_load(g->req.ckpt, &g->cfg, &g->model, &g->tok, err)) return -1;
    if (!g->tok || strcmp(g->cfg.task, "clm")) {
        if (!g->tok) err_set(err, "%s: the checkpoint stores no tokenizer", g->req.ckpt);
        else err_set(err, "%s was trained for task %s; generation needs a causal clm model", g->req.ckpt, g->cfg.task);
        model_free(&g->model);
        tokenizer_free(g->tok);
        g->tok = NULL;
        return -1;
    }
    snprintf(g->loaded_ckpt, sizeof g->loaded_ckpt, "%s", g->req.ckpt);
    return 0;
}

/* What the generation thread hands sample_text. */
typedef struct {
    GenScreen *g;
    int incremental;           /* set by sample_text before the first piece */
    double started;
} Sampling;

/* sample_text's callback: the piece joins the output; a stop request ends it. */
static int take_piece(void *ctx, const char *piece, int64_t done)
{
    Sampling *sp = ctx;
    GenScreen *g = sp->g;
    output_append(g, piece);
    pthread_mutex_lock(&g->lock);
    g->incremental = sp->incremental;
    if (done > 0) {
        g->tokens_done = (int)done;
        g->seconds = now_seconds() - sp->started;
    }
    pthread_mutex_unlock(&g->lock);
    return stop_requested(g);
}

static int generate(GenScreen *g, char *err)
{
    if (ensure_model(g, err)) return -1;
    const GenRequest *r = &g->req;
    /* as `mixbench generate` (engine/sample_text.h) */
    SampleRequest req = {r->prompt, r->length, r->temperature, r->top_k, r->seed};
    Sampling sp = {g, 0, now_seconds()};
    return sample_text(&g->model, g->tok, &req, take_piece, &sp, &sp.incremental, err);
}

static void *generate_thread(void *arg)
{
    GenScreen *g = arg;
    char err[ERR_LEN] = "";
    int rc = generate(g, err);
    pthread_mutex_lock(&g->lock);
    if (rc) snprintf(g->error, sizeof g->error, "%s", err);
    g->running = 0;
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* Stops a generation that runs and reaps a finished thread. */
static void stop_thread(GenScreen *g)
{
    if (!g->thread_live) return;
    atomic_store(&g->stop, 1);
    pthread_join(g->thread, NULL);
    g->thread_live = 0;
}

/* ---- runs ----------------------------------------------------------- */

static void load_runs(GenScreen *g, UiContext *ctx)
{
    char err[ERR_LEN];
    if (queue_read_clm_runs(ctx->store, g->runs, MAX_RUNS, &g->n_runs, err)) g->n_runs = 0;
    g->runs_at = now_seconds();
}

/* Another model: the text of the last one (and a generation running on
   it) goes, so that no text shows under a model that did not write it. */
static void choose(GenScreen *g, const CkptRun *r)
{
    if (r->id != g->chosen_id) {
        stop_thread(g);
        pthread_mutex_lock(&g->lock);
        g->output[0] = 0;
        g->out_len = 0;
        g->tokens_done = 0;
        g->seconds = 0;
        g->error[0] = 0;
        pthread_mutex_unlock(&g->lock);
        g->scroll = 0;
    }
    g->chosen = *r;
    g->chosen_id = r->id;
    g->notice[0] = 0;
}

/* Takes ctx->run_id when it changed: a clm run with a checkpoint becomes
   the model; anything else is explained. */
static void take_context_run(GenScreen *g, UiContext *ctx)
{
    if (ctx->run_id == g->ctx_run_seen) return;
    g->ctx_run_seen = ctx->run_id;
    g->notice[0] = 0;
    if (!ctx->run_id) return;
    CkptRun r;
    char err[ERR_LEN];
    int found = 0;
    if (queue_read_ckpt_run(ctx->store, ctx->run_id, &r, &found, err) || !found) return;
    if (strcmp(r.task, "clm"))
        snprintf(g->notice, sizeof g->notice, "run %lld is a %s model; generation needs a causal (clm) one",
                 (long long)r.id, r.task);
    else if (!r.ckpt[0])
        snprintf(g->notice, sizeof g->notice, "run %lld has no checkpoint yet (it is %s)", (long long)r.id,
                 run_status_name(r.status));
    else
        choose(g, &r);
}

/* ---- life cycle ------------------------------------------------------ */

static void generate_destroy(void *state);

static int64_t ckpt_run_id(const void *rows, int i) { return ((const CkptRun *)rows)[i].id; }
static const UiListRows CKPT_RUNS = {ckpt_run_id, NULL, NULL};

static void *generate_create(UiContext *ctx)
{
    GenScreen *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->output = malloc(OUTPUT_CAP);
    g->shown = malloc(OUTPUT_CAP);
    if (!g->output || !g->shown || pthread_mutex_init(&g->lock, NULL)) {
        free(g->output);
        free(g->shown);
        free(g);
        return NULL;
    }
    g->output[0] = g->shown[0] = 0;
    g->list.of = &CKPT_RUNS;
    atomic_init(&g->stop, 0);
    g->field = F_PROMPT;
    ui_field_set(&g->text[F_PROMPT], "once upon a time");
    ui_field_set(&g->text[F_TEMP], "0.8");
    ui_field_set(&g->text[F_TOPK], "40");
    ui_field_set(&g->text[F_LENGTH], "200");
    ui_field_set(&g->text[F_SEED], "1");
    load_runs(g, ctx);
    if (g->n_runs) choose(g, &g->runs[0]);
    return g;
}

static void generate_destroy(void *state)
{
    GenScreen *g = state;
    if (!g) return;
    stop_thread(g);
    if (g->loaded_ckpt[0]) {
        model_free(&g->model);
        tokenizer_free(g->tok);
    }
    pthread_mutex_destroy(&g->lock);
    free(g->output);
    free(g->shown);
    free(g);
}

static void generate_reload(void *state, UiContext *ctx)
{
    GenScreen *g = state;
    if (!g) return;
    if (now_seconds() - g->runs_at >= RUNS_REFRESH_SECONDS) {
        load_runs(g, ctx);
        if (!g->chosen_id && g->n_runs) choose(g, &g->runs[0]);
    }
    take_context_run(g, ctx);
    /* reap a thread that has finished */
    if (g->thread_live) {
        pthread_mutex_lock(&g->lock);
        int running = g->running;
        pthread_mutex_unlock(&g->lock);
        if (!running) stop_thread(g);
    }
}

/* ---- drawing --------------------------------------------------------- */

/* Makes text safe to draw in place: control characters but '\n' become
   spaces, bytes that are not UTF-8 (or any byte >= 0x80 on an ASCII
   terminal) become '?'. */
static void sanitize(char *text, int utf8)
{
    unsigned char *p = (unsigned char *)text;
    while (*p) {
        if (*p == '\n') {
            p++;
        } else if (*p < 32 || *p == 127) {
            *p++ = ' ';
        } else if (*p < 0x80) {
            p++;
        } else {
            int n = utf8 ? text_utf8_len((const char *)p) : 1;
            if (n == 1) *p = '?';
            p += n;
        }
    }
}

static void draw_label(GenScreen *g, UiContext *ctx, int f, int y, int x, const char *label)
{
    int attr = g->field == f ? ui_attr(ctx, UI_PAIR_SELECTED) | (int)A_BOLD : (int)A_BOLD;
    ui_text(y, x, (int)strlen(label), attr, "%s", label);
}

static void describe_run(const CkptRun *r, char *out, size_t cap)
{
    const char *slash = strrchr(r->ckpt, '/');   /* the file's name: the Run screen has the path */
    snprintf(out, cap, "run %lld%s%.40s  %s %s  d=%d L=%d n_ctx=%d  step %lld  %s", (long long)r->id,
             r->name[0] ? " " : "", r->name, r->arch, run_status_name(r->status), r->d, r->layers, r->n_ctx,
             (long long)r->ckpt_step,
             slash ? slash + 1 : r->ckpt);
}

static void draw_run_list(GenScreen *g, UiContext *ctx, int top, int height, int width)
{
    ui_text(top, 1, width - 1, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "Pick a model");
    ui_text(top, 15, width - 15, ui_attr(ctx, UI_PAIR_DIM), "clm runs with a checkpoint: up/down, Enter take, Esc back");
    int rows = height - 2;
    if (rows < 1) return;
    UiList *l = &g->list;
    ui_list_set_rows(l, g->runs, g->n_runs);   /* the runs may have been read again */
    ui_list_fit(l, top + 2, rows);
    for (int i = l->scroll; i < g->n_runs && i - l->scroll < rows; i++) {
        int y = top + 2 + i - l->scroll;
        int attr = i == l->cursor ? ui_attr(ctx, UI_PAIR_SELECTED) : 0;
        if (i == l->cursor) mvhline(y, 0, ' ' | (chtype)attr, width);
        char line[1300];
        describe_run(&g->runs[i], line, sizeof line);
        ui_text(y, 1, width - 1, attr, "%s", line);
    }
}

static void generate_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    GenScreen *g = state;
    if (!g) return;
    if (g->list_open) {
        draw_run_list(g, ctx, top, height, width);
        return;
    }
    int dim = ui_attr(ctx, UI_PAIR_DIM), bottom = top + height;
    ui_text(top, 1, width - 1, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "Generate");
    ui_text(top, 11, width - 11, dim, "%s",
            g->editing ? "editing: Enter generate  Esc done  Tab next field"
                       : "up/down field  Enter edit/generate  s stop");
    int y = top + 1, x = LABEL_WIDTH + 2;
    if (y >= bottom) return;
    draw_label(g, ctx, F_MODEL, y, 1, "Model");
    if (g->chosen_id) {
        char line[1300];
        describe_run(&g->chosen, line, sizeof line);
        ui_text(y, x, width - x, 0, "%s", line);
    } else {
        ui_text(y, x, width - x, dim, "no finished clm run with a checkpoint yet");
    }
    if (g->notice[0] && ++y < bottom) ui_text(y, x, width - x, ui_attr(ctx, UI_PAIR_WARN), "%s", g->notice);
    if (++y >= bottom) return;
    draw_label(g, ctx, F_PROMPT, y, 1, "Prompt");
    ui_field_draw(&g->text[F_PROMPT], g->editing && g->field == F_PROMPT, y, x, width - x - 1);
    if (++y >= bottom) return;
    static const struct {
        int field, box;
        const char *label;
    } SMALL[] = {{F_TEMP, 5, "Temperature"}, {F_TOPK, 5, "Top-k"}, {F_LENGTH, 5, "Length"}, {F_SEED, 6, "Seed"}};
    int cx = 1;
    for (int i = 0; i < 4 && cx < width; i++) {
        draw_label(g, ctx, SMALL[i].field, y, cx, SMALL[i].label);
        cx += (int)strlen(SMALL[i].label) + 1;
        int w = SMALL[i].box < width - cx ? SMALL[i].box : width - cx;
        ui_field_draw(&g->text[SMALL[i].field], g->editing && g->field == SMALL[i].field, y, cx, w);
        cx += SMALL[i].box + 2;
    }
    if (++y >= bottom) return;
    /* the button and what the generation did */
    int go_attr = g->field == F_GO ? ui_attr(ctx, UI_PAIR_SELECTED) | (int)A_BOLD : (int)A_BOLD;
    ui_text(y, 1, width - 1, go_attr, "[ Generate ]");
    pthread_mutex_lock(&g->lock);
    int running = g->running, tokens = g->tokens_done, incremental = g->incremental;
    ctx->animating |= running;   /* text arrives token by token */
    double seconds = g->seconds;
    char error[ERR_LEN];
    snprintf(error, sizeof error, "%s", g->error);
    memcpy(g->shown, g->output, g->out_len + 1);
    pthread_mutex_unlock(&g->lock);
    if (error[0]) {
        ui_text(y, 15, width - 15, ui_attr(ctx, UI_PAIR_BAD) | A_BOLD, "%s", error);
    } else if (running || tokens) {
        ui_text(y, 15, width - 15, running ? ui_attr(ctx, UI_PAIR_WARN) : dim,
                "%s%d/%d tokens in %.2f s (%.0f tokens/s, %s)", running ? "generating: " : "", tokens,
                g->req.length, seconds, seconds > 0 ? tokens / seconds : 0.0,
                incremental ? "incremental" : "a full window per token");
    } else if (g->chosen_id) {
        ui_text(y, 15, width - 15, dim, "length at most %d tokens", MAX_LENGTH);
    }
    if (++y >= bottom) return;
    ui_rule(ctx, y, 0, width);
    if (++y >= bottom) return;

    /* the text, wrapped; the end shows unless scrolled back */
    sanitize(g->shown, ctx->utf8);
    int rows = bottom - y, text_width = width - 2;
    if (text_width < 1) return;
    int n_lines = ui_wrap_lines(g->shown, text_width, NULL, NULL, 0);
    int *starts = malloc(sizeof(int) * (size_t)(n_lines + 1)), *lens = malloc(sizeof(int) * (size_t)(n_lines + 1));
    if (!starts || !lens) {
        free(starts);
        free(lens);
        return;
    }
    ui_wrap_lines(g->shown, text_width, starts, lens, n_lines);
    int max_scroll = n_lines > rows ? n_lines - rows : 0;
    if (g->scroll > max_scroll) g->scroll = max_scroll;
    int first = n_lines > rows ? n_lines - rows - g->scroll : 0;
    for (int i = 0; i < rows && first + i < n_lines; i++)
        ui_text(y + i, 1, text_width, 0, "%.*s", lens[first + i], g->shown + starts[first + i]);
    if (g->scroll > 0) ui_text(bottom - 1, width - 12, 12, dim, "(%d more)", g->scroll);
    free(starts);
    free(lens);
}

/* ---- keys ------------------------------------------------------------ */

/* Reads the settings, then starts the thread. */
static void start_generation(GenScreen *g, UiContext *ctx)
{
    if (!g->chosen_id) {
        ui_say(ctx, "no model: train a clm run first (e.g. `mixbench run --steps 300 data=builtin:stories`)");
        return;
    }
    GenRequest r;
    memset(&r, 0, sizeof r);
    if (text_to_double(g->text[F_TEMP].text, &r.temperature) || !(r.temperature >= 0)) {
        ui_say(ctx, "temperature '%s' is not a number >= 0", g->text[F_TEMP].text);
        return;
    }
    int64_t top_k, seed;
    if (text_to_int64(g->text[F_TOPK].text, &top_k) || top_k < 0) {
        ui_say(ctx, "top-k '%s' is not a count >= 0 (0: no cut)", g->text[F_TOPK].text);
        return;
    }
    if (text_to_int(g->text[F_LENGTH].text, 1, MAX_LENGTH, &r.length)) {
        ui_say(ctx, "length '%s' is not a token count in 1..%d", g->text[F_LENGTH].text, MAX_LENGTH);
        return;
    }
    if (text_to_int64(g->text[F_SEED].text, &seed) || seed < 0) {
        ui_say(ctx, "seed '%s' is not a whole number", g->text[F_SEED].text);
        return;
    }
    r.top_k = (int)(top_k > 1000000 ? 1000000 : top_k);
    r.seed = (uint64_t)seed;
    /* the file must be the run's own: another store's or run's checkpoint
       at that path would sample its model under this run's name */
    char why[ERR_LEN];
    if (store_checkpoint_verify(ctx->store, g->chosen.id, g->chosen.ckpt, why)) {
        ui_say(ctx, "%s", why);
        return;
    }
    snprintf(r.ckpt, sizeof r.ckpt, "%s", g->chosen.ckpt);
    snprintf(r.prompt, sizeof r.prompt, "%s", g->text[F_PROMPT].text);
    stop_thread(g);
    g->req = r;
    g->output[0] = 0;
    g->out_len = 0;
    g->tokens_done = 0;
    g->seconds = 0;
    g->error[0] = 0;
    atomic_store(&g->stop, 0);
    g->running = 1;
    g->scroll = 0;
    if (pthread_create(&g->thread, NULL, generate_thread, g)) {
        g->running = 0;
        ui_say(ctx, "generate: could not start a thread");
        return;
    }
    g->thread_live = 1;
    ctx->message[0] = 0;
}

static void move_field(GenScreen *g, int step)
{
    g->field = (g->field + step + N_FIELDS) % N_FIELDS;
}

/* A key while a text field is edited; every key is taken. */
static void edit_key(GenScreen *g, UiContext *ctx, int ch)
{
    switch (ch) {
    case '\n':
    case '\r':
    case KEY_ENTER:
        g->editing = 0;
        start_generation(g, ctx);
        return;
    case 27:                         /* Esc */
        g->editing = 0;
        return;
    case KEY_UP:
    case KEY_DOWN:
        g->editing = 0;
        move_field(g, ch == KEY_UP ? -1 : 1);
        return;
    case '\t':
    case KEY_BTAB:
        do move_field(g, ch == '\t' ? 1 : -1);
        while (!is_text_field(g->field));
        g->text[g->field].cursor = (int)strlen(g->text[g->field].text);
        return;
    default:
        ui_field_type(&g->text[g->field], ch);
        return;
    }
}

static int list_key(GenScreen *g, int ch)
{
    ui_list_set_rows(&g->list, g->runs, g->n_runs);
    if (ui_list_key(&g->list, ch, 0)) return 1;
    switch (ch) {
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (ui_list_selected(&g->list) >= 0) choose(g, &g->runs[g->list.cursor]);
        g->list_open = 0;
        return 1;
    case 27:
    case KEY_LEFT:
    case 'h':
        g->list_open = 0;
        return 1;
    default:
        return 0;
    }
}

static int generate_key(void *state, UiContext *ctx, int ch)
{
    GenScreen *g = state;
    if (!g) return 0;
    if (g->editing) {
        edit_key(g, ctx, ch);
        return 1;
    }
    if (g->list_open) return list_key(g, ch);
    int enter = ch == '\n' || ch == '\r' || ch == KEY_ENTER;
    switch (ch) {
    case KEY_UP:
    case 'k':
        move_field(g, -1);
        return 1;
    case KEY_DOWN:
    case 'j':
        move_field(g, 1);
        return 1;
    case KEY_PPAGE:
        g->scroll += 5;
        return 1;
    case KEY_NPAGE:
        g->scroll = g->scroll > 5 ? g->scroll - 5 : 0;
        return 1;
    case 27:
    case 's':
        if (!g->thread_live) return 0;
        stop_thread(g);
        ui_say(ctx, "generation stopped");
        return 1;
    default:
        break;
    }
    if (g->field == F_MODEL) {
        if (enter) {
            if (!g->n_runs) {
                ui_say(ctx, "no finished clm run with a checkpoint in the store yet");
                return 1;
            }
            g->list_open = 1;
            g->list.cursor = 0;
            g->list.selected_id = g->chosen_id;   /* the list opens on the run generating */
            ui_list_set_rows(&g->list, g->runs, g->n_runs);
            return 1;
        }
        if ((ch == KEY_LEFT || ch == KEY_RIGHT) && g->n_runs) {
            int i = 0;
            for (int k = 0; k < g->n_runs; k++)
                if (g->runs[k].id == g->chosen_id) i = k;
            i = (i + (ch == KEY_RIGHT ? 1 : g->n_runs - 1)) % g->n_runs;
            choose(g, &g->runs[i]);
            return 1;
        }
        return 0;
    }
    if (!enter) return 0;
    if (g->field == F_GO) {
        start_generation(g, ctx);
    } else {
        g->editing = 1;
        g->text[g->field].cursor = (int)strlen(g->text[g->field].text);
    }
    return 1;
}

/* In the list of models: a click selects a run, a double click takes it. */
static int generate_mouse(void *state, UiContext *ctx, int y, int x, int double_click)
{
    (void)ctx, (void)x;
    GenScreen *g = state;
    int i = g && g->list_open ? ui_list_at(&g->list, y) : -1;
    if (i < 0) return 0;
    ui_list_move(&g->list, i);
    if (double_click) list_key(g, '\n');
    return 1;
}

static int generate_typing(void *state)
{
    const GenScreen *g = state;
    return g && g->editing;
}

const UiScreen ui_screen_generate = {
    "Generate",
    "up/down field  Enter edit/generate  s stop",
    "up/down, j/k      move between fields\n"
    "Enter             pick a run (on Model), edit a field, or generate\n"
    "left/right        on Model: the previous / next run\n"
    "While editing:    Enter generates, Esc leaves the field, Tab / Shift-Tab\n"
    "                  next / previous field, up/down leave and move,\n"
    "                  Home/End, Backspace/Delete, Ctrl-U / Ctrl-K clear\n"
    "s or Esc          stop a generation that is running\n"
    "PgUp / PgDn       scroll the text\n"
    "Models: finished runs of task clm with a checkpoint (the run opened on\n"
    "another screen when it is one).  Sampling is `mixbench generate`'s:\n"
    "temperature 0 is greedy, top-k 0 keeps every token; at most 2000 tokens.\n",
    generate_create,
    generate_destroy,
    generate_reload,
    generate_draw,
    generate_key,
    generate_typing,
    generate_mouse,
};

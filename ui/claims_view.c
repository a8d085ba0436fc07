/*
 * claims_view.c — the claims' verdicts on the Grid and AE/Bidir screens
 * (ui/claims_view.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/claims_view.h"

#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"

const char *claims_view_preset(const char *sweep_name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.*s", (int)strcspn(sweep_name, "@"), sweep_name);
    return buf;
}

void claims_view_free(ClaimsView *v)
{
    free(v->results);
    memset(v, 0, sizeof *v);
}

void claims_view_update(ClaimsView *v, UiContext *ctx, const char *sweep_name, int64_t sweep_id, int n_done)
{
    if (v->sweep_id == sweep_id && v->n_done == n_done && (v->results || v->error[0])) return;
    claims_view_free(v);
    v->sweep_id = sweep_id;
    v->n_done = n_done;
    char preset[64], err[ERR_LEN];
    claims_view_preset(sweep_name, preset, sizeof preset);
    if (verdicts_now(ctx->store, preset, sweep_id, &v->results, &v->n, err)) {
        snprintf(v->error, sizeof v->error, "claims: %s", err);
        v->results = NULL;
        v->n = 0;
    }
}

static int verdict_pair(Verdict verdict)
{
    switch (verdict) {
    case VERDICT_HOLDS: return UI_PAIR_GOOD;
    case VERDICT_FAILS: return UI_PAIR_BAD;
    case VERDICT_UNDECIDED:
    case VERDICT_UNDECIDED_BUDGET: return UI_PAIR_WARN;
    case VERDICT_NOT_RUN: break;
    }
    return UI_PAIR_DIM;
}

int claims_view_draw(const ClaimsView *v, UiContext *ctx, int y, int width, int max_rows)
{
    int used = 0;
    if (max_rows <= 0) return 0;
    if (v->error[0]) {
        ui_text(y, 0, width, ui_attr(ctx, UI_PAIR_BAD), "%s", v->error);
        return 1;
    }
    if (v->n == 0) return 0;
    ui_text(y + used++, 0, width, ui_attr(ctx, UI_PAIR_TITLE) | (int)A_BOLD, "the paper's claims, judged on this sweep:");
    /* every claim's line first; the numbers where rows are left */
    int rows_left = max_rows - used - v->n;
    for (int i = 0; i < v->n && used < max_rows; i++) {
        const ClaimResult *c = &v->results[i].c;
        const char *word = verdict_name(c->verdict);
        ui_text(y + used, 0, width, ui_attr(ctx, verdict_pair(c->verdict)) | (int)A_BOLD, "%s", word);
        int x = (int)strlen(word) + 2;
        if (x < width) ui_text(y + used, x, width - x, 0, "%s", c->claim);
        used++;
        if (rows_left > 0 && c->numbers[0] && used < max_rows) {
            char text[sizeof c->numbers + sizeof c->reason + VERDICT_NOTE_LEN + 8];
            snprintf(text, sizeof text, "%s%s%s%s%s%s", v->results[i].training, v->results[i].training[0] ? ": " : "",
                     c->reason[0] ? "(" : "", c->reason, c->reason[0] ? ") " : "", c->numbers);
            int n = ui_wrap(y + used, 2, width - 2, MB_MIN(rows_left, max_rows - used), ui_attr(ctx, UI_PAIR_DIM),
                            text);
            used += n;
            rows_left -= n;
        }
    }
    return used;
}

/*
 * test_ui_helpers.c — the pure helpers behind the workbench's tables
 * (ui/draw/heatmap.h): numbers in 4 significant digits that align, suffixes and
 * rounding at the edges, goodness and monochrome shading from worst to best,
 * the best entry of a column, and coordinate values compared as numbers;
 * the word wrapping of ui/widgets.c (UTF-8 characters one column each);
 * the mean curve of a seed group (ui/draw/run_curve.h) on hand-made curves;
 * and the list of ui/widgets.c (the selection kept by id across re-sorts
 * and removals, groups that hold several ids, rows of two lines, paging,
 * the `/` filter's keys, a text view's scrolling); the text field full
 * (what it did not keep counted, not lost silently).
 */
#include <math.h>
#include <ncurses.h>
#include <string.h>

#include "engine/text.h"
#include "tests/check.h"
#include "ui/draw/heatmap.h"
#include "ui/draw/run_curve.h"
#include "ui/ui.h"

static int formats_as(double v, int sig, const char *want)
{
    char out[32];
    heat_format(v, sig, out, sizeof out);
    if (strcmp(out, want)) printf("  heat_format(%g, %d) = \"%s\", want \"%s\"\n", v, sig, out, want);
    return !strcmp(out, want);
}

static void format_significant_digits(void)
{
    CHECK(formats_as(3.21, 4, "3.210"), "trailing zeros kept");
    CHECK(formats_as(6.19191032720089, 4, "6.192"), "rounded");
    CHECK(formats_as(0.08424, 4, "0.08424"), "small");
    CHECK(formats_as(488.778942628691, 4, "488.8"), "hundreds");
    CHECK(formats_as(1234, 4, "1234"), "no trailing dot");
    CHECK(formats_as(0, 4, "0.000"), "zero");
    CHECK(formats_as(-2.5, 4, "-2.500"), "negative");
    CHECK(formats_as(0.001, 3, "0.00100"), "1e-3 still plain");
    CHECK(formats_as(0.00001234, 4, "1.234e-05"), "below 1e-3: exponent");
}

static void format_suffixes_and_rounding(void)
{
    CHECK(formats_as(107434.167, 4, "107.4k"), "thousands");
    CHECK(formats_as(55660, 3, "55.7k"), "params in 3 digits");
    CHECK(formats_as(1234567, 4, "1.235M"), "millions");
    CHECK(formats_as(9999.7, 4, "10.00k"), "rounding up to the next power moves to k");
    CHECK(formats_as(999999.6, 4, "1.000M"), "and to M");
    CHECK(formats_as(2.5e15, 4, "2500T"), "the largest suffix keeps growing");
    CHECK(formats_as(NAN, 4, "-"), "NaN");
    CHECK(formats_as(INFINITY, 4, "-"), "infinity");
    /* one column of losses has the same width */
    char a[32], b[32], c[32];
    heat_format(6.1, 4, a, sizeof a);
    heat_format(5.99999, 4, b, sizeof b);
    heat_format(7.123456, 4, c, sizeof c);
    CHECK(strlen(a) == 5 && strlen(b) == 5 && strlen(c) == 5, "\"%s\" \"%s\" \"%s\" align", a, b, c);
    char tiny[4];
    heat_format(123.456, 4, tiny, sizeof tiny);
    CHECK(strlen(tiny) == 3, "clipped to the buffer: \"%s\"", tiny);
}

static void goodness_and_shading(void)
{
    CHECK(heat_goodness(3.0, 3.0, 5.0, 0) == 1, "lowest loss is best");
    CHECK(heat_goodness(5.0, 3.0, 5.0, 0) == 0, "highest loss is worst");
    CHECK(fabs(heat_goodness(4.0, 3.0, 5.0, 0) - 0.5) < 1e-12, "middle");
    CHECK(heat_goodness(0.9, 0.1, 0.9, 1) == 1, "highest accuracy is best");
    CHECK(heat_goodness(2.0, 2.0, 2.0, 0) == 1, "a single value is the best");
    CHECK(heat_goodness(NAN, 1, 2, 0) == 0, "no value: worst");
    CHECK(heat_goodness(9, 1, 2, 0) == 0 && heat_goodness(-9, 1, 2, 0) == 1, "clamped");
    CHECK(heat_shade_char(0) == ' ', "worst is blank");
    CHECK(heat_shade_char(1) == '@', "best is densest");
    CHECK(heat_shade_char(0.5) == '+' || heat_shade_char(0.5) == '=', "middle: '%c'", heat_shade_char(0.5));
    CHECK(heat_shade_char(NAN) == ' ' && heat_shade_char(7) == '@', "out of range");
    /* denser as the value gets better */
    const char *ramp = HEAT_RAMP;
    int last = -1, monotone = 1;
    for (int i = 0; i <= 100; i++) {
        int pos = (int)(strchr(ramp, heat_shade_char(i / 100.0)) - ramp);
        monotone &= pos >= last;
        last = pos;
    }
    CHECK(monotone && last == 9, "the ramp is walked in order to its end");
}

static void best_and_range(void)
{
    const double losses[] = {NAN, 6.2, 6.1, 6.1, 7};
    CHECK(heat_best(losses, 5, 0) == 2, "lowest, first on ties");
    CHECK(heat_best(losses, 5, 1) == 4, "highest");
    const double none[] = {NAN, NAN};
    CHECK(heat_best(none, 2, 0) == -1 && heat_best(none, 0, 0) == -1, "nothing finite");
    double lo, hi;
    CHECK(heat_range(losses, 5, &lo, &hi) == 4 && lo == 6.1 && hi == 7, "range %g..%g", lo, hi);
    CHECK(heat_range(none, 2, &lo, &hi) == 0, "empty range");
}

static void same_value(void)
{
    CHECK(heat_same_value("mixer", "mixer"), "text");
    CHECK(!heat_same_value("mixer", "attention"), "other text");
    CHECK(heat_same_value("1e6", "1000000"), "numbers");
    CHECK(heat_same_value("0.10", "0.1"), "decimals");
    CHECK(!heat_same_value("2", "2x") && !heat_same_value("", "0"), "not whole numbers");
    CHECK(!heat_same_value(NULL, "1"), "NULL");
}

/* The lines ui_wrap_lines makes of text at width, joined with '|'. */
static const char *wrapped(const char *text, int width)
{
    static char out[256];
    int starts[16], lens[16];
    int n = ui_wrap_lines(text, width, starts, lens, 16);
    out[0] = 0;
    for (int i = 0; i < n && i < 16; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%.*s", i ? "|" : "", lens[i], text + starts[i]);
    return out;
}

static void word_wrap(void)
{
    CHECK(!strcmp(wrapped("short", 10), "short"), "%s", wrapped("short", 10));
    CHECK(!strcmp(wrapped("the cat sat on the mat", 10), "the cat|sat on the|mat"), "%s",
          wrapped("the cat sat on the mat", 10));
    CHECK(!strcmp(wrapped("abcdefghijkl xy", 5), "abcde|fghij|kl xy"), "%s", wrapped("abcdefghijkl xy", 5));
    CHECK(!strcmp(wrapped("one\ntwo three", 20), "one|two three"), "%s", wrapped("one\ntwo three", 20));
    /* "é" and "─" are one column each although 2 and 3 bytes */
    CHECK(!strcmp(wrapped("ééé ééé", 3), "ééé|ééé"), "%s", wrapped("ééé ééé", 3));
    CHECK(!strcmp(wrapped("───", 2), "──|─"), "%s", wrapped("───", 2));
    CHECK(ui_wrap_lines("", 10, NULL, NULL, 0) == 0, "empty text makes no line");
    CHECK(text_utf8_len("\xe2\x94") == 1, "a cut character is one byte");
}

/* Three seeds: two with steps 10 20 30, one stopped at 20; the mean and
   min-max per step over the curves that have it, wall seconds averaged. */
static void mean_curve(void)
{
    double s3[3] = {10, 20, 30}, t3[3] = {100, 200, 300};
    double wa[3] = {1, 2, 3}, wb[3] = {2, 4, 6}, wc[2] = {3, 6};
    double la[3] = {5, 4, 3}, lb[3] = {6, 5, 4}, lc[2] = {7, NAN};
    CurvePoints a = {{s3, t3, wa}, la, 3, 3, 30}, b = {{s3, t3, wb}, lb, 3, 3, 30}, c = {{s3, t3, wc}, lc, 2, 2, 20};
    const CurvePoints *curves[3] = {&c, &a, &b};
    MeanCurve m;
    memset(&m, 0, sizeof m);
    char err[256];
    CHECK(mean_curve_build(&m, curves, 3, err) == 0, "%s", err);
    CHECK(m.n == 3, "points %d", m.n);
    if (m.n == 3) {
        CHECK(m.x[CURVE_X_STEPS][0] == 10 && m.x[CURVE_X_TOKENS][2] == 300, "steps and tokens kept");
        CHECK(fabs(m.x[CURVE_X_WALL][0] - 2) < 1e-12, "wall mean %g", m.x[CURVE_X_WALL][0]);
        CHECK(fabs(m.mean[0] - 6) < 1e-12 && m.band[0] == 5 && m.band[3] == 7, "step 10: %g [%g, %g]", m.mean[0],
              m.band[0], m.band[3]);
        /* step 20: run c's loss is NaN, so two values; wall from a and b */
        CHECK(fabs(m.mean[1] - 4.5) < 1e-12 && m.band[1] == 4 && m.band[4] == 5, "step 20: %g", m.mean[1]);
        CHECK(fabs(m.x[CURVE_X_WALL][1] - 3) < 1e-12, "wall at 20: %g", m.x[CURVE_X_WALL][1]);
        CHECK(fabs(m.mean[2] - 3.5) < 1e-12 && m.band[2] == 3 && m.band[5] == 4, "step 30: %g", m.mean[2]);
    }
    const CurvePoints *none[1] = {NULL};
    CHECK(mean_curve_build(&m, none, 1, err) == 0 && m.n == 0, "no curves: %d points", m.n);
    mean_curve_free(&m);
}

typedef struct {
    int64_t id[8];
    int lines[8];
} Rows;

static int64_t rows_id(const void *rows, int i) { return ((const Rows *)rows)->id[i]; }
static int rows_lines(const void *rows, int i) { return ((const Rows *)rows)->lines[i]; }
/* row 0 is a group holding ids 100 and 101 */
static int rows_holds(const void *rows, int i, int64_t id) { return rows_id(rows, i) == id || (i == 0 && id == 101); }

static void list_widget(void)
{
    static const UiListRows KIND = {rows_id, NULL, NULL};
    Rows r = {{10, 20, 30, 40, 50}, {1, 1, 1, 1, 1}};
    UiList l = {.of = &KIND};
    ui_list_set_rows(&l, &r, 5);
    CHECK(l.cursor == 0 && l.selected_id == 10, "an empty selection starts at the top");
    ui_list_key(&l, KEY_DOWN, 0);
    ui_list_key(&l, 'j', 0);
    CHECK(l.cursor == 2 && l.selected_id == 30, "down twice: row 2");
    Rows sorted = {{50, 40, 30, 20, 10}, {1, 1, 1, 1, 1}};
    sorted.id[2] = 20, sorted.id[3] = 30;
    ui_list_set_rows(&l, &sorted, 5);
    CHECK(l.cursor == 3 && l.selected_id == 30, "the selection follows its id through a re-sort (at %d)", l.cursor);
    Rows gone = {{50, 40, 20}, {1, 1, 1}};
    ui_list_set_rows(&l, &gone, 3);
    CHECK(l.cursor == 2 && l.selected_id == 20, "its row gone: the place is kept, clamped");
    ui_list_set_rows(&l, &gone, 0);
    CHECK(ui_list_selected(&l) == -1 && l.selected_id == 0, "empty: nothing selected");

    /* paging by what fits, Home/End */
    Rows many = {{1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 1, 1, 1, 1, 1, 1}};
    UiList p = {.of = &KIND};
    ui_list_set_rows(&p, &many, 8);
    ui_list_fit(&p, 2, 3);
    CHECK(p.page == 3, "three rows fit");
    ui_list_key(&p, KEY_NPAGE, 0);
    ui_list_fit(&p, 2, 3);
    CHECK(p.cursor == 2 && p.scroll == 0, "PgDn moves a page less one (cursor %d scroll %d)", p.cursor, p.scroll);
    ui_list_key(&p, KEY_END, 0);
    ui_list_fit(&p, 2, 3);
    CHECK(p.cursor == 7 && p.scroll == 5, "End: the last row shows (scroll %d)", p.scroll);
    ui_list_key(&p, KEY_HOME, 0);
    ui_list_fit(&p, 2, 3);
    CHECK(p.cursor == 0 && p.scroll == 0, "Home");

    /* rows of two lines: the cursor's row shows whole */
    static const UiListRows TALL = {rows_id, NULL, rows_lines};
    Rows tall = {{1, 2, 3, 4}, {2, 2, 1, 2}};
    UiList t = {.of = &TALL};
    ui_list_set_rows(&t, &tall, 4);
    ui_list_move(&t, 1);
    ui_list_fit(&t, 2, 3);
    CHECK(t.scroll == 1 && t.page == 2, "rows 0-1 take 4 lines: from row 1, rows 1-2 fit 3 (scroll %d page %d)", t.scroll, t.page);
    CHECK(ui_list_at(&t, 1) == -1 && ui_list_at(&t, 2) == 1 && ui_list_at(&t, 3) == 1 && ui_list_at(&t, 4) == 2 &&
              ui_list_at(&t, 5) == -1, "rows at terminal lines: %d %d %d %d", ui_list_at(&t, 2), ui_list_at(&t, 3),
          ui_list_at(&t, 4), ui_list_at(&t, 5));

    /* a group holds its members' ids */
    static const UiListRows GROUPS = {rows_id, rows_holds, NULL};
    Rows g = {{100, 200}, {1, 1}};
    UiList gl = {.of = &GROUPS, .selected_id = 101, .cursor = 1};
    ui_list_set_rows(&gl, &g, 2);
    CHECK(gl.cursor == 0 && gl.selected_id == 100, "a member's id selects its group");

    /* the filter: typed, kept, cleared */
    UiList f = {.of = &KIND};
    ui_list_set_rows(&f, &r, 5);
    CHECK(ui_list_key(&f, '/', 0) == UI_LIST_IGNORED, "no filter unless filterable");
    CHECK(ui_list_key(&f, '/', 1) == UI_LIST_MOVED && f.filtering, "/ starts the filter");
    CHECK(ui_list_key(&f, 'a', 1) == UI_LIST_FILTERED && ui_list_key(&f, 'b', 1) == UI_LIST_FILTERED &&
              !strcmp(f.filter, "ab"), "typed");
    CHECK(ui_list_key(&f, KEY_BACKSPACE, 1) == UI_LIST_FILTERED && !strcmp(f.filter, "a"), "backspace");
    CHECK(ui_list_key(&f, 'j', 1) == UI_LIST_FILTERED && !strcmp(f.filter, "aj"), "j is text while typing");
    ui_list_key(&f, '\n', 1);
    CHECK(!f.filtering && !strcmp(f.filter, "aj"), "Enter keeps it");
    CHECK(ui_list_key(&f, 27, 1) == UI_LIST_FILTERED && !f.filter[0], "Esc clears a kept filter");
    CHECK(ui_list_key(&f, 27, 1) == UI_LIST_IGNORED, "Esc without a filter is the screen's");

    /* a text view scrolls, never past its last page */
    UiList v = {0};
    ui_list_set_rows(&v, NULL, 10);
    ui_list_fit(&v, 2, 4);
    ui_list_key(&v, ' ', 0);
    CHECK(v.scroll == 3, "space: a page less one (%d)", v.scroll);
    ui_list_key(&v, KEY_END, 0);
    CHECK(v.scroll == 6, "End: the last page (%d)", v.scroll);
    ui_list_key(&v, KEY_DOWN, 0);
    CHECK(v.scroll == 6, "not past it");
    ui_list_set_rows(&v, NULL, 5);
    CHECK(v.scroll == 1, "fewer lines: clamped (%d)", v.scroll);
}

/* The text field holds more than any text the store keeps (a note), and
   counts the bytes a full field did not keep instead of losing them
   silently; Ctrl-U and ui_field_set start the count again. */
static void text_field_full(void)
{
    UiTextField f;
    ui_field_set(&f, "");
    CHECK(UI_FIELD_CAP > 999, "the field holds a note: %d", UI_FIELD_CAP);
    for (int i = 0; i < 1200; i++) ui_field_key(&f, 'x');
    CHECK(strlen(f.text) == UI_FIELD_CAP - 1 && f.dropped == 1200 - (UI_FIELD_CAP - 1), "kept %zu, dropped %zu",
          strlen(f.text), f.dropped);
    CHECK(ui_field_key(&f, KEY_BACKSPACE) == UI_FIELD_EDITED && f.dropped == 1200 - (UI_FIELD_CAP - 1),
          "still counted");
    CHECK(ui_field_key(&f, 21) == UI_FIELD_EDITED && f.text[0] == 0 && f.dropped == 0, "Ctrl-U: %zu", f.dropped);
    ui_field_key(&f, 'a');
    ui_field_set(&f, "note");
    CHECK(!strcmp(f.text, "note") && f.cursor == 4 && f.dropped == 0, "set");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(format_significant_digits);
    RUN(format_suffixes_and_rounding);
    RUN(goodness_and_shading);
    RUN(best_and_range);
    RUN(same_value);
    RUN(word_wrap);
    RUN(mean_curve);
    RUN(list_widget);
    RUN(text_field_full);
    CHECK_EXIT();
}

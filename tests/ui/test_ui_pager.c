/*
 * test_ui_pager.c — the scrollable text of ui/pager.h (the '?' help and the
 * `:` output panel): lines split at '\n', control bytes made visible, the
 * key column's indent, rows wrapped to the width (a continuation under its
 * description) and again after a resize, scrolling clamped to the last
 * page; and the `:` line's Tab completion of help and its command names
 * (ui/cmdline.h).
 */
#include <ncurses.h>
#include <string.h>

#include "tests/check.h"
#include "ui/cmdline.h"
#include "ui/pager.h"

static void lines_and_indent(void)
{
    UiPager p;
    memset(&p, 0, sizeof p);
    CHECK(ui_pager_add(&p, 0, 0, "one\ntwo\tthree\x01", 14) == 0, "added");
    CHECK(p.n_lines == 2, "'\\n' starts a line (%d)", p.n_lines);
    CHECK(!strcmp(p.text + p.line_at[1], "two three?"), "tab a space, control byte '?' (%s)", p.text + p.line_at[1]);
    CHECK(ui_pager_indent("  ls        list runs", 21) == 12, "after the gap (%d)", ui_pager_indent("  ls        list runs", 21));
    CHECK(ui_pager_indent("a b c", 5) == 0, "no gap, no indent");
    CHECK(ui_pager_indent("key   ", 6) == 0, "a gap with nothing after");
    ui_pager_free(&p);
}

static void wraps_and_scrolls(void)
{
    UiPager p;
    memset(&p, 0, sizeof p);
    const char *line = "k     the description is long enough to wrap twice at twenty";
    ui_pager_add(&p, 0, ui_pager_indent(line, strlen(line)), line, strlen(line));
    ui_pager_add(&p, 0, 0, "", 0);
    int rows = ui_pager_rows(&p, 20);
    CHECK(rows >= 4, "wrapped at 20, an empty line one row (%d)", rows);
    CHECK(p.row_x[0] == 6 && p.row_x[1] == 6, "continuations under the description (%d %d)", p.row_x[0], p.row_x[1]);
    CHECK(p.row_len[rows - 1] == 0, "the empty line's row");
    CHECK(ui_pager_rows(&p, 200) == 2, "wider: one row a line (%d)", ui_pager_rows(&p, 200));
    for (int i = 0; i < 40; i++) ui_pager_add(&p, 0, 0, "x", 1);
    rows = ui_pager_rows(&p, 200);
    p.view.page = 10;
    CHECK(ui_pager_key(&p, KEY_END) && p.view.scroll == rows - 10, "End: the last page (%d)", p.view.scroll);
    CHECK(ui_pager_key(&p, 'j') && p.view.scroll == rows - 10, "not past it");
    CHECK(ui_pager_key(&p, KEY_HOME) && p.view.scroll == 0, "Home");
    CHECK(!ui_pager_key(&p, 'x'), "not a scrolling key");
    char where[64];
    ui_pager_where(&p, where, sizeof where);
    CHECK(!strcmp(where, "lines 1-10 of 42"), "%s", where);
    ui_pager_clear(&p);
    CHECK(ui_pager_rows(&p, 200) == 0 && p.view.scroll == 0, "cleared");
    ui_pager_free(&p);
}

static void completes_help(void)
{
    const char *const commands[] = {"ls", "show", "sweep", NULL};
    char text[64] = "he", hint[128];
    CHECK(cmdline_complete(text, sizeof text, commands, hint, sizeof hint) == 1 && !strcmp(text, "help "), "%s", text);
    snprintf(text, sizeof text, "help sw");
    CHECK(cmdline_complete(text, sizeof text, commands, hint, sizeof hint) == 1 && !strcmp(text, "help sweep"), "%s",
          text);
    snprintf(text, sizeof text, "help s");
    CHECK(cmdline_complete(text, sizeof text, commands, hint, sizeof hint) == 2 && !strcmp(hint, "show  sweep"), "%s",
          hint);
    snprintf(text, sizeof text, "help ls x");
    CHECK(cmdline_complete(text, sizeof text, commands, hint, sizeof hint) == 0, "one word after help");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(lines_and_indent);
    RUN(wraps_and_scrolls);
    RUN(completes_help);
    CHECK_EXIT();
}

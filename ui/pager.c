/*
 * pager.c — the scrollable text of pager.h: its lines in one buffer, the
 * rows they wrap into at the width last drawn (ui_wrap_lines), a UiList
 * text view scrolling them.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/pager.h"

#include <assert.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/text.h"

/* Makes room for n ints in each of the k arrays at arrays[0..k) holding
   *cap; 0, or -1 when out of memory (the arrays as they were). */
static int grow_ints(int **arrays[], int k, int *cap, int n)
{
    if (n <= *cap) return 0;
    int want = MB_MAX(n, *cap ? 2 * *cap : 64);
    for (int i = 0; i < k; i++) {
        int *grown = realloc(*arrays[i], (size_t)want * sizeof **arrays[i]);
        if (!grown) return -1;
        *arrays[i] = grown;
    }
    *cap = want;
    return 0;
}

void ui_pager_clear(UiPager *p)
{
    assert(p);
    p->len = 0;
    p->n_lines = p->n_rows = p->width = 0;
    p->view.scroll = 0;
    ui_list_set_rows(&p->view, NULL, 0);
}

void ui_pager_free(UiPager *p)
{
    if (!p) return;
    free(p->text);
    free(p->line_at), free(p->line_attr), free(p->line_indent);
    free(p->row_line), free(p->row_start), free(p->row_len), free(p->row_x);
    memset(p, 0, sizeof *p);
}

int ui_pager_add(UiPager *p, int attr, int indent, const char *text, size_t len)
{
    assert(p && (text || !len));
    const char *nl = memchr(text, '\n', len);
    if (nl) {
        size_t first = (size_t)(nl - text);
        if (ui_pager_add(p, attr, indent, text, first)) return -1;
        return ui_pager_add(p, attr, indent, nl + 1, len - first - 1);
    }
    if (grow_ints((int **[]){&p->line_at, &p->line_attr, &p->line_indent}, 3, &p->cap_lines, p->n_lines + 1))
        return -1;
    if (p->len + len + 1 > p->cap) {
        size_t want = MB_MAX(p->len + len + 1, p->cap ? 2 * p->cap : 4096);
        char *grown = realloc(p->text, want);
        if (!grown) return -1;
        p->text = grown;
        p->cap = want;
    }
    char *out = p->text + p->len;
    for (size_t i = 0; i < len; i++) {
        unsigned char b = (unsigned char)text[i];
        out[i] = b == '\t' || b == '\r' ? ' ' : b < 0x20 || b == 0x7f ? '?' : (char)b;
    }
    out[len] = 0;
    p->line_at[p->n_lines] = (int)p->len;
    p->line_attr[p->n_lines] = attr;
    p->line_indent[p->n_lines] = MB_MAX(0, indent);
    p->n_lines++;
    p->len += len + 1;
    p->width = 0;   /* wrap again */
    return 0;
}

int ui_pager_indent(const char *line, size_t len)
{
    assert(line || !len);
    size_t i = 0;
    while (i < len && line[i] == ' ') i++;
    while (i < len && line[i] != ' ') i++;   /* the first word */
    while (i < len && !(line[i] == ' ' && i + 1 < len && line[i + 1] == ' ')) i++;
    if (i >= len) return 0;
    while (i < len && line[i] == ' ') i++;
    return i < len ? (int)i : 0;
}

/* Appends a row (drawn from column x of the pager); -1 when out of memory. */
static int add_row(UiPager *p, int line, int start, int len, int x)
{
    if (grow_ints((int **[]){&p->row_line, &p->row_start, &p->row_len, &p->row_x}, 4, &p->cap_rows, p->n_rows + 1))
        return -1;
    p->row_line[p->n_rows] = line;
    p->row_start[p->n_rows] = start;
    p->row_len[p->n_rows] = len;
    p->row_x[p->n_rows] = x;
    p->n_rows++;
    return 0;
}

/* The rows of line i at width: the whole line at width, or (a longer one
   with an indent) its text after the indent at width - indent. */
static int wrap_line(UiPager *p, int i, int width)
{
    const char *s = p->text + p->line_at[i];
    int indent = p->line_indent[i];
    /* an indent in columns: a key column of ASCII only */
    for (int k = 0; k < indent; k++)
        if (!s[k] || (unsigned char)s[k] >= 0x80) indent = 0;
    if (text_columns(s) <= width || indent > width / 2) indent = 0;
    int n = ui_wrap_lines(s + indent, width - indent, NULL, NULL, 0);
    if (n == 0) return add_row(p, i, 0, 0, 0);
    int *starts = malloc((size_t)n * sizeof *starts), *lens = malloc((size_t)n * sizeof *lens);
    int rc = starts && lens ? 0 : -1;
    if (!rc) ui_wrap_lines(s + indent, width - indent, starts, lens, n);
    for (int k = 0; k < n && !rc; k++) rc = add_row(p, i, indent + starts[k], lens[k], indent);
    free(starts);
    free(lens);
    return rc;
}

int ui_pager_rows(UiPager *p, int width)
{
    assert(p);
    width = MB_MAX(width, 4);
    if (p->width == width) return p->n_rows;
    p->n_rows = 0;
    for (int i = 0; i < p->n_lines; i++)
        if (wrap_line(p, i, width)) break;   /* out of memory: the rows so far */
    p->width = width;
    ui_list_set_rows(&p->view, NULL, p->n_rows);
    return p->n_rows;
}

int ui_pager_key(UiPager *p, int ch)
{
    assert(p);
    return ui_list_key(&p->view, ch, 0) != UI_LIST_IGNORED;
}

void ui_pager_draw(UiPager *p, int y, int x, int height, int width)
{
    assert(p);
    ui_pager_rows(p, width);
    ui_list_fit(&p->view, y, height);
    for (int r = p->view.scroll, row = y; r < p->n_rows && row < y + height; r++, row++) {
        int line = p->row_line[r], at = p->row_x[r], attr = p->line_attr[line];
        const char *s = p->text + p->line_at[line];
        /* an indented line's first row: its key column too */
        if (at && (r == 0 || p->row_line[r - 1] != line)) ui_text(row, x, at, attr, "%.*s", at, s);
        ui_text(row, x + at, width - at, attr, "%.*s", p->row_len[r], s + p->row_start[r]);
    }
}

void ui_pager_where(const UiPager *p, char *out, size_t cap)
{
    assert(p && out);
    int first = p->n_rows ? p->view.scroll + 1 : 0;
    int last = MB_MIN(p->n_rows, p->view.scroll + p->view.page);
    snprintf(out, cap, "lines %d-%d of %d", first, last, p->n_rows);
}

/*
 * pager.h — a scrollable text in a rectangle of the terminal: lines added
 * one by one, each with an attribute and the indent its wrapped
 * continuation takes (a help line's description, after its key column),
 * wrapped to the width at draw time (again after a resize) and scrolled
 * with a text view's keys (ui_list_key: up/down j/k, PgUp/PgDn, space,
 * Home/End).  The '?' help and the `:` line's output panel are pagers.
 *
 * Not for: a list with a selection (UiList over rows, ui.h).
 */
#ifndef MIXBENCH_PAGER_H
#define MIXBENCH_PAGER_H

#include <stddef.h>

#include "ui/ui.h"

typedef struct {
    char *text;                  /* the lines, each ended by a 0 */
    size_t len, cap;
    int *line_at, *line_attr, *line_indent;   /* line i: its offset in text, attribute, indent */
    int n_lines, cap_lines;
    int *row_line, *row_start, *row_len, *row_x;   /* the wrapped rows: their line, offset in it,
                                                      bytes, column */
    int n_rows, cap_rows;
    int width;                   /* the rows were wrapped at it (0: wrap again) */
    UiList view;                 /* a text view over the rows */
} UiPager;

/* Empties the pager (its memory kept) and scrolls back to the top. */
void ui_pager_clear(UiPager *p);
void ui_pager_free(UiPager *p);
/* Adds len bytes of text as a line ('\n' in it starts another, a tab is a
   space, other control bytes show as '?'); indent: the columns a wrapped
   continuation leaves blank.  Returns -1 when out of memory (nothing
   added). */
int ui_pager_add(UiPager *p, int attr, int indent, const char *text, size_t len);
/* The indent of a line "KEY  description" (leading spaces allowed): the
   column after the first gap of two spaces or more, 0 without one. */
int ui_pager_indent(const char *line, size_t len);
/* The rows the lines take wrapped at width. */
int ui_pager_rows(UiPager *p, int width);
/* A scrolling key: 1 when it was one. */
int ui_pager_key(UiPager *p, int ch);
/* Draws the rows that show in [y, y + height) x [x, x + width). */
void ui_pager_draw(UiPager *p, int y, int x, int height, int width);
/* Where the view is, "lines 1-21 of 40", into out. */
void ui_pager_where(const UiPager *p, char *out, size_t cap);

#endif

/*
 * heatmap.h — pure helpers for the tables of the Compare, Grid and AE/Bidir
 * screens: numbers in a fixed number of significant digits (so columns
 * align), a value's "goodness" between the worst and best of its column,
 * the shading glyph for monochrome terminals, the best entry of a column,
 * and whether two coordinate values name the same point.
 *
 * Not for: drawing (the screens do it with ncurses) or the store.  No state,
 * no allocation.
 */
#ifndef MIXBENCH_HEATMAP_H
#define MIXBENCH_HEATMAP_H

#include <stddef.h>

/* The density ramp of monochrome shading, worst to best: ' ' .. '@'. */
#define HEAT_RAMP " .:-=+*#%@"

/* v in sig significant digits, trailing zeros kept so that a column of
   them aligns ("3.210", "0.08424", "488.8", "1234"); from 10^sig on, a
   k / M / G / T suffix with a mantissa below 1000 ("107.4k", "1.235M");
   below 1e-3 an exponent ("1.234e-05"); a non-finite v gives "-".  sig is
   clamped to 1..9. */
void heat_format(double v, int sig, char *out, size_t cap);

/* Where v lies between the worst and the best of [lo, hi]: 1 = best, 0 =
   worst (the best is hi when higher_better, else lo); 1 when lo == hi,
   clamped to [0, 1], 0 for a non-finite v. */
double heat_goodness(double v, double lo, double hi, int higher_better);

/* The monochrome shade of a goodness: HEAT_RAMP[round(9 * g)]. */
char heat_shade_char(double goodness);

/* The index of the best finite value of values[0..n) (the highest when
   higher_better, else the lowest; the first one on ties), -1 if none. */
int heat_best(const double *values, int n, int higher_better);

/* The finite min and max of values[0..n); returns how many were finite. */
int heat_range(const double *values, int n, double *lo, double *hi);

/* 1 when two coordinate values name the same point: equal text, or both
   numbers of the same value ("1e6" and "1000000", "0.10" and "0.1"). */
int heat_same_value(const char *a, const char *b);

#endif

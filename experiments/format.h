/*
 * format.h — how mixbench writes numbers for people, the same on the
 * command line and in the workbench: durations, counts, rates and losses.
 * Every function writes a 0-terminated string into out (cap bytes) and
 * returns out; an unknown value (NAN, or negative where that cannot be)
 * is written "-".
 */
#ifndef MIXBENCH_FORMAT_H
#define MIXBENCH_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* "45s", "3m05s", "1h02m", "2d04h" (rounded to the second). */
char *fmt_duration(double seconds, char *out, size_t cap);
/* Exact, with thousands separators: "1,234,567". */
char *fmt_count(int64_t n, char *out, size_t cap);
/* At most 5 characters: "980", "12.3k", "456k", "7.8M", "123M", "4.5G". */
char *fmt_short(double v, char *out, size_t cap);
/* A rate (tokens/s, samples/s) as fmt_short; "-" when not positive. */
char *fmt_rate(double per_s, char *out, size_t cap);
/* A loss, perplexity or accuracy with `decimals` decimals. */
char *fmt_real(double v, int decimals, char *out, size_t cap);
/* Bytes: "812 B", "3.4 kB", "61.2 MB", "1.30 GB" (powers of 1000). */
char *fmt_bytes(int64_t bytes, char *out, size_t cap);

#endif

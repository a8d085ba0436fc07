/*
 * heatmap.c — the number formatting, shading and best-value helpers of
 * ui/draw/heatmap.h.  Pure functions: the screens decide what goes in a cell,
 * these decide how a number reads and how dark a cell is.
 */
#include "ui/draw/heatmap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/text.h"

void heat_format(double v, int sig, char *out, size_t cap)
{
    if (cap == 0) return;
    if (!isfinite(v)) {
        snprintf(out, cap, "-");
        return;
    }
    if (sig < 1) sig = 1;
    if (sig > 9) sig = 9;
    if (v != 0 && fabs(v) < 1e-3) {
        snprintf(out, cap, "%.*e", sig - 1, v);
        return;
    }
    /* Plain while the rounded value needs no exponent; else the scale that
       leaves a rounded mantissa below 1000.  Rounding comes first, so 9999.7
       in 4 digits becomes "10.00k" and 999999.6 "1.000M". */
    static const char suffix[] = {0, 'k', 'M', 'G', 'T'};
    const int n_suffixes = (int)sizeof suffix;
    double scale = 1;
    char buf[64];
    for (int i = 0; i < n_suffixes; i++, scale *= 1e3) {
        snprintf(buf, sizeof buf, "%#.*g", sig, v / scale);
        int last = i + 1 == n_suffixes;
        double mantissa;
        int too_long = i == 0 ? strchr(buf, 'e') != NULL
                              : text_to_double(buf, &mantissa) == 0 && fabs(mantissa) >= 1000;
        if (!last && too_long) continue;
        size_t len = strlen(buf);
        if (len && buf[len - 1] == '.') buf[--len] = 0;
        if (suffix[i]) {
            buf[len] = suffix[i];
            buf[len + 1] = 0;
        }
        break;
    }
    snprintf(out, cap, "%s", buf);
}

double heat_goodness(double v, double lo, double hi, int higher_better)
{
    if (!isfinite(v)) return 0;
    if (!(hi > lo)) return 1;
    double t = (v - lo) / (hi - lo);
    if (!higher_better) t = 1 - t;
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

char heat_shade_char(double goodness)
{
    static const char ramp[] = HEAT_RAMP;
    int last = (int)sizeof ramp - 2;
    if (!(goodness > 0)) return ramp[0];
    if (goodness >= 1) return ramp[last];
    return ramp[(int)lround(goodness * last)];
}

int heat_best(const double *values, int n, int higher_better)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (!isfinite(values[i])) continue;
        if (best < 0 || (higher_better ? values[i] > values[best] : values[i] < values[best])) best = i;
    }
    return best;
}

int heat_range(const double *values, int n, double *lo, double *hi)
{
    int count = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (!isfinite(values[i])) continue;
        if (values[i] < *lo) *lo = values[i];
        if (values[i] > *hi) *hi = values[i];
        count++;
    }
    return count;
}

int heat_same_value(const char *a, const char *b)
{
    if (!a || !b) return 0;
    if (!strcmp(a, b)) return 1;
    double x, y;
    return text_to_double(a, &x) == 0 && text_to_double(b, &y) == 0 && x == y;
}

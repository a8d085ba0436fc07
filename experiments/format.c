/*
 * format.c — durations, counts, rates and losses for people (format.h).
 */
#include "experiments/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

char *fmt_duration(double seconds, char *out, size_t cap)
{
    if (!isfinite(seconds) || seconds < 0 || seconds > 1e9) {
        snprintf(out, cap, "-");
        return out;
    }
    long t = (long)(seconds + 0.5);
    if (t >= 86400) snprintf(out, cap, "%ldd%02ldh", t / 86400, t / 3600 % 24);
    else if (t >= 3600) snprintf(out, cap, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(out, cap, "%ldm%02lds", t / 60, t % 60);
    else snprintf(out, cap, "%lds", t);
    return out;
}

char *fmt_count(int64_t n, char *out, size_t cap)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%llu", n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n);
    size_t len = strlen(digits), k = 0;
    if (cap == 0) return out;
    if (n < 0 && k + 1 < cap) out[k++] = '-';
    for (size_t i = 0; i < len && k + 1 < cap; i++) {
        out[k++] = digits[i];
        if ((len - i - 1) % 3 == 0 && i + 1 < len && k + 1 < cap) out[k++] = ',';
    }
    out[k] = 0;
    return out;
}

char *fmt_short(double v, char *out, size_t cap)
{
    double a = fabs(v);
    if (!isfinite(v)) snprintf(out, cap, "-");
    else if (a < 1e3 - 0.5) snprintf(out, cap, "%.0f", v);
    else if (a < 1e5 - 50) snprintf(out, cap, "%.1fk", v / 1e3);
    else if (a < 1e6 - 500) snprintf(out, cap, "%.0fk", v / 1e3);
    else if (a < 1e8 - 5e4) snprintf(out, cap, "%.1fM", v / 1e6);
    else if (a < 1e9 - 5e5) snprintf(out, cap, "%.0fM", v / 1e6);
    else snprintf(out, cap, "%.1fG", v / 1e9);
    return out;
}

char *fmt_rate(double per_s, char *out, size_t cap)
{
    if (!(per_s > 0)) {
        snprintf(out, cap, "-");
        return out;
    }
    return fmt_short(per_s, out, cap);
}

char *fmt_real(double v, int decimals, char *out, size_t cap)
{
    if (!isfinite(v)) snprintf(out, cap, "-");
    else snprintf(out, cap, "%.*f", decimals, v);
    return out;
}

char *fmt_bytes(int64_t bytes, char *out, size_t cap)
{
    double b = (double)bytes;
    if (bytes < 0) snprintf(out, cap, "-");
    else if (b < 1e3) snprintf(out, cap, "%lld B", (long long)bytes);
    else if (b < 1e6) snprintf(out, cap, "%.1f kB", b / 1e3);
    else if (b < 1e9) snprintf(out, cap, "%.1f MB", b / 1e6);
    else snprintf(out, cap, "%.2f GB", b / 1e9);
    return out;
}

/*
 * text.c — one number parser, one UTF-8 walk and the locale check
 * (text.h).
 */
#include "engine/text.h"

#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Digits, one '.', an exponent: what a number may be made of; this keeps
   strtod's hex floats, "inf", "nan" and leading spaces out. */
static int plain_number(const char *s)
{
    if (!s || !*s) return 0;
    for (const char *p = s; *p; p++)
        if (!strchr("0123456789.eE+-", *p)) return 0;
    return 1;
}

int text_to_double(const char *s, double *out)
{
    if (!plain_number(s)) return -1;
    /* strtod follows LC_NUMERIC; a "," locale would stop at the '.', and
       the trailing text is refused below, so such a value fails loudly. */
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || errno == ERANGE) return -1;
    *out = v;
    return 0;
}

int text_to_int64(const char *s, int64_t *out)
{
    if (!plain_number(s) || strpbrk(s, ".eE")) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE) return -1;
    *out = v;
    return 0;
}

int text_to_int(const char *s, int lo, int hi, int *out)
{
    int64_t v;
    if (text_to_int64(s, &v) || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

size_t text_utf8_seq(const char *s, size_t avail)
{
    const unsigned char *u = (const unsigned char *)s;
    if (avail == 0) return 0;
    unsigned char c = u[0], lo = 0x80, hi = 0xBF;
    size_t n;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) n = 3, lo = 0xA0;          /* no overlong forms */
    else if (c == 0xED) n = 3, hi = 0x9F;          /* no UTF-16 surrogates */
    else if (c >= 0xE1 && c <= 0xEF) n = 3;
    else if (c == 0xF0) n = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else if (c == 0xF4) n = 4, hi = 0x8F;          /* nothing above U+10FFFF */
    else return 0;
    if (avail < n || u[1] < lo || u[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (u[i] < 0x80 || u[i] > 0xBF) return 0;
    return n;
}

int text_utf8_len(const char *s)
{
    size_t n = text_utf8_seq(s, strnlen(s, 4));
    return n ? (int)n : 1;
}

int text_columns(const char *s)
{
    int cols = 0;
    for (; *s; s += text_utf8_len(s)) cols++;
    return cols;
}

int text_prefix_bytes(const char *s, int width)
{
    int bytes = 0;
    for (int col = 0; col < width && s[bytes]; col++) bytes += text_utf8_len(s + bytes);
    return bytes;
}

int text_locale_utf8(void)
{
    if (!setlocale(LC_ALL, "")) setlocale(LC_ALL, "C");
    setlocale(LC_NUMERIC, "C");
    const char *codeset = nl_langinfo(CODESET);
    return codeset && (strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "utf8") == 0);
}

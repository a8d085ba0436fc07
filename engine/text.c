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

/* Appends the `cat -v` notation of byte b (below 32, 127, or with its
   high bit set for "M-"; any other byte as it is) to out at *len; 0 when
   it does not fit whole (nothing appended). */
static int shown_byte(unsigned char b, char *out, size_t cap, size_t *len)
{
    char note[4];
    size_t n = 0;
    if (b >= 128) note[n++] = 'M', note[n++] = '-', b &= 127;
    if (b < 32 || b == 127) note[n++] = '^', note[n++] = b == 127 ? '?' : (char)(b + 64);
    else note[n++] = (char)b;
    if (*len + n >= cap) return 0;
    memcpy(out + *len, note, n);
    *len += n;
    return 1;
}

char *text_shown(const char *text, char *out, size_t cap)
{
    if (!cap) return out;
    size_t len = 0, avail = strlen(text), at = 0;
    int fits = 1;
    while (at < avail && fits) {
        const unsigned char *c = (const unsigned char *)text + at;
        size_t k = text_utf8_seq(text + at, avail - at);
        if (k == 2 && c[0] == 0xC2 && c[1] < 0xA0) {    /* C1: U+0080 to U+009F */
            fits = shown_byte(c[1], out, cap, &len);
        } else if (k > 1) {
            fits = len + k < cap;
            if (fits) memcpy(out + len, c, k), len += k;
        } else {                                        /* ASCII, or a byte that is not UTF-8 */
            fits = shown_byte(c[0], out, cap, &len);
            k = 1;
        }
        at += k;
    }
    out[len] = 0;
    return out;
}

int text_locale_utf8(void)
{
    if (!setlocale(LC_ALL, "")) setlocale(LC_ALL, "C");
    setlocale(LC_NUMERIC, "C");
    const char *codeset = nl_langinfo(CODESET);
    return codeset && (strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "utf8") == 0);
}

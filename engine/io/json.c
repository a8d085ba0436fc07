/*
 * json.c — the small JSON reader and the StrBuf writer declared in json.h.
 *
 * The reader is a strict RFC 8259 recursive-descent parser with a nesting
 * limit, so hostile input (a corrupted safetensors header, a hand-edited
 * config) fails with a message naming the byte instead of crashing.  It is
 * not a streaming parser and keeps no source positions in the tree: callers
 * get plain values (doubles, UTF-8 strings, arrays, objects in file order).
 */
#include "engine/io/json.h"
#include "engine/common.h"
#include "engine/text.h"

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- UTF-8 ------------------------------------------------------------- */


int json_utf8_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        size_t k = text_utf8_seq((const char *)u + i, len - i);
        if (k == 0)
            return 0;
        i += k;
    }
    return 1;
}

static size_t utf8_encode(unsigned cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* ---- parser ------------------------------------------------------------ */

typedef struct {
    const unsigned char *text;
    size_t len, pos;
    char *err;
    /* strtod follows LC_NUMERIC, which a UI may have set to a locale with a
     * decimal comma; numbers are converted in the "C" locale, created on the
     * first number that needs strtod. */
    locale_t c_numeric;
} Parser;

static int is_digit(int c) { return c >= '0' && c <= '9'; }

static void skip_ws(Parser *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->text[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

/* -1 at the end of the input, else the byte at the cursor. */
static int peek(const Parser *p) { return p->pos < p->len ? p->text[p->pos] : -1; }

static int fail_expected(Parser *p, const char *what)
{
    int c = peek(p);
    if (c < 0)
        return err_set(p->err, "JSON: expected %s at byte %zu, found end of input", what, p->pos);
    if (c >= 0x20 && c < 0x7F)
        return err_set(p->err, "JSON: expected %s at byte %zu, found '%c'", what, p->pos, c);
    return err_set(p->err, "JSON: expected %s at byte %zu, found byte 0x%02x", what, p->pos, c);
}

static int fail_oom(Parser *p) { return err_set(p->err, "JSON: out of memory at byte %zu", p->pos); }

static void free_contents(JsonValue *v)
{
    free(v->string);
    for (int i = 0; i < v->count; i++) {
        free_contents(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

static int hex4(const unsigned char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* The cursor is on the opening quote.  On success *out is a new string and
 * the cursor is past the closing quote. */
static int parse_string(Parser *p, char **out)
{
    const unsigned char *t = p->text;
    size_t start = p->pos, end = start + 1;

    /* Find the closing quote first: the decoded string is never longer than
     * its source, so one allocation suffices. */
    while (end < p->len && t[end] != '"')
        end += t[end] == '\\' ? 2 : 1;
    if (end >= p->len)
        return err_set(p->err, "JSON: unterminated string starting at byte %zu", start);

    char *s = malloc(end - start);
    if (!s)
        return fail_oom(p);
    size_t o = 0, i = start + 1;
    while (i < end) {
        unsigned char c = t[i];
        if (c == '\\') {
            /* i + 1 < end: a backslash right before `end` would have escaped
             * that quote during the scan above. */
            static const char escaped[] = "\"\\/bfnrt";
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            unsigned char e = t[i + 1];
            const char *simple = e ? strchr(escaped, e) : NULL;
            if (simple) {
                s[o++] = decoded[simple - escaped];
                i += 2;
                continue;
            }
            if (e != 'u') {
                free(s);
                if (e >= 0x20 && e < 0x7F)
                    return err_set(p->err, "JSON: invalid escape '\\%c' at byte %zu", e, i);
                return err_set(p->err, "JSON: invalid escape at byte %zu", i);
            }
            unsigned cp, low;
            if (i + 6 > end || hex4(t + i + 2, &cp) != 0) {
                free(s);
                return err_set(p->err, "JSON: \\u must be followed by 4 hex digits at byte %zu", i);
            }
            size_t esc = i;
            i += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (i + 6 > end || t[i] != '\\' || t[i + 1] != 'u' || hex4(t + i + 2, &low) != 0 ||
                    low < 0xDC00 || low > 0xDFFF) {
                    free(s);
                    return err_set(p->err, "JSON: unpaired surrogate \\u%04X at byte %zu", cp, esc);
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                i += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                free(s);
                return err_set(p->err, "JSON: unpaired surrogate \\u%04X at byte %zu", cp, esc);
            } else if (cp == 0) {
                free(s);
                return err_set(p->err,
                               "JSON: \\u0000 at byte %zu is not supported (strings are NUL-terminated)",
                               esc);
            }
            o += utf8_encode(cp, s + o);
        } else if (c < 0x20) {
            free(s);
            return err_set(p->err, "JSON: unescaped control character 0x%02x in string at byte %zu", c, i);
        } else {
            /* Continuation bytes are >= 0x80, so a sequence never runs into
             * the closing quote. */
            size_t k = text_utf8_seq((const char *)t + i, end - i);
            if (k == 0) {
                free(s);
                return err_set(p->err, "JSON: invalid UTF-8 in string at byte %zu", i);
            }
            memcpy(s + o, t + i, k);
            o += k;
            i += k;
        }
    }
    s[o] = '\0';
    *out = s;
    p->pos = end + 1;
    return 0;
}

static int parse_number(Parser *p, JsonValue *out)
{
    const unsigned char *t = p->text;
    size_t n = p->len, start = p->pos, i = start;
    int integer = 1;

    if (i < n && t[i] == '-')
        i++;
    if (i >= n || !is_digit(t[i])) {
        p->pos = i;
        return fail_expected(p, "a digit");
    }
    if (t[i] == '0') {
        i++;
        if (i < n && is_digit(t[i]))
            return err_set(p->err, "JSON: number with a leading zero at byte %zu", start);
    } else {
        while (i < n && is_digit(t[i]))
            i++;
    }
    if (i < n && t[i] == '.') {
        integer = 0;
        i++;
        if (i >= n || !is_digit(t[i])) {
            p->pos = i;
            return fail_expected(p, "a digit after '.'");
        }
        while (i < n && is_digit(t[i]))
            i++;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        integer = 0;
        i++;
        if (i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        if (i >= n || !is_digit(t[i])) {
            p->pos = i;
            return fail_expected(p, "a digit in the exponent");
        }
        while (i < n && is_digit(t[i]))
            i++;
    }

    size_t ndigits = i - start;
    int neg = t[start] == '-';
    out->type = JSON_NUMBER;
    if (integer && ndigits - (size_t)neg <= 15) {
        /* Up to 15 digits is exact in a double: no strtod needed. */
        double v = 0;
        for (size_t k = start + (size_t)neg; k < i; k++)
            v = v * 10 + (t[k] - '0');
        out->number = neg ? -v : v;
        p->pos = i;
        return 0;
    }

    char small[64];
    char *copy = ndigits < sizeof small ? small : malloc(ndigits + 1);
    if (!copy)
        return fail_oom(p);
    memcpy(copy, t + start, ndigits);
    copy[ndigits] = '\0';
    if (!p->c_numeric)
        p->c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (!p->c_numeric) {
        if (copy != small)
            free(copy);
        return fail_oom(p);
    }
    double v = strtod_l(copy, NULL, p->c_numeric);
    if (copy != small)
        free(copy);
    if (isinf(v))
        return err_set(p->err, "JSON: number out of range at byte %zu", start);
    out->number = v;
    p->pos = i;
    return 0;
}

static int parse_value(Parser *p, JsonValue *out, int depth);

/* Makes room for one more item (and key, for objects); *cap is the capacity
 * of both arrays. */
static int grow_items(Parser *p, JsonValue *v, int *cap, int with_keys)
{
    if (v->count < *cap)
        return 0;
    if (*cap > INT_MAX / 2)
        return err_set(p->err, "JSON: too many items at byte %zu", p->pos);
    int new_cap = *cap ? *cap * 2 : 4;
    JsonValue *items = realloc(v->items, (size_t)new_cap * sizeof *items);
    if (!items)
        return fail_oom(p);
    v->items = items;
    if (with_keys) {
        char **keys = realloc(v->keys, (size_t)new_cap * sizeof *keys);
        if (!keys)
            return fail_oom(p);
        v->keys = keys;
    }
    *cap = new_cap;
    return 0;
}

/* Children are counted before they are parsed, so a failure anywhere leaves
 * a tree that free_contents can release. */
static int parse_container(Parser *p, JsonValue *out, int depth, int is_object)
{
    char close = is_object ? '}' : ']';
    if (depth > JSON_MAX_DEPTH)
        return err_set(p->err, "JSON: nesting deeper than %d at byte %zu", JSON_MAX_DEPTH, p->pos);
    out->type = is_object ? JSON_OBJECT : JSON_ARRAY;
    p->pos++;
    skip_ws(p);
    if (peek(p) == close) {
        p->pos++;
        return 0;
    }
    int cap = 0;
    for (;;) {
        skip_ws(p);
        if (is_object && peek(p) != '"')
            return fail_expected(p, "a string key");
        if (grow_items(p, out, &cap, is_object) != 0)
            return -1;
        int idx = out->count++;
        memset(&out->items[idx], 0, sizeof out->items[idx]);
        if (is_object) {
            out->keys[idx] = NULL;
            if (parse_string(p, &out->keys[idx]) != 0)
                return -1;
            skip_ws(p);
            if (peek(p) != ':')
                return fail_expected(p, "':'");
            p->pos++;
        }
        if (parse_value(p, &out->items[idx], depth) != 0)
            return -1;
        skip_ws(p);
        if (peek(p) == ',') {
            p->pos++;
            continue;
        }
        if (peek(p) == close) {
            p->pos++;
            return 0;
        }
        return fail_expected(p, is_object ? "',' or '}'" : "',' or ']'");
    }
}

static int parse_literal(Parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->text + p->pos, word, n) != 0)
        return err_set(p->err, "JSON: expected '%s' at byte %zu", word, p->pos);
    p->pos += n;
    return 0;
}

static int parse_value(Parser *p, JsonValue *out, int depth)
{
    skip_ws(p);
    int c = peek(p);
    switch (c) {
    case '{':
        return parse_container(p, out, depth + 1, 1);
    case '[':
        return parse_container(p, out, depth + 1, 0);
    case '"':
        out->type = JSON_STRING;
        return parse_string(p, &out->string);
    case 't':
        out->type = JSON_BOOL;
        out->number = 1;
        return parse_literal(p, "true");
    case 'f':
        out->type = JSON_BOOL;
        out->number = 0;
        return parse_literal(p, "false");
    case 'n':
        out->type = JSON_NULL;
        return parse_literal(p, "null");
    default:
        if (c == '-' || is_digit(c))
            return parse_number(p, out);
        return fail_expected(p, "a value");
    }
}

JsonValue *json_parse(const char *text, size_t len, char *err)
{
    if (!text && len > 0) {
        err_set(err, "JSON: no input");
        return NULL;
    }
    Parser p = {(const unsigned char *)text, len, 0, err, (locale_t)0};
    JsonValue *root = calloc(1, sizeof *root);
    if (!root) {
        err_set(err, "JSON: out of memory");
        return NULL;
    }
    int rc = parse_value(&p, root, 0);
    if (rc == 0) {
        skip_ws(&p);
        if (p.pos < p.len)
            rc = err_set(err, "JSON: unexpected data after the value at byte %zu", p.pos);
    }
    if (p.c_numeric)
        freelocale(p.c_numeric);
    if (rc != 0) {
        json_free(root);
        return NULL;
    }
    return root;
}

void json_free(JsonValue *v)
{
    if (!v)
        return;
    free_contents(v);
    free(v);
}

const JsonValue *json_get(const JsonValue *object, const char *key)
{
    if (!object || object->type != JSON_OBJECT || !key)
        return NULL;
    for (int i = 0; i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0)
            return &object->items[i];
    return NULL;
}

/* ---- StrBuf ------------------------------------------------------------ */

/* cap == 0 means data is not owned: it points at one of these two constant
 * empty strings, the second marking a buffer whose allocation failed. */
static const char sb_empty[1] = "";
static const char sb_broken[1] = "";

void sb_init(StrBuf *sb)
{
    sb->data = (char *)sb_empty;
    sb->len = 0;
    sb->cap = 0;
}

void sb_free(StrBuf *sb)
{
    if (sb->cap)
        free(sb->data);
    sb_init(sb);
}

int sb_ok(const StrBuf *sb) { return sb->data != sb_broken; }

static void sb_break(StrBuf *sb)
{
    if (sb->cap)
        free(sb->data);
    sb->data = (char *)sb_broken;
    sb->len = 0;
    sb->cap = 0;
}

int sb_reserve(StrBuf *sb, size_t extra)
{
    if (!sb_ok(sb))
        return -1;
    if (extra > SIZE_MAX - 1 - sb->len) {
        sb_break(sb);
        return -1;
    }
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return 0;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    char *data = sb->cap ? realloc(sb->data, cap) : malloc(cap);
    if (!data) {
        sb_break(sb);
        return -1;
    }
    if (!sb->cap) {
        /* A zero-initialised StrBuf (data NULL) counts as empty too. */
        sb->len = 0;
        data[0] = '\0';
    }
    sb->data = data;
    sb->cap = cap;
    return 0;
}

char *sb_take(StrBuf *sb)
{
    char *out = !sb_ok(sb) ? NULL : sb->cap ? sb->data : strdup("");
    sb_init(sb);
    return out;
}

void sb_append_len(StrBuf *sb, const char *s, size_t n)
{
    if (!s || sb_reserve(sb, n) != 0)
        return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void sb_append(StrBuf *sb, const char *s)
{
    if (s)
        sb_append_len(sb, s, strlen(s));
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb_break(sb);
    } else if (sb_reserve(sb, (size_t)n) == 0) {
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, again);
        sb->len += (size_t)n;
    }
    va_end(again);
}

void sb_json_string(StrBuf *sb, const char *s)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)u), run = 0, i = 0;
    sb_append_len(sb, "\"", 1);
    /* Bytes that need no escaping are copied in runs. */
    while (i < n) {
        unsigned char c = u[i];
        const char *escape = NULL;
        char hex[8];
        size_t k = 1;
        if (c == '"')
            escape = "\\\"";
        else if (c == '\\')
            escape = "\\\\";
        else if (c == '\n')
            escape = "\\n";
        else if (c == '\t')
            escape = "\\t";
        else if (c == '\r')
            escape = "\\r";
        else if (c == '\b')
            escape = "\\b";
        else if (c == '\f')
            escape = "\\f";
        else if (c < 0x20) {
            snprintf(hex, sizeof hex, "\\u%04x", c);
            escape = hex;
        } else if (c >= 0x80) {
            k = text_utf8_seq((const char *)u + i, n - i);
            if (k == 0) {
                escape = "\xEF\xBF\xBD"; /* U+FFFD for a byte that is not UTF-8 */
                k = 1;
            }
        }
        if (escape) {
            sb_append_len(sb, (const char *)u + i - run, run);
            run = 0;
            sb_append(sb, escape);
        } else {
            run += k;
        }
        i += k;
    }
    sb_append_len(sb, (const char *)u + i - run, run);
    sb_append_len(sb, "\"", 1);
}

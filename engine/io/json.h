/*
 * json.h — a small JSON reader and writer: enough for safetensors headers,
 * run configs stored in SQLite, and `--json` output.  Not a general-purpose
 * library: numbers are doubles, strings are UTF-8 with escapes decoded.
 */
#ifndef MIXBENCH_JSON_H
#define MIXBENCH_JSON_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } JsonType;

typedef struct JsonValue JsonValue;
struct JsonValue {
    JsonType type;
    double number;          /* JSON_NUMBER, JSON_BOOL (0/1) */
    char *string;           /* JSON_STRING */
    JsonValue *items;       /* JSON_ARRAY / JSON_OBJECT values */
    char **keys;            /* JSON_OBJECT keys */
    int count;
};

/* Objects and arrays nested deeper than this are rejected (no stack blow-up
 * on hostile input). */
#define JSON_MAX_DEPTH 128

/* Parses text[0..len) (RFC 8259: one value, surrounded by optional
 * whitespace); returns NULL and fills err on malformed input, e.g.
 * "JSON: expected ':' at byte 57, found '}'" (byte offsets count from 0).
 * Strings must be valid UTF-8; escapes, including \uXXXX surrogate pairs,
 * are decoded to UTF-8.  \u0000 is rejected because strings are
 * NUL-terminated.  Numbers must fit a double.  Duplicate object keys are
 * kept; json_get finds the first.  The result is freed with json_free. */
JsonValue *json_parse(const char *text, size_t len, char *err);
void json_free(JsonValue *v);
/* The value under key in an object; NULL when absent or not an object. */
const JsonValue *json_get(const JsonValue *object, const char *key);

/* 1 when s[0..len) is well-formed UTF-8 (no overlong forms, no surrogates,
 * nothing above U+10FFFF), else 0. */
int json_utf8_valid(const char *s, size_t len);

/* The growable text buffer of mixbench, for JSON and any other text.  data is always
 * a NUL-terminated string (the empty string right after sb_init).  If memory
 * runs out the buffer becomes empty and stays so: appends do nothing and
 * sb_ok() returns 0, so a writer checks once at the end. */
typedef struct {
    char *data;
    size_t len, cap;
} StrBuf;

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_append(StrBuf *sb, const char *s);
void sb_append_len(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a quoted, escaped JSON string: quotes, backslashes and
 * control characters are escaped (\n, \t, ... or \u00XX); bytes that are not valid
 * UTF-8 become U+FFFD so the output is always valid JSON. */
void sb_json_string(StrBuf *sb, const char *s);
/* 1 unless an allocation failed since sb_init. */
int sb_ok(const StrBuf *sb);
/* Room for `extra` more bytes (and the terminating NUL) without another
   allocation; -1 when memory ran out (the buffer is then broken). */
int sb_reserve(StrBuf *sb, size_t extra);
/* The text as a malloc'd string the caller frees (NULL when an allocation
   failed); sb is empty again afterwards. */
char *sb_take(StrBuf *sb);

#endif

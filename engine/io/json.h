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

/* Parses text[0..len); returns NULL and fills err on malformed input. */
JsonValue *json_parse(const char *text, size_t len, char *err);
void json_free(JsonValue *v);
const JsonValue *json_get(const JsonValue *object, const char *key);

/* A growable output buffer for writing JSON (or any text). */
typedef struct {
    char *data;
    size_t len, cap;
} StrBuf;

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_append(StrBuf *sb, const char *s);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a quoted, escaped JSON string. */
void sb_json_string(StrBuf *sb, const char *s);

#endif

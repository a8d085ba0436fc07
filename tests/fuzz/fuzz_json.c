/*
 * tests/fuzz/fuzz_json.c — fuzzes the JSON reader (engine/io/json.c):
 * json_parse on the raw bytes, and for what it accepts, a write/read round
 * trip that must give the same value back; json_utf8_valid on the bytes;
 * and sb_json_string on them, whose output must always parse back to a
 * string (to the same string when the bytes were valid UTF-8).
 */
#include "engine/common.h"
#include "engine/io/json.h"
#include "tests/fuzz/fuzz.h"

#include <math.h>

/* v written back as JSON (numbers with 17 digits, so they read back exact). */
static void write_value(StrBuf *sb, const JsonValue *v)
{
    switch (v->type) {
    case JSON_NULL: sb_append(sb, "null"); break;
    case JSON_BOOL: sb_append(sb, v->number != 0 ? "true" : "false"); break;
    case JSON_NUMBER: sb_printf(sb, "%.17g", v->number); break;
    case JSON_STRING: sb_json_string(sb, v->string); break;
    case JSON_ARRAY:
    case JSON_OBJECT:
        sb_append(sb, v->type == JSON_ARRAY ? "[" : "{");
        for (int i = 0; i < v->count; i++) {
            if (i) sb_append(sb, ",");
            if (v->type == JSON_OBJECT) {
                sb_json_string(sb, v->keys[i]);
                sb_append(sb, ":");
            }
            write_value(sb, &v->items[i]);
        }
        sb_append(sb, v->type == JSON_ARRAY ? "]" : "}");
        break;
    }
}

static int same_value(const JsonValue *a, const JsonValue *b)
{
    if (a->type != b->type || a->count != b->count) return 0;
    switch (a->type) {
    case JSON_NULL: return 1;
    case JSON_BOOL:
    case JSON_NUMBER: return a->number == b->number;
    case JSON_STRING: return strcmp(a->string, b->string) == 0;
    default: break;
    }
    for (int i = 0; i < a->count; i++) {
        if (a->type == JSON_OBJECT && strcmp(a->keys[i], b->keys[i]) != 0) return 0;
        if (!same_value(&a->items[i], &b->items[i])) return 0;
    }
    return 1;
}

/* Reads every field (so ASan sees every byte the parser handed out) and
   checks json_get finds the first of each key. */
static void walk(const JsonValue *v)
{
    FUZZ_CHECK(v->count >= 0);
    if (v->type == JSON_NUMBER) FUZZ_CHECK(isfinite(v->number));
    if (v->type == JSON_STRING) FUZZ_CHECK(json_utf8_valid(v->string, strlen(v->string)));
    if (v->type != JSON_ARRAY && v->type != JSON_OBJECT) return;
    for (int i = 0; i < v->count; i++) {
        if (v->type == JSON_OBJECT) {
            FUZZ_CHECK(json_utf8_valid(v->keys[i], strlen(v->keys[i])));
            const JsonValue *found = json_get(v, v->keys[i]);
            FUZZ_CHECK(found != NULL && found <= &v->items[i]);
        }
        walk(&v->items[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[ERR_LEN];
    const char *text = (const char *)data;
    JsonValue *v = json_parse(text, size, err);
    if (v) {
        walk(v);
        StrBuf sb;
        sb_init(&sb);
        write_value(&sb, v);
        FUZZ_CHECK(sb_ok(&sb));
        JsonValue *again = json_parse(sb.data, sb.len, err);
        if (!again) fprintf(stderr, "round trip rejected: %s\n", err);
        FUZZ_CHECK(again != NULL);
        FUZZ_CHECK(same_value(v, again));
        json_free(again);
        sb_free(&sb);
        json_free(v);
    } else {
        FUZZ_CHECK(memchr(err, '\0', ERR_LEN) != NULL && err[0] != '\0');
    }

    int valid = json_utf8_valid(text, size);
    char *s = fuzz_cstring(data, size);
    StrBuf quoted;
    sb_init(&quoted);
    sb_json_string(&quoted, s);
    FUZZ_CHECK(sb_ok(&quoted));
    JsonValue *str = json_parse(quoted.data, quoted.len, err);
    if (!str) fprintf(stderr, "sb_json_string wrote what json_parse rejects: %s\n", err);
    FUZZ_CHECK(str != NULL && str->type == JSON_STRING);
    if (valid && strlen(s) == size) FUZZ_CHECK(strcmp(str->string, s) == 0);
    json_free(str);
    sb_free(&quoted);
    free(s);
    return 0;
}

/*
 * test_json.c — the JSON reader and the StrBuf writer (engine/io/json.c):
 * values of every type, escapes and UTF-8, strict number grammar, errors
 * with byte offsets, the nesting limit, write/read round trips, and random
 * mutations that must never crash.
 */
#include "engine/common.h"
#include "engine/io/json.h"
#include "tests/check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static JsonValue *parse(const char *text, char *err) { return json_parse(text, strlen(text), err); }

static void test_values(void)
{
    char err[ERR_LEN] = "";
    const char *text = " {\"a\": 1, \"b\": [true, false, null], \"c\": \"x\",\n"
                       "  \"d\": {\"e\": -2.5e3, \"f\": []}, \"g\": {}} ";
    JsonValue *v = parse(text, err);
    CHECK(v != NULL, "parse failed: %s", err);
    if (!v)
        return;
    CHECK(v->type == JSON_OBJECT && v->count == 5, "root type %d count %d", v->type, v->count);
    CHECK(strcmp(v->keys[0], "a") == 0 && strcmp(v->keys[4], "g") == 0, "keys keep file order");
    const JsonValue *a = json_get(v, "a"), *b = json_get(v, "b"), *c = json_get(v, "c");
    CHECK(a && a->type == JSON_NUMBER && a->number == 1, "a");
    CHECK(b && b->type == JSON_ARRAY && b->count == 3, "b");
    if (b && b->count == 3) {
        CHECK(b->items[0].type == JSON_BOOL && b->items[0].number == 1, "true");
        CHECK(b->items[1].type == JSON_BOOL && b->items[1].number == 0, "false");
        CHECK(b->items[2].type == JSON_NULL, "null");
    }
    CHECK(c && c->type == JSON_STRING && strcmp(c->string, "x") == 0, "c");
    const JsonValue *e = json_get(json_get(v, "d"), "e");
    CHECK(e && e->number == -2500.0, "nested number");
    const JsonValue *f = json_get(json_get(v, "d"), "f");
    CHECK(f && f->type == JSON_ARRAY && f->count == 0 && f->items == NULL, "empty array");
    const JsonValue *g = json_get(v, "g");
    CHECK(g && g->type == JSON_OBJECT && g->count == 0, "empty object");
    CHECK(json_get(v, "missing") == NULL, "missing key");
    CHECK(json_get(a, "a") == NULL, "json_get on a number");
    CHECK(json_get(NULL, "a") == NULL, "json_get on NULL");
    json_free(v);
    json_free(NULL);

    /* Scalars at the top level, and duplicate keys (first one wins). */
    v = parse("\"top\"", err);
    CHECK(v && v->type == JSON_STRING && strcmp(v->string, "top") == 0, "top-level string");
    json_free(v);
    v = parse("{\"k\": 1, \"k\": 2}", err);
    CHECK(v && v->count == 2 && json_get(v, "k")->number == 1, "duplicate keys kept, first found");
    json_free(v);
    /* Length-bounded: the text need not be NUL-terminated. */
    v = json_parse("[1,2]garbage", 5, err);
    CHECK(v && v->count == 2, "parse respects len");
    json_free(v);
}

static void test_numbers(void)
{
    static const struct {
        const char *text;
        double value;
    } good[] = {
        {"0", 0},
        {"-0", -0.0},
        {"7", 7},
        {"-123", -123},
        {"1.5", 1.5},
        {"0.1", 0.1},
        {"1e3", 1000},
        {"1E+3", 1000},
        {"2.5e-3", 2.5e-3},
        {"-0.0e0", -0.0},
        {"999999999999999", 999999999999999.0},
        {"123456789012345678", 123456789012345678.0},
        {"9007199254740993", 9007199254740992.0},
        {"1e308", 1e308},
        {"1e-400", 0},
        {"3.141592653589793238462643383279", 3.141592653589793},
    };
    char err[ERR_LEN];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        JsonValue *v = parse(good[i].text, err);
        CHECK(v && v->type == JSON_NUMBER && v->number == good[i].value, "%s -> %.17g (%s)",
              good[i].text, v ? v->number : 0.0, v ? "" : err);
        if (v && good[i].value == 0)
            CHECK(signbit(v->number) == signbit(good[i].value), "sign of %s", good[i].text);
        json_free(v);
    }
    static const char *bad[] = {"01", "-01", "1.", ".5", "+1", "-", "1e", "1e+", "--1", "1.e3",
                                "0x10", "1e400", "-1e400", "NaN", "Infinity", "-Infinity", "1 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        JsonValue *v = parse(bad[i], err);
        CHECK(v == NULL, "'%s' should be rejected", bad[i]);
        CHECK(strncmp(err, "JSON: ", 6) == 0, "'%s': error '%s'", bad[i], err);
        json_free(v);
    }
    parse("1e400", err);
    CHECK(strstr(err, "out of range") != NULL, "overflow message: %s", err);
    parse("01", err);
    CHECK(strstr(err, "leading zero at byte 0") != NULL, "leading zero message: %s", err);
}

static void test_strings(void)
{
    static const struct {
        const char *json, *decoded;
    } good[] = {
        {"\"\"", ""},
        {"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t"},
        {"\"\\u0041\\u00e9\\u00E9\"", "A\xC3\xA9\xC3\xA9"},
        {"\"\\u20AC\"", "\xE2\x82\xAC"},
        {"\"\\u0001\\u001f\\u007f\"", "\x01\x1f\x7f"},
        {"\"\\uD83D\\uDE00\"", "\xF0\x9F\x98\x80"},
        {"\"\\ud83d\\ude00x\"", "\xF0\x9F\x98\x80x"},
        {"\"\\uDBFF\\uDFFF\"", "\xF4\x8F\xBF\xBF"},
        {"\"\\uFFFF\"", "\xEF\xBF\xBF"},
        {"\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
        {"\"\x7f\"", "\x7f"},
    };
    char err[ERR_LEN];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        JsonValue *v = parse(good[i].json, err);
        CHECK(v && v->type == JSON_STRING && strcmp(v->string, good[i].decoded) == 0,
              "case %zu: %s", i, v ? v->string : err);
        json_free(v);
    }
    static const struct {
        const char *json, *message;
    } bad[] = {
        {"\"abc", "JSON: unterminated string starting at byte 0"},
        {"\"abc\\\"", "JSON: unterminated string starting at byte 0"},
        {"\"a\\x\"", "JSON: invalid escape '\\x' at byte 2"},
        {"\"\\u12\"", "JSON: \\u must be followed by 4 hex digits at byte 1"},
        {"\"\\u12G4\"", "JSON: \\u must be followed by 4 hex digits at byte 1"},
        {"\"\\uD800\"", "JSON: unpaired surrogate \\uD800 at byte 1"},
        {"\"\\uD800x\"", "JSON: unpaired surrogate \\uD800 at byte 1"},
        {"\"\\uD800\\u0041\"", "JSON: unpaired surrogate \\uD800 at byte 1"},
        {"\"ab\\uDC00\"", "JSON: unpaired surrogate \\uDC00 at byte 3"},
        {"\"\\u0000\"", "JSON: \\u0000 at byte 1 is not supported"},
        {"\"a\nb\"", "JSON: unescaped control character 0x0a in string at byte 2"},
        {"\"a\tb\"", "JSON: unescaped control character 0x09 in string at byte 2"},
        {"\"\xC0\x80\"", "JSON: invalid UTF-8 in string at byte 1"},
        {"\"x\xFF\"", "JSON: invalid UTF-8 in string at byte 2"},
        {"\"\xE2\x82\"", "JSON: invalid UTF-8 in string at byte 1"},
        {"\"\xED\xA0\x80\"", "JSON: invalid UTF-8 in string at byte 1"},
        {"\"\xF4\x90\x80\x80\"", "JSON: invalid UTF-8 in string at byte 1"},
        {"\"\xE0\x80\xAF\"", "JSON: invalid UTF-8 in string at byte 1"},
        {"\"\x80\"", "JSON: invalid UTF-8 in string at byte 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        JsonValue *v = parse(bad[i].json, err);
        CHECK(v == NULL && strncmp(err, bad[i].message, strlen(bad[i].message)) == 0,
              "case %zu: got '%s', want '%s'", i, err, bad[i].message);
        json_free(v);
    }
    /* A key is a string too. */
    JsonValue *v = parse("{\"\\u00e9\\n\": 1}", err);
    CHECK(v && strcmp(v->keys[0], "\xC3\xA9\n") == 0, "escaped key");
    json_free(v);
}

static void test_syntax_errors(void)
{
    static const struct {
        const char *json, *message;
    } bad[] = {
        {"", "JSON: expected a value at byte 0, found end of input"},
        {"   ", "JSON: expected a value at byte 3, found end of input"},
        {"{\"a\" 1}", "JSON: expected ':' at byte 5, found '1'"},
        {"{\"name\": {\"dtype\": \"F32\" \"shape\": []}}",
         "JSON: expected ',' or '}' at byte 25, found '\"'"},
        {"{\"a\":1,}", "JSON: expected a string key at byte 7, found '}'"},
        {"{,}", "JSON: expected a string key at byte 1, found ','"},
        {"{1:2}", "JSON: expected a string key at byte 1, found '1'"},
        {"{'a':1}", "JSON: expected a string key at byte 1, found '''"},
        {"{\"a\":}", "JSON: expected a value at byte 5, found '}'"},
        {"{\"a\":1", "JSON: expected ',' or '}' at byte 6, found end of input"},
        {"[1,]", "JSON: expected a value at byte 3, found ']'"},
        {"[1 2]", "JSON: expected ',' or ']' at byte 3, found '2'"},
        {"[", "JSON: expected a value at byte 1, found end of input"},
        {"]", "JSON: expected a value at byte 0, found ']'"},
        {"[1] x", "JSON: unexpected data after the value at byte 4"},
        {"{} {}", "JSON: unexpected data after the value at byte 3"},
        {"tru", "JSON: expected 'true' at byte 0"},
        {"[nul]", "JSON: expected 'null' at byte 1"},
        {"falsey", "JSON: unexpected data after the value at byte 5"},
        {"True", "JSON: expected a value at byte 0, found 'T'"},
        {"\xEF\xBB\xBF{}", "JSON: expected a value at byte 0, found byte 0xef"},
        {"[1,\x01]", "JSON: expected a value at byte 3, found byte 0x01"},
        {"\f[]", "JSON: expected a value at byte 0, found byte 0x0c"},
    };
    char err[ERR_LEN];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        JsonValue *v = parse(bad[i].json, err);
        CHECK(v == NULL && strcmp(err, bad[i].message) == 0, "case %zu: got '%s', want '%s'", i,
              err, bad[i].message);
        json_free(v);
    }
    /* An embedded NUL byte is just an unexpected byte. */
    JsonValue *v = json_parse("[1,\0 2]", 7, err);
    CHECK(v == NULL && strcmp(err, "JSON: expected a value at byte 3, found byte 0x00") == 0, "%s", err);
    v = json_parse(NULL, 0, err);
    CHECK(v == NULL, "NULL text");
}

static char *nested(int depth, const char *open, const char *inner, const char *close)
{
    size_t lo = strlen(open), lc = strlen(close), li = strlen(inner);
    char *s = malloc((size_t)depth * (lo + lc) + li + 1), *p = s;
    for (int i = 0; i < depth; i++, p += lo)
        memcpy(p, open, lo);
    memcpy(p, inner, li);
    p += li;
    for (int i = 0; i < depth; i++, p += lc)
        memcpy(p, close, lc);
    *p = '\0';
    return s;
}

static void test_depth_limit(void)
{
    char err[ERR_LEN];
    char *ok = nested(JSON_MAX_DEPTH, "[", "1", "]");
    JsonValue *v = parse(ok, err);
    CHECK(v != NULL, "depth %d should parse: %s", JSON_MAX_DEPTH, err);
    json_free(v);
    free(ok);

    char *deep = nested(JSON_MAX_DEPTH + 1, "{\"k\":", "1", "}");
    v = parse(deep, err);
    CHECK(v == NULL && strstr(err, "JSON: nesting deeper than 128 at byte") == err, "%s", err);
    free(deep);

    /* Far deeper than any stack would take without the limit, unclosed. */
    char *huge = nested(1000000, "[", "", "");
    v = parse(huge, err);
    CHECK(v == NULL && strstr(err, "nesting deeper") != NULL, "%s", err);
    free(huge);
}

static void test_string_writer(void)
{
    StrBuf sb;
    sb_init(&sb);
    CHECK(sb.data && sb.data[0] == '\0' && sb.len == 0 && sb_ok(&sb), "fresh buffer is empty");
    sb_json_string(&sb, "a\"b\\c/\n\t\r\b\f\x01\x1f\x7f \xC3\xA9");
    const char *want = "\"a\\\"b\\\\c/\\n\\t\\r\\b\\f\\u0001\\u001f\x7f \xC3\xA9\"";
    CHECK(strcmp(sb.data, want) == 0, "escaped: %s", sb.data);
    sb_free(&sb);

    /* Bytes that are not UTF-8 become U+FFFD so the output stays valid. */
    sb_json_string(&sb, "x\xFFy\xC3");
    CHECK(strcmp(sb.data, "\"x\xEF\xBF\xBDy\xEF\xBF\xBD\"") == 0, "replacement: %s", sb.data);
    sb_free(&sb);
    sb_json_string(&sb, NULL);
    CHECK(strcmp(sb.data, "\"\"") == 0, "NULL writes an empty string: %s", sb.data);
    sb_free(&sb);

    /* Growth, printf, and a zero-initialised buffer. */
    StrBuf zero = {0};
    sb_append(&zero, "ab");
    CHECK(zero.len == 2 && strcmp(zero.data, "ab") == 0, "zero-initialised StrBuf");
    for (int i = 0; i < 100000; i++)
        sb_printf(&zero, "%d,", i % 10);
    CHECK(zero.len == 2 + 200000 && zero.data[zero.len] == '\0', "length %zu", zero.len);
    CHECK(memcmp(zero.data + 2, "0,1,2,", 6) == 0, "content");
    char big[5000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sb_printf(&zero, "[%s]", big);
    CHECK(zero.len == 200002 + 5001 && zero.data[zero.len - 1] == ']', "long printf");
    sb_append_len(&zero, "xyz", 2);
    CHECK(zero.data[zero.len - 1] == 'y' && zero.data[zero.len] == '\0', "append_len");
    CHECK(sb_ok(&zero), "ok");
    sb_free(&zero);
    CHECK(zero.len == 0 && zero.data[0] == '\0', "freed buffer is empty again");
}

/* Every 1-3 byte string built from a handful of interesting characters,
 * plus every single code point class, survives write -> parse. */
static void test_round_trip(void)
{
    static const char *pieces[] = {"a", "\"", "\\", "/", "\n", "\x01", "\x1f", " ", "\x7f",
                                   "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xEF\xBF\xBF", "u"};
    int n = (int)(sizeof pieces / sizeof pieces[0]);
    char err[ERR_LEN];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                char s[16];
                snprintf(s, sizeof s, "%s%s%s", pieces[i], pieces[j], pieces[k]);
                StrBuf sb;
                sb_init(&sb);
                sb_append(&sb, "{");
                sb_json_string(&sb, s);
                sb_append(&sb, ":");
                sb_json_string(&sb, s);
                sb_append(&sb, "}");
                JsonValue *v = json_parse(sb.data, sb.len, err);
                CHECK(v && v->count == 1 && strcmp(v->keys[0], s) == 0 &&
                          strcmp(v->items[0].string, s) == 0,
                      "round trip of %s failed: %s", sb.data, v ? "mismatch" : err);
                json_free(v);
                sb_free(&sb);
            }

    /* All printable and control ASCII in one string. */
    char all[128];
    for (int c = 1; c < 128; c++)
        all[c - 1] = (char)c;
    all[127] = '\0';
    StrBuf sb;
    sb_init(&sb);
    sb_json_string(&sb, all);
    JsonValue *v = json_parse(sb.data, sb.len, err);
    CHECK(v && strcmp(v->string, all) == 0, "all ASCII round trip");
    json_free(v);
    sb_free(&sb);

    /* Numbers written with %.17g come back exactly. */
    double values[] = {0.1, -1e-300, 6.02214076e23, 1.0 / 3.0, 4503599627370497.0, -0.0};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        sb_init(&sb);
        sb_printf(&sb, "[%.17g]", values[i]);
        v = json_parse(sb.data, sb.len, err);
        CHECK(v && v->items[0].number == values[i], "%s", sb.data);
        json_free(v);
        sb_free(&sb);
    }
}

static uint64_t rng_next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Random byte edits of a valid document: parse must succeed or fail with a
 * "JSON: " line, never crash (run under valgrind to see reads too). */
static void test_random_mutations(void)
{
    const char *doc = "{\"__metadata__\":{\"format\":\"mixbench\",\"tok\":\"a\\u00e9\\n\\\"\"},"
                      "\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
                      "\"x\":[true,false,null,-1.5e-3,\"\\uD83D\\uDE00\",[],{}]}";
    size_t n = strlen(doc);
    static const char alphabet[] = "{}[]\",:\\u0123456789.eE+-tfnul \x01\x80\xC3\xFF";
    uint64_t rng = 0x9E3779B97F4A7C15ULL;
    char buf[512], err[ERR_LEN];
    int parsed = 0, rejected = 0, bad_message = 0;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(buf, doc, n);
        size_t len = n;
        int edits = 1 + (int)(rng_next(&rng) % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = rng_next(&rng) % len;
            switch (rng_next(&rng) % 3) {
            case 0:
                buf[at] = alphabet[rng_next(&rng) % (sizeof alphabet - 1)];
                break;
            case 1:
                len = at + 1; /* truncate */
                break;
            default:
                memmove(buf + at, buf + at + 1, len - at - 1); /* delete */
                len--;
                break;
            }
            if (len == 0)
                len = 1;
        }
        err[0] = '\0';
        JsonValue *v = json_parse(buf, len, err);
        if (v)
            parsed++;
        else {
            rejected++;
            if (strncmp(err, "JSON: ", 6) != 0 || strchr(err, '\n'))
                bad_message++;
        }
        json_free(v);
    }
    CHECK(bad_message == 0, "%d errors without a proper message", bad_message);
    CHECK(parsed > 0 && rejected > 0, "parsed %d rejected %d", parsed, rejected);
}

static void test_utf8_valid(void)
{
    CHECK(json_utf8_valid("", 0), "empty");
    CHECK(json_utf8_valid("abc \xC3\xA9 \xF0\x9F\x98\x80", 11), "valid");
    CHECK(!json_utf8_valid("\xC3", 1), "truncated");
    CHECK(!json_utf8_valid("\xC1\xBF", 2), "overlong");
    CHECK(!json_utf8_valid("\xED\xBF\xBF", 3), "surrogate");
    CHECK(!json_utf8_valid("\xF5\x80\x80\x80", 4), "too large");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_values);
    RUN(test_numbers);
    RUN(test_strings);
    RUN(test_syntax_errors);
    RUN(test_depth_limit);
    RUN(test_string_writer);
    RUN(test_round_trip);
    RUN(test_random_mutations);
    RUN(test_utf8_valid);
    CHECK_EXIT();
}

/*
 * test_text.c — the shared text rules (engine/text.h: the number parser,
 * the UTF-8 walk, control characters shown as `cat -v` does, the locale
 * check), the formatting module (experiments/format.h), the run status
 * names (db/status.h) and the StrBuf's take/reserve (engine/io/json.h).
 */
#include <locale.h>
#include <math.h>
#include <string.h>

#include "db/status.h"
#include "engine/io/json.h"
#include "engine/text.h"
#include "experiments/format.h"
#include "tests/check.h"

static void test_numbers(void)
{
    double d = -7;
    CHECK(text_to_double("1e-3", &d) == 0 && d == 1e-3, "1e-3 -> %g", d);
    CHECK(text_to_double("-2.5", &d) == 0 && d == -2.5, "-2.5");
    const char *bad[] = {"", " 1", "1 ", "1,5", "0x10", "inf", "nan", "1e999", "1.2.3", "-", "abc", NULL};
    for (int i = 0; bad[i]; i++) {
        d = 42;
        CHECK(text_to_double(bad[i], &d) == -1 && d == 42, "'%s' refused, output untouched", bad[i]);
    }
    CHECK(text_to_double(NULL, &d) == -1, "NULL refused");
    int64_t v = 0;
    CHECK(text_to_int64("9007199254740993", &v) == 0 && v == 9007199254740993LL, "exact int64");
    CHECK(text_to_int64("1.0", &v) == -1 && text_to_int64("1e3", &v) == -1, "no fractions or exponents");
    CHECK(text_to_int64("99999999999999999999", &v) == -1, "overflow refused");
    int k = 0;
    CHECK(text_to_int("5", 1, 8, &k) == 0 && k == 5, "in range");
    CHECK(text_to_int("9", 1, 8, &k) == -1 && k == 5, "out of range refused");
    /* a "," locale does not change the parser (the workbench sets the user's locale) */
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8")) {
        CHECK(text_to_double("0.25", &d) == -1 || d == 0.25, "0.25 is never read as 0");
        setlocale(LC_NUMERIC, "C");
    }
}

static void test_utf8(void)
{
    CHECK(text_utf8_seq("a", 1) == 1 && text_utf8_seq("\xC3\xA9", 2) == 2, "ASCII, 2 bytes");
    CHECK(text_utf8_seq("\xE2\x94\x80", 3) == 3 && text_utf8_seq("\xF0\x9F\x98\x80", 4) == 4, "3 and 4 bytes");
    CHECK(text_utf8_seq("\xC3", 1) == 0, "truncated");
    CHECK(text_utf8_seq("\xC1\xBF", 2) == 0 && text_utf8_seq("\xE0\x80\x80", 3) == 0, "overlong");
    CHECK(text_utf8_seq("\xED\xA0\x80", 3) == 0, "surrogate");
    CHECK(text_utf8_seq("\xF4\x90\x80\x80", 4) == 0 && text_utf8_seq("\xF5\x80\x80\x80", 4) == 0, "> U+10FFFF");
    CHECK(text_utf8_len("\xC3") == 1 && text_utf8_len("\xFF" "abc") == 1, "a bad byte is one byte");
    CHECK(text_utf8_len("\xE2\x94") == 1, "never past the terminating 0");
    CHECK(text_columns("a\xC2\xB1" "b\xE2\x94\x80") == 4, "columns");
    CHECK(text_prefix_bytes("\xC2\xB1\xC2\xB1x", 2) == 4 && text_prefix_bytes("ab", 9) == 2, "prefix bytes");
    CHECK(json_utf8_valid("\xED\xA0\x80", 3) == 0 && json_utf8_valid("\xC2\xB1", 2) == 1, "JSON uses the same rule");
}

static void test_format(void)
{
    char b[32];
    CHECK(!strcmp(fmt_duration(45, b, sizeof b), "45s"), "%s", b);
    CHECK(!strcmp(fmt_duration(185, b, sizeof b), "3m05s"), "%s", b);
    CHECK(!strcmp(fmt_duration(3720, b, sizeof b), "1h02m"), "%s", b);
    CHECK(!strcmp(fmt_duration(2 * 86400 + 4 * 3600 + 59, b, sizeof b), "2d04h"), "%s", b);
    CHECK(!strcmp(fmt_duration(NAN, b, sizeof b), "-") && !strcmp(fmt_duration(-1, b, sizeof b), "-"), "unknown");
    CHECK(!strcmp(fmt_count(1234567, b, sizeof b), "1,234,567"), "%s", b);
    CHECK(!strcmp(fmt_count(-1000, b, sizeof b), "-1,000") && !strcmp(fmt_count(0, b, sizeof b), "0"), "%s", b);
    const struct { double v; const char *s; } shorts[] = {
        {980, "980"}, {999.4, "999"}, {999.6, "1.0k"}, {12345, "12.3k"}, {99949, "99.9k"}, {99951, "100k"},
        {456000, "456k"}, {999499, "999k"}, {999501, "1.0M"}, {7.8e6, "7.8M"}, {1.23e8, "123M"}, {4.5e9, "4.5G"},
    };
    for (size_t i = 0; i < sizeof shorts / sizeof shorts[0]; i++) {
        fmt_short(shorts[i].v, b, sizeof b);
        CHECK(!strcmp(b, shorts[i].s) && strlen(b) <= 5, "%g -> %s, want %s", shorts[i].v, b, shorts[i].s);
    }
    CHECK(!strcmp(fmt_rate(0, b, sizeof b), "-") && !strcmp(fmt_rate(NAN, b, sizeof b), "-"), "no rate");
    CHECK(!strcmp(fmt_real(4.12345, 3, b, sizeof b), "4.123") && !strcmp(fmt_real(NAN, 3, b, sizeof b), "-"), "%s", b);
    char tiny[4];
    fmt_count(1234567, tiny, sizeof tiny);
    CHECK(strlen(tiny) < sizeof tiny, "a small buffer is never overrun: '%s'", tiny);
}

static void test_status(void)
{
    for (int i = 0; i < RUN_STATUS_COUNT; i++)
        CHECK(run_status_parse(run_status_name((RunStatus)i)) == (RunStatus)i, "round trip %d", i);
    CHECK(run_status_parse("bogus") == RUN_STATUS_COUNT && run_status_parse(NULL) == RUN_STATUS_COUNT, "unknown");
    CHECK(run_status_final(RUN_DONE) && run_status_final(RUN_DIVERGED) && !run_status_final(RUN_PAUSED) &&
              !run_status_final(RUN_INTERRUPTED), "final");
    CHECK(run_status_of_failure(FAIL_DIVERGED) == RUN_DIVERGED && run_status_of_failure(FAIL_ERROR) == RUN_FAILED,
          "failure classes");
}

static void test_strbuf_take(void)
{
    StrBuf sb;
    sb_init(&sb);
    char *empty = sb_take(&sb);
    CHECK(empty && !strcmp(empty, ""), "an empty buffer gives a freeable empty string");
    free(empty);
    CHECK(sb_reserve(&sb, 1000) == 0 && sb.cap >= 1001, "reserve");
    sb_printf(&sb, "%d-%s", 7, "x");
    char *s = sb_take(&sb);
    CHECK(s && !strcmp(s, "7-x") && sb.len == 0, "take");
    free(s);
    sb_free(&sb);
}

/* Control characters shown as `cat -v` does, never sent; the rest kept. */
static void test_shown(void)
{
    char out[TEXT_SHOWN_CAP(16)];
    CHECK(!strcmp(text_shown("\033[31mred", out, sizeof out), "^[[31mred"), "%s", out);
    CHECK(!strcmp(text_shown("\033]0;title\a\033[2J", out, sizeof out), "^[]0;title^G^[[2J"), "%s", out);
    CHECK(!strcmp(text_shown("a\nb\tc\177", out, sizeof out), "a^Jb^Ic^?"), "%s", out);
    const char *utf8 = "r\xc3\xa9sum\xc3\xa9 \xe2\x94\x80";
    CHECK(!strcmp(text_shown(utf8, out, sizeof out), utf8), "%s", out);
    CHECK(!strcmp(text_shown("\xc2\x9b" "2J \xff", out, sizeof out), "M-^[2J M-^?"), "C1: %s", out);
    char small[6];
    CHECK(!strcmp(text_shown("ab\033cd", small, sizeof small), "ab^[c"), "cut: %s", small);
    CHECK(!strcmp(text_shown("abcd\033", small, sizeof small), "abcd"), "never half: %s", small);
    char all[TEXT_SHOWN_CAP(3)];
    CHECK(!strcmp(text_shown("\xc2\x85\xc2\x85\xc2\x85", all, sizeof all), "M-^EM-^EM-^E"), "whole: %s", all);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_numbers);
    RUN(test_utf8);
    RUN(test_shown);
    RUN(test_format);
    RUN(test_status);
    RUN(test_strbuf_take);
    return check_failures_ ? 1 : 0;
}

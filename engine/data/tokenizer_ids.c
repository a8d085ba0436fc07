/*
 * tokenizer_ids.c — the ids "tokenizer": the text already is token ids,
 * whitespace-separated non-negative decimal integers.  Line breaks are
 * whitespace only (no token is added).  The vocabulary size comes from the
 * caller; an id >= vocab or anything that is not such an integer is an
 * error naming the file and line ("train.txt:12: token id 70000 is outside
 * the vocabulary (vocab=1000)").  Ids 0 and 1 are accepted but they are
 * PAD and MASK to the models, so data normally starts at 2.
 *
 * Not for: signs, hex or separators other than whitespace.
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"

#include <stdio.h>

int ids_encode(const char *text, size_t len, int vocab, const DataSource *src,
               DataIds *out, char *err)
{
    const char *name = src && src->name ? src->name : "ids";
    long line = src ? src->first_line : 1;
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            line++;
            i++;
            continue;
        }
        if (data_is_space(c)) {
            i++;
            continue;
        }
        size_t start = i;
        uint64_t value = 0;
        int is_number = 1;
        while (i < len && !data_is_space((unsigned char)text[i])) {
            unsigned char d = (unsigned char)text[i];
            if (d < '0' || d > '9') is_number = 0;
            else if (value <= (uint64_t)INT32_MAX) value = value * 10 + (uint64_t)(d - '0');
            i++;
        }
        int shown = (int)MB_MIN(i - start, (size_t)40);
        if (!is_number)
            return err_set(err, "%s:%ld: '%.*s' is not a token id (expected a non-negative integer)",
                           name, line, shown, text + start);
        if (value >= (uint64_t)vocab)
            return err_set(err, "%s:%ld: token id %.*s is outside the vocabulary (vocab=%d)",
                           name, line, shown, text + start, vocab);
        if (data_ids_push(out, (int32_t)value) != 0)
            return err_set(err, "%s: out of memory reading token ids", name);
    }
    return 0;
}

size_t ids_decode_one(int32_t id, char *buf, size_t cap)
{
    char text[16];
    int n = snprintf(text, sizeof text, "%d ", (int)id);
    return data_put(buf, cap, text, (size_t)n);
}

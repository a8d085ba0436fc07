/*
 * tokenizer_char.c — the byte tokenizer: id = 2 + byte value, vocabulary
 * 258, so a char model's loss / ln 2 is bits per byte.
 *
 * Not for: Unicode code points (a UTF-8 character is several tokens).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"

#include <stdlib.h>

int char_encode(const char *text, size_t len, DataIds *out, char *err)
{
    if (out->cap < out->len + len) {
        int32_t *ids = realloc(out->ids, (out->len + len + 1) * sizeof *ids);
        if (!ids) return err_set(err, "out of memory encoding %zu bytes", len);
        out->ids = ids;
        out->cap = out->len + len + 1;
    }
    for (size_t i = 0; i < len; i++)
        out->ids[out->len++] = BYTE_BASE + (unsigned char)text[i];
    return 0;
}

size_t char_decode_one(int32_t id, char *buf, size_t cap)
{
    if (id == TOKEN_MASK) return data_put(buf, cap, "<mask>", 6);
    if (id < BYTE_BASE || id >= BYTE_VOCAB) return data_put(buf, cap, "", 0);
    char byte = (char)(unsigned char)(id - BYTE_BASE);
    return data_put(buf, cap, &byte, 1);
}

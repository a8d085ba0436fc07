/*
 * tests/fuzz/fuzz_config.c — fuzzes the config readers (engine/config.c).
 * An input starting with '{' is a config JSON object (the store's
 * config_json, checkpoint metadata): config_from_json, strict and with
 * unknown keys ignored.  Any other input is lines of key=value
 * (config_set_arg, as on the command line); a line "variant NAME" applies
 * config_apply_variant.  Whatever was set, config_validate must not crash,
 * and config_to_json must read back with config_from_json to the same JSON.
 */
#include "engine/common.h"
#include "engine/config.h"
#include "tests/fuzz/fuzz.h"

/* config_to_json(c) must be read back by config_from_json into an equal config. */
static void check_round_trip(const Config *c)
{
    char err[ERR_LEN];
    StrBuf first, second;
    sb_init(&first);
    sb_init(&second);
    config_to_json(c, &first);
    FUZZ_CHECK(sb_ok(&first));
    JsonValue *obj = json_parse(first.data, first.len, err);
    if (!obj) fprintf(stderr, "config_to_json wrote what json_parse rejects: %s\n", err);
    FUZZ_CHECK(obj != NULL);
    Config back;
    config_defaults(&back);
    int rc = config_from_json(&back, obj, 0, err);
    if (rc) fprintf(stderr, "config_to_json wrote what config_from_json rejects: %s\n", err);
    FUZZ_CHECK(rc == 0);
    config_to_json(&back, &second);
    FUZZ_CHECK(sb_ok(&second));
    if (strcmp(first.data, second.data) != 0)
        fprintf(stderr, "round trip changed the config:\n%s\n%s\n", first.data, second.data);
    FUZZ_CHECK(strcmp(first.data, second.data) == 0);
    json_free(obj);
    sb_free(&first);
    sb_free(&second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[ERR_LEN];
    Config c;
    config_defaults(&c);
    char *text = fuzz_cstring(data, size);
    if (size > 0 && data[0] == '{') {
        JsonValue *obj = json_parse((const char *)data, size, err);
        if (obj) {
            Config strict;
            config_defaults(&strict);
            config_from_json(&strict, obj, 0, err);
            config_from_json(&c, obj, 1, err);
            json_free(obj);
        }
    } else {
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            if (strncmp(line, "variant ", 8) == 0) config_apply_variant(&c, line + 8, err);
            else config_set_arg(&c, line, err);
        }
    }
    config_validate(&c, err);
    config_pos(&c);
    config_emb_std(&c);
    check_round_trip(&c);
    free(text);
    return 0;
}

/*
 * tests/fuzz/fuzz_sweep.c — fuzzes the sweep spec parser sweep_parse_data
 * (experiments/sweep.c): the input's lines are the argv words of
 * `mixbench sweep` (a preset name or a grid); a first line "--data PATH"
 * is passed as --data instead.  For a spec it accepts: at least one job,
 * the axes a JSON array, each job's coordinates a JSON object, and each
 * job's config valid.  $MIXBENCH_DATA is fixed so runs repeat.
 */
#include "engine/common.h"
#include "experiments/sweep.h"
#include "tests/fuzz/fuzz.h"

enum { MAX_WORDS = 256 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setenv("MIXBENCH_DATA", "/nonexistent/mixbench-fuzz-data", 1);
    char err[ERR_LEN];
    char *text = fuzz_cstring(data, size);
    char *words[MAX_WORDS];
    int n_words = 0;
    const char *data_arg = NULL;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && n_words < MAX_WORDS;
         line = strtok_r(NULL, "\n", &save)) {
        if (n_words == 0 && !data_arg && strncmp(line, "--data ", 7) == 0) data_arg = line + 7;
        else words[n_words++] = line;
    }
    Config base;
    config_defaults(&base);
    Sweep s;
    if (sweep_parse_data(n_words, words, &base, data_arg, &s, err) == 0) {
        FUZZ_CHECK(s.n_jobs >= 1 && s.jobs != NULL);
        JsonValue *axes = json_parse(s.axes, strlen(s.axes), err);
        FUZZ_CHECK(axes != NULL && axes->type == JSON_ARRAY);
        json_free(axes);
        for (int j = 0; j < s.n_jobs; j++) {
            JsonValue *coords = json_parse(s.jobs[j].coords, strlen(s.jobs[j].coords), err);
            FUZZ_CHECK(coords != NULL && coords->type == JSON_OBJECT);
            json_free(coords);
            Config check = s.jobs[j].config;
            if (check.vocab == 0) check.vocab = 1000;
            FUZZ_CHECK(config_validate(&check, err) == 0);
        }
        sweep_free(&s);
    } else {
        FUZZ_CHECK(s.n_jobs == 0 && s.jobs == NULL && err[0] != '\0');
    }
    free(text);
    return 0;
}

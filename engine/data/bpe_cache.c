/*
 * bpe_cache.c — keeps learned BPE merges in a file so a second load of the
 * same data does not relearn them.
 *
 * Where: beside the data as "<file or folder>.bpe<V>.merges"; when that
 * folder is not writable (no write permission bit, even for root: the
 * shared corpora are read-only), in
 * $XDG_CACHE_HOME/mixbench/ or ~/.cache/mixbench/ as
 * "<name>-<hash of the key>.bpe<V>.merges".  Both are tried on reading.
 *
 * What: a text file
 *     mixbench-bpe-merges 1
 *     key <one line naming the train text: absolute path, size, mtime>
 *     vocab <target vocabulary>
 *     merges <n>
 *     <left> <right>        (n lines, in rank order)
 *     end
 * A file whose key or vocabulary differs, or that does not parse, is
 * ignored and overwritten with freshly learned merges.  Files are written
 * to a temporary name and renamed, so concurrent jobs never read half a
 * file.  A cache that cannot be written is not an error.
 *
 * Not for: learning (bpe_learn.c) or encoding (tokenizer_bpe.c).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"
#include "engine/io/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char CACHE_MAGIC[] = "mixbench-bpe-merges 1";

static int user_cache_dir(char *dir, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/') n = snprintf(dir, cap, "%s/mixbench", xdg);
    else if (home && home[0]) n = snprintf(dir, cap, "%s/.cache/mixbench", home);
    else return -1;
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

void bpe_cache_paths(const char *cache_key, const char *beside, int target_vocab,
                     char *beside_path, char *user_path, size_t cap)
{
    beside_path[0] = user_path[0] = '\0';
    char base[128] = "builtin";
    if (beside && beside[0]) {
        size_t n = strlen(beside);
        while (n > 1 && beside[n - 1] == '/') n--;
        int w = snprintf(beside_path, cap, "%.*s.bpe%d.merges", (int)n, beside, target_vocab);
        if (w < 0 || (size_t)w >= cap) beside_path[0] = '\0';
        size_t start = n;
        while (start > 0 && beside[start - 1] != '/') start--;
        size_t k = 0;
        for (size_t i = start; i < n && k + 1 < sizeof base; i++) {
            char c = beside[i];
            int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_' || c == '.';
            base[k++] = ok ? c : '_';
        }
        base[k] = '\0';
        if (k == 0) snprintf(base, sizeof base, "data");
    }
    char dir[4096];
    if (user_cache_dir(dir, sizeof dir) != 0) return;
    unsigned long long h = (unsigned long long)data_hash_bytes(cache_key, strlen(cache_key));
    int w = snprintf(user_path, cap, "%s/%s-%016llx.bpe%d.merges", dir, base, h, target_vocab);
    if (w < 0 || (size_t)w >= cap) user_path[0] = '\0';
}

/* Parses one line "prefix<rest>" at *p; returns rest (not NUL-terminated,
   *rest_len) and advances *p past the newline. */
static const char *take_line(const char **p, const char *end, size_t *rest_len)
{
    const char *start = *p;
    if (start >= end) return NULL;
    const char *nl = memchr(start, '\n', (size_t)(end - start));
    if (!nl) return NULL;
    *rest_len = (size_t)(nl - start);
    *p = nl + 1;
    return start;
}

static int parse_int(const char *s, size_t len, long *out)
{
    if (len == 0 || len > 10) return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Reads merges from a cache file; -1 when absent, stale or corrupt. */
static int read_cache(const char *path, const char *cache_key, int target_vocab,
                      int32_t **merges_out, int *n_out)
{
    char *buf = NULL;
    size_t len = 0;
    char ignored[ERR_LEN];
    if (access(path, R_OK) != 0 || data_read_file(path, &buf, &len, ignored) != 0) return -1;
    const char *p = buf, *end = buf + len;
    int32_t *merges = NULL;
    DataPairMap seen = {0};
    size_t n;
    const char *line;
    long n_merges;
    char expect[64];

    line = take_line(&p, end, &n);
    if (!line || n != strlen(CACHE_MAGIC) || memcmp(line, CACHE_MAGIC, n) != 0) goto bad;
    line = take_line(&p, end, &n);
    size_t key_len = strlen(cache_key);
    if (!line || n != key_len + 4 || memcmp(line, "key ", 4) != 0 ||
        memcmp(line + 4, cache_key, key_len) != 0)
        goto bad;
    snprintf(expect, sizeof expect, "vocab %d", target_vocab);
    line = take_line(&p, end, &n);
    if (!line || n != strlen(expect) || memcmp(line, expect, n) != 0) goto bad;
    line = take_line(&p, end, &n);
    if (!line || n < 8 || memcmp(line, "merges ", 7) != 0 ||
        parse_int(line + 7, n - 7, &n_merges) != 0 || n_merges > target_vocab - BYTE_VOCAB)
        goto bad;
    merges = malloc(((size_t)n_merges + 1) * 2 * sizeof *merges);
    if (!merges || data_pairmap_init(&seen, (size_t)n_merges + 16) != 0) goto bad;
    for (long r = 0; r < n_merges; r++) {
        line = take_line(&p, end, &n);
        if (!line) goto bad;
        const char *space = memchr(line, ' ', n);
        if (!space) goto bad;
        long a, b;
        if (parse_int(line, (size_t)(space - line), &a) != 0 ||
            parse_int(space + 1, n - (size_t)(space - line) - 1, &b) != 0)
            goto bad;
        if (a < BYTE_BASE || b < BYTE_BASE || a >= BYTE_VOCAB + r || b >= BYTE_VOCAB + r) goto bad;
        int is_new = 0;
        if (data_pairmap_add(&seen, data_pair_key((int32_t)a, (int32_t)b), &is_new) < 0 || !is_new)
            goto bad;
        merges[2 * r] = (int32_t)a;
        merges[2 * r + 1] = (int32_t)b;
    }
    line = take_line(&p, end, &n);
    if (!line || n != 3 || memcmp(line, "end", 3) != 0 || p != end) goto bad;
    data_pairmap_free(&seen);
    free(buf);
    *merges_out = merges;
    *n_out = (int)n_merges;
    return 0;
bad:
    data_pairmap_free(&seen);
    free(merges);
    free(buf);
    return -1;
}

static int make_dirs(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) return -1;
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0') continue;
        char saved = path[i];
        path[i] = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
        path[i] = saved;
    }
    return 0;
}

/* A folder counts as writable only when it has a write permission bit and
   we may write to it: root may write anywhere, but a folder made read-only
   (the shared corpora) must stay untouched even then. */
static int folder_writable(const char *file_path)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", file_path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = '\0';
    else if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
    return (st.st_mode & 0222) != 0 && access(dir, W_OK) == 0;
}

static int write_cache(const char *path, const char *cache_key, int target_vocab,
                       const int32_t *merges, int n_merges)
{
    StrBuf text;
    sb_init(&text);
    int rc = -1;
    sb_printf(&text, "%s\nkey %s\nvocab %d\nmerges %d\n", CACHE_MAGIC, cache_key, target_vocab, n_merges);
    for (int r = 0; r < n_merges; r++) sb_printf(&text, "%d %d\n", (int)merges[2 * r], (int)merges[2 * r + 1]);
    sb_append(&text, "end\n");
    if (!sb_ok(&text)) goto done;

    /* The temporary name is unique per process and per call (the address
       of this frame's buffer differs between concurrent threads). */
    if (!folder_writable(path)) goto done;
    char tmp[4200];
    int w = snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lx", path, (long)getpid(),
                     (unsigned long)(uintptr_t)&text);
    if (w < 0 || (size_t)w >= sizeof tmp) goto done;
    FILE *f = fopen(tmp, "wb");
    if (!f) goto done;
    size_t wrote = fwrite(text.data, 1, text.len, f);
    int close_rc = fclose(f);
    if (wrote != text.len || close_rc != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        goto done;
    }
    rc = 0;
done:
    sb_free(&text);
    return rc;
}

int bpe_learn_cached(const char *train, size_t len, int target_vocab,
                     const char *cache_key, const char *beside, int32_t **merges,
                     int *n_merges, int *from_cache, char *err)
{
    char beside_path[4200], user_path[4200];
    bpe_cache_paths(cache_key, beside, target_vocab, beside_path, user_path, sizeof beside_path);
    *from_cache = 0;
    if (beside_path[0] && read_cache(beside_path, cache_key, target_vocab, merges, n_merges) == 0) {
        *from_cache = 1;
        return 0;
    }
    if (user_path[0] && read_cache(user_path, cache_key, target_vocab, merges, n_merges) == 0) {
        *from_cache = 1;
        return 0;
    }
    if (bpe_learn(train, len, target_vocab, merges, n_merges, err) != 0) return -1;
    if (beside_path[0] &&
        write_cache(beside_path, cache_key, target_vocab, *merges, *n_merges) == 0)
        return 0;
    if (user_path[0]) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s", user_path);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        if (make_dirs(dir) == 0) write_cache(user_path, cache_key, target_vocab, *merges, *n_merges);
    }
    return 0;
}

/*
 * data_internal.h — what the files of engine/data share and nobody else
 * needs: the Tokenizer struct, a string map and a pair map (open addressing,
 * dense indices), a growable id buffer, whole-file reading, a small seeded
 * generator for the built-in corpora and the per-kind tokenizer entry points.
 *
 * Not for: callers outside engine/data (they use data.h only).
 */
#ifndef MIXBENCH_DATA_INTERNAL_H
#define MIXBENCH_DATA_INTERNAL_H

#include "engine/rng.h"
#include <stddef.h>
#include <stdint.h>

#include "engine/data/data.h"

/* Ids shared by the text tokenizers. */
enum { WORD_UNK = 2, WORD_EOS = 3, WORD_FIRST = 4 };
enum { BYTE_BASE = 2, BYTE_VOCAB = 258 };

/* ---- string map: byte string -> dense index (0, 1, ... in insertion order) */
typedef struct {
    uint64_t hash;
    uint32_t key_off;   /* into pool */
    uint32_t key_len;
    int32_t index;      /* -1 = empty slot */
} DataStrSlot;

typedef struct {
    DataStrSlot *slots;
    size_t n_slots;         /* power of two */
    int32_t count;
    uint32_t *key_offs;     /* [count] dense index -> pool offset */
    uint32_t *key_lens;     /* [count] */
    size_t keys_cap;
    char *pool;             /* keys, each NUL-terminated */
    size_t pool_len, pool_cap;
} DataStrMap;

int data_strmap_init(DataStrMap *m, size_t expected);
void data_strmap_free(DataStrMap *m);
uint64_t data_hash_bytes(const void *s, size_t len);
/* Index of the key, or -1. */
int32_t data_strmap_find(const DataStrMap *m, const char *s, size_t len);
/* Index of the key, inserting it when absent (*is_new says which); -1 when
   out of memory. */
int32_t data_strmap_add(DataStrMap *m, const char *s, size_t len, int *is_new);
static inline const char *data_strmap_key(const DataStrMap *m, int32_t index)
{
    return m->pool + m->key_offs[index];
}
static inline uint32_t data_strmap_len(const DataStrMap *m, int32_t index)
{
    return m->key_lens[index];
}

/* ---- pair map: (left, right) id pair -> dense index */
typedef struct {
    uint64_t *keys;     /* slot -> key, UINT64_MAX = empty */
    int32_t *values;    /* slot -> dense index */
    size_t n_slots;     /* power of two */
    int32_t count;
} DataPairMap;

static inline uint64_t data_pair_key(int32_t left, int32_t right)
{
    return ((uint64_t)(uint32_t)left << 32) | (uint32_t)right;
}
int data_pairmap_init(DataPairMap *m, size_t expected);
void data_pairmap_free(DataPairMap *m);
int32_t data_pairmap_find(const DataPairMap *m, uint64_t key);
/* As data_strmap_add. */
int32_t data_pairmap_add(DataPairMap *m, uint64_t key, int *is_new);

/* ---- growable buffers */

typedef struct {
    int32_t *ids;
    size_t len, cap;
} DataIds;

int data_ids_push(DataIds *v, int32_t id);

/* Reads a whole file, NUL-terminated; *len excludes the NUL. */
int data_read_file(const char *path, char **buf, size_t *len, char *err);

/* Whitespace as the word and ids tokenizers see it: space \t \n \v \f \r. */
static inline int data_is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* ---- seeded generator: the engine's xoshiro256** (engine/rng.h), one
   stream per (seed, stream) pair */
typedef Rng DataRng;

static inline void data_rng_seed(DataRng *r, uint64_t seed, uint64_t stream)
{
    rng_seed(r, seed ^ (0xD1B54A32D192ED03ull * (stream + 1)));
}

static inline uint64_t data_rng_next(DataRng *r) { return rng_next(r); }

/* Uniform in [0, 1) with 53 bits. */
static inline double data_rng_double(DataRng *r) { return rng_double(r); }

/* Uniform in [0, n), n > 0 (multiply-shift; the bias is below 2^-32 for
   the table sizes used here). */
static inline uint32_t data_rng_below(DataRng *r, uint32_t n)
{
    return (uint32_t)(((data_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* ---- the tokenizer */
typedef struct {
    DataStrMap index;      /* word -> dense index; dense index i is id i+2 */
} WordVocab;

typedef struct {
    int n_merges;
    int32_t *merges;       /* [n_merges][2]: merge r makes id 258 + r */
    DataPairMap rank;      /* (left, right) -> r */
    uint32_t *piece_off;   /* [vocab] id -> bytes in pieces */
    uint32_t *piece_len;
    uint8_t *pieces;
} BpeModel;

struct Tokenizer {
    TokenizerKind kind;
    int vocab;
    WordVocab word;
    BpeModel bpe;
};

/* Where a text came from, for error messages and BPE cache keys. */
typedef struct {
    const char *name;      /* file name for "name:line:" errors */
    long first_line;       /* line number of the text's first line */
} DataSource;

/* word (tokenizer_word.c) */
int word_build(Tokenizer *t, const char *train, size_t len, int cap, int min_count,
               int32_t **train_ids, size_t *n_train, char *err);
int word_add(Tokenizer *t, const char *word, size_t len, char *err);
int word_encode(const Tokenizer *t, const char *text, size_t len, int final_eos,
                DataIds *out, char *err);
size_t word_decode_one(const Tokenizer *t, int32_t id, char *buf, size_t cap);
void word_free(Tokenizer *t);

/* char (tokenizer_char.c) */
int char_encode(const char *text, size_t len, DataIds *out, char *err);
size_t char_decode_one(int32_t id, char *buf, size_t cap);

/* bpe (bpe_learn.c learns, tokenizer_bpe.c encodes, bpe_cache.c stores) */
enum { BPE_MAX_CHUNK = 256 };
/* The pre-split shared by learning and encoding: returns the end of the
   chunk starting at i (a word with its leading space, GPT-2 style: letters,
   digits or punctuation runs, a whitespace run; at most BPE_MAX_CHUNK
   bytes).  Merges never cross a chunk boundary. */
size_t bpe_chunk_end(const unsigned char *s, size_t n, size_t i);
int bpe_learn(const char *train, size_t len, int target_vocab, int32_t **merges,
              int *n_merges, char *err);
int bpe_init(Tokenizer *t, const int32_t *merges, int n_merges, char *err);
int bpe_encode(const Tokenizer *t, const char *text, size_t len, DataIds *out, char *err);
size_t bpe_decode_one(const Tokenizer *t, int32_t id, char *buf, size_t cap);
void bpe_free(Tokenizer *t);
/* cache_key: one line identifying the training text (e.g. absolute path,
   size and mtime); beside: the file or folder the cache may sit beside, or
   NULL for the user cache only.  Reads the merges when a matching cache
   exists, else learns them and tries to store them.  *from_cache says
   which. */
int bpe_learn_cached(const char *train, size_t len, int target_vocab,
                     const char *cache_key, const char *beside, int32_t **merges,
                     int *n_merges, int *from_cache, char *err);
/* The cache files tried, in order (beside the data, then the user cache);
   empty string when a location is unavailable. */
void bpe_cache_paths(const char *cache_key, const char *beside, int target_vocab,
                     char *beside_path, char *user_path, size_t cap);

/* ids (tokenizer_ids.c) */
int ids_encode(const char *text, size_t len, int vocab, const DataSource *src,
               DataIds *out, char *err);
size_t ids_decode_one(int32_t id, char *buf, size_t cap);

/* Tokenizer construction shared by dataset.c and the deserializer. */
Tokenizer *tokenizer_new(TokenizerKind kind, int vocab, char *err);
/* A deep copy (through the serialisation). */
Tokenizer *tokenizer_clone(const Tokenizer *t, char *err);
/* Copies n bytes of s into buf (cap includes the NUL); returns bytes written. */
size_t data_put(char *buf, size_t cap, const char *s, size_t n);

/* Built-in corpora.  opts: the text after "builtin:NAME:" (may be ""). */
typedef struct {
    char *text[SPLIT_COUNT];        /* stories: generated text per split */
    size_t text_len[SPLIT_COUNT];
    int32_t *ids[SPLIT_COUNT];      /* markov, diagnostics: token ids per split */
    size_t ids_len[SPLIT_COUNT];
    uint8_t *scored[SPLIT_COUNT];   /* diagnostics: 1 where a token is a scored target */
    int example_len;                /* diagnostics: tokens per example */
    int vocab;                      /* markov: V + 2; diagnostics: their vocab= */
    double loss_floor;              /* markov: exact entropy rate */
    char canonical[256];            /* the spec with every option spelt out */
} BuiltinCorpus;

int builtin_stories(const char *opts, uint64_t seed, BuiltinCorpus *out, char *err);
int builtin_markov(const char *opts, uint64_t seed, BuiltinCorpus *out, char *err);
/* The diagnostics (builtin_mqar.c, builtin_copy.c): examples of n_ctx
   tokens (0: 64). */
int builtin_mqar(const char *opts, uint64_t seed, int n_ctx, BuiltinCorpus *out, char *err);
int builtin_copy(const char *opts, uint64_t seed, int n_ctx, BuiltinCorpus *out, char *err);
int builtin_selective_copy(const char *opts, uint64_t seed, int n_ctx, BuiltinCorpus *out,
                           char *err);
/* Their vocab= (the model's vocabulary) from the options alone, nothing
   generated: 0, or -1 with err when opts is malformed. */
int builtin_mqar_vocab(const char *opts, int *vocab, char *err);
int builtin_copy_vocab(const char *opts, int *vocab, char *err);
int builtin_selective_copy_vocab(const char *opts, int *vocab, char *err);
/* builtin:mqar's pairs= (the pairs a test example holds) from the options
   alone: 0, or -1 with err when opts is malformed. */
int builtin_mqar_pairs(const char *opts, int *pairs, char *err);
void builtin_free(BuiltinCorpus *c);

/* The streams of a diagnostic corpus (builtin_options.c): split s holds
   examples[s] examples of example_len tokens back to back plus one trailing
   PAD (so a next-token window of example_len + 1 fits at every example
   start), drawn from stream s + 1 of seed.  write fills one example of
   split (SPLIT_TRAIN, ...): ids arrive all PAD and scored all 0.  Sets ids, ids_len, scored and
   example_len of out. */
typedef void (*BuiltinExampleFn)(void *state, int split, DataRng *rng, int32_t *ids, uint8_t *scored);
int builtin_examples(const char *corpus, const size_t examples[SPLIT_COUNT], int example_len,
                     uint64_t seed, BuiltinExampleFn write, void *state, BuiltinCorpus *out,
                     char *err);

/* key=value,key=value option lists of the built-ins (builtin_options.c). */
typedef struct {
    const char *name;
    double min, max;        /* allowed range */
    int is_integer;
    double value;           /* in: default; out: the parsed value */
    int given;              /* out: 1 when set in the spec */
} BuiltinOption;

int builtin_parse_options(const char *corpus, const char *opts, BuiltinOption *o,
                          int n_options, char *err);

#endif

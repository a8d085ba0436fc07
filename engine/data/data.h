/*
 * data.h — corpora and tokenizers: turns a dataset spec (a folder, a file or
 * a built-in generator) into three token streams (train, valid, test).
 *
 * Not for: windows and batches (engine/trainer.c) or masking (engine/tasks/).
 *
 * Reserved ids in every tokenizer: PAD 0, MASK 1.
 *   word  whitespace split, <eos> at each line end, vocabulary from train
 *         (ids by descending train frequency, ties by byte order), words
 *         rarer than min_count and unseen words become <unk>.
 *   char  bytes: id = 2 + byte value, vocabulary 258.
 *   bpe   byte-level BPE learned on train to a target vocabulary size; the
 *         merges are cached beside the data (or in the user cache dir when
 *         that folder is read-only) so a second run does not relearn them.
 *   ids   whitespace-separated integer ids; the vocabulary size comes from
 *         the caller; an id >= vocab is an error naming the line.
 */
#ifndef MIXBENCH_DATA_H
#define MIXBENCH_DATA_H

#include <stddef.h>
#include <stdint.h>

enum { TOKEN_PAD = 0, TOKEN_MASK = 1 };
enum { SPLIT_TRAIN = 0, SPLIT_VALID = 1, SPLIT_TEST = 2, SPLIT_COUNT = 3 };

typedef enum { TOKENIZER_WORD, TOKENIZER_CHAR, TOKENIZER_BPE, TOKENIZER_IDS } TokenizerKind;

typedef struct Tokenizer Tokenizer;

typedef struct {
    int32_t *ids;
    size_t len;
    /* Diagnostic corpora (mqar, copy, ...): scored[i] = 1 when token i is
       a target that counts in loss and accuracy (NULL: every token counts),
       and the stream is a run of examples of example_len tokens each, so
       training windows start at multiples of it (0: free-running text). */
    uint8_t *scored;
    int example_len;
} TokenStream;

typedef struct {
    const char *tokenizer;  /* "word" | "char" | "bpe" | "ids"; NULL = the
                               dataset's default (word for text, ids for
                               builtin:markov) */
    int vocab;              /* ids: required vocabulary size; bpe: target
                               vocabulary (0 = 4096); word: cap (0 = none) */
    int min_count;          /* word: rarer train words -> <unk> (0 = 1) */
    uint64_t seed;          /* built-in generators (0 = their fixed default) */
    int n_ctx;              /* the model's context: diagnostic corpora make
                               examples of this many tokens (0 = 64) */
    const Tokenizer *reuse; /* encode every split with a copy of this
                               tokenizer (a checkpoint's) instead of building
                               one from train; vocab is then ignored and a
                               tokenizer name must match its kind; NULL = build */
} DataOptions;

typedef struct {
    char spec[1024];              /* as given by the user */
    Tokenizer *tokenizer;
    TokenStream split[SPLIT_COUNT];
    int vocab;                    /* model vocabulary size (incl. reserved) */
    double loss_floor;            /* exact entropy rate, nats/token; NAN if unknown */
    int bytes_per_token_is_one;   /* char tokenizer: loss/ln2 = bits per byte */
} Dataset;

/* Loads or generates a dataset.  spec: a folder holding train/valid/test
   under the usual names ({train,valid,test}.txt, wiki.{train,valid,test}.tokens,
   ptb.{train,valid,test}.txt), one text file (split 90/5/5 by lines), or
   builtin:NAME[:key=value,...] (stories, markov, mqar, copy, selective-copy;
   see docs/data.md).
   On failure ds is left empty (dataset_free is safe) and err says why. */
int dataset_load(const char *spec, const DataOptions *opt, Dataset *ds, char *err);
void dataset_free(Dataset *ds);
/* 1 when spec names a corpus that scores only some tokens, the answers
   (builtin:mqar, copy, selective-copy): its accuracy is the answer
   accuracy, the headline of a recall study; 0 for any other data. */
int data_scores_answers(const char *spec);
/* The model vocabulary a diagnostic corpus's spec sets (its vocab= or the
   default), read from the spec alone, nothing generated; 0 for any other
   data and for a malformed spec (dataset_load says what is wrong). */
int data_builtin_vocab(const char *spec);
/* The key-value pairs of a builtin:mqar spec's test examples (its pairs= or
   the default), read from the spec alone; 0 for any other data and for a
   malformed spec. */
int data_mqar_pairs(const char *spec);

/* The dataset a config names (config_data.c): c->data with c's tokenizer,
   vocab, min_count and n_ctx; sets c->vocab from it.  tok: encode with this
   tokenizer instead of building one (a checkpoint's), whose id count must
   equal c->vocab. */
struct Config;
int dataset_load_config(struct Config *c, const Tokenizer *tok, Dataset *ds, char *err);

/* The unigram entropy (nats) of a stream over ids [0, vocab) (unigram.c):
   the entropy of its token frequencies, i.e. the loss of a model that
   learned only how often each token occurs.  Counts only the scored tokens
   when s->scored is set (diagnostic corpora: the reference for their
   answer-only loss).  *n_counted (may be NULL) gets the tokens counted;
   *nats is NAN when there are none.  An id outside the vocabulary is an
   error. */
int token_stream_unigram_entropy(const TokenStream *s, int vocab, double *nats, int64_t *n_counted,
                                 char *err);

/* Tokenizer access (the dataset owns its tokenizer). */
TokenizerKind tokenizer_kind(const Tokenizer *t);
/* "word" | "char" | "bpe" | "ids". */
const char *tokenizer_kind_name(TokenizerKind kind);
int tokenizer_vocab(const Tokenizer *t);
/* Encodes text; *out is malloc'd (also for an empty result).  Returns 0 /
   -1 with err.  word: one <eos> per '\n' (no <eos> after an unterminated
   last line, unlike data files, so a prompt does not end in <eos>). */
int tokenizer_encode(const Tokenizer *t, const char *text, int32_t **out, size_t *n, char *err);
/* Appends the text of one token id to buf (NUL-terminated, truncated to cap).
   Returns the number of bytes written.  The text is written at buf[0]: to
   build a string pass buf + used and cap - used.  word: the word and a
   space, "\n" for <eos>; char: the byte; bpe: the token's bytes; ids: the
   number and a space.  PAD and out-of-range ids give "", MASK "<mask>"
   (word: "<mask> "; ids: the number). */
size_t tokenizer_decode_one(const Tokenizer *t, int32_t id, char *buf, size_t cap);
/* A self-contained serialisation (stored in checkpoint metadata so that
   generate needs no data) and its inverse.  serialize returns a malloc'd
   NUL-terminated string. */
char *tokenizer_serialize(const Tokenizer *t);
Tokenizer *tokenizer_deserialize(const char *s, char *err);
void tokenizer_free(Tokenizer *t);

#endif

/*
 * presets.c — the seeds' experiments (SPEC section 8) as named sweep specs,
 * each sized so that all twelve, three seeds each where a paper compares
 * architectures, run in about an hour on 2 cores (56 minutes measured, two
 * one-thread jobs at a time) on the corpora the papers used, with the figures the papers
 * report beside the points they belong to, and each preset's variant at the
 * paper's own size (`PRESET@paper`).
 *
 * The exception is recall, the recall study after Zoology's Figure 2: its
 * 270 jobs are sized by the study's own bar (attention solves every cell
 * from d=64 on), about two days as estimated; the reproductions run it
 * with their own budgets (docs/experiments.md, "The recall study").
 *
 * Sizes: the `what` line's time is the preset's wall time on 2 cores (two
 * jobs at a time, one thread each), measured by experiments/reproduce.sh
 * (docs/reproduction-quick.md).  Evaluation is capped at the first 32768 tokens
 * of valid and of test (eval_tokens; the same windows for every run, so
 * runs compare on the same text): scoring all of WikiText-2's 460k
 * evaluation tokens through a 14k-word head cost more than the training
 * did.  WikiText-2 keeps words seen at least 10 times (min_count=10: 14.4k
 * words) and the TinyStories sample its 4096 most frequent (TS_VOCAB);
 * the PairConnect grid runs at d=128: at the paper's d=256 and vocabulary,
 * three seeds of its 24 points alone would take the whole 90 minutes.
 * Budgets are short (60k to 400k training tokens: 120 to 780 steps of 8 x
 * 64), so batch=8, warmup=10 and lr=0.002 (measured: attention clm on
 * TinyStories, 60k tokens, valid 6.18 at lr 0.002 vs 6.34 at 0.001) give
 * the most steps.  Several presets still end near the unigram level at
 * these budgets (masked LM above all: a window carries about 9 masked
 * targets); their claims then read "inconclusive" (claims.c), and
 * docs/reproduction-quick.md says which (the long reproduction,
 * docs/reproduction.md, extends them until they are decided).
 *
 * Figures: every row of shared/papers/figures.csv is one PaperFigure line
 * below, with its value, metric, source and the paper's setting (S1..S7 of
 * shared/papers/README.md: SETTINGS), at the coordinates of the preset's
 * point it belongs to (a job's coords without seed; $MIXBENCH_DATA is
 * expanded when queued).  A setting differs from the preset's own (GPU-days
 * vs CPU-minutes), so what compares is the relation between two figures of
 * one setting (claims.c).  The autoencoder's S5 figure (the mixer at the
 * Transformer's memory) belongs to our equal-memory point (d=160);
 * mixer-vs-transformer's S6 figures to our n=512 points.
 *
 * Not for: parsing specs (sweep.c) or judging claims (claims.c).
 */
#include "experiments/sweep.h"

#include <string.h>

/* The papers' own settings, from shared/papers/README.md: the text, and
   the model sizes that code compares with our runs (0: the paper does not
   state it; S1's L and h are the points of Table 1, not one setting). */
static const PaperSetting SETTINGS[] = {
    {"S1", "PairConnect Tables 1-2: masked LM on PTB and WikiText-2, word level, 90% of sequences masked, 15% of "
           "their words; d=256, hidden 256, Adam, lr 1e-5, trained until convergence on V100 GPUs; Table 2 at L=6, "
           "h=4 with the hash size K varied; sequence length not stated; the losses average every position "
           "(our loss_all)", 256, 0, 0, 0},
    {"S2", "PairConnect Table 3: CPU inference on PTB, batch 1, one thread (Xeon E5-2698 v4, 2.2 GHz), PyTorch with "
           "a C++ table lookup, L=6, h=4, samples per second; compare ratios to attention measured in the same run",
     0, 6, 4, 0},
    {"S3", "Masked Mixers II autoencoders on TinyStories: d=512, 8 encoder and 8 decoder layers, after 2.25 epochs",
     512, 8, 0, 0},
    {"S4", "Masked Mixers II autoencoders on TinyStories: d=1024, 4 + 4 layers (the largest Transformer of that "
           "width that fit a V100), 3 epochs", 1024, 4, 0, 0},
    {"S5", "Masked Mixers II: the mixer at the Transformer's memory of S4 (d=1024, 8 + 8 layers), same compute "
           "(4x V100, 6 h)", 1024, 8, 0, 0},
    {"S6", "Masked Mixers (Part I, recalled in Part II): causal LM on TinyStories at n_ctx=512, an optimized "
           "Llama-style Transformer vs the masked mixer", 0, 0, 0, 512},
    {"S7", "Backurs et al.: causal LM on WikiText-103 word pieces, n=64, L=12, d=768, vocabulary 32000, batch 64, "
           "AdamW (weight decay 0.01), lr 1e-3 with linear decay and no warm-up, 1B tokens; the Appendix B "
           "weighted-sum model (our conv, 113M parameters) vs 12-head attention (127M)", 768, 12, 12, 64},
};

const PaperSetting *paper_setting(const char *name)
{
    for (size_t i = 0; name && i < sizeof SETTINGS / sizeof SETTINGS[0]; i++)
        if (!strcmp(SETTINGS[i].name, name)) return &SETTINGS[i];
    return NULL;
}

const char *paper_setting_text(const char *setting)
{
    const PaperSetting *p = paper_setting(setting);
    return p ? p->text : NULL;
}

/* Where the corpora are: $MIXBENCH_DATA (default ../shared/data). */
#define PTB "$MIXBENCH_DATA/ptb"
#define WT2 "$MIXBENCH_DATA/wikitext-2"
#define TINYSTORIES "$MIXBENCH_DATA/tinystories-sample/tinystories_sample.txt"
/* The short-budget training keys every scaled preset shares (see above). */
/* The TinyStories sample's 15k words capped at 4096 (the rest <unk>): at
   d=128 the output head is most of a step, and the cap buys three times
   the tokens.  The papers' own tokenizers are not given (papers/README). */
#define TS_VOCAB "vocab=4096 "
#define SHORT "batch=8 warmup=10 lr=0.002 eval_tokens=32768 "

/* The rows of shared/papers/figures.csv, preset by preset. */
static const PaperFigure FIG_PAIRCONNECT_GRID[] = {
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"1\", \"heads\": \"1\", \"arch\": \"pairconnect\"}", "train_loss", 1.39, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"1\", \"heads\": \"1\", \"arch\": \"pairconnect\"}", "test_loss", 1.49, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"1\", \"heads\": \"2\", \"arch\": \"pairconnect\"}", "train_loss", 1.39, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"1\", \"heads\": \"2\", \"arch\": \"pairconnect\"}", "test_loss", 1.47, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"2\", \"heads\": \"2\", \"arch\": \"pairconnect\"}", "train_loss", 1.22, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"2\", \"heads\": \"2\", \"arch\": \"pairconnect\"}", "test_loss", 1.39, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"2\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "train_loss", 1.16, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"2\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "test_loss", 1.25, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"4\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "train_loss", 1.05, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"4\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "test_loss", 1.13, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"6\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "train_loss", 0.98, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"6\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "test_loss", 1.09, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"1\", \"heads\": \"1\", \"arch\": \"attention\"}", "train_loss", 1.40, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"1\", \"heads\": \"1\", \"arch\": \"attention\"}", "test_loss", 1.49, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"1\", \"heads\": \"2\", \"arch\": \"attention\"}", "train_loss", 1.36, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"1\", \"heads\": \"2\", \"arch\": \"attention\"}", "test_loss", 1.48, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"2\", \"heads\": \"2\", \"arch\": \"attention\"}", "train_loss", 1.19, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"2\", \"heads\": \"2\", \"arch\": \"attention\"}", "test_loss", 1.37, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"2\", \"heads\": \"4\", \"arch\": \"attention\"}", "train_loss", 1.17, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"2\", \"heads\": \"4\", \"arch\": \"attention\"}", "test_loss", 1.29, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"4\", \"heads\": \"4\", \"arch\": \"attention\"}", "train_loss", 1.04, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"4\", \"heads\": \"4\", \"arch\": \"attention\"}", "test_loss", 1.13, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"6\", \"heads\": \"4\", \"arch\": \"attention\"}", "train_loss", 0.99, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"layers\": \"6\", \"heads\": \"4\", \"arch\": \"attention\"}", "test_loss", 1.09, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"1\", \"heads\": \"1\", \"arch\": \"pairconnect\"}", "train_loss", 1.66, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"1\", \"heads\": \"1\", \"arch\": \"pairconnect\"}", "test_loss", 1.76, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"1\", \"heads\": \"2\", \"arch\": \"pairconnect\"}", "train_loss", 1.53, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"1\", \"heads\": \"2\", \"arch\": \"pairconnect\"}", "test_loss", 1.69, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"2\", \"heads\": \"2\", \"arch\": \"pairconnect\"}", "train_loss", 1.29, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"2\", \"heads\": \"2\", \"arch\": \"pairconnect\"}", "test_loss", 1.44, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"2\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "train_loss", 1.09, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"2\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "test_loss", 1.19, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"4\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "train_loss", 1.06, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"4\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "test_loss", 1.15, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"6\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "train_loss", 1.05, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"6\", \"heads\": \"4\", \"arch\": \"pairconnect\"}", "test_loss", 1.12, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"1\", \"heads\": \"1\", \"arch\": \"attention\"}", "train_loss", 1.67, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"1\", \"heads\": \"1\", \"arch\": \"attention\"}", "test_loss", 1.75, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"1\", \"heads\": \"2\", \"arch\": \"attention\"}", "train_loss", 1.56, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"1\", \"heads\": \"2\", \"arch\": \"attention\"}", "test_loss", 1.71, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"2\", \"heads\": \"2\", \"arch\": \"attention\"}", "train_loss", 1.28, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"2\", \"heads\": \"2\", \"arch\": \"attention\"}", "test_loss", 1.42, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"2\", \"heads\": \"4\", \"arch\": \"attention\"}", "train_loss", 1.11, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"2\", \"heads\": \"4\", \"arch\": \"attention\"}", "test_loss", 1.25, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"4\", \"heads\": \"4\", \"arch\": \"attention\"}", "train_loss", 1.04, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"4\", \"heads\": \"4\", \"arch\": \"attention\"}", "test_loss", 1.17, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"6\", \"heads\": \"4\", \"arch\": \"attention\"}", "train_loss", 1.02, "PairConnect Table 1", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"layers\": \"6\", \"heads\": \"4\", \"arch\": \"attention\"}", "test_loss", 1.11, "PairConnect Table 1", "S1"},
};

static const PaperFigure FIG_PAIRCONNECT_HASH[] = {
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"hash_size\": \"100\"}", "test_loss", 1.10, "PairConnect Table 2", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"hash_size\": \"500\"}", "test_loss", 1.09, "PairConnect Table 2", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"hash_size\": \"1000\"}", "test_loss", 1.09, "PairConnect Table 2", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"hash_size\": \"5000\"}", "test_loss", 1.10, "PairConnect Table 2", "S1"},
    {"{\"data\": \"" PTB "\", \"min_count\": \"1\", \"hash_size\": \"10000\"}", "test_loss", 1.10, "PairConnect Table 2", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"hash_size\": \"100\"}", "test_loss", 1.19, "PairConnect Table 2", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"hash_size\": \"500\"}", "test_loss", 1.12, "PairConnect Table 2", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"hash_size\": \"1000\"}", "test_loss", 1.12, "PairConnect Table 2", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"hash_size\": \"5000\"}", "test_loss", 1.13, "PairConnect Table 2", "S1"},
    {"{\"data\": \"" WT2 "\", \"min_count\": \"10\", \"hash_size\": \"10000\"}", "test_loss", 1.20, "PairConnect Table 2", "S1"},
};

static const PaperFigure FIG_PAIRCONNECT_SPEED[] = {
    {"{\"arch\": \"attention\", \"hash_size\": \"1000\"}", "samples_per_s", 45.35, "PairConnect Table 3", "S2"},
    {"{\"arch\": \"pairconnect\", \"hash_size\": \"100\"}", "samples_per_s", 62.51, "PairConnect Table 3", "S2"},
    {"{\"arch\": \"pairconnect\", \"hash_size\": \"500\"}", "samples_per_s", 58.82, "PairConnect Table 3", "S2"},
    {"{\"arch\": \"pairconnect\", \"hash_size\": \"1000\"}", "samples_per_s", 55.55, "PairConnect Table 3", "S2"},
    {"{\"arch\": \"pairconnect\", \"hash_size\": \"5000\"}", "samples_per_s", 52.63, "PairConnect Table 3", "S2"},
    {"{\"arch\": \"pairconnect\", \"hash_size\": \"10000\"}", "samples_per_s", 50.00, "PairConnect Table 3", "S2"},
};

static const PaperFigure FIG_AUTOENCODER[] = {
    {"{\"arch\": \"mixer\", \"d\": \"128\"}", "train_loss", 4.53, "Masked Mixers II (autoencoders)", "S3"},
    {"{\"arch\": \"mixer\", \"d\": \"128\"}", "test_loss", 4.35, "Masked Mixers II (autoencoders)", "S3"},
    {"{\"arch\": \"attention\", \"d\": \"128\"}", "train_loss", 5.31, "Masked Mixers II (autoencoders)", "S3"},
    {"{\"arch\": \"attention\", \"d\": \"128\"}", "test_loss", 5.23, "Masked Mixers II (autoencoders)", "S3"},
    {"{\"arch\": \"mixer\", \"d\": \"128\"}", "train_loss", 3.85, "Masked Mixers II (autoencoders)", "S4"},
    {"{\"arch\": \"mixer\", \"d\": \"128\"}", "test_loss", 3.66, "Masked Mixers II (autoencoders)", "S4"},
    {"{\"arch\": \"attention\", \"d\": \"128\"}", "train_loss", 5.05, "Masked Mixers II (autoencoders)", "S4"},
    {"{\"arch\": \"attention\", \"d\": \"128\"}", "test_loss", 4.99, "Masked Mixers II (autoencoders)", "S4"},
    {"{\"arch\": \"mixer\", \"d\": \"160\"}", "train_loss", 1.65, "Masked Mixers II (autoencoders)", "S5"},
    {"{\"arch\": \"mixer\", \"d\": \"160\"}", "test_loss", 1.37, "Masked Mixers II (autoencoders)", "S5"},
};

static const PaperFigure FIG_MIXER_VS_TRANSFORMER[] = {
    {"{\"n_ctx\": \"512\", \"arch\": \"attention\", \"heads\": \"4\"}", "test_loss", 1.61, "Masked Mixers II (recalling Part I)", "S6"},
    {"{\"n_ctx\": \"512\", \"arch\": \"mixer\", \"heads\": \"1\"}", "test_loss", 1.71, "Masked Mixers II (recalling Part I)", "S6"},
};

static const PaperFigure FIG_PREFIX_MODELS[] = {
    {"{\"arch\": \"conv\"}", "test_perplexity", 25.8, "Backurs et al. (Appendix B model)", "S7"},
    {"{\"arch\": \"attention\"}", "test_perplexity", 23.2, "Backurs et al. (Appendix B model)", "S7"},
};

/* Dispatcher (Cetoli 2021, fractalego/dispatcher): WikiText language
   modelling, the Dispatcher layer in place of masked self-attention (MSA)
   in an otherwise identical nn.TransformerEncoder stack: post-norm, ReLU,
   sinusoidal positions, 6 layers, d=512, 1 head, feed-forward width 512
   (ffn_mult=1), dropout 0.2, gradient clipping 0.5, n=512.
   shared/papers/README.md gives no table: the claim is only that its
   perplexity is close to MSA's.  Scaled: d=128, n=128, 60k tokens. */
static const char DISPATCHER[] =
    "variant=dispatcher-block data=" WT2 " min_count=10 arch=dispatcher,attention task=clm d=128 layers=6 "
    "heads=1 ffn_mult=1 n_ctx=128 dropout=0.2 clip=0.5 " SHORT "tokens=200000 repeats=3";
/* At the paper's size; the budget is not stated: 20M tokens (about ten
   epochs of WikiText-2) is our choice. */
static const char DISPATCHER_PAPER[] =
    "variant=dispatcher-block data=" WT2 " arch=dispatcher,attention task=clm d=512 layers=6 heads=1 ffn_mult=1 "
    "n_ctx=512 dropout=0.2 clip=0.5 tokens=20000000 repeats=3";

/* PairConnect (Xu, Yan, Zhang, Shrivastava 2021), Table 1 (setting S1):
   masked language modelling on PTB and WikiText-2, PairConnect vs the
   Transformer at six (L, h), train and test loss averaged over every
   position (mlm_loss=all; compare with loss_all).  Scaled: d=128 (the
   paper: 256), n=64 (not stated; the paper's inference setting), 40k
   tokens, WikiText-2 with min_count=10. */
static const char PC_GRID[] =
    "task=mlm mlm_loss=all d=128 n_ctx=64 (data,min_count)=(" PTB ",1),(" WT2 ",10) "
    "(layers,heads)=(1,1),(1,2),(2,2),(2,4),(4,4),(6,4) arch=pairconnect,attention " SHORT "tokens=80000 repeats=3";
/* S1 itself: d=256, hidden 256, Adam at lr 1e-5 (constant: no schedule is
   stated), full vocabularies; "until convergence" is not a number: 50M
   tokens (about 50 epochs of PTB at that small learning rate) is ours. */
#define PC_PAPER_TRAIN "task=mlm mlm_loss=all d=256 n_ctx=64 lr=1e-5 decay=constant warmup=0 weight_decay=0 "
static const char PC_GRID_PAPER[] =
    PC_PAPER_TRAIN "data=" PTB "," WT2 " (layers,heads)=(1,1),(1,2),(2,2),(2,4),(4,4),(6,4) "
    "arch=pairconnect,attention tokens=50000000 repeats=3";

/* PairConnect Table 2 (S1): test loss against the hash table size K at
   L=6, h=4 on both corpora (a larger K means fewer pair collisions and
   more memory).  Scaled as the grid, 30k tokens. */
static const char PC_HASH[] =
    "arch=pairconnect task=mlm mlm_loss=all d=128 layers=6 heads=4 n_ctx=64 (data,min_count)=(" PTB ",1),(" WT2
    ",10) hash_size=100,500,1000,5000,10000 " SHORT "tokens=60000 repeats=3";
static const char PC_HASH_PAPER[] =
    PC_PAPER_TRAIN "arch=pairconnect layers=6 heads=4 data=" PTB "," WT2 " hash_size=100,500,1000,5000,10000 "
    "tokens=50000000 repeats=3";

/* PairConnect Table 3 (S2): batch-1 single-thread inference samples/s at
   the paper's own size (d=256, L=6, h=4, PTB's 10k words), PairConnect
   per K vs the Transformer.  The jobs train 5 steps: the measure is the
   run's inference samples/s (SPEC section 6), which does not depend on
   training; three seeds give the timing's spread. */
#define PC_SPEED_POINTS                                                                                    \
    "(arch,hash_size)=(attention,1000),(pairconnect,100),(pairconnect,500),(pairconnect,1000),"           \
    "(pairconnect,5000),(pairconnect,10000) "
static const char PC_SPEED[] =
    "task=mlm mlm_loss=all data=" PTB " d=256 layers=6 heads=4 n_ctx=64 " PC_SPEED_POINTS "steps=5 eval_tokens=2048 threads=1 repeats=3";
/* S2 trained its models to convergence first; speed does not depend on
   the weights, so the paper variant differs only in the training (S1's). */
static const char PC_SPEED_PAPER[] =
    PC_PAPER_TRAIN "data=" PTB " layers=6 heads=4 " PC_SPEED_POINTS "tokens=50000000 threads=1 repeats=3";

/* Masked Mixers (Badger 2024; S6 as Part II recalls it): causal language
   modelling on TinyStories, masked mixer (one [n, n] mixing matrix per
   block) vs a Transformer at several context lengths: the Transformer
   better at n=512, the mixer at 32 and 128.  Scaled: d=128, L=4, the same
   80k tokens at each n. */
static const char MIXER_VS_TRANSFORMER[] =
    "task=clm data=" TINYSTORIES " " TS_VOCAB "d=128 layers=4 n_ctx=32,128,512 (arch,heads)=(mixer,1),(attention,4) "
    SHORT "tokens=240000 repeats=3";
/* S6 gives only n=512; width and depth are not stated: d=512, L=8 as in
   S3, and 100M tokens (many epochs of the sample) are ours. */
static const char MIXER_VS_TRANSFORMER_PAPER[] =
    "task=clm data=" TINYSTORIES " d=512 layers=8 n_ctx=32,128,512 (arch,heads)=(mixer,1),(attention,4) "
    "tokens=100000000 repeats=3";

/* Masked Mixers II: autoencoders (the encoder's last hidden state decoded
   back to the window), mixer vs Transformer at equal d and L (S3, S4), and
   the mixer at the Transformer's memory (S5).  Equal memory here: the
   mixer at d=160 has the peak training memory of attention at d=128 (129
   vs 135 MB measured in mixbench at L=4, n=64, batch 16). */
static const char AUTOENCODER[] =
    "task=autoencode data=" TINYSTORIES " " TS_VOCAB "layers=4 n_ctx=64 (arch,d)=(mixer,128),(attention,128),"
    "(mixer,160) " SHORT "tokens=400000 repeats=3";
/* S3 (d=512, 8 + 8), S4 (d=1024, 4 + 4) and S5 (the mixer at d=1024, 8 +
   8); n is not stated (512 is ours), nor the size of an epoch of the full
   TinyStories: 200M tokens is ours. */
static const char AUTOENCODER_PAPER[] =
    "task=autoencode data=" TINYSTORIES " n_ctx=512 (arch,d,layers)=(mixer,512,8),(attention,512,8),"
    "(mixer,1024,4),(attention,1024,4),(mixer,1024,8) tokens=200000000 repeats=3";

/* Masked Mixers II without numbers: for the next four presets the paper's
   size is not stated in papers/README.md; their @paper variants take S3's
   width and depth (d=512, L=8), n=512 and 100M tokens, our choice. */
#define MM_PAPER "data=" TINYSTORIES " d=512 layers=8 n_ctx=512 tokens=100000000 repeats=3 "

/* Masked Mixers II: all-next-token bidirectional training vs causal, for
   the mixer and the Transformer (their relative standing is nearly the
   same for both). */
static const char BIDIRECTIONAL[] =
    "data=" TINYSTORIES " " TS_VOCAB "d=128 layers=4 n_ctx=64 task=bidir,clm arch=mixer,attention " SHORT
    "tokens=200000 repeats=3";
static const char BIDIRECTIONAL_PAPER[] = MM_PAPER "task=bidir,clm arch=mixer,attention";

/* Masked Mixers II: one-step completion of the window's second half,
   mixer vs Transformer (about equally efficient; both train poorly). */
static const char COMPLETION[] =
    "task=complete data=" TINYSTORIES " " TS_VOCAB "d=128 layers=4 n_ctx=64 arch=mixer,attention " SHORT
    "tokens=200000 repeats=3";
static const char COMPLETION_PAPER[] = MM_PAPER "task=complete arch=mixer,attention";

/* Masked Mixers II: the masked mixer vs the fully linear masked mixer
   (act=none, norm=none: the linear-mixer variant) vs the Transformer (the
   linear one trains, only slightly worse). */
#define LINEAR_POINTS "(arch,act,norm)=(mixer,gelu,pre),(mixer,none,none),(attention,gelu,pre) "
static const char LINEAR_MIXER[] =
    "task=clm data=" TINYSTORIES " " TS_VOCAB "d=128 layers=4 n_ctx=64 " LINEAR_POINTS SHORT "tokens=200000 repeats=3";
static const char LINEAR_MIXER_PAPER[] = MM_PAPER "task=clm " LINEAR_POINTS;

/* Backurs et al., the FFT-based model (Appendix A): masked language
   modelling with parameter-free Fourier mixing vs attention (it trains as
   an mlm).  Scaled: WikiText-2 (the paper: WikiText-103), d=128, L=4. */
static const char FFT_MLM[] =
    "task=mlm data=" WT2 " min_count=10 d=128 layers=4 n_ctx=64 arch=fft,attention " SHORT "tokens=200000 repeats=3";
/* S7's hyperparameters (n=64, L=12, d=768, 12 heads, a 32000-piece
   vocabulary: our byte-level BPE, batch 64, AdamW with weight decay 0.01,
   lr 1e-3 with linear decay and no warm-up, 1B tokens) on WikiText-2, the
   largest WikiText here. */
#define S7_TRAIN                                                                                           \
    "data=" WT2 " tokenizer=bpe vocab=32000 n_ctx=64 layers=12 d=768 heads=12 batch=64 weight_decay=0.01 "  \
    "lr=1e-3 decay=linear warmup=0 tokens=1000000000 repeats=3 "
static const char FFT_MLM_PAPER[] = S7_TRAIN "task=mlm arch=fft,attention";

/* Backurs et al., the prefix-sum and weighted-sum (learned causal
   convolution, Appendix B: S7) models vs attention, causal language
   modelling (conv about 11% worse in perplexity).  Scaled as fft-mlm. */
static const char PREFIX_MODELS[] =
    "task=clm data=" WT2 " min_count=10 d=128 layers=4 n_ctx=64 arch=cumsum,conv,attention " SHORT
    "tokens=200000 repeats=3";
static const char PREFIX_MODELS_PAPER[] = S7_TRAIN "task=clm arch=cumsum,conv,attention";

/* Beyond the seeds: the recall study after Zoology's Figure 2 (Arora et
   al. 2023: attention solves multi-query associative recall at every
   sequence length and pair count from d=64 on; most of its replacements
   need a larger d, or never do).  Its points: MQAR at (n, pairs) = (64, 4),
   (128, 8), (256, 16) as Zoology's, copying and selective copying (Mamba)
   at n=64, each at model widths d = 32, 64, 128, two layers, for every
   architecture with a causal mode, 3 seeds; the headline is the answer
   accuracy (points.h headline_metric), the loss beside it.
   init=fan_in emb_std=1: at the default init (N(0, 0.02) weights, SPEC
   section 5) 2-layer attention of this size stays near chance on 4-pair
   MQAR, and with N(0, 1/sqrt(fan_in)) it solves it (docs/learn_check.md),
   so the study compares mixers, not an init that suits none of them.
   Zoology's setting beside ours (docs/experiments.md, "The recall study"):
   vocabulary 8192 (ours 256: 127 keys, 127 values, far more than the 16
   pairs of the longest example, and a head that costs less than the
   mixers at d=32..128), 100k training examples (ours too), 64 epochs (ours
   RECALL_STEPS steps of 32, under one epoch: no training example is seen
   twice on average, so nothing is memorised and the test examples are
   new ones either way), 4 learning rates 1e-4..1e-2 (ours the same four
   through lr=tune's search, experiments/adaptive.h).  The budget is not
   yet measured against the study's bar (attention >= 0.99 in every cell
   at d >= 64 on this machine): docs/experiments.md says what is left. */
#define RECALL_DATA(n, name, opts) "(" #n ",builtin:" name ":" opts "examples=100000)"
static const char RECALL[] =
    "task=clm layers=2 heads=2 init=fan_in emb_std=1 batch=32 "
    "(n_ctx,data)=" RECALL_DATA(64, "mqar", "pairs=4:vocab=256:") "," RECALL_DATA(128, "mqar", "pairs=8:vocab=256:")
    "," RECALL_DATA(256, "mqar", "pairs=16:vocab=256:") "," RECALL_DATA(64, "copy", "") ","
    RECALL_DATA(64, "selective-copy", "") " d=32,64,128 arch=attention,dispatcher,pairconnect,mixer,cumsum,conv "
    "lr=tune tune_lr=1e-4..1e-2 tune_points=4 steps=2000 repeats=3";

#define FIGS(a) a, (int)(sizeof a / sizeof a[0])
#define NO_FIGS NULL, 0

static const Preset PRESETS[] = {
    {"dispatcher-vs-msa", "Dispatcher",
     "clm on WikiText-2, dispatcher vs attention (MSA) in the paper's post-norm ReLU block, d=128 L=6 h=1 n=128, "
     "200k tokens, 3 seeds; test perplexity; 6 jobs, ~3 min",
     DISPATCHER, NO_FIGS, DISPATCHER_PAPER},
    {"pairconnect-grid", "PairConnect Table 1",
     "mlm (loss over all positions) on PTB and WikiText-2, d=128, (L,h) in (1,1) (1,2) (2,2) (2,4) (4,4) (6,4), "
     "pairconnect vs attention, 80k tokens, 3 seeds; train and test loss; 72 jobs, ~17 min",
     PC_GRID, FIGS(FIG_PAIRCONNECT_GRID), PC_GRID_PAPER},
    {"pairconnect-hash", "PairConnect Table 2",
     "mlm (all positions) on PTB and WikiText-2, pairconnect hash_size K in 100 500 1000 5000 10000 at L=6 h=4 "
     "d=128, 60k tokens, 3 seeds; test loss; 30 jobs, ~11 min",
     PC_HASH, FIGS(FIG_PAIRCONNECT_HASH), PC_HASH_PAPER},
    {"pairconnect-speed", "PairConnect Table 3",
     "batch-1 single-thread inference samples/s on PTB, attention and pairconnect per K, L=6 h=4 d=256, 3 seeds; "
     "18 jobs, ~2 min",
     PC_SPEED, FIGS(FIG_PAIRCONNECT_SPEED), PC_SPEED_PAPER},
    {"mixer-vs-transformer", "Masked Mixers",
     "clm on TinyStories at n = 32, 128, 512, masked mixer (h=1) vs attention (h=4), d=128 L=4, 240k tokens each, "
     "3 seeds; 18 jobs, ~5 min",
     MIXER_VS_TRANSFORMER, FIGS(FIG_MIXER_VS_TRANSFORMER), MIXER_VS_TRANSFORMER_PAPER},
    {"autoencoder", "Masked Mixers II",
     "autoencode on TinyStories, mixer vs attention at equal d=128 and L=4, and the mixer at equal memory "
     "(d=160), 400k tokens, 3 seeds; 9 jobs, ~7 min",
     AUTOENCODER, FIGS(FIG_AUTOENCODER), AUTOENCODER_PAPER},
    {"bidirectional", "Masked Mixers II",
     "bidir vs clm on TinyStories, mixer vs attention, d=128 L=4, 200k tokens, 3 seeds; 12 jobs, ~4 min",
     BIDIRECTIONAL, NO_FIGS, BIDIRECTIONAL_PAPER},
    {"completion", "Masked Mixers II",
     "complete (second half from the first) on TinyStories, mixer vs attention, d=128 L=4, 200k tokens, 3 seeds; "
     "6 jobs, ~1 min",
     COMPLETION, NO_FIGS, COMPLETION_PAPER},
    {"linear-mixer", "Masked Mixers II",
     "clm on TinyStories, mixer vs linear mixer (act=none norm=none) vs attention, d=128 L=4, 200k tokens, "
     "3 seeds; 9 jobs, ~2 min",
     LINEAR_MIXER, NO_FIGS, LINEAR_MIXER_PAPER},
    {"fft-mlm", "Backurs et al. 1",
     "mlm on WikiText-2, fft (parameter-free Fourier mixing) vs attention, d=128 L=4, 200k tokens, 3 seeds; "
     "6 jobs, ~2 min",
     FFT_MLM, NO_FIGS, FFT_MLM_PAPER},
    {"prefix-models", "Backurs et al. 2",
     "clm on WikiText-2, cumsum (prefix sum) and conv (learned causal kernels) vs attention, d=128 L=4, "
     "200k tokens, 3 seeds; 9 jobs, ~5 min",
     PREFIX_MODELS, FIGS(FIG_PREFIX_MODELS), PREFIX_MODELS_PAPER},
    {"recall", "beyond the seeds (Zoology Figure 2)",
     "the recall study: answer accuracy on MQAR at (n, pairs) = (64, 4) (128, 8) (256, 16), copy and selective "
     "copy at n=64, d = 32 64 128, L=2, every causal architecture, init=fan_in emb_std=1, lr=tune, 2000 steps "
     "of 32 (budget not yet measured), 3 seeds; 270 jobs, ~2 days",
     RECALL, NO_FIGS, NULL},
};

#define N_PRESETS ((int)(sizeof PRESETS / sizeof PRESETS[0]))

int preset_count(void) { return N_PRESETS; }

const Preset *preset_at(int i) { return i >= 0 && i < N_PRESETS ? &PRESETS[i] : NULL; }

const Preset *preset_find(const char *name)
{
    for (int i = 0; i < N_PRESETS; i++)
        if (!strcmp(PRESETS[i].name, name)) return &PRESETS[i];
    return NULL;
}

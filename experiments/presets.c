/*
 * presets.c — the seeds' experiments (SPEC section 8) as named sweep specs,
 * each sized for a 2-core machine while keeping the paper's structure (the
 * same axes and architecture pairs; smaller d, fewer layers or a token
 * budget where the paper's size would take days), with the figures the
 * paper reports for its points.
 *
 * Times in `what` are estimates for the whole preset on 2 cores (two jobs
 * at a time, one thread each) on builtin:stories unless the preset fixes its
 * data, measured from the training throughput of one job of each shape on
 * the development machine, plus evaluation of valid and test.
 *
 * Paper figures: a PaperFigure belongs to the job whose coords equal its
 * coords.  Only numbers copied from a paper's table belong here; where we
 * could not check a paper's exact value the comment says what the paper
 * reports and the figure is left out (a wrong figure beside ours would be
 * worse than none).
 *
 * Not for: parsing specs (sweep.c).
 */
#include "experiments/sweep.h"

#include <string.h>

/* Dispatcher (Cetoli 2021, fractalego/dispatcher): WikiText-2/103 language
   modelling, the Dispatcher layer in place of masked self-attention (MSA)
   in an otherwise identical nn.TransformerEncoder stack: post-norm, ReLU,
   sinusoidal positions, 6 layers, d=512, 1 head, feed-forward width 512
   (ffn_mult=1), dropout 0.2, gradient clipping 0.5, n=512.  The paper
   reports (abstract) that the Dispatcher reaches perplexity comparable to
   self-attention while being more efficient; its perplexities use a BERT
   word-piece vocabulary, so they are not comparable to ours number for
   number, and its table values are not reproduced here.  Scaled: d=128, n=128, a 2M-token budget. */
static const char DISPATCHER[] =
    "variant=dispatcher-block arch=dispatcher,attention task=clm d=128 layers=6 heads=1 ffn_mult=1 "
    "n_ctx=128 dropout=0.2 clip=0.5 tokens=2000000";

/* PairConnect (Xu, Yan, Zhang, Shrivastava 2021), Table 1: masked language
   modelling on PTB and WikiText-2, d=256, (L, h) over six settings,
   PairConnect vs Transformer, train and test loss; the paper reports
   (abstract) results comparable with the Transformer.  The table's values
   are not reproduced here.  Scaled: n=64 (the paper's inference
   setting), 300k training tokens per job. */
static const char PC_GRID[] =
    "task=mlm d=256 n_ctx=64 data=$MIXBENCH_DATA/ptb,$MIXBENCH_DATA/wikitext-2 "
    "(layers,heads)=(1,1),(1,2),(2,2),(2,4),(4,4),(6,4) arch=pairconnect,attention tokens=300000";

/* PairConnect Table 2: test loss against the hash table size K at L=6,
   h=4 (a larger K means fewer pair collisions and more memory).  Values
   not reproduced. */
static const char PC_HASH[] =
    "arch=pairconnect task=mlm d=256 layers=6 heads=4 n_ctx=64 hash_size=100,500,1000,5000,10000 tokens=300000";

/* PairConnect Table 3: batch-1 single-thread inference samples/s at
   L=6, h=4, PairConnect per K vs the Transformer; the paper reports
   (abstract) a significantly lower inference cost for PairConnect.  Values
   not reproduced.  The jobs
   train only briefly: the measure is the run's inference samples/s
   (SPEC section 6), which does not depend on training. */
static const char PC_SPEED[] =
    "task=mlm d=256 layers=6 heads=4 n_ctx=64 "
    "(arch,hash_size)=(attention,1000),(pairconnect,100),(pairconnect,500),(pairconnect,1000),"
    "(pairconnect,5000),(pairconnect,10000) steps=20 threads=1";

/* Masked Mixers (Badger 2024): causal language modelling on TinyStories,
   masked mixer (one [n, n] mixing matrix per block) vs a Transformer at
   several context lengths; the paper reports (abstract, v2 on) the mixer
   ahead of optimized Transformers at small contexts (n < 512) but not at
   larger ones.  Values not reproduced (its models are d=512..1024 trained for hours on GPUs).
   Scaled: d=128, L=4, the same 2M tokens at each n. */
static const char MIXER_VS_TRANSFORMER[] =
    "task=clm d=128 layers=4 n_ctx=32,128,512 (arch,heads)=(mixer,1),(attention,4) tokens=2000000";

/* Masked Mixers II: autoencoders (the encoder's last hidden state decoded
   back to the window), mixer vs Transformer at equal d and L, and at equal
   memory; the paper compares their reconstruction losses.  Values not
   reproduced.  Equal memory here: the mixer at d=160 has the peak
   training memory of attention at d=128 (129 vs 135 MB measured in
   mixbench at L=4, n=64, batch 16). */
static const char AUTOENCODER[] =
    "task=autoencode layers=4 n_ctx=64 (arch,d)=(mixer,128),(attention,128),(mixer,160) tokens=1000000";

/* Masked Mixers II: all-next-token bidirectional training vs causal, for
   the mixer and the Transformer.  Values not reproduced. */
static const char BIDIRECTIONAL[] =
    "d=128 layers=4 n_ctx=64 task=bidir,clm arch=mixer,attention tokens=1000000";

/* Masked Mixers II: one-step completion of the window's second half,
   mixer vs Transformer.  Values not reproduced. */
static const char COMPLETION[] = "task=complete d=128 layers=4 n_ctx=64 arch=mixer,attention tokens=1000000";

/* Masked Mixers II: the masked mixer vs the fully linear masked mixer
   (act=none, norm=none: the linear-mixer variant) vs the Transformer.
   Values not reproduced. */
static const char LINEAR_MIXER[] =
    "task=clm d=128 layers=4 n_ctx=64 (arch,act,norm)=(mixer,gelu,pre),(mixer,none,none),(attention,gelu,pre) "
    "tokens=1000000";

/* Backurs et al., the FFT-based model (Appendix A): masked language
   modelling with parameter-free Fourier mixing vs attention.  Values not
   reproduced. */
static const char FFT_MLM[] = "task=mlm d=128 layers=4 n_ctx=64 arch=fft,attention tokens=1000000";

/* Backurs et al., the prefix-sum and weighted-sum (learned causal
   convolution, Appendix B) models vs attention, causal language
   modelling.  Values not reproduced. */
static const char PREFIX_MODELS[] = "task=clm d=128 layers=4 n_ctx=64 arch=cumsum,conv,attention tokens=1000000";

/* Beyond the seeds: multi-query associative recall (Zoology) for every
   architecture with a causal mode as n grows.  The number of key-value
   pairs grows with n (n/8, so pairs and queries fill half the window);
   with a fixed pair count a longer window would only add padding. */
static const char RECALL[] =
    "task=clm d=64 layers=2 (n_ctx,data)=(32,builtin:mqar:pairs=4),(64,builtin:mqar:pairs=8),"
    "(128,builtin:mqar:pairs=16),(256,builtin:mqar:pairs=32) "
    "arch=attention,dispatcher,pairconnect,mixer,cumsum,conv batch=32 steps=1000";

static const Preset PRESETS[] = {
    {"dispatcher-vs-msa", "Dispatcher",
     "clm, dispatcher vs attention (MSA) in the paper's post-norm ReLU block, d=128 L=6 h=1; test perplexity; "
     "2 jobs, ~3 min",
     DISPATCHER, NULL, 0},
    {"pairconnect-grid", "PairConnect Table 1",
     "mlm on PTB and WikiText-2, d=256, (L,h) in (1,1) (1,2) (2,2) (2,4) (4,4) (6,4), pairconnect vs attention; "
     "train and test loss; 24 jobs, ~25 min",
     PC_GRID, NULL, 0},
    {"pairconnect-hash", "PairConnect Table 2",
     "mlm, pairconnect hash_size K in 100 500 1000 5000 10000 at L=6 h=4 d=256; test loss; 5 jobs, ~4 min",
     PC_HASH, NULL, 0},
    {"pairconnect-speed", "PairConnect Table 3",
     "batch-1 single-thread inference samples/s, attention and pairconnect per K, L=6 h=4 d=256; 6 jobs, ~2 min",
     PC_SPEED, NULL, 0},
    {"mixer-vs-transformer", "Masked Mixers",
     "clm at n = 32, 128, 512, masked mixer (h=1) vs attention (h=4), d=128 L=4, 2M tokens each; 6 jobs, ~7 min",
     MIXER_VS_TRANSFORMER, NULL, 0},
    {"autoencoder", "Masked Mixers II",
     "autoencode, mixer vs attention at equal d=128 and L=4, and the mixer at equal memory (d=160); 3 jobs, ~3 min",
     AUTOENCODER, NULL, 0},
    {"bidirectional", "Masked Mixers II",
     "bidir vs clm, mixer vs attention, d=128 L=4; 4 jobs, ~3 min", BIDIRECTIONAL, NULL, 0},
    {"completion", "Masked Mixers II",
     "complete (second half from the first), mixer vs attention, d=128 L=4; 2 jobs, ~1 min", COMPLETION, NULL, 0},
    {"linear-mixer", "Masked Mixers II",
     "clm, mixer vs linear mixer (act=none norm=none) vs attention, d=128 L=4; 3 jobs, ~2 min", LINEAR_MIXER,
     NULL, 0},
    {"fft-mlm", "Backurs et al. 1",
     "mlm, fft (parameter-free Fourier mixing) vs attention, d=128 L=4; 2 jobs, ~1 min", FFT_MLM, NULL, 0},
    {"prefix-models", "Backurs et al. 2",
     "clm, cumsum (prefix sum) and conv (learned causal kernels) vs attention, d=128 L=4; 3 jobs, ~2 min",
     PREFIX_MODELS, NULL, 0},
    {"recall", "beyond the seeds",
     "associative recall (builtin:mqar, n/8 pairs) at n = 32..256 for every causal architecture, d=64 L=2; "
     "24 jobs, ~10 min",
     RECALL, NULL, 0},
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

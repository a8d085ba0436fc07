/*
 * registry.c — the list of token mixers.  Adding an architecture is its
 * file in engine/mixers/ plus one line here; and mix_decl, a helper mixers
 * declare their parameters with.
 */
#include <stdio.h>
#include <string.h>

#include "engine/mixer.h"

extern const MixerOps mixer_attention;
extern const MixerOps mixer_mixer;
extern const MixerOps mixer_pairconnect;
extern const MixerOps mixer_dispatcher;
extern const MixerOps mixer_cumsum;
extern const MixerOps mixer_fft;
extern const MixerOps mixer_conv;
extern const MixerOps mixer_linattn;
extern const MixerOps mixer_mamba;
extern const MixerOps mixer_hyena;
extern const MixerOps mixer_gla;
extern const MixerOps mixer_ema;
extern const MixerOps mixer_swa;

static const MixerOps *const MIXERS[] = {
    &mixer_attention,
    &mixer_mixer,
    &mixer_pairconnect,
    &mixer_dispatcher,
    &mixer_cumsum,
    &mixer_fft,
    &mixer_conv,
    &mixer_linattn,
    &mixer_mamba,
    &mixer_hyena,
    &mixer_gla,
    &mixer_ema,
    &mixer_swa,
};
#define N_MIXERS ((int)(sizeof MIXERS / sizeof MIXERS[0]))

const MixerOps *mixer_find(const char *name)
{
    for (int i = 0; i < N_MIXERS; i++)
        if (strcmp(MIXERS[i]->name, name) == 0) return MIXERS[i];
    return NULL;
}

void mixer_names(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < N_MIXERS && len < cap; i++)
        len += snprintf(buf + len, cap - len, "%s%s", i ? " " : "", MIXERS[i]->name);
}

int mixer_count(void) { return N_MIXERS; }
const MixerOps *mixer_at(int i) { return MIXERS[i]; }

void mix_decl(ParamDecl *p, const char *name, int64_t rows, int64_t cols, int init)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->ndim = cols ? 2 : 1;
    p->shape[0] = rows;
    p->shape[1] = cols;
    p->init = init;
}

/*
 * sample.c — sample_token and sample_start_token of sample.h.
 *
 * logits [V] -> one id in [2, V).  With a temperature T > 0 the id is drawn
 * with probability exp((l_v - max l) / T) / sum over the kept ids; the top-k
 * cut keeps every id whose logit is at least the k-th largest (ties at the
 * cut stay in).
 */
#include "engine/sample.h"

#include <math.h>
#include <string.h>

int32_t sample_token(float *logits, int V, double temperature, int top_k, Rng *rng, float *scratch)
{
    logits[0] = logits[1] = -INFINITY;
    if (temperature <= 0) {
        int best = 2;
        for (int v = 3; v < V; v++)
            if (logits[v] > logits[best]) best = v;
        return best;
    }
    if (top_k > 0 && top_k < V && scratch) {
        /* the k-th largest logit is the cut-off */
        memcpy(scratch, logits, sizeof(float) * V);
        float cut = INFINITY;
        for (int k = 0; k < top_k; k++) {
            int best = -1;
            for (int v = 0; v < V; v++)
                if (scratch[v] > -INFINITY && (best < 0 || scratch[v] > scratch[best])) best = v;
            if (best < 0) break;
            cut = scratch[best];
            scratch[best] = -INFINITY;
        }
        for (int v = 0; v < V; v++)
            if (logits[v] < cut) logits[v] = -INFINITY;
    }
    float mx = -INFINITY;
    for (int v = 0; v < V; v++) mx = fmaxf(mx, logits[v]);
    double total = 0;
    for (int v = 0; v < V; v++) total += logits[v] > -INFINITY ? exp((logits[v] - mx) / temperature) : 0.0;
    double u = rng_double(rng) * total, acc = 0;
    for (int v = 0; v < V; v++) {
        if (logits[v] == -INFINITY) continue;
        acc += exp((logits[v] - mx) / temperature);
        if (acc >= u) return v;
    }
    return V - 1;
}

int32_t sample_start_token(int V)
{
    return V > 3 ? 3 : 2;
}

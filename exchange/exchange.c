/* The exchange policy; see exchange.h. */
#include "exchange.h"

#include <math.h>
#include <string.h>

static const char *const DOWNLINK_NAMES[] = {"auto", "fp32", "requant", "terngrad"};

const char *downlink_name(downlink_kind d) { return (unsigned)d < 4 ? DOWNLINK_NAMES[d] : "?"; }

int downlink_parse(const char *s, downlink_kind *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, DOWNLINK_NAMES[i]) == 0) return *out = (downlink_kind)i, 0;
    return -1;
}

int xch_classifier(const model_t *m)
{
    int last = -1;
    for (size_t i = 0; i < m->nlayers; i++)
        if (m->layers[i].weight_params) last = (int)i;
    return last;
}

size_t xch_tensors(const model_t *m, const qz_params *q, const xch_policy *p, xch_tensor *out)
{
    const int classifier = xch_classifier(m), quantizing = q->id != QZ_FP32;
    size_t k = 0;
    for (size_t i = 0; i < m->nlayers; i++)
        for (int bias = 0; bias < 2; bias++) {
            size_t n = (size_t)(bias ? m->layers[i].bias_params : m->layers[i].weight_params);
            if (!n) continue;
            int fp32 = !quantizing || (double)n < p->fp32_below || (p->fp32_last && (int)i == classifier);
            out[k++] = (xch_tensor){(int)i, bias, n, !fp32};
        }
    return k;
}

downlink_kind xch_downlink(const xch_policy *p, const qz_params *q)
{
    if (p->downlink != DOWNLINK_AUTO) return p->downlink;
    if (q->id == QZ_FP32) return DOWNLINK_FP32;
    return q->id == QZ_TERNGRAD ? DOWNLINK_TERNGRAD : DOWNLINK_REQUANT;
}

int xch_shares_scaler(const xch_policy *p, const qz_params *q)
{
    return q->id == QZ_TERNGRAD && !p->no_scaler_sharing && q->bucket == 0;
}

void xch_tensor_bytes(const xch_policy *p, const qz_params *q, const xch_tensor *t, int workers, double encoded,
                      double requant, double *up, double *down)
{
    const double raw = 4.0 * (double)t->n;
    if (!t->quantized) {
        *up = *down = raw;
        return;
    }
    *up = encoded;
    switch (xch_downlink(p, q)) {
    case DOWNLINK_FP32: *down = raw; break;
    case DOWNLINK_TERNGRAD: /* the sum of W ternary vectors under one shared scaler: 2W+1 levels */
        *down = ceil((double)t->n * log2(1.0 + 2.0 * workers) / 8);
        break;
    default: *down = requant; break;
    }
    if (xch_shares_scaler(p, q)) *up += 4, *down += 4; /* each worker's scaler up, the maximum down */
}

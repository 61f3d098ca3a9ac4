/* The exchange policy; see exchange.h. */
#include "exchange.h"

#include <math.h>
#include <string.h>

const char *const DOWNLINK_NAMES[] = {"auto", "fp32", "requant", "terngrad", NULL};
const char *const SYNC_NAMES[] = {"ps", "ps-sharded", "ring", "hierarchical", "allgather", "ps-flat", "tree", NULL};

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

const char *sync_name(sync_kind s) { return (unsigned)s < SYNC_COUNT ? SYNC_NAMES[s] : "?"; }

int sync_parse(const char *s, sync_kind *out)
{
    for (int i = 0; i < SYNC_COUNT; i++)
        if (strcmp(s, sync_name((sync_kind)i)) == 0) return *out = (sync_kind)i, 0;
    return -1;
}

int sync_trainer_runs(sync_kind s) { return (unsigned)s < SYNC_COUNT && s != SYNC_HIERARCHICAL && s != SYNC_TREE; }

size_t xch_tensors(const model_t *m, const qz_params *q, const xch_policy *p, xch_tensor *out)
{
    const int classifier = xch_classifier(m), quantizing = q->id != QZ_FP32;
    size_t k = 0;
    for (size_t i = 0; i < m->nlayers; i++)
        for (int bias = 0; bias < 2; bias++) {
            size_t n = (size_t)(bias ? m->layers[i].bias_params : m->layers[i].weight_params);
            if (!n) continue;
            int fp32 = !quantizing || (double)n < p->fp32_below || (p->fp32_last && (int)i == classifier);
            const size_t out_ch = (size_t)m->layers[i].out;
            const size_t rows = !bias && out_ch > 0 && n % out_ch == 0 ? out_ch : 1; /* out x (in kh kw) */
            out[k++] = (xch_tensor){(int)i, bias, n, !fp32, rows};
        }
    return k;
}

qz_params xch_tensor_quant(const qz_params *q, const xch_tensor *t)
{
    qz_params s = *q;
    if (s.id == QZ_POWERSGD) s.rows = t->rows;
    return s;
}

int xch_allreduce_compatible(const xch_policy *p, const qz_params *q)
{
    return q->id == QZ_FP32 || q->id == QZ_FP16 || q->id == QZ_POWERSGD || xch_shares_scaler(p, q);
}

int xch_factor_allreduce(sync_kind s, const qz_params *q)
{
    return q->id == QZ_POWERSGD && (s == SYNC_RING || s == SYNC_HIERARCHICAL || s == SYNC_TREE);
}

int xch_keeps_residual(sync_kind s, const qz_params *q)
{
    return (s != SYNC_RING && s != SYNC_TREE) || q->id == QZ_FP32 || xch_factor_allreduce(s, q);
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
}

int xch_levels_per_word(int workers)
{
    const uint64_t base = 2 * (uint64_t)workers + 1;
    int k = 0;
    for (uint64_t p = 1; p <= UINT64_MAX / base; p *= base) k++; /* base^k <= UINT64_MAX */
    return k;
}

size_t xch_levels_size(size_t n, int workers)
{
    const size_t k = (size_t)xch_levels_per_word(workers);
    return 8 * ((n + k - 1) / k) + 4;
}

void xch_levels_pack(uint8_t *out, const int32_t *levels, size_t n, float scale, int workers)
{
    const uint64_t base = 2 * (uint64_t)workers + 1;
    const size_t k = (size_t)xch_levels_per_word(workers);
    memcpy(out, &scale, 4); /* little-endian hosts, as the trainer's ranks are */
    out += 4;
    for (size_t i = 0; i < n; i += k) {
        uint64_t word = 0;
        for (size_t j = (n - i < k ? n - i : k); j-- > 0;) word = word * base + (uint64_t)(levels[i + j] + workers);
        memcpy(out, &word, 8);
        out += 8;
    }
}

int xch_levels_unpack(const uint8_t *in, size_t n, int workers, int32_t *levels, float *scale)
{
    const uint64_t base = 2 * (uint64_t)workers + 1;
    const size_t k = (size_t)xch_levels_per_word(workers);
    memcpy(scale, in, 4);
    in += 4;
    for (size_t i = 0; i < n; i += k) {
        uint64_t word;
        memcpy(&word, in, 8);
        in += 8;
        const size_t m = n - i < k ? n - i : k;
        for (size_t j = 0; j < m; j++, word /= base) levels[i + j] = (int32_t)(word % base) - workers;
        if (word != 0) return -1; /* digits beyond the last level: not a buffer this code wrote */
    }
    return 0;
}

/* The exchange policy; see exchange.h. */
#include "exchange.h"

#include <math.h>
#include <string.h>

#include "bitstream.h"

const char *const DOWNLINK_NAMES[] = {"auto", "fp32", "requant", "terngrad", NULL};
#define GQ_SCHEME_NAME(id, file, name, families) name,
const char *const SYNC_NAMES[] = {GQ_SCHEMES(GQ_SCHEME_NAME) NULL};
#define GQ_SCHEME_FAMILIES(id, file, name, families) [SYNC_##id] = (families),
const unsigned SYNC_FAMILIES[SYNC_COUNT] = {GQ_SCHEMES(GQ_SCHEME_FAMILIES)};

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

int sync_is(sync_kind s, unsigned families)
{
    return (unsigned)s < SYNC_COUNT && (SYNC_FAMILIES[s] & families) == families;
}

int sync_trainer_runs(sync_kind s) { return sync_is(s, SCHEME_TRAINER); }

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

int xch_factor_allreduce(sync_kind s, const qz_params *q) { return q->id == QZ_POWERSGD && sync_is(s, SCHEME_FACTORS); }

int xch_keeps_residual(sync_kind s, const qz_params *q)
{
    return !sync_is(s, SCHEME_REQUANT_HOPS) || q->id == QZ_FP32 || xch_factor_allreduce(s, q);
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

/* Bits to write v: 0 for 0. */
static unsigned bits_of(uint64_t v) { return v ? 64u - (unsigned)__builtin_clzll(v) : 0u; }

xch_levels_group xch_levels_grouping(int workers)
{
    const uint64_t base = 2 * (uint64_t)workers + 1;
    xch_levels_group best = {1, bits_of(base - 1)};
    uint64_t p = base; /* base^k */
    for (unsigned k = 2; p <= UINT64_MAX / base; k++) {
        p *= base;
        const unsigned w = bits_of(p - 1);
        if ((uint64_t)w * best.digits < (uint64_t)best.bits * k) best = (xch_levels_group){k, w};
    }
    return best;
}

size_t xch_levels_size(size_t n, int workers)
{
    const xch_levels_group g = xch_levels_grouping(workers);
    const size_t groups = (n + g.digits - 1) / g.digits;
    return (groups / 8) * g.bits + ((groups % 8) * g.bits + 7) / 8; /* ceil(groups x bits / 8) */
}

/* A field of up to 64 bits through the 32-bit bit stream. */
static void put_field(bitwriter *bw, uint64_t v, unsigned w)
{
    if (w > 32) {
        bw_put(bw, (uint32_t)v, 32);
        bw_put(bw, (uint32_t)(v >> 32), w - 32);
    } else {
        bw_put(bw, (uint32_t)v, w);
    }
}
static uint64_t get_field(bitreader *br, unsigned w)
{
    if (w <= 32) return br_get(br, w);
    const uint64_t lo = br_get(br, 32);
    return lo | (uint64_t)br_get(br, w - 32) << 32;
}

void xch_levels_pack(uint8_t *out, const int32_t *levels, size_t n, int workers)
{
    const uint64_t base = 2 * (uint64_t)workers + 1;
    const xch_levels_group g = xch_levels_grouping(workers);
    bitwriter bw;
    bw_init(&bw, out, xch_levels_size(n, workers));
    for (size_t i = 0; i < n; i += g.digits) {
        uint64_t v = 0; /* the group's digits, the first the least significant */
        for (size_t j = (n - i < g.digits ? n - i : g.digits); j-- > 0;)
            v = v * base + (uint64_t)(levels[i + j] + workers);
        put_field(&bw, v, g.bits);
    }
    bw_close(&bw);
}

int xch_levels_unpack(const uint8_t *in, size_t n, int workers, int32_t *levels)
{
    const uint64_t base = 2 * (uint64_t)workers + 1;
    const xch_levels_group g = xch_levels_grouping(workers);
    bitreader br;
    br_init(&br, in, xch_levels_size(n, workers));
    for (size_t i = 0; i < n; i += g.digits) {
        uint64_t v = get_field(&br, g.bits);
        const size_t m = n - i < g.digits ? n - i : g.digits;
        for (size_t j = 0; j < m; j++, v /= base) levels[i + j] = (int32_t)(v % base) - workers;
        if (v != 0) return -1; /* digits beyond the group's last level: not a buffer this code wrote */
    }
    /* the last byte's padding is zero, as the writer leaves it */
    return br.overrun || (br.acc & ((1ull << br.nbits) - 1)) != 0 ? -1 : 0;
}

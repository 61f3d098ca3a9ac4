/* The quantizer front door: the codec registry, the 32-byte wire header with
 * its payload checksum, qz_encode/qz_decode dispatch, and the dense driver
 * that the level quantizers (terngrad, qsgd, orq, bingrad, signsgd) share.
 * Wire format: docs/wire-format.md. */
#include <math.h>
#include <stdlib.h>
/* xxHash compiled into this file (its documented header-only mode) rather than
 * called in libxxhash.so: the shared library is built for baseline x86-64
 * (SSE2), inline it takes this build's widest vectors -- the same hash, at
 * 2-3x the speed on AVX2 and AVX-512 (docs/performance.md). */
#define XXH_INLINE_ALL
#include <xxhash.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "qz_internal.h"
#include "rng.h"

static const uint8_t QZ_MAGIC[4] = {'G', 'Q', 'Z', 'W'};
#define QZ_VERSION 2u        /* written: XXH3 payload checksum */
#define QZ_VERSION_LEGACY 1u /* still read: the multiply-xor checksum */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define VERIFY_CHECKSUM 0 /* let fuzzers reach the decoders */
#else
#define VERIFY_CHECKSUM 1
#endif

enum { /* header flag bits, see docs/wire-format.md#header */
       FLAG_SCALE_SIGMA = 1u << 0,
       FLAG_PACK_TRITS = 1u << 1,
       FLAG_NORM_MAX = 1u << 2,
       FLAG_CODE_ELIAS = 1u << 3,
       FLAG_PACK_BYTE = 1u << 4, /* terngrad pack=int8, signsgd pack=byte */
       FLAG_INDEX_32 = 1u << 5,  /* topk */
       FLAG_INDEX_64 = 1u << 6,
       FLAG_COLD = 1u << 0, /* powersgd warm=off: a bit's meaning is its quantizer's (0x80 stays unused) */
};

static const qz_codec *const CODECS[] = {
    &qz_fp32,      &qz_fp16,       &qz_terngrad, &qz_qsgd, &qz_orq,
    &qz_bingrad_b, &qz_bingrad_pb, &qz_signsgd,  &qz_topk, &qz_powersgd,
};

const qz_codec *qz_codec_of(qz_id id)
{
    for (size_t i = 0; i < sizeof CODECS / sizeof CODECS[0]; i++)
        if (CODECS[i]->id == id) return CODECS[i];
    return NULL;
}

size_t qz_count(void) { return sizeof CODECS / sizeof CODECS[0]; }

const char *qz_name(qz_id id)
{
    const qz_codec *c = qz_codec_of(id);
    return c ? c->name : "unknown";
}
const char *qz_keys_help(qz_id id)
{
    const qz_codec *c = qz_codec_of(id);
    return c ? c->keys_help : "";
}
int qz_biased(qz_id id)
{
    const qz_codec *c = qz_codec_of(id);
    return c && c->biased;
}
void qz_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    const qz_codec *c = qz_codec_of(p->id);
    enc[0] = enc[1] = dec[0] = dec[1] = 0;
    if (c && c->gpu_traffic) c->gpu_traffic(p, enc, dec);
}
void qz_gpu_flops(const qz_params *p, double *enc, double *dec)
{
    const qz_codec *c = qz_codec_of(p->id);
    *enc = *dec = 0;
    if (c && c->gpu_flops) c->gpu_flops(p, enc, dec);
}
const char *qz_summary(qz_id id)
{
    const qz_codec *c = qz_codec_of(id);
    return c ? c->summary : "";
}

unsigned qz_level_count(const qz_params *p)
{
    const qz_codec *c = qz_codec_of(p->id);
    return (c && c->level_count) ? c->level_count(p) : 0;
}

/* ---- helpers ------------------------------------------------------------------ */

int qz_all_finite(const float *x, size_t n)
{
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        bad |= (uint32_t)((u & 0x7F800000u) == 0x7F800000u);
    }
    return bad == 0;
}

/* Sums in float over blocks of MOMENT_BLOCK elements (eight lanes, so they
 * vectorize without reassociation flags), carried across blocks in double:
 * the relative error stays near 2^-24 * sqrt(block) instead of growing with
 * n. Finiteness and max |x| come from the integer bits: for non-negative
 * floats the integer order is the float order, and NaN/Inf sort above every
 * finite value. A float square overflows only for |x| > 1.8e19; such
 * buckets take the double path. */
#define MOMENT_BLOCK 1024

static qz_moments moments_double(const float *x, size_t n)
{
    qz_moments r = {0, 0, 0, 0, 1};
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        r.sum += v, r.sumsq += v * v, r.sumabs += fabs(v);
        r.maxabs = fabsf(x[i]) > r.maxabs ? fabsf(x[i]) : r.maxabs;
    }
    return r;
}

/* GCC/clang vector extensions: eight lanes, AVX with -march=native, two SSE
 * registers without; the compiler does not find this from a scalar loop.
 * Each block sums in eight lanes, in the same order in every build and as
 * every version of the wire wrote it (tests/cli_test.sh keeps version 1's
 * payloads). One block's running sums make every add wait on the one before
 * (a 3-4 cycle chain per eight elements: the moments were 60% of an in-cache
 * TernGrad encode), so MOMENT_SETS whole blocks are summed side by side,
 * each with its own sums, and folded into the totals in block order: the
 * same bits as one block at a time. Loads go through a vector type of float
 * alignment, not memcpy (see train/conv_direct.c: GCC's Zen 1-3 tuning splits
 * a 32-byte memcpy through the stack). */
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef float v8f_unaligned __attribute__((vector_size(32), aligned(4), may_alias));
#define MOMENT_SETS 4
#define MOMENT_ALL (QZ_MOMENT_SUM | QZ_MOMENT_SUMSQ | QZ_MOMENT_SUMABS | QZ_MOMENT_MAX)
_Static_assert(QZ_FIT_MANY == MOMENT_SETS && QZ_FIT_MANY_BUCKET == MOMENT_BLOCK,
               "qz_moments_many: a bucket is one block, and the buckets are the sets");

/* Adds one block's eight lane sums to the totals, lane by lane. */
static inline void moments_fold(qz_moments *r, int32_t *maxbits, v8f s, v8f q, v8f a, v8i m)
{
    for (int l = 0; l < 8; l++) {
        r->sum += s[l], r->sumsq += q[l], r->sumabs += a[l];
        *maxbits = m[l] > *maxbits ? m[l] : *maxbits;
    }
}

/* The lanes' larger values: one vpmaxsd where AVX2 has it (GCC writes the
 * generic select as compare, blend and move). A macro: a function returning
 * a 32-byte vector changes the ABI of the builds without AVX. */
#if defined(__AVX2__)
#define MOMENT_MAX(a, b) ((v8i)_mm256_max_epi32((__m256i)(a), (__m256i)(b)))
#else
#define MOMENT_MAX(a, b) (((a) & ((a) > (b))) | ((b) & ~((a) > (b))))
#endif

/* Eight more elements into one block's running sums (the wanted ones). */
#define MOMENT_STEP(ptr, S, Q, A, M)                                                                                   \
    do {                                                                                                               \
        const v8f v_ = *(const v8f_unaligned *)(const void *)(ptr);                                                    \
        const v8i u_ = (v8i)v_ & 0x7FFFFFFF;                                                                           \
        if (want & QZ_MOMENT_MAX) (M) = MOMENT_MAX(u_, (M));                                                           \
        if (want & QZ_MOMENT_SUM) (S) += v_;                                                                           \
        if (want & QZ_MOMENT_SUMSQ) (Q) += v_ * v_;                                                                    \
        if (want & QZ_MOMENT_SUMABS) (A) += (v8f)u_;                                                                   \
    } while (0)

/* The elements of a block past its last whole eight, one at a time, after the fold. */
static inline void moments_tail(qz_moments *r, int32_t *maxbits, const float *x, size_t n, const unsigned want)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        int32_t u;
        memcpy(&u, &v, 4);
        u &= 0x7FFFFFFF;
        if (want & QZ_MOMENT_SUM) r->sum += v;
        if (want & QZ_MOMENT_SUMSQ) r->sumsq += (double)v * v;
        if (want & QZ_MOMENT_SUMABS) r->sumabs += fabsf(v);
        if (want & QZ_MOMENT_MAX) *maxbits = u > *maxbits ? u : *maxbits;
    }
}

/* Finiteness and max |x| from the largest bits; sums that overflowed float are done again in double. Without
 * the max, finiteness comes from the sums: a NaN or an infinity makes every wanted sum NaN or infinite, and
 * only then (or on an overflow of finite floats) are the elements tested one by one. */
static inline qz_moments moments_finish(qz_moments r, int32_t maxbits, const float *x, size_t n, const unsigned want)
{
    if ((want & QZ_MOMENT_MAX) && maxbits >= 0x7F800000) {
        r.finite = 0;
        return r;
    }
    if (!isfinite(r.sum) || !isfinite(r.sumsq) || !isfinite(r.sumabs)) {
        if (!(want & QZ_MOMENT_MAX) && !qz_all_finite(x, n)) {
            r.finite = 0;
            return r;
        }
        return moments_double(x, n);
    }
    memcpy(&r.maxabs, &maxbits, 4);
    return r;
}

/* One instantiation per set of wanted sums (the lz4 trick: constant flags,
 * the unwanted sums compiled out): QSGD's L2 norm needs only the squares,
 * signSGD only |x|, neither the max, and every unneeded sum was ALU work in
 * the one pass.
 * Forced inline: GCC otherwise kept one out-of-line copy of the many-bucket
 * loop that tested the flags and spilled the sums each step (a quarter of
 * an in-cache QSGD encode; docs/performance.md). */
static inline __attribute__((always_inline)) qz_moments moments_generic(const float *x, size_t n, const unsigned want)
{
    qz_moments r = {0, 0, 0, 0, 1};
    int32_t maxbits = 0; /* |x|'s bits: below 2^31, so the signed order is the float order */
    size_t b0 = 0;
    for (; b0 + MOMENT_SETS * MOMENT_BLOCK <= n; b0 += MOMENT_SETS * MOMENT_BLOCK) {
        v8f s[MOMENT_SETS] = {{0}}, q[MOMENT_SETS] = {{0}}, a[MOMENT_SETS] = {{0}};
        v8i m[MOMENT_SETS] = {{0}};
        const int ahead = b0 + 2 * MOMENT_SETS * MOMENT_BLOCK <= n;
        for (size_t i = 0; i < MOMENT_BLOCK; i += 16)
            for (int k = 0; k < MOMENT_SETS; k++) {
                if (ahead) __builtin_prefetch(x + b0 + (size_t)(MOMENT_SETS + k) * MOMENT_BLOCK + i);
                MOMENT_STEP(x + b0 + (size_t)k * MOMENT_BLOCK + i, s[k], q[k], a[k], m[k]);
                MOMENT_STEP(x + b0 + (size_t)k * MOMENT_BLOCK + i + 8, s[k], q[k], a[k], m[k]);
            }
        for (int k = 0; k < MOMENT_SETS; k++) moments_fold(&r, &maxbits, s[k], q[k], a[k], m[k]);
    }
    for (; b0 < n; b0 += MOMENT_BLOCK) {
        size_t len = n - b0 < MOMENT_BLOCK ? n - b0 : MOMENT_BLOCK, i = 0;
        v8f s = {0}, q = {0}, a = {0};
        v8i m = {0};
        for (; i + 8 <= len; i += 8) MOMENT_STEP(x + b0 + i, s, q, a, m);
        moments_fold(&r, &maxbits, s, q, a, m);
        moments_tail(&r, &maxbits, x + b0 + i, len - i, want);
    }
    return moments_finish(r, maxbits, x, n, want);
}

/* Up to MOMENT_SETS buckets of blen <= MOMENT_BLOCK elements side by side,
 * each summed exactly as moments_generic sums it alone (one block). */
static inline __attribute__((always_inline)) void moments_many_generic(qz_moments *out, const float *x, size_t blen,
                                                                       size_t count, const unsigned want)
{
    if (count != MOMENT_SETS) {
        for (size_t k = 0; k < count; k++) out[k] = moments_generic(x + k * blen, blen, want);
        return;
    }
    v8f s[MOMENT_SETS] = {{0}}, q[MOMENT_SETS] = {{0}}, a[MOMENT_SETS] = {{0}};
    v8i m[MOMENT_SETS] = {{0}};
    size_t i = 0;
    for (; i + 8 <= blen; i += 8)
        for (int k = 0; k < MOMENT_SETS; k++) MOMENT_STEP(x + (size_t)k * blen + i, s[k], q[k], a[k], m[k]);
    for (int k = 0; k < MOMENT_SETS; k++) {
        qz_moments r = {0, 0, 0, 0, 1};
        int32_t maxbits = 0;
        const float *xk = x + (size_t)k * blen;
        moments_fold(&r, &maxbits, s[k], q[k], a[k], m[k]);
        moments_tail(&r, &maxbits, xk + i, blen - i, want);
        out[k] = moments_finish(r, maxbits, xk, blen, want);
    }
}

void qz_moments_many(qz_moments *out, const float *x, size_t blen, size_t count, unsigned want)
{
    switch (want) {
    case QZ_MOMENT_SUMSQ: moments_many_generic(out, x, blen, count, QZ_MOMENT_SUMSQ); break;
    case QZ_MOMENT_SUMABS: moments_many_generic(out, x, blen, count, QZ_MOMENT_SUMABS); break;
    case 0:
    case QZ_MOMENT_MAX: moments_many_generic(out, x, blen, count, QZ_MOMENT_MAX); break;
    case QZ_MOMENT_MAX | QZ_MOMENT_SUM | QZ_MOMENT_SUMSQ:
        moments_many_generic(out, x, blen, count, QZ_MOMENT_MAX | QZ_MOMENT_SUM | QZ_MOMENT_SUMSQ);
        break;
    default: moments_many_generic(out, x, blen, count, MOMENT_ALL); break;
    }
}

qz_moments qz_moments_of(const float *x, size_t n, unsigned want)
{
    switch (want) {
    case QZ_MOMENT_SUMSQ: return moments_generic(x, n, QZ_MOMENT_SUMSQ);
    case QZ_MOMENT_SUMABS: return moments_generic(x, n, QZ_MOMENT_SUMABS);
    case 0:
    case QZ_MOMENT_MAX: return moments_generic(x, n, QZ_MOMENT_MAX);
    case QZ_MOMENT_MAX | QZ_MOMENT_SUM | QZ_MOMENT_SUMSQ:
        return moments_generic(x, n, QZ_MOMENT_MAX | QZ_MOMENT_SUM | QZ_MOMENT_SUMSQ);
    default: return moments_generic(x, n, MOMENT_ALL);
    }
}

/* Asks for the next block's input while this one is converted and hashed:
 * the hash between two copies stalls the hardware prefetcher's stream
 * (fp32 at 2^24: 0.44-0.50 -> 0.40-0.42 ns an element, memcpy 0.28-0.32). */
static void prefetch_next(const void *next, size_t bytes)
{
    const char *p = (const char *)next;
    for (size_t k = 0; k < bytes; k += 64) __builtin_prefetch(p + k);
}

/* XXH3 (xxHash) of the payload, seeded by an XXH3 of the header's first 28
 * bytes so that damage to either is detected, folded to the header's 32 bits.
 * It detects storage and transmission damage, not tampering. */
static XXH64_hash_t checksum_seed(const uint8_t *header) { return XXH3_64bits(header, 28); }
static uint32_t fold32(uint64_t h) { return (uint32_t)(h ^ (h >> 32)); }

static uint32_t buffer_checksum(const uint8_t *header, const uint8_t *payload, size_t n)
{
    return fold32(XXH3_64bits_withSeed(payload, n, checksum_seed(header)));
}

/* Version 1's checksum, kept so that version-1 buffers still decode: the
 * header mixed into a seed, then four independent multiply-xor lanes over
 * 8-byte words of the payload. */
static uint32_t buffer_checksum_v1(const uint8_t *header, const uint8_t *p, size_t n)
{
    const uint64_t seed =
        rng_mix64(load_u64(header) ^ rng_mix64(load_u64(header + 8) ^
                                               rng_mix64(load_u64(header + 16) ^ rng_mix64(load_u32(header + 24)))));
    const uint64_t K = 0x9E3779B97F4A7C15ull;
    uint64_t h[4] = {seed, seed + 1, seed + 2, seed + 3};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int l = 0; l < 4; l++) {
            uint64_t w = load_u64(p + i + 8 * l);
            h[l] = (h[l] ^ w) * K;
            h[l] ^= h[l] >> 29;
        }
    uint64_t r = (uint64_t)n;
    for (int l = 0; l < 4; l++) r = rng_mix64(r ^ h[l]);
    for (; i < n; i++) r = rng_mix64(r ^ p[i]);
    return fold32(r);
}

/* ---- sizes -------------------------------------------------------------------- */

static size_t payload_size(const qz_codec *c, const qz_params *p, size_t n)
{
    return c->dense ? qz_dense_payload(c->dense, p, n) : c->payload_bound(p, n);
}

static int payload_is_exact(const qz_codec *c, const qz_params *p)
{
    return c->dense || !c->payload_exact || c->payload_exact(p);
}

size_t qz_bound(const qz_params *p, size_t n)
{
    const qz_codec *c = qz_codec_of(p->id);
    if (!c) return gq_error_result(GQ_ERR_PARAM);
    size_t payload = payload_size(c, p, n), total;
    if (gq_is_error(payload)) return payload;
    if (qz_add_ovf(payload, QZ_HEADER_BYTES, &total)) return gq_error_result(GQ_ERR_TOO_LARGE);
    return total;
}

size_t qz_exact_size(const qz_params *p, size_t n)
{
    const qz_codec *c = qz_codec_of(p->id);
    if (!c || !payload_is_exact(c, p)) return gq_error_result(GQ_ERR_PARAM);
    return qz_bound(p, n);
}

size_t qz_least_size(const qz_params *p, size_t n)
{
    const qz_codec *c = qz_codec_of(p->id);
    if (!c) return gq_error_result(GQ_ERR_PARAM);
    if (payload_is_exact(c, p)) return qz_bound(p, n);
    const size_t least = c->payload_least ? c->payload_least(p, n) : 0;
    if (gq_is_error(least)) return least;
    return least + QZ_HEADER_BYTES;
}

float qz_largest_input(const qz_params *p)
{
    const qz_codec *c = qz_codec_of(p->id);
    return c && c->largest_input > 0 ? c->largest_input : INFINITY;
}

size_t qz_workspace_size(const qz_params *p, size_t n)
{
    const qz_codec *c = qz_codec_of(p->id);
    if (!c || n == 0) return 0;
    if (c->dense) return qz_dense_workspace(c->dense, p, n);
    return c->workspace ? c->workspace(p, n) : 0;
}

/* ---- header ------------------------------------------------------------------- */

static unsigned header_flags(const qz_params *p)
{
    unsigned f = 0;
    if (p->id == QZ_TERNGRAD && p->scale == QZ_SCALE_SIGMA) f |= FLAG_SCALE_SIGMA;
    if (p->id == QZ_TERNGRAD && p->pack == QZ_PACK_TRITS) f |= FLAG_PACK_TRITS;
    if (p->id == QZ_QSGD && p->norm == QZ_NORM_MAX) f |= FLAG_NORM_MAX;
    if (p->id == QZ_QSGD && p->code == QZ_CODE_ELIAS) f |= FLAG_CODE_ELIAS;
    if ((p->id == QZ_TERNGRAD || p->id == QZ_SIGNSGD) && p->pack == QZ_PACK_BYTE) f |= FLAG_PACK_BYTE;
    if (p->id == QZ_TOPK && p->index == QZ_INDEX_32) f |= FLAG_INDEX_32;
    if (p->id == QZ_TOPK && p->index == QZ_INDEX_64) f |= FLAG_INDEX_64;
    if (p->id == QZ_POWERSGD && !p->warm) f |= FLAG_COLD;
    return f;
}

static float header_param(const qz_params *p)
{
    if (p->id == QZ_TERNGRAD) return p->clip;
    if (p->id == QZ_TOPK) return p->ratio;
    if (p->id == QZ_POWERSGD) return (float)p->min_elements; /* exact: at most 2^24 */
    return 0.0f;
}

static void write_header(uint8_t *h, const qz_params *p, size_t n, uint32_t checksum)
{
    memcpy(h, QZ_MAGIC, 4);
    h[4] = QZ_VERSION;
    h[5] = (uint8_t)p->id;
    h[6] = (uint8_t)((p->id == QZ_QSGD || p->id == QZ_ORQ) ? p->levels : p->id == QZ_POWERSGD ? p->rank : 0);
    h[7] = (uint8_t)header_flags(p);
    store_u64(h + 8, (uint64_t)n);
    store_u64(h + 16, p->id == QZ_POWERSGD ? p->rows : p->bucket);
    store_f32(h + 24, header_param(p));
    store_u32(h + 28, checksum);
}

gq_err qz_peek(const void *src, size_t src_size, qz_header *out)
{
    const uint8_t *h = (const uint8_t *)src;
    if (src_size < 4 || memcmp(h, QZ_MAGIC, 4) != 0)
        return src_size < 4 && memcmp(h, QZ_MAGIC, src_size) == 0 ? GQ_ERR_TRUNCATED : GQ_ERR_BAD_MAGIC;
    if (src_size < QZ_HEADER_BYTES) return GQ_ERR_TRUNCATED;
    if (h[4] != QZ_VERSION && h[4] != QZ_VERSION_LEGACY) return GQ_ERR_VERSION;
    qz_id id = (qz_id)h[5];
    if (!qz_codec_of(id)) return GQ_ERR_CORRUPT;
    qz_params p;
    qz_defaults(id, &p);
    unsigned flags = h[7];
    const unsigned known =
        header_flags(&(qz_params){
            .id = id, .scale = QZ_SCALE_SIGMA, .pack = QZ_PACK_TRITS, .norm = QZ_NORM_MAX, .code = QZ_CODE_ELIAS}) |
        header_flags(&(qz_params){.id = id, .pack = QZ_PACK_BYTE, .index = QZ_INDEX_32}) |
        header_flags(&(qz_params){.id = id, .index = QZ_INDEX_64}) | header_flags(&(qz_params){.id = id, .warm = 0});
    /* unknown bits, two packings or two index widths at once */
    if ((flags & ~known) || ((flags & FLAG_PACK_TRITS) && (flags & FLAG_PACK_BYTE)) ||
        ((flags & FLAG_INDEX_32) && (flags & FLAG_INDEX_64)))
        return GQ_ERR_CORRUPT;
    p.scale = id == QZ_TERNGRAD && (flags & FLAG_SCALE_SIGMA) ? QZ_SCALE_SIGMA : QZ_SCALE_MAX;
    p.pack = (flags & FLAG_PACK_TRITS) ? QZ_PACK_TRITS : (flags & FLAG_PACK_BYTE) ? QZ_PACK_BYTE : QZ_PACK_2BIT;
    p.index = (flags & FLAG_INDEX_32) ? QZ_INDEX_32 : (flags & FLAG_INDEX_64) ? QZ_INDEX_64 : QZ_INDEX_AUTO;
    p.norm = (flags & FLAG_NORM_MAX) ? QZ_NORM_MAX : QZ_NORM_L2;
    p.code = (flags & FLAG_CODE_ELIAS) ? QZ_CODE_ELIAS : QZ_CODE_DENSE;
    p.warm = id == QZ_POWERSGD && !(flags & FLAG_COLD);
    if (id == QZ_QSGD || id == QZ_ORQ)
        p.levels = h[6];
    else if (id == QZ_POWERSGD)
        p.rank = h[6];
    else if (h[6] != 0)
        return GQ_ERR_CORRUPT;
    uint64_t n = load_u64(h + 8);
    if (id == QZ_POWERSGD)
        p.rows = load_u64(h + 16);
    else
        p.bucket = load_u64(h + 16);
    float param = load_f32(h + 24);
    if (id == QZ_TERNGRAD)
        p.clip = param;
    else if (id == QZ_TOPK)
        p.ratio = param;
    else if (id == QZ_POWERSGD && param >= 0 && param <= (float)QZ_POWERSGD_MAX_MIN && param == floorf(param))
        p.min_elements = (uint64_t)param;
    else if (param != 0.0f)
        return GQ_ERR_CORRUPT;
    if (id != QZ_TERNGRAD && id != QZ_QSGD && id != QZ_ORQ && id != QZ_BINGRAD_B && id != QZ_BINGRAD_PB &&
        id != QZ_SIGNSGD && p.bucket != 0)
        return GQ_ERR_CORRUPT;
    if (qz_validate(&p, NULL, 0) != GQ_OK) return GQ_ERR_CORRUPT;
    if (n == 0 || n > SIZE_MAX) return GQ_ERR_CORRUPT;
    if (id == QZ_POWERSGD && (p.rows == 0 || n % p.rows != 0)) return GQ_ERR_CORRUPT; /* the encoder writes its shape */
    if (out) {
        out->params = p;
        out->n = n;
        out->version = h[4];
        out->checksum = load_u32(h + 28);
    }
    return GQ_OK;
}

/* ---- encode / decode ---------------------------------------------------------- */

/* Element-wise formats: converted and checksummed a block at a time, so the
 * payload is hashed while it is still in cache instead of read back from
 * memory (one pass over the gradient instead of two or three). */
enum { ELEMENTWISE_BLOCK = 4096 };

static size_t encode_elementwise(const qz_codec *c, uint8_t *out, const float *src, size_t n, const qz_params *p)
{
    write_header(out, p, n, 0);
    XXH3_state_t state, *st = &state;
    XXH3_INITSTATE(st);
    XXH3_64bits_reset_withSeed(st, checksum_seed(out));
    uint8_t *payload = out + QZ_HEADER_BYTES;
    const size_t w = c->bytes_per_element;
    int bad = 0;
    for (size_t i = 0; i < n && !bad; i += ELEMENTWISE_BLOCK) {
        size_t len = n - i < ELEMENTWISE_BLOCK ? n - i : ELEMENTWISE_BLOCK;
        prefetch_next(src + i + len, sizeof(float) * (n - i - len < len ? n - i - len : len));
        bad = c->encode_block(payload + w * i, src + i, len);
        XXH3_64bits_update(st, payload + w * i, w * len);
    }
    XXH64_hash_t h = XXH3_64bits_digest(st);
    if (bad) return gq_error_result(GQ_ERR_NONFINITE);
    store_u32(out + 28, fold32(h));
    return QZ_HEADER_BYTES + w * n;
}

/* dst is written before the checksum is known to match: on a mismatch the
 * caller gets an error and dst's contents are unspecified, as on any error. */
static size_t decode_elementwise(const qz_codec *c, float *dst, size_t n, const uint8_t *src, uint32_t checksum)
{
    XXH3_state_t state, *st = &state;
    XXH3_INITSTATE(st);
    XXH3_64bits_reset_withSeed(st, checksum_seed(src));
    const uint8_t *payload = src + QZ_HEADER_BYTES;
    const size_t w = c->bytes_per_element;
    int bad = 0;
    for (size_t i = 0; i < n; i += ELEMENTWISE_BLOCK) {
        size_t len = n - i < ELEMENTWISE_BLOCK ? n - i : ELEMENTWISE_BLOCK;
        prefetch_next(payload + w * (i + len), w * (n - i - len < len ? n - i - len : len));
        bad |= c->decode_block(dst + i, payload + w * i, len);
        XXH3_64bits_update(st, payload + w * i, w * len); /* in cache now */
    }
    XXH64_hash_t h = XXH3_64bits_digest(st);
    if (fold32(h) != checksum && VERIFY_CHECKSUM) return gq_error_result(GQ_ERR_CORRUPT);
    return bad ? gq_error_result(GQ_ERR_CORRUPT) : n;
}

size_t qz_encode(void *dst, size_t dst_cap, const float *src, size_t n, const qz_params *p, uint64_t seed, void *work,
                 size_t work_cap)
{
    return qz_encode_warm(dst, dst_cap, src, n, p, seed, NULL, work, work_cap);
}

size_t qz_encode_warm(void *dst, size_t dst_cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                      float *warm_q, void *work, size_t work_cap)
{
    if (qz_validate(p, NULL, 0) != GQ_OK) return gq_error_result(GQ_ERR_PARAM);
    if (n == 0) return gq_error_result(GQ_ERR_EMPTY);
    const qz_codec *c = qz_codec_of(p->id);
    size_t bound = qz_bound(p, n);
    if (gq_is_error(bound)) return bound;
    if (dst_cap < bound) return gq_error_result(GQ_ERR_DST_TOO_SMALL);
    if (work_cap < qz_workspace_size(p, n)) return gq_error_result(GQ_ERR_WORK_TOO_SMALL);
    uint8_t *out = (uint8_t *)dst;
    if (c->encode_block) return encode_elementwise(c, out, src, n, p);
    size_t payload = c->dense ? qz_dense_encode(c->dense, out + QZ_HEADER_BYTES, src, n, p, seed, work)
                     : c->encode_warm
                         ? c->encode_warm(out + QZ_HEADER_BYTES, bound - QZ_HEADER_BYTES, src, n, p, seed, warm_q, work)
                         : c->encode(out + QZ_HEADER_BYTES, bound - QZ_HEADER_BYTES, src, n, p, seed, work);
    if (gq_is_error(payload)) return payload;
    qz_params shaped = *p; /* the shape the encoder chose travels: the decoder needs it */
    if (p->id == QZ_POWERSGD) {
        size_t rows, cols, rank;
        qz_powersgd_shape(p, n, &rows, &cols, &rank);
        shaped.rows = rows;
    }
    p = &shaped;
    write_header(out, p, n, 0);
    store_u32(out + 28, buffer_checksum(out, out + QZ_HEADER_BYTES, payload));
    return payload + QZ_HEADER_BYTES;
}

size_t qz_decode(float *dst, size_t dst_cap, const void *src, size_t src_size)
{
    qz_header h;
    gq_err e = qz_peek(src, src_size, &h);
    if (e != GQ_OK) return gq_error_result(e);
    const qz_codec *c = qz_codec_of(h.params.id);
    const uint8_t *payload = (const uint8_t *)src + QZ_HEADER_BYTES;
    size_t size = src_size - QZ_HEADER_BYTES;
    if (payload_is_exact(c, &h.params)) {
        size_t want = payload_size(c, &h.params, (size_t)h.n);
        if (gq_is_error(want)) return gq_error_result(GQ_ERR_CORRUPT);
        if (size < want) return gq_error_result(GQ_ERR_TRUNCATED);
        if (size > want) return gq_error_result(GQ_ERR_CORRUPT);
    } else if (c->payload_least) { /* a count its payload could not hold is refused before a byte is written */
        const size_t least = c->payload_least(&h.params, (size_t)h.n);
        if (gq_is_error(least) || size < least) return gq_error_result(GQ_ERR_TRUNCATED);
    }
    if (dst_cap < h.n) return gq_error_result(GQ_ERR_DST_TOO_SMALL);
    if (c->decode_block && h.version != QZ_VERSION_LEGACY)
        return decode_elementwise(c, dst, (size_t)h.n, (const uint8_t *)src, h.checksum);
    uint32_t sum = h.version == QZ_VERSION_LEGACY ? buffer_checksum_v1((const uint8_t *)src, payload, size)
                                                  : buffer_checksum((const uint8_t *)src, payload, size);
    if (sum != h.checksum && VERIFY_CHECKSUM) return gq_error_result(GQ_ERR_CORRUPT);
    size_t r;
    if (c->decode_block)
        r = c->decode_block(dst, payload, (size_t)h.n) ? gq_error_result(GQ_ERR_CORRUPT) : (size_t)h.n;
    else
        r = c->dense ? qz_dense_decode(c->dense, dst, (size_t)h.n, payload, size, &h.params)
                     : c->decode(dst, (size_t)h.n, payload, size, &h.params);
    if (gq_is_error(r)) return r;
    return (size_t)h.n;
}

/* ---- the dense driver ------------------------------------------------------------ */

static qz_pack dense_packing(const qz_dense *d, const qz_params *p)
{
    const qz_pack k = d->packing ? d->packing(p) : QZ_PACK_2BIT;
    return k == QZ_PACK_BYTE && !d->byte_of ? QZ_PACK_2BIT : k;
}

static size_t dense_code_bytes(const qz_dense *d, const qz_params *p, size_t n)
{
    const qz_pack k = dense_packing(d, p);
    if (k == QZ_PACK_TRITS) return n / 5 + (n % 5 != 0);
    if (k == QZ_PACK_BYTE) return n;
    unsigned w = qz_bits_for(d->nlevels(p));
    /* ceil(n*w/8) without overflowing n*w */
    return (n / 8) * w + ((n % 8) * w + 7) / 8;
}

size_t qz_dense_payload(const qz_dense *d, const qz_params *p, size_t n)
{
    size_t scales, total;
    if (qz_mul_ovf(qz_bucket_count(p, n), (size_t)d->nstored(p) * 4, &scales) ||
        qz_add_ovf(scales, dense_code_bytes(d, p, n), &total))
        return gq_error_result(GQ_ERR_TOO_LARGE);
    return total;
}

size_t qz_dense_workspace(const qz_dense *d, const qz_params *p, size_t n)
{
    return QZ_CHUNK + (d->fit_workspace ? d->fit_workspace(qz_bucket_len(p, n)) : 0);
}

/* End of the segment that starts at j inside chunk [.., c1): segments stop at
 * bucket ends (qz_dense_codes splits them further at 2^32 index boundaries). */
static size_t segment_end(size_t j, size_t c1, size_t blen)
{
    size_t end = (j / blen + 1) * blen;
    return end < c1 ? end : c1;
}

void qz_dense_codes(const qz_dense *d, uint8_t *codes, const float *x, size_t j0, size_t len, const float *stored,
                    const qz_params *p, uint64_t seed)
{
    for (size_t j = j0, end = j0 + len, jend; j < end; j = jend) {
        jend = ((j >> 32) != ((end - 1) >> 32)) ? ((j >> 32) + 1) << 32 : end;
        d->quantize(codes + (j - j0), x + (j - j0), jend - j, stored, p, rng_key32(seed, j >> 32), (uint32_t)j);
    }
}

/* pack=byte: out[i] = byte_of[codes[i]], codes < 16 (sixteen at a time with one byte shuffle). */
static void map_bytes(uint8_t *out, const uint8_t *codes, size_t len, const uint8_t byte_of[16])
{
    size_t i = 0;
#if defined(__AVX2__)
    const __m128i table = _mm_loadu_si128((const __m128i *)byte_of);
    for (; i + 16 <= len; i += 16)
        _mm_storeu_si128((__m128i *)(out + i), _mm_shuffle_epi8(table, _mm_loadu_si128((const __m128i *)(codes + i))));
#endif
    for (; i < len; i++) out[i] = byte_of[codes[i] & 15];
}

size_t qz_dense_encode(const qz_dense *d, uint8_t *dst, const float *src, size_t n, const qz_params *p, uint64_t seed,
                       void *work)
{
    const size_t blen = qz_bucket_len(p, n), nb = qz_bucket_count(p, n);
    const unsigned ns = d->nstored(p);
    const qz_pack pack = dense_packing(d, p);
    const unsigned w = pack != QZ_PACK_2BIT ? 0 : qz_bits_for(d->nlevels(p));
    uint8_t *codes = (uint8_t *)work, *packed = dst + nb * ns * 4;
    void *fit_work = codes + QZ_CHUNK;
    float stored[QZ_ORQ_MAX_LEVELS];
    uint8_t byte_of[16] = {0}; /* a local copy: stores through packed may alias d's table */
    for (unsigned k = 0; pack == QZ_PACK_BYTE && k < d->nlevels(p) && k < 16; k++) byte_of[k] = (uint8_t)d->byte_of[k];

    size_t fitted = 0; /* buckets whose stored floats are written */
    for (size_t c0 = 0; c0 < n; c0 += QZ_CHUNK) {
        size_t c1 = n - c0 < QZ_CHUNK ? n : c0 + QZ_CHUNK;
        if (!d->prefetches) prefetch_next(src + c1, sizeof(float) * (n - c1 < QZ_CHUNK ? n - c1 : QZ_CHUNK));
        /* Each bucket is fitted just before its first chunk is coded, so that
         * a bucketed gradient streams from memory once, not once to fit and
         * again to code (one bucket = the whole gradient still reads it twice) */
        while (fitted < nb && fitted * blen < c1) {
            const size_t b = fitted;
            if (d->fit_many && ns == 1 && blen <= QZ_FIT_MANY_BUCKET && b + QZ_FIT_MANY <= nb - 1) {
                /* QZ_FIT_MANY whole buckets at once (never the last, which may be short) */
                float many[QZ_FIT_MANY];
                gq_err e = d->fit_many(many, src + b * blen, blen, p);
                if (e != GQ_OK) return gq_error_result(e);
                for (size_t t = 0; t < QZ_FIT_MANY; t++) store_f32(dst + (b + t) * 4, many[t]);
                fitted += QZ_FIT_MANY;
                continue;
            }
            const size_t len = (b + 1 == nb) ? n - b * blen : blen;
            gq_err e = d->fit(stored, src + b * blen, len, p, fit_work);
            if (e != GQ_OK) return gq_error_result(e);
            for (unsigned k = 0; k < ns; k++) store_f32(dst + (b * ns + k) * 4, stored[k]);
            fitted++;
        }
        for (size_t j = c0, jend, b; j < c1; j = jend) {
            b = j / blen;
            jend = segment_end(j, c1, blen);
            for (unsigned k = 0; k < ns; k++) stored[k] = load_f32(dst + (b * ns + k) * 4);
            qz_dense_codes(d, codes + (j - c0), src + j, j, jend - j, stored, p, seed);
        }
        if (pack == QZ_PACK_TRITS)
            qz_pack_trits(packed + c0 / 5, codes, c1 - c0);
        else if (pack == QZ_PACK_BYTE)
            map_bytes(packed + c0, codes, c1 - c0, byte_of);
        else
            qz_pack_bits(packed + c0 / 8 * w, codes, c1 - c0, w);
    }
    return nb * ns * 4 + dense_code_bytes(d, p, n);
}

/* ---- dense decode: codes straight from the packed stream to table values ---- */

/* Code of element j (width w <= 8) read from the packed stream; reads the
 * second byte only when the code reaches into it, never past the stream. */
static inline unsigned read_code(const uint8_t *packed, size_t j, unsigned w)
{
    size_t bit = j * w, byte = bit / 8;
    unsigned off = (unsigned)(bit % 8), v = packed[byte];
    if (off + w > 8) v |= (unsigned)packed[byte + 1] << 8;
    return (v >> off) & ((1u << w) - 1);
}

/* The naive path: one code at a time. @return non-zero on an invalid code. */
static unsigned decode_scalar(float *out, const uint8_t *packed, size_t j, size_t end, unsigned w, const float *table,
                              unsigned K)
{
    unsigned bad = 0;
    for (; j < end; j++) {
        unsigned c = read_code(packed, j, w);
        bad |= c >= K;
        out[j] = table[c < K ? c : 0];
    }
    return bad;
}

#if defined(__AVX2__)
/* Eight codes (w bytes) at a time: broadcast, shift each lane by its code's
 * offset, mask, and look the values up with in-register permutes (one for up
 * to 8 levels, two and a blend for up to 16). j is a multiple of 8. */
static inline unsigned decode_avx2_generic(float *out, const uint8_t *packed, size_t j, size_t end, const float *table,
                                           unsigned K, const unsigned w)
{
    const __m256i shifts =
        _mm256_setr_epi32(0, (int)w, 2 * (int)w, 3 * (int)w, 4 * (int)w, 5 * (int)w, 6 * (int)w, 7 * (int)w);
    const __m256i mask = _mm256_set1_epi32((1 << w) - 1), kmax = _mm256_set1_epi32((int)K - 1);
    float lo[8] = {0}, hi[8] = {0};
    for (unsigned k = 0; k < K && k < 8; k++) lo[k] = table[k];
    for (unsigned k = 8; k < K; k++) hi[k - 8] = table[k];
    const __m256 tlo = _mm256_loadu_ps(lo), thi = _mm256_loadu_ps(hi);
    __m256i bad = _mm256_setzero_si256();
    for (; j + 8 <= end; j += 8) {
        const uint8_t *p = packed + j / 8 * w;
        uint32_t v; /* the w bytes, composed in registers (a 3-byte memcpy stalls store forwarding) */
        if (w == 1)
            v = p[0];
        else if (w == 2)
            v = (uint32_t)p[0] | (uint32_t)p[1] << 8;
        else if (w == 3)
            v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
        else
            v = load_u32(p);
        __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)v), shifts), mask);
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(idx, kmax));
        __m256 val = _mm256_permutevar8x32_ps(tlo, idx);
        if (w == 4) {
            __m256 vh = _mm256_permutevar8x32_ps(thi, idx);
            __m256 sel = _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)); /* bit 3 to the sign bit */
            val = _mm256_blendv_ps(val, vh, sel);
        }
        _mm256_storeu_ps(out + j, val);
    }
    return (unsigned)!_mm256_testz_si256(bad, bad) | decode_scalar(out, packed, j, end, w, table, K);
}
#endif

/* Decodes elements [j, end) of one bucket. @return non-zero on an invalid code. */
static unsigned decode_segment(float *out, const uint8_t *packed, size_t j, size_t end, unsigned w, const float *table,
                               unsigned K)
{
#if defined(__AVX2__)
    if (w <= 4) {
        size_t head = (j + 7) / 8 * 8;
        unsigned bad = decode_scalar(out, packed, j, head < end ? head : end, w, table, K);
        if (head >= end) return bad;
        switch (w) {
        case 1: return bad | decode_avx2_generic(out, packed, head, end, table, K, 1);
        case 2: return bad | decode_avx2_generic(out, packed, head, end, table, K, 2);
        case 3: return bad | decode_avx2_generic(out, packed, head, end, table, K, 3);
        default: return bad | decode_avx2_generic(out, packed, head, end, table, K, 4);
        }
    }
#endif
    return decode_scalar(out, packed, j, end, w, table, K);
}

/* pack=byte: elements [j, end) from bytes -1/0/+1 to vals[byte + 1]; bit i of `allowed` set where byte i - 1 is a
 * code. @return non-zero on a byte that is not. */
static uint32_t decode_bytes_scalar(float *out, const int8_t *c, size_t j, size_t end, const float vals[3],
                                    uint32_t allowed)
{
    uint32_t bad = 0;
    for (; j < end; j++) {
        const uint32_t i = (uint32_t)(c[j] + 1); /* 0..2 when valid */
        const int ok = i <= 2 && ((allowed >> i) & 1);
        bad |= !ok;
        out[j] = vals[ok ? i : 0];
    }
    return bad;
}

static uint32_t decode_bytes(float *out, const int8_t *c, size_t j, size_t end, const float vals[3], uint32_t allowed)
{
#if defined(__AVX2__)
    /* eight bytes at a time: sign-extend, look the value and the byte's validity up with in-register permutes */
    const __m256 tv = _mm256_setr_ps(vals[0], vals[1], vals[2], 0, 0, 0, 0, 0);
    const __m256i ta = _mm256_setr_epi32(-(int)(allowed & 1), -(int)((allowed >> 1) & 1), -(int)((allowed >> 2) & 1), 0,
                                         0, 0, 0, 0),
                  one = _mm256_set1_epi32(1), two = _mm256_set1_epi32(2), zero = _mm256_setzero_si256();
    __m256i badv = _mm256_setzero_si256();
    for (; j + 8 <= end; j += 8) {
        int64_t eight;
        memcpy(&eight, c + j, 8);
        const __m256i idx = _mm256_add_epi32(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(eight)), one);
        const __m256i out_of_range = _mm256_or_si256(_mm256_cmpgt_epi32(idx, two), _mm256_cmpgt_epi32(zero, idx));
        badv = _mm256_or_si256(
            badv, _mm256_or_si256(out_of_range, _mm256_cmpeq_epi32(_mm256_permutevar8x32_epi32(ta, idx), zero)));
        _mm256_storeu_ps(out + j, _mm256_permutevar8x32_ps(tv, idx));
    }
    return (uint32_t)!_mm256_testz_si256(badv, badv) | decode_bytes_scalar(out, c, j, end, vals, allowed);
#else
    return decode_bytes_scalar(out, c, j, end, vals, allowed);
#endif
}

size_t qz_dense_decode(const qz_dense *d, float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p)
{
    const size_t blen = qz_bucket_len(p, n), nb = qz_bucket_count(p, n);
    const unsigned ns = d->nstored(p), K = d->nlevels(p);
    const qz_pack pack = dense_packing(d, p);
    const uint8_t *packed = src + nb * ns * 4;
    float stored[QZ_ORQ_MAX_LEVELS], table[256];
    (void)size; /* the caller checked size == qz_dense_payload() */

    for (size_t i = 0; i < nb * ns; i++)
        if (!isfinite(load_f32(src + 4 * i))) return gq_error_result(GQ_ERR_CORRUPT);
    if (pack == QZ_PACK_2BIT) {
        const unsigned w = qz_bits_for(K);
        unsigned bad = 0;
        for (size_t b = 0; b < nb; b++) {
            for (unsigned k = 0; k < ns; k++) stored[k] = load_f32(src + (b * ns + k) * 4);
            if (d->check && d->check(stored, p) != 0) return gq_error_result(GQ_ERR_CORRUPT);
            d->table(table, stored, p);
            bad |= decode_segment(dst, packed, b * blen, b + 1 == nb ? n : (b + 1) * blen, w, table, K);
        }
        return bad ? gq_error_result(GQ_ERR_CORRUPT) : n;
    }
    if (pack == QZ_PACK_BYTE) {
        /* bytes are -1, 0 or +1 (qz_internal.h): selects rather than a lookup, so the loop vectorises; `allowed`
         * has bit c + 1 set for each byte c some code travels as */
        int code_of[3] = {-1, -1, -1};
        for (unsigned k = 0; k < K; k++)
            if (d->byte_of[k] >= -1 && d->byte_of[k] <= 1) code_of[d->byte_of[k] + 1] = (int)k;
        const uint32_t allowed = (code_of[0] >= 0) | (code_of[1] >= 0) << 1 | (code_of[2] >= 0) << 2;
        uint32_t bad = 0;
        for (size_t b = 0; b < nb; b++) {
            for (unsigned k = 0; k < ns; k++) stored[k] = load_f32(src + (b * ns + k) * 4);
            if (d->check && d->check(stored, p) != 0) return gq_error_result(GQ_ERR_CORRUPT);
            d->table(table, stored, p);
            const float neg = code_of[0] >= 0 ? table[code_of[0]] : 0, zero = code_of[1] >= 0 ? table[code_of[1]] : 0,
                        pos = code_of[2] >= 0 ? table[code_of[2]] : 0;
            const float vals[3] = {neg, zero, pos};
            bad |= decode_bytes(dst, (const int8_t *)packed, b * blen, b + 1 == nb ? n : (b + 1) * blen, vals, allowed);
        }
        return bad ? gq_error_result(GQ_ERR_CORRUPT) : n;
    }
    /* trits: unpack a chunk of codes, then look them up */
    uint8_t codes[QZ_CHUNK];
    size_t table_bucket = SIZE_MAX;
    for (size_t c0 = 0; c0 < n; c0 += QZ_CHUNK) {
        size_t c1 = n - c0 < QZ_CHUNK ? n : c0 + QZ_CHUNK;
        if (qz_unpack_trits(codes, packed + c0 / 5, c1 - c0) != 0) return gq_error_result(GQ_ERR_CORRUPT);
        for (size_t j = c0, jend, b; j < c1; j = jend) {
            b = j / blen;
            jend = segment_end(j, c1, blen);
            if (b != table_bucket) {
                for (unsigned k = 0; k < ns; k++) stored[k] = load_f32(src + (b * ns + k) * 4);
                if (d->check && d->check(stored, p) != 0) return gq_error_result(GQ_ERR_CORRUPT);
                d->table(table, stored, p);
                table_bucket = b;
            }
            const uint8_t *cj = codes + (j - c0);
            float *out = dst + j;
            for (size_t i = 0; i < jend - j; i++) out[i] = table[cj[i]];
        }
    }
    return n;
}

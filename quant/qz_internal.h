/* Internals shared by the quantizer files: the codec vtable every quantizer
 * fills, the dense "levels + packed codes" driver most of them use, little-
 * endian helpers, and the sorted-bucket toolkit of ORQ and BinGrad. Not part
 * of the public API. */
#ifndef GQ_QZ_INTERNAL_H
#define GQ_QZ_INTERNAL_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "qz.h"

/* Elements per encode/decode chunk: a multiple of 8 (every code width packs
 * to whole bytes) and of 5 (trits), so chunks start on byte boundaries. */
#define QZ_CHUNK 4080u
/* How far ahead (elements) the vector rounding loops ask for their input: the
 * dense driver fits a chunk's buckets up to 2047 elements past the chunk, so
 * one chunk ahead would reach the fit too late (docs/performance.md). */
#define QZ_PREFETCH_AHEAD (2 * QZ_CHUNK)

/* ---- little-endian loads and stores (the wire is little-endian) ---------- */

/* 1 where the host's byte order is the wire's: some loops then move words whole. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define QZ_LITTLE_ENDIAN 1
#else
#define QZ_LITTLE_ENDIAN 0
#endif

static inline void store_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void store_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint64_t load_u64(const uint8_t *p) { return (uint64_t)load_u32(p) | (uint64_t)load_u32(p + 4) << 32; }
static inline uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline void store_f32(uint8_t *p, float f) { store_u32(p, f32_bits(f)); }
static inline float load_f32(const uint8_t *p) { return bits_f32(load_u32(p)); }

/* ---- the codec vtable ------------------------------------------------------ */

enum { /* keys a codec accepts in its spec */
       QZ_KEY_BUCKET = 1u << 0,
       QZ_KEY_LEVELS = 1u << 1,
       QZ_KEY_CLIP = 1u << 2,
       QZ_KEY_SCALE = 1u << 3,
       QZ_KEY_PACK = 1u << 4,
       QZ_KEY_NORM = 1u << 5,
       QZ_KEY_CODE = 1u << 6,
       QZ_KEY_RATIO = 1u << 7,
       QZ_KEY_INDEX = 1u << 8,
       QZ_KEY_RANK = 1u << 9,
       QZ_KEY_WARM = 1u << 10,
       QZ_KEY_MIN = 1u << 11,
       QZ_KEY_FIT = 1u << 12,
};

typedef struct qz_dense qz_dense;

/* A quantizer: names and keys for the registry, then either a dense level
 * codec (the shared driver in qz_core.c does sizes, encode and decode) or its
 * own size, workspace, encode and decode functions. */
typedef struct qz_codec {
    qz_id id;
    const char *name;
    const char *summary;
    const char *keys_help;
    unsigned keys; /* QZ_KEY_* mask */
    int biased;    /* E[Q(g)] != g: the trainer's error feedback is on for it by default */
    void (*defaults)(qz_params *p);
    unsigned (*level_count)(const qz_params *p); /* NULL: not a level quantizer */
    const qz_dense *dense;                       /* non-NULL: the rest stays NULL */
    /* Payload (after the header) size for n elements: exact when payload_exact
     * is NULL or says so, else the worst case; an error on overflow. */
    size_t (*payload_bound)(const qz_params *p, size_t n);
    int (*payload_exact)(const qz_params *p);
    /* Where the size is not exact: the fewest payload bytes any buffer of n elements has (so that a header's count
     * is held to what its payload can encode). NULL: no lower bound. */
    size_t (*payload_least)(const qz_params *p, size_t n);
    size_t (*workspace)(const qz_params *p, size_t n);
    /* src is finite and n >= 1; dst_cap >= payload_bound. @return bytes. */
    size_t (*encode)(uint8_t *dst, size_t dst_cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                     void *work);
    /* encode with the caller's state (powersgd's last Q, qz_encode_warm); NULL: encode ignores it */
    size_t (*encode_warm)(uint8_t *dst, size_t dst_cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                          float *warm_q, void *work);
    /* Untrusted src of exactly `size` payload bytes; dst holds n elements. */
    size_t (*decode)(float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p);
    /* Element-wise formats (fp32, fp16) set these instead of encode/decode:
     * each element is bytes_per_element bytes, so qz_encode/qz_decode run them
     * block by block and checksum each block while it is still in cache.
     * encode_block: nonzero if src holds a non-finite value; decode_block:
     * nonzero if src holds a value the format never writes. */
    unsigned bytes_per_element;
    int (*encode_block)(uint8_t *dst, const float *src, size_t n);
    int (*decode_block)(float *dst, const uint8_t *src, size_t n);
    /* The codec's own facts, each with it rather than in a switch elsewhere: */
    const char *const *pack_names; /* pack=: its packings' names by qz_pack ("-": none), NULL: only the default */
    /* the keys as a spec writes them, ":key=value,..." after the name (NULL: the name alone). @return snprintf's. */
    int (*format_keys)(const qz_params *p, char *buf, size_t cap);
    /* its own parameters checked: 0, or -1 with the reason in why (the name is added). NULL: nothing to check. */
    int (*check)(const qz_params *p, char *why, size_t cap);
    /* the GPU cost model's inputs (docs/codec-costs.md): kernel launches and bytes of memory traffic per element,
     * encode then decode, this project's estimates from the algorithm, not measurements. NULL: none (fp32). */
    void (*gpu_traffic)(const qz_params *p, double enc[2], double dec[2]);
    void (*gpu_flops)(const qz_params *p, double *enc, double *dec); /* per element (qz_gpu_flops); NULL: 0 */
    /* the magnitude from which the encoder refuses a finite input with GQ_ERR_RANGE (qz_largest_input); 0: none */
    float largest_input;
} qz_codec;

/* The names of the enumerated keys, by value, NULL-terminated (qz_spec.c). */
extern const char *const QZ_SCALE_NAMES[],
    *const QZ_NORM_NAMES[], *const QZ_CODE_NAMES[], *const QZ_TG_PACK_NAMES[], *const QZ_SG_PACK_NAMES[],
                                                                                   *const QZ_INDEX_NAMES[],
                                                                                       *const QZ_OFF_ON[],
                                                                                           *const QZ_FIT_NAMES[];

extern const qz_codec qz_fp32, qz_fp16, qz_terngrad, qz_qsgd, qz_orq, qz_bingrad_b, qz_bingrad_pb, qz_signsgd, qz_topk,
    qz_powersgd;

const qz_codec *qz_codec_of(qz_id id);

/* Number of buckets of n elements (bucket 0 = one bucket). */
static inline size_t qz_bucket_len(const qz_params *p, size_t n)
{
    return (p->bucket == 0 || p->bucket > n) ? n : (size_t)p->bucket;
}
static inline size_t qz_bucket_count(const qz_params *p, size_t n)
{
    size_t d = qz_bucket_len(p, n);
    return n / d + (n % d != 0);
}

/* 1/w for rounding probabilities: 0 for w <= 0, and FLT_MAX instead of Inf
 * when w is subnormal, so that 0 * inv stays 0 (never NaN). */
static inline float qz_safe_inv(float w) { return w > 0 ? fminf(1.0f / w, FLT_MAX) : 0.0f; }
/* A scale computed in double, kept finite on the wire. */
static inline float qz_finite_scale(double s) { return s < FLT_MAX ? (float)s : FLT_MAX; }
/* fmax and fmin as plain compares: GCC keeps those calls into libm for their
 * NaN rules, a call each in the fits' inner loops. As they do, a NaN first
 * operand gives the second (the callers' second operands are never NaN). */
static inline double qz_max(double a, double b) { return a > b ? a : b; }
static inline double qz_min(double a, double b) { return a < b ? a : b; }

/* Bits needed for codes 0..k-1 (k >= 2). */
static inline unsigned qz_bits_for(unsigned k)
{
    unsigned w = 1;
    while ((1u << w) < k) w++;
    return w;
}

/* ---- dense level codecs ---------------------------------------------------- */
/* A dense codec stores `nstored` floats per bucket, from which a table of K
 * levels is rebuilt, and one code per element indexing that table. */
struct qz_dense {
    unsigned (*nstored)(const qz_params *p);
    unsigned (*nlevels)(const qz_params *p);
    /* The codes' packing (QZ_PACK_TRITS: 5 per byte; QZ_PACK_BYTE: byte_of[code] each); NULL: bit-packed. */
    qz_pack (*packing)(const qz_params *p);
    const int8_t *byte_of; /* pack=byte: the signed byte (-1, 0 or +1) each code travels as; K <= 16 */
    size_t (*fit_workspace)(size_t bucket_len); /* bytes of work fit() needs for a bucket; NULL: none */
    /* Bucket statistics -> stored floats. x is finite, len >= 1. */
    gq_err (*fit)(float *stored, const float *x, size_t len, const qz_params *p, void *work);
    /* Optional, for codecs of one stored float per bucket fitted from its
     * moments: QZ_FIT_MANY whole buckets of blen <= QZ_FIT_MANY_BUCKET at once,
     * each stored[t] exactly what fit() gives for bucket t (their running sums
     * side by side: one bucket's sums are a chain of dependent adds). */
    gq_err (*fit_many)(float *stored, const float *x, size_t blen, const qz_params *p);
    /* Codes for x[0..len); element j has global index idx0 + j (low 32 bits;
     * the driver never lets a segment cross a 2^32 boundary, key covers the
     * high word). */
    void (*quantize)(uint8_t *codes, const float *x, size_t len, const float *stored, const qz_params *p, uint32_t key,
                     uint32_t idx0);
    /* Non-zero: quantize asks for x[QZ_PREFETCH_AHEAD..] as it goes (the vector rounding loops), so the
     * driver does not ask for the next chunk in one burst at each chunk's start, which would compete with it. */
    int prefetches;
    /* The K levels of a bucket from its stored floats. */
    void (*table)(float *table, const float *stored, const qz_params *p);
    /* Optional check of a bucket's stored floats from an untrusted buffer
     * (they are already known finite). @return 0 if acceptable. */
    int (*check)(const float *stored, const qz_params *p);
};

size_t qz_dense_payload(const qz_dense *d, const qz_params *p, size_t n);
size_t qz_dense_workspace(const qz_dense *d, const qz_params *p, size_t n);
size_t qz_dense_encode(const qz_dense *d, uint8_t *dst, const float *src, size_t n, const qz_params *p, uint64_t seed,
                       void *work);
size_t qz_dense_decode(const qz_dense *d, float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p);

/* ---- code packing (qz_pack.c) ---------------------------------------------- */
/* Packs count codes of width w (1..8) LSB-first; writes ceil(count*w/8) bytes. */
void qz_pack_bits(uint8_t *dst, const uint8_t *codes, size_t count, unsigned w);
/* Inverse; reads ceil(count*w/8) bytes. */
void qz_unpack_bits(uint8_t *codes, const uint8_t *src, size_t count, unsigned w);
/* 5 trits (0..2) per byte: b = c0 + 3c1 + 9c2 + 27c3 + 81c4; ceil(count/5) bytes. */
void qz_pack_trits(uint8_t *dst, const uint8_t *codes, size_t count);
/* @return 0, or -1 when a byte is >= 243 (not a valid trit group). */
int qz_unpack_trits(uint8_t *codes, const uint8_t *src, size_t count);

/* ---- sorted buckets (qz_sorted.c), for ORQ and BinGrad ------------------- */
/* Ascending candidate points with prefix sums over the bucket's elements, so
 * every interval's count, sum and sum of squares is O(1): n[k], s1[k], s2[k]
 * are the count, sum of x and sum of x^2 of the elements in [x[0], x[k]).
 * Built either by sorting the bucket (the points are its elements, n[k] = k)
 * or as a histogram (the points are bin edges, min to max, equally spaced;
 * every element lies between two of them), which the level searches treat
 * alike. A histogram has no s2 (NULL): its only readers, ORQ's searches,
 * compare level sets over the same elements, where the squares cancel. */
typedef struct {
    const float *x; /* ascending, len points */
    const double *n, *s1, *s2;
    size_t len;
    int edges;    /* 1: a histogram's edges */
    int distinct; /* 1: every point above the one before (edges over a range of more than a few ulps) */
} qz_sorted;

/* Workspace bytes for a bucket of len elements (sorted or histogram). */
size_t qz_sorted_workspace(size_t len);
/* Sorts (radix) a copy of x into work and builds the prefix sums; len < 2^32
 * (the codecs that sort check their bucket length). */
void qz_sorted_build(qz_sorted *s, const float *x, size_t len, void *work);
/* A histogram of x in `bins` equal bins from min(x) to max(x), 1 <= bins <=
 * len and bins <= 2^30: s->len = bins + 1 edges. Costs one streaming pass
 * instead of a sort; interval counts and sums are exact between edges, so a
 * level search restricted to the edges evaluates its costs exactly. No s2
 * (NULL). @return 0, or -1 when x holds a NaN or an infinity (its range pass
 * sees them; s is then left unset). */
int qz_hist_build(qz_sorted *s, const float *x, size_t len, size_t bins, void *work);

/* Count of the elements in [x[i], x[j]). */
static inline double qz_nelem(const qz_sorted *s, size_t i, size_t j) { return s->n[j] - s->n[i]; }
/* Sums over the sorted elements with index in [i, j). */
static inline double qz_sum1(const qz_sorted *s, size_t i, size_t j) { return s->s1[j] - s->s1[i]; }
static inline double qz_sum2(const qz_sorted *s, size_t i, size_t j) { return s->s2[j] - s->s2[i]; }
/* First index whose value is >= v (or len). */
size_t qz_lower_bound(const qz_sorted *s, double v);
/* First index whose value is > v (or len). */
size_t qz_upper_bound(const qz_sorted *s, double v);
/* The two searched outward from hint (qz_gallop_first, below), where the
 * value sought moves little from one call to the next: the same answers. */
size_t qz_lower_bound_near(const qz_sorted *s, double v, size_t hint);
size_t qz_upper_bound_near(const qz_sorted *s, double v, size_t hint);
/* The first k in [lo, hi] where pred(ctx, k) holds (pred false then true
 * over [lo, hi); hi if it never holds there), searched outward from hint by
 * doubling steps, then halving: where the answer moves little from one call
 * to the next (BinGrad-pb's fit) a few probes instead of a binary search's
 * nine over a bucket of 512. The same answer as the binary search; inline,
 * so that pred is too. */
static inline size_t qz_gallop_first(size_t lo, size_t hi, size_t hint, int (*pred)(const void *, size_t),
                                     const void *ctx)
{
    if (lo >= hi) return lo;
    const size_t h = hint < lo ? lo : hint >= hi ? hi - 1 : hint;
    size_t l, r, step = 1;
    if (pred(ctx, h)) { /* the answer is in [lo, h] */
        l = r = h;
        while (l > lo) {
            const size_t m = l - lo > step ? l - step : lo;
            if (!pred(ctx, m)) {
                l = m + 1;
                break;
            }
            l = r = m, step *= 2;
        }
    } else { /* in [h + 1, hi] */
        l = h + 1, r = hi;
        while (l < hi) {
            const size_t m = hi - l > step ? l + step - 1 : hi - 1;
            if (pred(ctx, m)) {
                r = m;
                break;
            }
            l = m + 1, step *= 2;
        }
    }
    while (l < r) {
        const size_t mid = l + (r - l) / 2;
        if (pred(ctx, mid))
            r = mid;
        else
            l = mid + 1;
    }
    return l;
}
/* Expected squared error of stochastic rounding of the elements in [a, c]
 * (by value) onto {a, c}: sum (c-x)(x-a). */
double qz_interval_cost(const qz_sorted *s, double a, double c);

/* Codes for x[0..len) whose first element has global index j0, splitting at
 * 2^32 index boundaries so each piece has one RNG key. */
void qz_dense_codes(const qz_dense *d, uint8_t *codes, const float *x, size_t j0, size_t len, const float *stored,
                    const qz_params *p, uint64_t seed);

/* ---- misc ---------------------------------------------------------------- */
/* Sum, sum of squares, sum of |x| and max |x| of x[0..n), and whether every
 * element is finite (when not, the other fields are meaningless). The fields
 * not asked for in `want` (QZ_MOMENT_* bits) may be left 0; finiteness is
 * always computed (from the max where it is asked for, else from the sums). */
enum { QZ_MOMENT_SUM = 1u << 0, QZ_MOMENT_SUMSQ = 1u << 1, QZ_MOMENT_SUMABS = 1u << 2, QZ_MOMENT_MAX = 1u << 3 };
typedef struct {
    double sum, sumsq, sumabs;
    float maxabs;
    int finite;
} qz_moments;
qz_moments qz_moments_of(const float *x, size_t n, unsigned want);
/* qz_moments_of of count <= QZ_FIT_MANY buckets of blen <= QZ_FIT_MANY_BUCKET
 * elements at x, x + blen, ... into out[0..count): the same values. */
#define QZ_FIT_MANY 4
#define QZ_FIT_MANY_BUCKET 1024
void qz_moments_many(qz_moments *out, const float *x, size_t blen, size_t count, unsigned want);

/* 1 if all finite. Integer test on the exponent bits (vectorizes). */
int qz_all_finite(const float *x, size_t n);

/* Overflow-checked size arithmetic: return 0 on success. */
static inline int qz_mul_ovf(size_t a, size_t b, size_t *r) { return __builtin_mul_overflow(a, b, r); }
static inline int qz_add_ovf(size_t a, size_t b, size_t *r) { return __builtin_add_overflow(a, b, r); }

#endif

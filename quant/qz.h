/* gqsim quantizers: the public API.
 *
 * Every quantizer turns a float array into a self-describing byte buffer
 * (header + per-bucket scales + packed codes; see docs/wire-format.md) and
 * back. Calling convention, in the lz4/zstd style:
 *   - the caller allocates the output: qz_bound() is the worst case in bytes;
 *   - scratch memory comes from a caller workspace of qz_workspace_size() bytes,
 *     so the hot path never allocates;
 *   - results are size_t byte counts or errors (gq_is_error()).
 * Randomness is counter-based (common/rng.h): the same seed gives the same
 * bytes. The size qz_encode() returns is exactly what the simulator charges. */
#ifndef GQ_QZ_H
#define GQ_QZ_H

#include <stddef.h>
#include <stdint.h>

#include "gq_error.h"

typedef enum {
    QZ_FP32 = 1,
    QZ_FP16,
    QZ_TERNGRAD,
    QZ_QSGD,
    QZ_ORQ,
    QZ_BINGRAD_B,
    QZ_BINGRAD_PB,
    QZ_SIGNSGD,
    QZ_TOPK,
    QZ_POWERSGD,
    QZ_ID_END_
} qz_id;

typedef enum { QZ_SCALE_MAX = 0, QZ_SCALE_SIGMA = 1 } qz_scale; /* terngrad scaler form */
/* How a dense codec's codes travel: bit-packed (terngrad 2bit, signsgd bit), five trits per byte (terngrad), or one
 * signed byte per element, -1/0/+1 (terngrad int8, signsgd byte: the wire of frameworks that do not pack bits). */
typedef enum { QZ_PACK_2BIT = 0, QZ_PACK_TRITS = 1, QZ_PACK_BYTE = 2 } qz_pack;
typedef enum { QZ_INDEX_AUTO = 0, QZ_INDEX_32 = 1, QZ_INDEX_64 = 2 } qz_index; /* topk index width */
typedef enum { QZ_NORM_L2 = 0, QZ_NORM_MAX = 1 } qz_norm;                      /* qsgd norm */
typedef enum { QZ_CODE_DENSE = 0, QZ_CODE_ELIAS = 1 } qz_code;                 /* qsgd wire code */
typedef enum { QZ_FIT_EXACT = 0, QZ_FIT_HIST = 1 } qz_fit; /* orq level search: the optimum's, or a histogram's */

#define QZ_QSGD_MAX_LEVELS 255u
#define QZ_ORQ_MAX_LEVELS 16u
#define QZ_POWERSGD_MAX_RANK 64u
/* powersgd refuses |g| at or above 2^60 (GQ_ERR_RANGE): its products (M Q, M^T P, P Q^T over up to 2^24 terms) would
 * overflow float */
#define QZ_POWERSGD_LARGEST 0x1p60f
#define QZ_POWERSGD_MAX_MIN 16777216u /* min= travels as a float: every count to 2^24 exactly */

typedef struct {
    qz_id id;
    uint64_t bucket;       /* elements per bucket; 0 = the whole array is one bucket */
    unsigned levels;       /* qsgd: total levels, odd >= 3; orq: 2..16 */
    float clip;            /* terngrad: c in c*sigma; 0 disables clipping */
    qz_scale scale;        /* terngrad: max of clipped |g|, or c*sigma */
    qz_pack pack;          /* terngrad: 2 bits, 5 trits per byte, or int8; signsgd: 1 bit or a byte */
    qz_norm norm;          /* qsgd */
    qz_code code;          /* qsgd */
    qz_fit fit;            /* orq: how the levels are searched (not on the wire: the levels are) */
    float ratio;           /* topk: fraction of elements kept, (0, 1] */
    qz_index index;        /* topk: u32 indices where n <= 2^32 else u64 (auto), or always u32 / u64 */
    float shared_scale;    /* terngrad scaler sharing: > 0 replaces every bucket's
                              scaler (not part of the spec string; travels in the
                              buffer as each bucket's scale) */
    unsigned rank;         /* powersgd: the factors' rank r, 1..64 */
    int warm;              /* powersgd: 1 = start from the caller's last Q (qz_encode_warm) */
    uint64_t min_elements; /* powersgd: tensors with fewer elements travel as floats */
    uint64_t rows;         /* powersgd: the matrix's rows (a layer's outputs; set by the caller, not part of the
                              spec; 0: the squarest shape of n); travels in the header */
} qz_params;

/* ---- registry and specs ------------------------------------------------ */

/* Number of quantizers and their canonical names, in qz_id order. */
size_t qz_count(void);
const char *qz_name(qz_id id);

/* Describes the keys of one quantizer for `gqsim quant list`, e.g.
 * "bucket=0 clip=2.5 scale=max|sigma pack=2bit|trits". */
const char *qz_keys_help(qz_id id);
/* One-line description of the quantizer. */
const char *qz_summary(qz_id id);
/* 1 if the quantizer is biased (E[Q(g)] != g: signsgd, topk, bingrad-b), as its codec row says. */
int qz_biased(qz_id id);
/* The GPU cost model's inputs for p, as its codec row says (docs/codec-costs.md): kernel launches and bytes of
 * memory traffic per element, encode (enc) and decode (dec); all 0 for fp32. */
void qz_gpu_traffic(const qz_params *p, double enc[2], double dec[2]);
/* Floating-point operations per element that the GPU cost model charges at the GPU's peak rate where they take
 * longer than the memory traffic (a roofline): PowerSGD's GEMMs, 4r to encode (M Q, M^T P), 2r to decode
 * (P Q^T); 0 for the element-wise codecs, whose arithmetic hides behind their traffic. */
void qz_gpu_flops(const qz_params *p, double *enc, double *dec);

/* Defaults of a quantizer, as `NAME` alone would give. */
gq_err qz_defaults(qz_id id, qz_params *p);

/* Parses `NAME[:key=value,...]` (docs/papers.md §2). On error writes one line naming the
 * bad part into msg (if msg_cap > 0). */
gq_err qz_parse_spec(const char *spec, qz_params *p, char *msg, size_t msg_cap);

/* Writes the canonical spec (every key spelled out) to buf.
 * @return the length it needed (like snprintf). */
size_t qz_format_spec(const qz_params *p, char *buf, size_t cap);

/* Short labels for a set of specs, for tables and legends: the quantizer's
 * name where no other spec of the set has that name, else the name and the
 * values in which that name's specs differ ("qsgd-9" beside "qsgd-3";
 * "qsgd-l2" beside "qsgd-max"). Equal specs get equal labels; distinct specs
 * distinct ones. Works on the text, so any NAME[:key=value,...] will do.
 * labels[i] has cap bytes (QZ_LABEL_MAX is plenty). */
#define QZ_LABEL_MAX 64
void qz_short_labels(const char *const *specs, size_t n, char (*labels)[QZ_LABEL_MAX]);

/* Checks every field's range; the same checks the parser applies. */
gq_err qz_validate(const qz_params *p, char *msg, size_t msg_cap);

/* ---- sizes ---------------------------------------------------------------- */

#define QZ_HEADER_BYTES 32u

/* Worst-case encoded size for n elements (header included); error on overflow. */
size_t qz_bound(const qz_params *p, size_t n);

/* Exact encoded size when it depends only on (p, n) — every codec except qsgd
 * with code=elias, whose size depends on the data. @return the size, or an
 * error (GQ_ERR_PARAM for data-dependent formats). */
size_t qz_exact_size(const qz_params *p, size_t n);

/* Scratch bytes qz_encode() needs for n elements. */
size_t qz_workspace_size(const qz_params *p, size_t n);

/* Number of distinct values one element can take on the wire for this
 * quantizer (its levels), 0 where it is not a level quantizer (fp32, fp16, topk). */
unsigned qz_level_count(const qz_params *p);

/* ---- encode / decode ----------------------------------------------------- */

/* Quantizes src[0..n) into dst.
 * @return bytes written, or an error (GQ_ERR_EMPTY, GQ_ERR_NONFINITE,
 * GQ_ERR_RANGE: a finite |x| at or above qz_largest_input(p), GQ_ERR_DST_TOO_SMALL, GQ_ERR_WORK_TOO_SMALL,
 * GQ_ERR_PARAM). Never writes past dst_cap. */
size_t qz_encode(void *dst, size_t dst_cap, const float *src, size_t n, const qz_params *p, uint64_t seed, void *work,
                 size_t work_cap);
/* The fewest bytes (header included) any buffer of n elements encoded with p has: its exact size where the size is
 * exact, else a lower bound from the wire format (a QSGD Elias bucket takes at least 33 bits; 0 payload bytes where
 * none is known). A header claiming more elements than its buffer can hold is refused by qz_decode on this. */
size_t qz_least_size(const qz_params *p, size_t n);
/* The magnitude from which p's encoder refuses a finite input (GQ_ERR_RANGE): QZ_POWERSGD_LARGEST for powersgd,
 * infinity (no finite input refused) for the others. */
float qz_largest_input(const qz_params *p);

/* TernGrad's scaler for x[0..n) as the encoder would compute it with p (one
 * bucket: p->bucket is ignored), for scaler sharing across workers: each
 * worker's scaler, then the maximum, passed back as p->shared_scale.
 * @return GQ_OK or GQ_ERR_NONFINITE / GQ_ERR_EMPTY / GQ_ERR_PARAM. */
gq_err qz_terngrad_scale(const qz_params *p, const float *x, size_t n, float *scale);

/* How close an ORQ encoder's levels come to the optimum: over up to max_buckets
 * whole buckets of x[0..n) spread from the first to the last, the expected
 * rounding error of the levels p's search fits (fit=exact or fit=hist) summed,
 * over that of the exact optimum's (an O(levels bucket^2) search); 1 is optimal.
 * @return GQ_OK; GQ_ERR_PARAM for a codec other than ORQ or a bucket longer
 * than QZ_EXCESS_MAX_BUCKET; GQ_ERR_NONFINITE; GQ_ERR_NOMEM. */
#define QZ_EXCESS_MAX_BUCKET 1024u
gq_err qz_levels_excess(const qz_params *p, const float *x, size_t n, size_t max_buckets, double *ratio);

/* ---- PowerSGD's pieces, for all-reducing its factors (train/exchange_run.c) ------------------------------
 * Shapes row-major: M rows x cols, P rows x r, Q cols x r. */

/* The matrix n elements are seen as (p->rows, else the squarest), and the rank sent: 0 where the tensor travels
 * as floats (a vector, factors no smaller than the matrix, fewer than min= elements). */
void qz_powersgd_shape(const qz_params *p, size_t n, size_t *rows, size_t *cols, size_t *rank);
/* A first Q: Gaussian, from the seed. */
void qz_powersgd_init_q(float *Q, size_t cols, size_t r, uint64_t seed);
void qz_powersgd_project(const float *M, size_t rows, size_t cols, const float *Q, size_t r, float *P); /* P = M Q */
void qz_powersgd_orthonormalize(float *P, size_t rows, size_t r); /* Gram-Schmidt on P's columns */
void qz_powersgd_back(const float *M, size_t rows, size_t cols, const float *P, size_t r, float *Q);   /* Q = M^T P */
void qz_powersgd_expand(const float *P, const float *Q, size_t rows, size_t cols, size_t r, float *M); /* M = P Q^T */

/* qz_encode with a caller's state: for powersgd with warm=on, warm_q (cols x r floats, from qz_powersgd_shape)
 * holds the last step's Q on entry (zeros are not a start: the caller initialises it with qz_powersgd_init_q) and
 * this step's Q' on return; for every other quantizer, or warm_q NULL, the same as qz_encode. */
size_t qz_encode_warm(void *dst, size_t dst_cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                      float *warm_q, void *work, size_t work_cap);

/* What a buffer's header says. */
typedef struct {
    qz_params params;
    uint64_t n;
    uint32_t version;
    uint32_t checksum;
} qz_header;

/* Reads and checks the header (magic, version, id, parameters).
 * Does not read the payload. */
gq_err qz_peek(const void *src, size_t src_size, qz_header *h);

/* Decodes a buffer from qz_encode(); the input is untrusted: every length,
 * code and index is checked, and the payload checksum verified.
 * @return the number of elements written, or an error. dst_cap is in elements. */
size_t qz_decode(float *dst, size_t dst_cap, const void *src, size_t src_size);

#endif

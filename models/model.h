/* Model descriptions: a plain-text layer table (docs/model-format.md) parsed
 * into layers with shapes, parameters (weights and biases apart, as TernGrad
 * quantizes them apart) and forward FLOPs, all derived from the shapes. The
 * simulator takes each layer's gradient size and compute share from here; the
 * trainer takes the small nets' layers. */
#ifndef GQ_MODEL_H
#define GQ_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "gq_error.h"

typedef enum {
    LAYER_CONV,
    LAYER_FC,
    LAYER_POOL,
    LAYER_RELU,
    LAYER_LRN,
    LAYER_BN,
    LAYER_CONCAT,
    LAYER_ADD,
    LAYER_DROPOUT,
    LAYER_SOFTMAX,
} layer_type;

typedef struct {
    int c, h, w;
} shape3;

#define MODEL_NAME_MAX 64
#define MODEL_MAX_INPUTS 8
#define MODEL_MAX_DIM (1 << 24) /* largest input channel count, height or width */

typedef struct {
    char name[MODEL_NAME_MAX];
    layer_type type;
    int inputs[MODEL_MAX_INPUTS]; /* layer indices; -1 = the model's input */
    int ninputs;
    /* conv, fc (out), pool (kernel, stride, pad) */
    int out, kh, kw, sh, sw, ph, pw, groups, bias;
    int pool_max, pool_global, pool_ceil;
    shape3 in, shape; /* input and output shapes, per image */
    uint64_t weight_params, bias_params;
    double fwd_flops; /* per image, 2 per multiply-add of conv and fc */
    int line;         /* where it was defined (or invoked, for macro layers) */
} model_layer;

typedef struct {
    char name[MODEL_NAME_MAX];
    char path[512]; /* the file it was read from, for a user's model ("" for built-ins) */
    shape3 input;
    int batch;             /* customary per-GPU batch (0: none given) */
    double backward_ratio; /* backward FLOPs = ratio x forward (default 2) */
    model_layer *layers;
    size_t nlayers;
    uint64_t weight_params, bias_params; /* totals */
    double fwd_flops;                    /* per image */
    double activations;                  /* per image: elements of every layer's output */
} model_t;

/* Parses a model description; `file` names it in errors. On failure writes
 * "FILE:LINE: reason" into msg and leaves m empty (model_free is still safe).
 * @return GQ_OK, GQ_ERR_SPEC (malformed) or GQ_ERR_NOMEM. */
gq_err model_parse(model_t *m, const char *text, const char *file, char *msg, size_t msg_cap);
void model_free(model_t *m);

static inline uint64_t model_params(const model_t *m) { return m->weight_params + m->bias_params; }
static inline uint64_t layer_params(const model_layer *l) { return l->weight_params + l->bias_params; }

/* "conv", "fc", ... */
const char *layer_type_name(layer_type t);

/* The arithmetic a model trains in: fp32; AMP, mixed precision (fp16 on tensor cores, fp16 gradients); TF32, fp32
 * storage with tensor-core matrix products (A100 and later). */
typedef enum { PRECISION_FP32, PRECISION_AMP, PRECISION_TF32 } precision_kind;
extern const char *const PRECISION_NAMES[]; /* NULL-terminated, in enum order */

/* Per-layer compute times for one iteration: the forward and backward totals
 * split by each layer's share of the forward FLOPs. fwd_s and bwd_s have
 * m->nlayers entries. Gradients become ready in reverse layer order. */
void model_layer_times(const model_t *m, double total_fwd_s, double total_bwd_s, double *fwd_s, double *bwd_s);

#endif

/* A per-tensor plan: which codec each of a model's gradient tensors travels with -- fp32, fp16 or a compressor --
 * as `gqsim advise --per-tensor` finds it (Espresso-style, tensor by tensor on the simulated critical path) and
 * `gqsim simulate --plan` reads it back. A plan file is CSV, a row a tensor: tensor (its layer's name with .weight
 * or .bias), elements (checked against the model: a plan for another model is refused), codec (a quantizer spec).
 * Rows in any order; every tensor of the model exactly once. */
#ifndef GQ_TENSOR_PLAN_H
#define GQ_TENSOR_PLAN_H

#include "exchange.h"
#include "gq_table.h"
#include "model.h"

typedef struct {
    size_t n;
    qz_params *quant; /* tensor k's codec, in xch_tensors' order (layers in order, weights before biases) */
} tensor_plan;

#define TENSOR_PLAN_COLUMNS "tensor", "elements", "codec"

/* n tensors, each q. @return GQ_OK or GQ_ERR_NOMEM. */
gq_err tensor_plan_init(tensor_plan *p, size_t n, const qz_params *q);
void tensor_plan_free(tensor_plan *p);
/* dst a copy of src. @return GQ_OK or GQ_ERR_NOMEM. */
gq_err tensor_plan_copy(tensor_plan *dst, const tensor_plan *src);

/* The model's gradient tensors (as xch_tensors lists them, whatever is quantized), into out (room for 2 x
 * nlayers); @return how many. */
size_t tensor_plan_tensors(const model_t *m, xch_tensor *out);
/* "conv1.weight", "conv1.bias". */
void tensor_plan_name(const model_t *m, const xch_tensor *t, char *out, size_t cap);

/* The plan as a table of TENSOR_PLAN_COLUMNS (printed as CSV, it is a plan file). */
gq_err tensor_plan_table(const model_t *m, const tensor_plan *p, gq_table *t);
/* Reads a plan file for model m; errors as "FILE:LINE: why". @return GQ_OK, GQ_ERR_SPEC or GQ_ERR_NOMEM. */
gq_err tensor_plan_parse(const char *text, size_t len, const char *file, const model_t *m, tensor_plan *p, char *msg,
                         size_t cap);
/* "per tensor: 12 terngrad:...; 3 fp16; 1 fp32": each codec's tensors, by its spec, most first. */
void tensor_plan_describe(const tensor_plan *p, char *out, size_t cap);

#endif

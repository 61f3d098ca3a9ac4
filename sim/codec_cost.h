/* What encoding and decoding cost per element, as the simulator charges
 * it. Today: the real codec timed on this machine (the fastest of three
 * trials on 2^20 Gaussian elements, each a batch of calls lasting at least
 * 20 ms; cached per quantizer for the process). */
#ifndef GQ_CODEC_COST_H
#define GQ_CODEC_COST_H

#include "qz.h"

/* Encode and decode nanoseconds per element of quantizer q (0 for fp32). */
gq_err codec_cost_measure(const qz_params *q, double *encode_ns, double *decode_ns);

/* A Gaussian gradient of n elements (sigma 1e-3, the size of typical
 * gradients), the same for the same seed: what sizes and costs are measured on. */
void codec_cost_gaussian(float *x, size_t n, uint64_t seed);

#endif

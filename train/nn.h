/* A small CNN trainer's network, built from a models/ layer table: plain
 * kernels over flat float arrays (llm.c style), parameters and gradients each
 * in one contiguous block with per-layer offsets, stride-1 convolutions
 * computed directly (conv_direct.c), others by im2col + CBLAS sgemm, and a
 * naive convolution beside them for tests. Supported layers:
 * conv (groups 1), fc, relu, pool (max, avg, global), dropout (p = 0.5), and a
 * final softmax trained with cross-entropy; the layers form a chain. */
#ifndef GQ_NN_H
#define GQ_NN_H

#include <stddef.h>
#include <stdint.h>

#include "gq_error.h"
#include "model.h"

typedef struct {
    const model_t *model;
    int nlayers; /* excluding the final softmax */
    size_t num_params;
    float *params, *grads;
    size_t *w_off, *b_off; /* per layer; w_off[i] == b_off[i] when it has none */
    size_t *out_size;      /* per layer: elements of one image's output */
    int max_batch;
    float **act, **dact; /* per layer outputs and their gradients, max_batch images */
    int **argmax;        /* max pooling */
    uint8_t **mask;      /* dropout */
    float *col;          /* the convolutions' scratch (conv2d_work_floats for max_batch) */
    float *probs;        /* softmax output */
    size_t in_size, classes;
} net_t;

/* Where each layer's weights, then its biases, start in the one flat block of parameters (and of gradients);
 * w_off and b_off hold m->nlayers each. @return the number of parameters. */
size_t net_layout(const model_t *m, size_t *w_off, size_t *b_off);
/* @return GQ_OK, or GQ_ERR_PARAM with a reason (unsupported layer, not a chain). */
gq_err net_init(net_t *n, const model_t *m, int max_batch, uint64_t seed, char *msg, size_t cap);
void net_free(net_t *n);

/* Forward pass of B images (B x in_size floats); train != 0 applies dropout
 * with masks drawn from `seed`. */
void net_forward(net_t *n, const float *input, int B, int train, uint64_t seed);
/* Softmax cross-entropy of the last forward pass; with backward != 0 adds the
 * gradients of the mean loss to n->grads. @return the mean loss; *correct
 * counts right predictions. */
float net_loss(net_t *n, const float *input, const uint8_t *labels, int B, int backward, int *correct);
void net_zero_grad(net_t *n);

/* ---- kernels (exposed for tests) ---------------------------------------- */
/* Scratch floats the convolution kernels need for a batch of B (either
 * path): an im2col matrix (C*KH*KW, B*HO*WO) and an (OC, B*HO*WO) product,
 * or the direct path's padded images and gradients. */
size_t conv2d_work_floats(int B, int C, int H, int W, int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO,
                          int WO);
/* inp is (B,C,H,W), w is (OC,C,KH,KW), out is (B,OC,HO,WO); work holds
 * conv2d_work_floats(...) floats; relu: out gets max(0, the convolution)
 * (x > 0 ? x : 0, as a ReLU layer), written once instead of twice */
void conv2d_forward(float *out, const float *inp, const float *w, const float *b, int B, int C, int H, int W, int OC,
                    int KH, int KW, int SH, int SW, int PH, int PW, int HO, int WO, float *work, int relu);
void conv2d_forward_naive(float *out, const float *inp, const float *w, const float *b, int B, int C, int H, int W,
                          int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO, int WO);
/* accumulates into dinp (if not NULL), dw and db */
void conv2d_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w, int B,
                     int C, int H, int W, int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO, int WO,
                     float *work);
/* The two paths behind conv2d_forward/backward, exposed for tests: im2col
 * takes any stride; direct takes stride 1 with HO = H + 2PH - KH + 1 (and
 * the same across), in conv2d_direct_work_floats floats of work. */
void conv2d_forward_im2col(float *out, const float *inp, const float *w, const float *b, int B, int C, int H, int W,
                           int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO, int WO, float *work,
                           int relu);
void conv2d_backward_im2col(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w,
                            int B, int C, int H, int W, int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO,
                            int WO, float *work);
size_t conv2d_direct_span(void); /* output positions per block of the direct kernels */
size_t conv2d_direct_work_floats(int C, int H, int W, int OC, int KH, int KW, int PH, int PW, int HO, int WO);
void conv2d_forward_direct(float *out, const float *inp, const float *w, const float *b, int B, int C, int H, int W,
                           int OC, int KH, int KW, int PH, int PW, int HO, int WO, float *work, int relu);
void conv2d_backward_direct(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w,
                            int B, int C, int H, int W, int OC, int KH, int KW, int PH, int PW, int HO, int WO,
                            float *work);
/* 2x2 max pooling with stride 2 and no padding, in vectors: out (B,C,HO,WO)
 * each window's maximum, arg (B,C,HO,WO) its index in its input plane, the
 * first in scan order among equal values. Returns 0 and writes nothing for
 * a shape it does not take (rows narrower than a vector or wider than 64),
 * which the caller pools with the general loop. */
int pool_max_2x2(float *out, int *arg, const float *inp, int B, int C, int H, int W, int HO, int WO);
/* Its gradient: dinp (B,C,H,W) written whole, dout where arg points, zero
 * elsewhere; with a gate (B,C,HO,WO), dout only where the gate is positive
 * (a ReLU before the pooling: its gradient at once, gated by the pooling's
 * output, the ReLU's output at arg). 0 (nothing written) for the shapes
 * pool_max_2x2 declines. */
int pool_max_2x2_backward(float *dinp, const int *arg, const float *dout, const float *gate, int B, int C, int H, int W,
                          int HO, int WO);
/* A ReLU's output: x > 0 ? x : 0 where relu is set (a NaN gives 0), else x. */
static inline float relu_if(int relu, float x) { return relu && !(x > 0) ? 0.0f : x; }
/* inp is (B,NI), w is (NO,NI), out is (B,NO) */
void fc_forward(float *out, const float *inp, const float *w, const float *b, int B, int NI, int NO);
void fc_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w, int B, int NI,
                 int NO);

#endif

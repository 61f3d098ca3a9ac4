/* The network and its kernels; see nn.h. Backward passes accumulate (+=)
 * into gradients, net_zero_grad() clears them. */
#include "nn.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* ---- convolution ------------------------------------------------------------------ */

/* The output columns ow whose input column ow*S - P + k lies inside [0, W):
 * [*lo, *hi). */
static void valid_range(int WO, int W, int S, int P, int k, int *lo, int *hi)
{
    int a = P - k, b = W - 1 + P - k; /* need a <= ow*S <= b */
    int l = a <= 0 ? 0 : (a + S - 1) / S, h = b < 0 ? -1 : b / S;
    *lo = l < WO ? l : WO;
    *hi = h + 1 < *lo ? *lo : (h + 1 < WO ? h + 1 : WO);
}

/* One image (C,H,W) into HO*WO columns of col, whose rows are `ld` floats
 * apart: col is (C*KH*KW, ld), and a batch's images sit side by side in it.
 * Each output row is zeros, a copied (or strided) run, zeros: no bounds test
 * per element. */
static void im2col(float *col, size_t ld, const float *img, int C, int H, int W, int KH, int KW, int SH, int SW, int PH,
                   int PW, int HO, int WO)
{
    for (int c = 0; c < C; c++)
        for (int kh = 0; kh < KH; kh++)
            for (int kw = 0; kw < KW; kw++) {
                float *row = col + ((size_t)(c * KH + kh) * KW + kw) * ld;
                int lo, hi;
                valid_range(WO, W, SW, PW, kw, &lo, &hi);
                for (int oh = 0; oh < HO; oh++) {
                    int ih = oh * SH - PH + kh;
                    float *r = row + (size_t)oh * WO;
                    if (ih < 0 || ih >= H) {
                        memset(r, 0, (size_t)WO * sizeof *r);
                        continue;
                    }
                    const float *x = img + ((size_t)c * H + ih) * W; /* r[ow] is x[ow*SW - PW + kw] */
                    for (int ow = 0; ow < lo; ow++) r[ow] = 0;
                    if (SW == 1 && hi > lo)
                        memcpy(r + lo, x + lo - PW + kw, (size_t)(hi - lo) * sizeof *r);
                    else
                        for (int ow = lo; ow < hi; ow++) r[ow] = x[ow * SW - PW + kw];
                    for (int ow = hi; ow < WO; ow++) r[ow] = 0;
                }
            }
}

static void col2im(float *img, const float *col, size_t ld, int C, int H, int W, int KH, int KW, int SH, int SW, int PH,
                   int PW, int HO, int WO)
{
    for (int c = 0; c < C; c++)
        for (int kh = 0; kh < KH; kh++)
            for (int kw = 0; kw < KW; kw++) {
                const float *row = col + ((size_t)(c * KH + kh) * KW + kw) * ld;
                int lo, hi;
                valid_range(WO, W, SW, PW, kw, &lo, &hi);
                for (int oh = 0; oh < HO; oh++) {
                    int ih = oh * SH - PH + kh;
                    if (ih < 0 || ih >= H) continue;
                    float *x = img + ((size_t)c * H + ih) * W;
                    const float *r = row + (size_t)oh * WO;
                    if (SW == 1) /* contiguous: it vectorises */
                        for (int ow = lo; ow < hi; ow++) x[ow - PW + kw] += r[ow];
                    else
                        for (int ow = lo; ow < hi; ow++) x[ow * SW - PW + kw] += r[ow];
                }
            }
}

/* Stride 1 with the output the padded input allows, and few positions
 * computed only to be thrown away (the direct kernels compute whole rows of
 * the padded input, in blocks of conv2d_direct_span()): conv_direct.c.
 * Anything else, such as LeNet's conv3 (a 1x1 output from 5x5: 16 positions
 * for 1), through im2col and a GEMM. */
static int direct(int H, int W, int KH, int KW, int SH, int SW, int PH, int PW, int HO, int WO)
{
    if (!(SH == 1 && SW == 1 && HO == H + 2 * PH - KH + 1 && WO == W + 2 * PW - KW + 1)) return 0;
    const size_t span = conv2d_direct_span(), useful = (size_t)HO * WO;
    const size_t computed = ((size_t)HO * (size_t)(W + 2 * PW) + span - 1) / span * span;
    return 2 * computed <= 3 * useful;
}

size_t conv2d_work_floats(int B, int C, int H, int W, int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO,
                          int WO)
{
    size_t im2col = ((size_t)C * KH * KW + (size_t)OC) * (size_t)B * HO * WO;
    if (!direct(H, W, KH, KW, SH, SW, PH, PW, HO, WO)) return im2col;
    size_t d = conv2d_direct_work_floats(C, H, W, OC, KH, KW, PH, PW, HO, WO);
    return d > im2col ? d : im2col; /* the tests run both paths on one scratch */
}

/* The whole batch in one product: col is (K, B*P) with the images side by
 * side, t = w x col is (OC, B*P), then scattered to (B, OC, P). One large
 * GEMM instead of B small ones. */
void conv2d_forward_im2col(float *out, const float *inp, const float *w, const float *b, int B, int C, int H, int W,
                           int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO, int WO, float *work,
                           int relu)
{
    const int K = C * KH * KW, P = HO * WO;
    const size_t BP = (size_t)B * P;
    float *col = work, *t = work + (size_t)K * BP;
    for (int n = 0; n < B; n++)
        im2col(col + (size_t)n * P, BP, inp + (size_t)n * C * H * W, C, H, W, KH, KW, SH, SW, PH, PW, HO, WO);
    /* t (OC, B*P) = w (OC, K) x col (K, B*P) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, OC, (int)BP, K, 1.0f, w, K, col, (int)BP, 0.0f, t, (int)BP);
    for (int n = 0; n < B; n++)
        for (int oc = 0; oc < OC; oc++) {
            float *o = out + ((size_t)n * OC + oc) * P;
            const float *src = t + (size_t)oc * BP + (size_t)n * P, bias = b ? b[oc] : 0;
            for (int p = 0; p < P; p++) o[p] = relu_if(relu, src[p] + bias);
        }
}

void conv2d_forward_naive(float *out, const float *inp, const float *w, const float *b, int B, int C, int H, int W,
                          int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO, int WO)
{
    for (int n = 0; n < B; n++)
        for (int oc = 0; oc < OC; oc++)
            for (int oh = 0; oh < HO; oh++)
                for (int ow = 0; ow < WO; ow++) {
                    double s = b ? b[oc] : 0;
                    for (int c = 0; c < C; c++)
                        for (int kh = 0; kh < KH; kh++)
                            for (int kw = 0; kw < KW; kw++) {
                                int ih = oh * SH - PH + kh, iw = ow * SW - PW + kw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                s += (double)w[((oc * C + c) * KH + kh) * KW + kw] *
                                     inp[(((size_t)n * C + c) * H + ih) * W + iw];
                            }
                    out[(((size_t)n * OC + oc) * HO + oh) * WO + ow] = (float)s;
                }
}

void conv2d_backward_im2col(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w,
                            int B, int C, int H, int W, int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO,
                            int WO, float *work)
{
    const int K = C * KH * KW, P = HO * WO;
    const size_t BP = (size_t)B * P;
    float *col = work, *t = work + (size_t)K * BP;
    /* t (OC, B*P): the batch's output gradients side by side */
    for (int n = 0; n < B; n++)
        for (int oc = 0; oc < OC; oc++)
            memcpy(t + (size_t)oc * BP + (size_t)n * P, dout + ((size_t)n * OC + oc) * P, (size_t)P * sizeof *t);
    if (db)
        for (int oc = 0; oc < OC; oc++) {
            float s = 0;
            for (size_t p = 0; p < BP; p++) s += t[(size_t)oc * BP + p];
            db[oc] += s;
        }
    for (int n = 0; n < B; n++)
        im2col(col + (size_t)n * P, BP, inp + (size_t)n * C * H * W, C, H, W, KH, KW, SH, SW, PH, PW, HO, WO);
    /* dw (OC, K) += t (OC, B*P) x col^T (B*P, K) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, OC, K, (int)BP, 1.0f, t, (int)BP, col, (int)BP, 1.0f, dw, K);
    if (dinp) {
        /* dcol (K, B*P) = w^T (K, OC) x t (OC, B*P) */
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, (int)BP, OC, 1.0f, w, K, t, (int)BP, 0.0f, col,
                    (int)BP);
        for (int n = 0; n < B; n++)
            col2im(dinp + (size_t)n * C * H * W, col + (size_t)n * P, BP, C, H, W, KH, KW, SH, SW, PH, PW, HO, WO);
    }
}

/* A kernel that covers the whole unpadded image (LeNet's conv3) is a fully
 * connected layer: the image is its im2col column, (B, OC, 1, 1) is (B, OC). */
static int whole_image(int H, int W, int KH, int KW, int PH, int PW, int HO, int WO)
{
    return KH == H && KW == W && PH == 0 && PW == 0 && HO == 1 && WO == 1;
}

void conv2d_forward(float *out, const float *inp, const float *w, const float *b, int B, int C, int H, int W, int OC,
                    int KH, int KW, int SH, int SW, int PH, int PW, int HO, int WO, float *work, int relu)
{
    if (whole_image(H, W, KH, KW, PH, PW, HO, WO)) {
        fc_forward(out, inp, w, b, B, C * H * W, OC);
        for (size_t k = 0; relu && k < (size_t)B * OC; k++) out[k] = relu_if(1, out[k]);
    } else if (direct(H, W, KH, KW, SH, SW, PH, PW, HO, WO)) {
        conv2d_forward_direct(out, inp, w, b, B, C, H, W, OC, KH, KW, PH, PW, HO, WO, work, relu);
    } else {
        conv2d_forward_im2col(out, inp, w, b, B, C, H, W, OC, KH, KW, SH, SW, PH, PW, HO, WO, work, relu);
    }
}

void conv2d_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w, int B,
                     int C, int H, int W, int OC, int KH, int KW, int SH, int SW, int PH, int PW, int HO, int WO,
                     float *work)
{
    if (whole_image(H, W, KH, KW, PH, PW, HO, WO))
        fc_backward(dinp, dw, db, dout, inp, w, B, C * H * W, OC);
    else if (direct(H, W, KH, KW, SH, SW, PH, PW, HO, WO))
        conv2d_backward_direct(dinp, dw, db, dout, inp, w, B, C, H, W, OC, KH, KW, PH, PW, HO, WO, work);
    else
        conv2d_backward_im2col(dinp, dw, db, dout, inp, w, B, C, H, W, OC, KH, KW, SH, SW, PH, PW, HO, WO, work);
}

/* ---- fully connected ---------------------------------------------------------------- */

void fc_forward(float *out, const float *inp, const float *w, const float *b, int B, int NI, int NO)
{
    for (int n = 0; n < B; n++)
        for (int o = 0; o < NO; o++) out[(size_t)n * NO + o] = b ? b[o] : 0;
    /* out (B, NO) += inp (B, NI) x w^T (NI, NO) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, NO, NI, 1.0f, inp, NI, w, NI, 1.0f, out, NO);
}

void fc_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w, int B, int NI,
                 int NO)
{
    if (db)
        for (int n = 0; n < B; n++)
            for (int o = 0; o < NO; o++) db[o] += dout[(size_t)n * NO + o];
    /* dw (NO, NI) += dout^T (NO, B) x inp (B, NI) */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, NO, NI, B, 1.0f, dout, NO, inp, NI, 1.0f, dw, NI);
    /* dinp (B, NI) += dout (B, NO) x w (NO, NI) */
    if (dinp) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, NI, NO, 1.0f, dout, NO, w, NI, 1.0f, dinp, NI);
}

/* ---- pooling, relu, dropout ------------------------------------------------------------ */

/* 2x2 max pooling with stride 2 and no padding (LeNet's), every window
 * inside the image, in vectors: scalar selects on floats do not if-convert
 * under GCC's default -ftrapping-math, and the branches they became were 14%
 * of an epoch on Zen 5. Two passes over a block of row pairs: down the
 * columns (each column's larger of its two rows, the top one on a tie), then
 * along the row pairs, flat (the larger of each column pair, on a tie the one
 * with the smaller index). Either way the result is the window's maximum at
 * its first position in scan order, the same maximum and arg as the general
 * loop in pool_forward, which keeps the first of equal values (NaN aside).
 * Vectors overlap at a row's end instead of a scalar tail: recomputing an
 * element writes the same value. */
#ifdef __AVX__
#define PV 8
#else
#define PV 4
#endif
typedef float pvf __attribute__((vector_size(PV * 4)));
typedef int pvi __attribute__((vector_size(PV * 4)));
typedef float pvf_u __attribute__((vector_size(PV * 4), aligned(4), may_alias));
typedef int pvi_u __attribute__((vector_size(PV * 4), aligned(4), may_alias));
#define POOL_BLOCK 16 /* row pairs a block: PV divides POOL_BLOCK * WO */
#define POOL_MAX_W 64 /* wider rows take the general loop */
#if PV == 8
#define EVENS(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14)
#define ODDS(a, b) __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15)
#else
#define EVENS(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6)
#define ODDS(a, b) __builtin_shufflevector(a, b, 1, 3, 5, 7)
#endif

/* The shapes the vector pooling and its gradient take: every window inside
 * the image, rows of a vector at least and of POOL_MAX_W at most. */
static int pool_max_2x2_fits(int H, int W, int HO, int WO)
{
    return 2 * HO <= H && 2 * WO <= W && 2 * WO >= PV && W <= POOL_MAX_W && (size_t)H * W < (1u << 30);
}

/* A layer the vector pooling computes where its shape fits: 2x2 max pooling, stride 2, no padding. */
static int pool_is_max_2x2(const model_layer *L)
{
    return L->pool_max && L->kh == 2 && L->kw == 2 && L->sh == 2 && L->sw == 2 && L->ph == 0 && L->pw == 0;
}

int pool_max_2x2(float *out, int *arg, const float *inp, int B, int C, int H, int W, int HO, int WO)
{
    if (!pool_max_2x2_fits(H, W, HO, WO)) return 0;
    const int W2 = 2 * WO; /* columns that some window covers */
    const size_t pairs = (size_t)B * C * HO;
    pvi iota;
    for (int k = 0; k < PV; k++) iota[k] = k;
    float m[POOL_BLOCK * POOL_MAX_W];
    int at[POOL_BLOCK * POOL_MAX_W];
    for (size_t q0 = 0; q0 < pairs; q0 += POOL_BLOCK) {
        const size_t np = pairs - q0 < POOL_BLOCK ? pairs - q0 : POOL_BLOCK;
        for (size_t j = 0; j < np; j++) {
            const size_t q = q0 + j, plane = q / (size_t)HO;
            const int oh = (int)(q % (size_t)HO);
            const float *r0 = inp + plane * H * W + (size_t)2 * oh * W, *r1 = r0 + W;
            for (int w = 0;; w += PV) {
                if (w > W2 - PV) w = W2 - PV;
                pvf a = *(const pvf_u *)(const void *)(r0 + w), b = *(const pvf_u *)(const void *)(r1 + w);
                pvi lower = b > a; /* all ones where the lower row's value wins */
                *(pvf_u *)(void *)(m + j * W2 + w) = (pvf)(((pvi)b & lower) | ((pvi)a & ~lower));
                *(pvi_u *)(void *)(at + j * W2 + w) = iota + (2 * oh * W + w) + (W & lower);
                if (w == W2 - PV) break;
            }
        }
        const size_t n = np * W2 / 2; /* outputs of this block */
        float *o = out + q0 * WO;
        int *ao = arg + q0 * WO;
        for (size_t k = 0;; k += PV) {
            if (n < PV) break;
            if (k > n - PV) k = n - PV;
            pvf x0 = *(const pvf_u *)(const void *)(m + 2 * k), x1 = *(const pvf_u *)(const void *)(m + 2 * k + PV);
            pvi i0 = *(const pvi_u *)(const void *)(at + 2 * k), i1 = *(const pvi_u *)(const void *)(at + 2 * k + PV);
            pvf a = EVENS(x0, x1), b = ODDS(x0, x1);
            pvi ia = EVENS(i0, i1), ib = ODDS(i0, i1);
            pvi right = (b > a) | ((b == a) & (ib < ia));
            *(pvf_u *)(void *)(o + k) = (pvf)(((pvi)b & right) | ((pvi)a & ~right));
            *(pvi_u *)(void *)(ao + k) = (ib & right) | (ia & ~right);
            if (k == n - PV) break;
        }
        for (size_t k = 0; n < PV && k < n; k++) {
            float a = m[2 * k], b = m[2 * k + 1];
            int right = b > a || (b == a && at[2 * k + 1] < at[2 * k]);
            o[k] = right ? b : a;
            ao[k] = right ? at[2 * k + 1] : at[2 * k];
        }
    }
    return 1;
}

/* The gradient of 2x2 max pooling with stride 2 into dinp, every element
 * written: the window's output gradient where arg points, zero elsewhere
 * (and on a last row or column no window covers). Windows do not overlap, so
 * this is the scatter-add into zeros of pool_backward, bit for bit (0 + d:
 * a -0 gradient lands as +0 there too), without the memset and the scalar
 * scatter. In vectors of PV input columns of a row pair, from PV/2 outputs;
 * the last vector of a pair overlaps the one before. Returns 0 where
 * pool_max_2x2 would (rows narrower than a vector, or wider than 64). */
typedef float pvf_half __attribute__((vector_size(PV * 2), aligned(4), may_alias));
typedef int pvi_half __attribute__((vector_size(PV * 2), aligned(4), may_alias));
#if PV == 8
#define PAIRS(h) __builtin_shufflevector(h, h, 0, 0, 1, 1, 2, 2, 3, 3)
#else
#define PAIRS(h) __builtin_shufflevector(h, h, 0, 0, 1, 1)
#endif
int pool_max_2x2_backward(float *dinp, const int *arg, const float *dout, const float *gate, int B, int C, int H, int W,
                          int HO, int WO)
{
    const int W2 = 2 * WO;
    if (!pool_max_2x2_fits(H, W, HO, WO)) return 0;
    pvi iota;
    for (int k = 0; k < PV; k++) iota[k] = k;
    for (size_t plane = 0; plane < (size_t)B * C; plane++) {
        float *dx = dinp + plane * H * W;
        for (int oh = 0; oh < HO; oh++) {
            const int *ar = arg + (plane * HO + (size_t)oh) * WO;
            const float *dd = dout + (plane * HO + (size_t)oh) * WO;
            const float *gg = gate ? gate + (plane * HO + (size_t)oh) * WO : NULL;
            float *top = dx + (size_t)2 * oh * W, *bottom = top + W;
            for (int w = 0;; w += PV) {
                if (w > W2 - PV) w = W2 - PV;
                pvf_half dh = *(const pvf_half *)(const void *)(dd + w / 2);
                pvi_half ah = *(const pvi_half *)(const void *)(ar + w / 2);
                if (gg) { /* dh where the gate is positive, else 0 */
                    pvf_half gh = *(const pvf_half *)(const void *)(gg + w / 2);
                    dh = (__typeof__(dh))((__typeof__(ah))dh & (gh > 0));
                }
                pvf d = PAIRS(dh) + 0.0f;
                pvi a = PAIRS(ah), col = iota + (2 * oh * W + w);
                *(pvf_u *)(void *)(top + w) = (pvf)((pvi)d & (a == col));
                *(pvf_u *)(void *)(bottom + w) = (pvf)((pvi)d & (a == col + W));
                if (w == W2 - PV) break;
            }
            for (int w = W2; w < W; w++) top[w] = bottom[w] = 0;
        }
        if (2 * HO < H) memset(dx + (size_t)2 * HO * W, 0, (size_t)(H - 2 * HO) * W * sizeof *dx);
    }
    return 1;
}

static void pool_forward(float *out, int *arg, const float *inp, int B, int C, int H, int W, const model_layer *L)
{
    const int HO = L->shape.h, WO = L->shape.w;
    if (pool_is_max_2x2(L) && pool_max_2x2(out, arg, inp, B, C, H, W, HO, WO)) return;
    for (int n = 0; n < B; n++)
        for (int c = 0; c < C; c++) {
            const float *x = inp + ((size_t)n * C + c) * H * W;
            for (int oh = 0; oh < HO; oh++)
                for (int ow = 0; ow < WO; ow++) {
                    float best = -INFINITY, sum = 0;
                    int at = -1, count = 0;
                    for (int kh = 0; kh < L->kh; kh++)
                        for (int kw = 0; kw < L->kw; kw++) {
                            int ih = oh * L->sh - L->ph + kh, iw = ow * L->sw - L->pw + kw;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            float v = x[ih * W + iw];
                            if (v > best) best = v, at = ih * W + iw;
                            sum += v, count++;
                        }
                    size_t o = (((size_t)n * C + c) * HO + oh) * WO + ow;
                    if (L->pool_max) {
                        out[o] = best;
                        arg[o] = at;
                    } else {
                        out[o] = count ? sum / count : 0;
                    }
                }
        }
}

static void pool_backward(float *dinp, const int *arg, const float *dout, int B, int C, int H, int W,
                          const model_layer *L)
{
    const int HO = L->shape.h, WO = L->shape.w;
    for (int n = 0; n < B; n++)
        for (int c = 0; c < C; c++) {
            float *dx = dinp + ((size_t)n * C + c) * H * W;
            for (int oh = 0; oh < HO; oh++)
                for (int ow = 0; ow < WO; ow++) {
                    size_t o = (((size_t)n * C + c) * HO + oh) * WO + ow;
                    if (L->pool_max) {
                        if (arg[o] >= 0) dx[arg[o]] += dout[o];
                        continue;
                    }
                    int count = 0;
                    for (int pass = 0; pass < 2; pass++)
                        for (int kh = 0; kh < L->kh; kh++)
                            for (int kw = 0; kw < L->kw; kw++) {
                                int ih = oh * L->sh - L->ph + kh, iw = ow * L->sw - L->pw + kw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                if (pass == 0)
                                    count++;
                                else
                                    dx[ih * W + iw] += dout[o] / count;
                            }
                }
        }
}

/* ---- the network ------------------------------------------------------------------------ */

static shape3 in_shape(const net_t *n, int i) { return i == 0 ? n->model->input : n->model->layers[i - 1].shape; }
static size_t elems(shape3 s) { return (size_t)s.c * s.h * s.w; }

size_t net_layout(const model_t *m, size_t *w_off, size_t *b_off)
{
    size_t off = 0;
    for (size_t i = 0; i < m->nlayers; i++) {
        w_off[i] = off, off += (size_t)m->layers[i].weight_params;
        b_off[i] = off, off += (size_t)m->layers[i].bias_params;
    }
    return off;
}

gq_err net_init(net_t *n, const model_t *m, int max_batch, uint64_t seed, char *msg, size_t cap)
{
    memset(n, 0, sizeof *n);
    n->model = m;
    n->max_batch = max_batch;
    int L = (int)m->nlayers;
    if (L < 2 || m->layers[L - 1].type != LAYER_SOFTMAX)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: the last layer must be softmax to train with cross-entropy",
                       m->name);
    n->nlayers = L - 1;
    for (int i = 0; i < L; i++) {
        const model_layer *l = &m->layers[i];
        if (l->ninputs != 1 || l->inputs[0] != i - 1)
            return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: layer '%s' does not take the previous layer: not a chain",
                           m->name, l->name);
        int ok = l->type == LAYER_CONV || l->type == LAYER_FC || l->type == LAYER_RELU || l->type == LAYER_POOL ||
                 l->type == LAYER_DROPOUT || (l->type == LAYER_SOFTMAX && i == L - 1);
        if (!ok || (l->type == LAYER_CONV && l->groups != 1))
            return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: layer '%s' (%s%s) is not trainable here", m->name, l->name,
                           layer_type_name(l->type), l->type == LAYER_CONV ? ", grouped" : "");
    }
    n->w_off = calloc((size_t)L, sizeof *n->w_off);
    n->b_off = calloc((size_t)L, sizeof *n->b_off);
    n->out_size = calloc((size_t)L, sizeof *n->out_size);
    n->act = calloc((size_t)L, sizeof *n->act);
    n->dact = calloc((size_t)L, sizeof *n->dact);
    n->argmax = calloc((size_t)L, sizeof *n->argmax);
    n->mask = calloc((size_t)L, sizeof *n->mask);
    if (!n->w_off || !n->b_off || !n->out_size || !n->act || !n->dact || !n->argmax || !n->mask) return GQ_ERR_NOMEM;
    const size_t off = net_layout(m, n->w_off, n->b_off);
    size_t col = 0;
    for (int i = 0; i < n->nlayers; i++) {
        const model_layer *l = &m->layers[i];
        n->out_size[i] = elems(l->shape);
        n->act[i] = calloc((size_t)max_batch * n->out_size[i], sizeof(float));
        n->dact[i] = calloc((size_t)max_batch * n->out_size[i], sizeof(float));
        if (!n->act[i] || !n->dact[i]) return GQ_ERR_NOMEM;
        if (l->type == LAYER_POOL && l->pool_max &&
            !(n->argmax[i] = calloc((size_t)max_batch * n->out_size[i], sizeof(int))))
            return GQ_ERR_NOMEM;
        if (l->type == LAYER_DROPOUT && !(n->mask[i] = calloc((size_t)max_batch * n->out_size[i], 1)))
            return GQ_ERR_NOMEM;
        if (l->type == LAYER_CONV) {
            shape3 s = in_shape(n, i);
            size_t need = conv2d_work_floats(max_batch, s.c, s.h, s.w, l->out, l->kh, l->kw, l->sh, l->sw, l->ph, l->pw,
                                             l->shape.h, l->shape.w);
            col = need > col ? need : col;
        }
    }
    n->num_params = off;
    n->in_size = elems(m->input);
    n->classes = n->out_size[n->nlayers - 1];
    n->params = calloc(off ? off : 1, sizeof(float));
    n->grads = calloc(off ? off : 1, sizeof(float));
    n->col = calloc(col ? col : 1, sizeof(float));
    n->probs = calloc((size_t)max_batch * n->classes, sizeof(float));
    if (!n->params || !n->grads || !n->col || !n->probs) return GQ_ERR_NOMEM;
    /* He initialisation: N(0, 2 / fan_in), seeded; biases zero */
    rng_t r;
    rng_init(&r, seed);
    for (int i = 0; i < n->nlayers; i++) {
        const model_layer *l = &m->layers[i];
        if (!l->weight_params) continue;
        double fan_in = (double)l->weight_params / l->out; /* C*KH*KW, or I */
        double sd = sqrt(2.0 / fan_in);
        float *w = n->params + n->w_off[i];
        for (uint64_t k = 0; k < l->weight_params; k++) { /* He's draws: the first of each pair */
            double z0, z1;
            rng_gaussian_pair(&r, sd, &z0, &z1);
            w[k] = (float)z0;
        }
    }
    return GQ_OK;
}

void net_free(net_t *n)
{
    for (int i = 0; n->act && i < n->nlayers; i++) {
        free(n->act[i]);
        free(n->dact[i]);
        free(n->argmax[i]);
        free(n->mask[i]);
    }
    free(n->act), free(n->dact), free(n->argmax), free(n->mask);
    free(n->w_off), free(n->b_off), free(n->out_size);
    free(n->params), free(n->grads), free(n->col), free(n->probs);
    memset(n, 0, sizeof *n);
}

void net_zero_grad(net_t *n) { memset(n->grads, 0, n->num_params * sizeof(float)); }

void net_forward(net_t *n, const float *input, int B, int train, uint64_t seed)
{
    for (int i = 0; i < n->nlayers; i++) {
        const model_layer *l = &n->model->layers[i];
        const float *x = i ? n->act[i - 1] : input;
        float *y = n->act[i];
        shape3 s = in_shape(n, i);
        size_t count = (size_t)B * n->out_size[i];
        switch (l->type) {
        case LAYER_CONV: {
            /* a ReLU after a convolution is applied as the convolution writes its output, straight into the
             * ReLU's activations: one pass over them instead of three (this layer's output is then never
             * written; the ReLU's gradient reads its own output) */
            const int fuse = i + 1 < n->nlayers && n->model->layers[i + 1].type == LAYER_RELU;
            conv2d_forward(fuse ? n->act[i + 1] : y, x, n->params + n->w_off[i],
                           l->bias_params ? n->params + n->b_off[i] : NULL, B, s.c, s.h, s.w, l->out, l->kh, l->kw,
                           l->sh, l->sw, l->ph, l->pw, l->shape.h, l->shape.w, n->col, fuse);
            i += fuse;
            break;
        }
        case LAYER_FC:
            fc_forward(y, x, n->params + n->w_off[i], l->bias_params ? n->params + n->b_off[i] : NULL, B, (int)elems(s),
                       l->out);
            break;
        case LAYER_RELU:
            for (size_t k = 0; k < count; k++) y[k] = x[k] > 0 ? x[k] : 0;
            break;
        case LAYER_POOL: pool_forward(y, n->argmax[i], x, B, s.c, s.h, s.w, l); break;
        case LAYER_DROPOUT:
            if (!train) {
                memcpy(y, x, count * sizeof *y);
                break;
            }
            for (size_t k = 0; k < count; k++) {
                uint8_t keep = rng_hash32(rng_key32(seed, (uint64_t)i), (uint32_t)k) >> 31;
                n->mask[i][k] = keep;
                y[k] = keep ? 2 * x[k] : 0;
            }
            break;
        default: break;
        }
    }
}

float net_loss(net_t *n, const float *input, const uint8_t *labels, int B, int backward, int *correct)
{
    const int K = (int)n->classes, last = n->nlayers - 1;
    const float *logits = n->act[last];
    double loss = 0;
    int right = 0;
    for (int b = 0; b < B; b++) {
        const float *z = logits + (size_t)b * K;
        float *p = n->probs + (size_t)b * K;
        float mx = z[0];
        int arg = 0;
        for (int k = 1; k < K; k++)
            if (z[k] > mx) mx = z[k], arg = k;
        double sum = 0;
        for (int k = 0; k < K; k++) sum += p[k] = expf(z[k] - mx);
        for (int k = 0; k < K; k++) p[k] = (float)(p[k] / sum);
        loss -= log(p[labels[b]] > 1e-30f ? p[labels[b]] : 1e-30f);
        right += arg == labels[b];
    }
    if (correct) *correct = right;
    if (!backward) return (float)(loss / B);
    /* d(mean loss)/dlogits = (p - onehot) / B */
    float *d = n->dact[last];
    for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++) d[(size_t)b * K + k] = (n->probs[(size_t)b * K + k] - (k == labels[b])) / B;
    for (int i = last; i >= 0; i--) {
        const model_layer *l = &n->model->layers[i];
        const float *x = i ? n->act[i - 1] : input;
        float *dx = i ? n->dact[i - 1] : NULL;
        const float *dy = n->dact[i];
        shape3 s = in_shape(n, i);
        size_t in_count = (size_t)B * elems(s);
        /* a 2x2 max pooling's, a ReLU's and a dropout's gradients write every element; a 2x2 max pooling
         * after a ReLU writes the ReLU's input gradient at once, where its own output (the ReLU's at arg) is
         * positive, and the ReLU is skipped */
        const int gated = l->type == LAYER_POOL && i >= 2 && n->model->layers[i - 1].type == LAYER_RELU;
        const int pool2 = l->type == LAYER_POOL && pool_is_max_2x2(l) && dx &&
                          pool_max_2x2_backward(gated ? n->dact[i - 2] : dx, n->argmax[i], dy, gated ? n->act[i] : NULL,
                                                B, s.c, s.h, s.w, l->shape.h, l->shape.w);
        if (dx && !pool2 && l->type != LAYER_RELU && l->type != LAYER_DROPOUT) memset(dx, 0, in_count * sizeof *dx);
        switch (l->type) {
        case LAYER_CONV:
            conv2d_backward(dx, n->grads + n->w_off[i], l->bias_params ? n->grads + n->b_off[i] : NULL, dy, x,
                            n->params + n->w_off[i], B, s.c, s.h, s.w, l->out, l->kh, l->kw, l->sh, l->sw, l->ph, l->pw,
                            l->shape.h, l->shape.w, n->col);
            break;
        case LAYER_FC:
            fc_backward(dx, n->grads + n->w_off[i], l->bias_params ? n->grads + n->b_off[i] : NULL, dy, x,
                        n->params + n->w_off[i], B, (int)elems(s), l->out);
            break;
        case LAYER_RELU:
            if (dx) /* by its output, which a fused convolution wrote alone: y > 0 exactly where x > 0 */
                for (size_t k = 0; k < in_count; k++) dx[k] = n->act[i][k] > 0 ? dy[k] : 0;
            break;
        case LAYER_POOL:
            if (dx && !pool2) pool_backward(dx, n->argmax[i], dy, B, s.c, s.h, s.w, l);
            i -= pool2 && gated; /* the ReLU's gradient is written */
            break;
        case LAYER_DROPOUT:
            if (dx)
                for (size_t k = 0; k < in_count; k++) dx[k] = n->mask[i][k] ? 2 * dy[k] : 0;
            break;
        default: break;
        }
    }
    return (float)(loss / B);
}

/* Stride-1 convolutions computed directly, without im2col or a GEMM's
 * packing: LeNet-sized layers (6 or 16 output channels, 25 or 150 taps) are
 * too thin for a BLAS kernel, which spent as long copying them as
 * multiplying (docs/performance.md#trainer).
 *
 * The trick that keeps every loop a contiguous vector loop: an image is
 * padded once into planes of width WP, and outputs are computed at every
 * position p = oh*WP + ow of a "virtual" row as wide as the padded input, so
 * tap (c, kh, kw) reads input p + c*plane + kh*WP + kw for all p at once. The
 * columns ow >= WO are computed and thrown away (4 of 32 for LeNet's first
 * layer). The weight gradient is the same sum read the other way (a dot
 * product over p of the output gradient, zero on those columns, with the
 * shifted input), and the input gradient is a forward convolution of the
 * zero-padded output gradient with the kernels flipped and transposed.
 * Layers of 16 output channels or more put the channels in the lanes
 * instead (forward and weight gradient): only the real positions are
 * visited.
 *
 * Blocks of output channels times vectors of positions live in registers
 * (GCC/Clang vector extensions: 16 floats with AVX-512, 8 with AVX, 4 with
 * SSE);
 * each block size is its own instantiation so that the accumulators are
 * registers, not memory. Sums run in a fixed order: the same input gives the
 * same bits on every machine that runs this code. */
#include <stdlib.h>
#include <string.h>

#include "nn.h"

/* Sums run in LANES = 8 running sums on every machine; a register holds VL
 * of them (8 with AVX, 4 with SSE only: a vector of 8 floats without AVX was
 * lowered to scalar code, 14x slower), HALVES registers one group of 8. */
#define LANES 8
#ifdef __AVX__
#define VL 8
#else
#define VL 4
#endif
#define HALVES (LANES / VL)
typedef float vf __attribute__((vector_size(VL * 4)));
/* Register blocks (each -D overridable, for measuring): the forward block
 * holds MAX_OB x NV*HALVES accumulators, the loaded input vectors and one
 * broadcast weight; the weight gradient's DW_OB x DW_TB accumulators, DW_TB
 * input and DW_OB gradient vectors. With AVX-512's 32 vector registers 5 x 3
 * and 4 x 3 fit (measured best on Zen 4); AVX2's 16 take 6 x 2 and 3 x 3
 * (measured on Zen 3: conv2 forward 31 -> 49 GFLOP/s). SSE's 16 halves spill
 * either way, and no choice measured better there than AVX-512's. The blocks
 * choose which sums run side by side, never the order of a sum, so every
 * choice gives the same bits. */
#if defined(__AVX__) && !defined(__AVX512F__)
#define NV_BEST 2
#define MAX_OB_BEST 6
#define DW_OB_BEST 3
#define DW_TB_BEST 3
#else
#define NV_BEST 3
#define MAX_OB_BEST 5
#define DW_OB_BEST 4
#define DW_TB_BEST 3
#endif
#ifndef NV
#define NV NV_BEST /* vectors of 8 positions per block */
#endif

#ifndef MAX_OB
#define MAX_OB MAX_OB_BEST /* output channels per block, at most 6 */
#endif
#ifndef DW_OB
#define DW_OB DW_OB_BEST /* weight gradient: output channels per block, at most 4 */
#endif
#ifndef DW_TB
#define DW_TB DW_TB_BEST /* weight gradient: taps per block, at most 4 */
#endif

/* Unaligned loads and stores of one register, through a vector type of
 * float alignment; macros, not functions: GCC warns that passing a 32-byte
 * vector by value changes the ABI without AVX. Not memcpy: tuned for AMD Zen
 * 1-3, GCC 12 copies 32 bytes as two 16-byte halves through the stack and
 * reloads them whole, a failed store-to-load forwarding on every load, which
 * made the AVX2 build 20x slower than the AVX-512 one (2 GFLOP/s). */
typedef float vf_unaligned __attribute__((vector_size(VL * 4), aligned(4), may_alias));
#define LOADV(v, p) ((v) = *(const vf_unaligned *)(const void *)(p))
#define STOREV(p, v) (*(vf_unaligned *)(void *)(p) = (v))

/* The forward kernel (also the input gradient's) sums each output position in
 * its own lane, so the width of its vectors changes no bit: with AVX-512 it
 * takes all 16 floats of a register (RL), where the weight gradient and the
 * bias sums keep their 8 lanes (they add across positions). R_NV vectors of
 * positions times up to R_MAX_OB output channels a block; both -D overridable. */
#if defined(__AVX512F__)
#define RL 16
#ifndef R_NV
#define R_NV 2
#endif
#ifndef R_MAX_OB
#define R_MAX_OB 8
#endif
#else
#define RL VL
#ifndef R_NV
#define R_NV (NV * HALVES)
#endif
#ifndef R_MAX_OB
#define R_MAX_OB MAX_OB
#endif
#endif
#define R_SPAN (RL * R_NV) /* positions per block of the forward kernel */
typedef float vr __attribute__((vector_size(RL * 4)));
typedef float vr_unaligned __attribute__((vector_size(RL * 4), aligned(4), may_alias));

/* A loaded vector held in a register: without it GCC 12 folds the load into
 * every product that uses it, and the weight gradient's block (7 vectors, 12
 * products) did 24 loads a step instead of 7, load-bound at a third of the
 * forward kernel's rate. The empty asm only claims the register. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define IN_REGISTER(v) __asm__("" : "+x"(v))
#else
#define IN_REGISTER(v) (void)(v)
#endif

/* db[j] += the sum of row j of x (rows `stride` apart, n floats each, n a
 * multiple of LANES) in LANES running sums, added in order. NR rows side by
 * side, whose chains of dependent adds then overlap (one row at a time
 * waited on each add). */
static inline __attribute__((always_inline)) void sum_rows_block(float *db, const float *x, size_t stride, size_t n,
                                                                 const int NR)
{
    vf acc[4][HALVES];
    for (int r = 0; r < NR; r++)
        for (int h = 0; h < HALVES; h++) acc[r][h] = (vf){0};
    for (size_t p = 0; p < n; p += LANES)
        for (int r = 0; r < NR; r++)
            for (int h = 0; h < HALVES; h++) {
                vf v;
                LOADV(v, x + (size_t)r * stride + p + h * VL);
                acc[r][h] += v;
            }
    for (int r = 0; r < NR; r++) {
        float s = 0;
        for (int l = 0; l < LANES; l++) s += acc[r][l / VL][l % VL];
        db[r] += s;
    }
}

static void sum_rows_lanes(float *db, const float *x, size_t stride, int rows, size_t n)
{
    int r = 0;
    for (; r + 4 <= rows; r += 4) sum_rows_block(db + r, x + (size_t)r * stride, stride, n, 4);
    for (; r < rows; r++) sum_rows_block(db + r, x + (size_t)r * stride, stride, n, 1);
}

/* The input gradient's taps that can reach a real output-gradient row:
 * taps come in `groups` (output channels) of KH x KW, and tap row kh of an
 * output in padded-input row hp reads output-gradient row hp + kh + 1 - KH
 * (geometry_back), zero unless in [0, HO). A block of positions skips the
 * tap rows that read only zeros for all its rows: the products it skips are
 * all +-0, which leave a sum that starts at +0 bit for bit as it is (28% of
 * conv2's input-gradient taps). */
typedef struct {
    int groups, KH, KW, HO;
    size_t width; /* of a row of positions */
} tap_rows;

/* out (OB, np) at row stride ostride: for each of OB channels, the sum over
 * taps t of w[j*wstride + t] * x[p + off[t]], p in [0, np), np a multiple of
 * R_SPAN. OB is a constant after inlining; tr (or NULL) skips the taps
 * that read only zeros. */
static inline __attribute__((always_inline)) void rows_block(float *out, size_t ostride, const float *x,
                                                             const size_t *off, const float *w, size_t wstride,
                                                             int taps, size_t np, const tap_rows *tr, const int OB)
{
    const int groups = tr ? tr->groups : 1, per_group = tr ? tr->KH * tr->KW : taps;
    for (size_t p = 0; p < np; p += R_SPAN) {
        int t0 = 0, t1 = per_group; /* the taps of each group this block runs */
        if (tr) {
            const int r0 = (int)(p / tr->width), r1 = (int)((p + R_SPAN - 1) / tr->width);
            const int lo = tr->KH - 1 - r1 > 0 ? tr->KH - 1 - r1 : 0;
            const int hi = tr->HO + tr->KH - 2 - r0 < tr->KH - 1 ? tr->HO + tr->KH - 2 - r0 : tr->KH - 1;
            t0 = lo * tr->KW, t1 = hi >= lo ? (hi + 1) * tr->KW : t0;
        }
        vr acc[R_MAX_OB][R_NV];
        for (int j = 0; j < OB; j++)
            for (int v = 0; v < R_NV; v++) acc[j][v] = (vr){0};
        for (int g = 0; g < groups; g++)
            for (int t = g * per_group + t0; t < g * per_group + t1; t++) {
                const float *xt = x + off[t] + p;
                vr xv[R_NV];
                for (int v = 0; v < R_NV; v++) {
                    xv[v] = *(const vr_unaligned *)(const void *)(xt + v * RL);
                    IN_REGISTER(xv[v]);
                }
                for (int j = 0; j < OB; j++) {
                    const float wj = w[(size_t)j * wstride + (size_t)t];
                    for (int v = 0; v < R_NV; v++) acc[j][v] += wj * xv[v];
                }
            }
        for (int j = 0; j < OB; j++)
            for (int v = 0; v < R_NV; v++)
                *(vr_unaligned *)(void *)(out + (size_t)j * ostride + p + v * RL) = acc[j][v];
    }
}

/* The number of blocks of at most `most` that cover n, and the size of the
 * first ones: even blocks (16 channels as 4+4+4+4, not 5+5+5+1), each size an
 * instantiation of its own. */
static int even_block(int n, int most)
{
    int blocks = (n + most - 1) / most;
    return (n + blocks - 1) / blocks;
}

/* out (OC, np) = for every output channel, taps of w (OC, taps) over x. */
static inline __attribute__((always_inline)) void conv_rows_blocks(float *out, size_t ostride, const float *x,
                                                                   const size_t *off, const float *w, int OC, int taps,
                                                                   size_t np, const tap_rows *tr)
{
    for (int o = 0; o < OC;) {
        const int ob = even_block(OC - o, R_MAX_OB);
        float *dst = out + (size_t)o * ostride;
        const float *wo = w + (size_t)o * taps;
        switch (ob) {
        case 1: rows_block(dst, ostride, x, off, wo, (size_t)taps, taps, np, tr, 1); break;
        case 2: rows_block(dst, ostride, x, off, wo, (size_t)taps, taps, np, tr, 2); break;
        case 3: rows_block(dst, ostride, x, off, wo, (size_t)taps, taps, np, tr, 3); break;
        case 4: rows_block(dst, ostride, x, off, wo, (size_t)taps, taps, np, tr, 4); break;
        case 5: rows_block(dst, ostride, x, off, wo, (size_t)taps, taps, np, tr, 5); break;
#if R_MAX_OB > 6
        case 6: rows_block(dst, ostride, x, off, wo, (size_t)taps, taps, np, tr, 6); break;
        case 7: rows_block(dst, ostride, x, off, wo, (size_t)taps, taps, np, tr, 7); break;
        default: rows_block(dst, ostride, x, off, wo, (size_t)taps, taps, np, tr, R_MAX_OB); break;
#else
        default: rows_block(dst, ostride, x, off, wo, (size_t)taps, taps, np, tr, R_MAX_OB); break;
#endif
        }
        o += ob;
    }
}

/* The same, tr known to be NULL or not where the blocks are compiled: the forward kernel keeps its plain loop. */
static void conv_rows(float *out, size_t ostride, const float *x, const size_t *off, const float *w, int OC, int taps,
                      size_t np, const tap_rows *tr)
{
    if (tr)
        conv_rows_blocks(out, ostride, x, off, w, OC, taps, np, tr);
    else
        conv_rows_blocks(out, ostride, x, off, w, OC, taps, np, NULL);
}

/* The offsets of the taps of a (C, KH, KW) kernel in planes of `plane`
 * floats and rows of `width`, from `base`. */
static void tap_offsets(size_t *off, int C, int KH, int KW, size_t plane, size_t width, size_t base)
{
    for (int c = 0, t = 0; c < C; c++)
        for (int kh = 0; kh < KH; kh++)
            for (int kw = 0; kw < KW; kw++) off[t++] = base + (size_t)c * plane + (size_t)kh * width + (size_t)kw;
}

/* Floats of work that hold the forward taps' offsets (C*KH*KW) and the
 * input gradient's (OC*KH*KW). */
static size_t offsets_floats(int C, int OC, int KH, int KW)
{
    return ((size_t)(C + OC) * KH * KW * sizeof(size_t) + sizeof(float) - 1) / sizeof(float);
}

/* Layers with at least CL_MIN_OC output channels put the channels in the
 * lanes (fwd_channels, weight_grad_channels): a rule of the shape alone, the
 * same in every build, so every build sums in the same order. */
#define CL_MIN_OC 16
#define CF_PB 8 /* positions a block of the channel-lane forward kernel (fwd_channels) */
/* Output channels rounded up to whole vectors of the widest build (16). */
static size_t channels_padded(int OC) { return ((size_t)OC + 15) / 16 * 16; }

/* Positions rounded up to whole blocks of the forward kernel (R_SPAN, a
 * multiple of LANES); the extra ones are computed on zeros and dropped. */
static size_t round_span(size_t n) { return (n + R_SPAN - 1) / R_SPAN * R_SPAN; }

/* The padded geometry of one layer: input planes HP x WP (plus room for the
 * last block's overrun), np virtual output positions. */
typedef struct {
    size_t HP, WP, plane, np, xfloats, yfloats;
} geom;

static geom geometry(int C, int H, int W, int OC, int KH, int KW, int PH, int PW, int HO)
{
    geom g;
    g.HP = (size_t)H + 2 * (size_t)PH, g.WP = (size_t)W + 2 * (size_t)PW;
    g.plane = g.HP * g.WP;
    g.np = round_span((size_t)HO * g.WP);
    /* the last tap of the last block reads up to np - 1 + (C-1)*plane + (KH-1)*WP + KW-1 */
    size_t reach = g.np + (size_t)(C - 1) * g.plane + (size_t)(KH - 1) * g.WP + (size_t)KW;
    size_t all = (size_t)C * g.plane;
    g.xfloats = reach > all ? reach : all;
    g.yfloats = (size_t)OC * g.np;
    return g;
}

/* One image (C, H, W) into the interior of padded planes (C, HP, WP) at xp
 * (xfloats), whose padding the caller zeroed once for all images. */
static void pad_image(float *xp, const float *img, int C, int H, int W, int PH, int PW, const geom *g)
{
    for (int c = 0; c < C; c++)
        for (int h = 0; h < H; h++)
            memcpy(xp + (size_t)c * g->plane + ((size_t)h + (size_t)PH) * g->WP + (size_t)PW,
                   img + ((size_t)c * H + (size_t)h) * (size_t)W, (size_t)W * sizeof *xp);
}

/* The input-gradient problem: a forward convolution of the output gradient
 * with w flipped and transposed (C, OC, KH, KW), at every position of the
 * padded input (HP x WP, virtual rows as wide as its rows). The output
 * gradient's planes have rows of that width WP = WO + KW - 1, a row's WO
 * values followed by KW - 1 zeros, with KH zero rows above (one more than the
 * kernel reaches, for the wrap below) and KH - 1 below; tap (oc, kh, kw)
 * reads at p + (kh + 1) * WP + kw - (KW - 1): a read left of a row's start
 * wraps into the zeros that end the row above. The same products in the same
 * order as padding each side by KH-1, KW-1 (the previous layout, rows of WO
 * + 2(KW-1)), on 196 instead of 252 positions for LeNet's conv2. */
typedef struct {
    size_t HQ, WQ, plane, np, xfloats, yfloats;
} geom_back;

static geom_back geometry_back(int C, int OC, int KH, int KW, int HO, int WO, const geom *g)
{
    geom_back b;
    b.HQ = (size_t)HO + 2 * (size_t)KH - 1, b.WQ = (size_t)WO + (size_t)KW - 1;
    b.plane = b.HQ * b.WQ;
    b.np = round_span(g->HP * b.WQ);
    size_t reach = b.np + (size_t)(OC - 1) * b.plane + (size_t)KH * b.WQ; /* the farthest tap's last read */
    size_t all = (size_t)OC * b.plane;
    b.xfloats = reach > all ? reach : all;
    b.yfloats = (size_t)C * b.np;
    return b;
}

/* The span the path rule (nn.c: direct()) assumes: one constant for every
 * build, so that every build takes the same path for a layer and trains to
 * the same bits, whatever its kernels' blocks (16 to 48 positions). */
size_t conv2d_direct_span(void) { return 24; }

size_t conv2d_direct_work_floats(int C, int H, int W, int OC, int KH, int KW, int PH, int PW, int HO, int WO)
{
    geom g = geometry(C, H, W, OC, KH, KW, PH, PW, HO);
    geom_back b = geometry_back(C, OC, KH, KW, HO, WO, &g);
    size_t taps = (size_t)C * KH * KW;
    size_t offs = offsets_floats(C, OC, KH, KW); /* both offset tables */
    size_t wt = taps * (size_t)OC;               /* flipped weights */
    size_t fwd = g.xfloats + g.yfloats;
    size_t fwd_channels = g.xfloats + (taps + (size_t)HO * WO + CF_PB) * channels_padded(OC); /* wT and yT */
    fwd = fwd > fwd_channels ? fwd : fwd_channels;
    /* + the dw lanes (or dwT, smaller) and the transposed output gradient */
    size_t back = taps * (size_t)OC * LANES + (size_t)HO * WO * channels_padded(OC) + g.xfloats + g.yfloats +
                  b.xfloats + b.yfloats;
    return offs + wt + (fwd > back ? fwd : back);
}

/* The forward convolution of a layer with many output channels (OC >=
 * CL_MIN_OC) with the channels in the lanes: CF_PB output positions at once,
 * each a vector of channels, a chain over the taps of w transposed (wT:
 * taps, OCp) times the input under the tap (broadcast). The same sums in the
 * same order as conv_rows (each output its own chain from zero over the
 * taps in order), so the same bits; but only the HO*WO real positions are
 * computed, where conv_rows computes every position of a virtual row as wide
 * as the padded input (144 for 100 on LeNet's conv2). yT gets (positions,
 * OCp); a last block short of CF_PB repeats its last position. */
static void fwd_channels(float *yT, size_t ocp, const float *wT, const float *x, const size_t *off, int taps, int HO,
                         int WO, size_t WP)
{
    const int Q = HO * WO;
    for (int q0 = 0; q0 < Q; q0 += CF_PB) {
        size_t base[CF_PB];
        for (int j = 0; j < CF_PB; j++) {
            const int q = q0 + j < Q ? q0 + j : Q - 1;
            base[j] = (size_t)(q / WO) * WP + (size_t)(q % WO);
        }
        for (size_t v = 0; v < ocp; v += RL) {
            vr acc[CF_PB];
            for (int j = 0; j < CF_PB; j++) acc[j] = (vr){0};
            for (int t = 0; t < taps; t++) {
                const vr wv = *(const vr_unaligned *)(const void *)(wT + (size_t)t * ocp + v);
                const float *xt = x + off[t];
                for (int j = 0; j < CF_PB; j++) acc[j] += wv * xt[base[j]];
            }
            for (int j = 0; j < CF_PB; j++) *(vr_unaligned *)(void *)(yT + ((size_t)q0 + (size_t)j) * ocp + v) = acc[j];
        }
    }
}

void conv2d_forward_direct(float *out, const float *inp, const float *w, const float *b, int B, int C, int H, int W,
                           int OC, int KH, int KW, int PH, int PW, int HO, int WO, float *work, int relu)
{
    const geom g = geometry(C, H, W, OC, KH, KW, PH, PW, HO);
    const int taps = C * KH * KW;
    size_t *off = (size_t *)work;
    float *xp = work + offsets_floats(C, OC, KH, KW) + (size_t)taps * OC;
    float *y = xp + g.xfloats;
    tap_offsets(off, C, KH, KW, g.plane, g.WP, 0);
    memset(xp, 0, g.xfloats * sizeof *xp); /* the padding, zero for every image */
    if (OC >= CL_MIN_OC) {
        const size_t ocp = channels_padded(OC), Q = (size_t)HO * WO;
        float *wT = y, *yT = wT + (size_t)taps * ocp; /* in y's room: (taps, ocp) and (Q + CF_PB, ocp) */
        for (int t = 0; t < taps; t++)
            for (size_t oc = 0; oc < ocp; oc++) wT[(size_t)t * ocp + oc] = oc < (size_t)OC ? w[oc * taps + t] : 0;
        for (int n = 0; n < B; n++) {
            pad_image(xp, inp + (size_t)n * C * H * W, C, H, W, PH, PW, &g);
            fwd_channels(yT, ocp, wT, xp, off, taps, HO, WO, g.WP);
            float *o = out + (size_t)n * OC * Q;
            for (int oc = 0; oc < OC; oc++) {
                const float bias = b ? b[oc] : 0;
                for (size_t q = 0; q < Q; q++) o[oc * Q + q] = relu_if(relu, yT[q * ocp + (size_t)oc] + bias);
            }
        }
        return;
    }
    for (int n = 0; n < B; n++) {
        pad_image(xp, inp + (size_t)n * C * H * W, C, H, W, PH, PW, &g);
        conv_rows(y, g.np, xp, off, w, OC, taps, g.np, NULL);
        for (int oc = 0; oc < OC; oc++) {
            float *o = out + ((size_t)n * OC + (size_t)oc) * (size_t)HO * WO;
            const float *src = y + (size_t)oc * g.np, bias = b ? b[oc] : 0;
            for (int oh = 0; oh < HO; oh++)
                for (int ow = 0; ow < WO; ow++)
                    o[oh * WO + ow] = relu_if(relu, src[(size_t)oh * g.WP + (size_t)ow] + bias);
        }
    }
}

/* The weight gradient's running sums, LANES of them for each weight: lane l
 * of weight (j, t) adds dy[j][p] * x[p + off[t]] over the positions p = l
 * (mod LANES) of one image after another (dy rows are zero where p is not an
 * output), and only the batch's last image folds the lanes into dw. Folding
 * an image at a time cost as much as the products on LeNet's conv2 (144
 * positions an image, 8 adds a weight). lanes is (OB, taps, LANES) at row
 * stride wstride * LANES. */
static inline __attribute__((always_inline)) void dw_block(float *lanes, int wstride, const float *dy, const float *x,
                                                           const size_t *off, size_t np, int OB, int TB)
{
    vf acc[4][4][HALVES]; /* OB <= DW_OB <= 4, TB <= DW_TB <= 4 */
    for (int j = 0; j < OB; j++)
        for (int t = 0; t < TB; t++)
            for (int h = 0; h < HALVES; h++) LOADV(acc[j][t][h], lanes + ((size_t)j * wstride + t) * LANES + h * VL);
    for (size_t p = 0; p < np; p += LANES)
        for (int h = 0; h < HALVES; h++) {
            vf xv[4], dv[4];
            for (int t = 0; t < TB; t++) {
                LOADV(xv[t], x + off[t] + p + h * VL);
                IN_REGISTER(xv[t]);
            }
            for (int j = 0; j < OB; j++) {
                LOADV(dv[j], dy + (size_t)j * np + p + h * VL);
                IN_REGISTER(dv[j]);
            }
            for (int j = 0; j < OB; j++)
                for (int t = 0; t < TB; t++) acc[j][t][h] += dv[j] * xv[t];
        }
    for (int j = 0; j < OB; j++)
        for (int t = 0; t < TB; t++)
            for (int h = 0; h < HALVES; h++) STOREV(lanes + ((size_t)j * wstride + t) * LANES + h * VL, acc[j][t][h]);
}

#if defined(__AVX512F__) && !defined(DW_HALF_REGISTERS) /* -DDW_HALF_REGISTERS: the 8-float kernel, to compare */
/* With AVX-512 a register holds two groups of 8 lanes: dw_block's 8 lanes of
 * channel j in its low half and of channel j+1 in its high half, against the
 * same 8 inputs in both halves. Each lane sums the same products in the same
 * order as dw_block's: the same bits, half the multiplies and adds (Zen 5
 * runs 512-bit vectors whole). A block holds 2*PB channels (the last pair's
 * high half a copy of its low one where OB is odd, not stored) x TB taps. */
#ifndef DW16_PB
#define DW16_PB 4 /* pairs of output channels per block, at most 4 */
#endif
#ifndef DW16_TB
#define DW16_TB 4 /* taps per block, at most 4 */
#endif
static inline __attribute__((always_inline)) void dw_block16(float *lanes, int wstride, const float *dy, const float *x,
                                                             const size_t *off, size_t np, int OB, int TB)
{
    const int PB = (OB + 1) / 2;
    vr acc[4][4]; /* PB <= 4, TB <= 4 */
    for (int j = 0; j < PB; j++) {
        const int hi = 2 * j + 1 < OB ? 2 * j + 1 : 2 * j;
        for (int t = 0; t < TB; t++) {
            vf lo, up;
            LOADV(lo, lanes + ((size_t)(2 * j) * wstride + t) * LANES);
            LOADV(up, lanes + ((size_t)hi * wstride + t) * LANES);
            acc[j][t] = __builtin_shufflevector(lo, up, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        }
    }
    for (size_t p = 0; p < np; p += LANES) {
        vr xv[4], dv[4];
        for (int t = 0; t < TB; t++) {
            vf h = *(const vf_unaligned *)(const void *)(x + off[t] + p);
            xv[t] = __builtin_shufflevector(h, h, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
            IN_REGISTER(xv[t]);
        }
        for (int j = 0; j < PB; j++) {
            const int hi = 2 * j + 1 < OB ? 2 * j + 1 : 2 * j;
            vf lo = *(const vf_unaligned *)(const void *)(dy + (size_t)(2 * j) * np + p);
            vf up = *(const vf_unaligned *)(const void *)(dy + (size_t)hi * np + p);
            dv[j] = __builtin_shufflevector(lo, up, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            IN_REGISTER(dv[j]);
        }
        for (int j = 0; j < PB; j++)
            for (int t = 0; t < TB; t++) acc[j][t] += dv[j] * xv[t];
    }
    for (int j = 0; j < PB; j++)
        for (int t = 0; t < TB; t++) {
            STOREV(lanes + ((size_t)(2 * j) * wstride + t) * LANES,
                   __builtin_shufflevector(acc[j][t], acc[j][t], 0, 1, 2, 3, 4, 5, 6, 7));
            if (2 * j + 1 < OB)
                STOREV(lanes + ((size_t)(2 * j + 1) * wstride + t) * LANES,
                       __builtin_shufflevector(acc[j][t], acc[j][t], 8, 9, 10, 11, 12, 13, 14, 15));
        }
}
#undef DW_OB
#undef DW_TB
#define DW_OB (2 * DW16_PB)
#define DW_TB DW16_TB
#define DW_KERNEL dw_block16
#else
#define DW_KERNEL dw_block
#endif

#define DW_CASE(o, t)                                                                                                  \
    case (o)*16 + (t): DW_KERNEL(lanes, taps, dy, x, off, np, o, t); break;

static void dw_dispatch(int ob, int tb, float *lanes, int taps, const float *dy, const float *x, const size_t *off,
                        size_t np)
{
    switch (ob * 16 + tb) {
        DW_CASE(1, 1);
        DW_CASE(1, 2);
        DW_CASE(1, 3);
        DW_CASE(1, 4);
        DW_CASE(2, 1);
        DW_CASE(2, 2);
        DW_CASE(2, 3);
        DW_CASE(2, 4);
        DW_CASE(3, 1);
        DW_CASE(3, 2);
        DW_CASE(3, 3);
        DW_CASE(3, 4);
        DW_CASE(4, 1);
        DW_CASE(4, 2);
        DW_CASE(4, 3);
        DW_CASE(4, 4);
#if DW_OB > 4
        DW_CASE(5, 1);
        DW_CASE(5, 2);
        DW_CASE(5, 3);
        DW_CASE(5, 4);
        DW_CASE(6, 1);
        DW_CASE(6, 2);
        DW_CASE(6, 3);
        DW_CASE(6, 4);
        DW_CASE(7, 1);
        DW_CASE(7, 2);
        DW_CASE(7, 3);
        DW_CASE(7, 4);
        DW_CASE(8, 1);
        DW_CASE(8, 2);
        DW_CASE(8, 3);
        DW_CASE(8, 4);
#endif
    default: /* not reached: ob <= DW_OB <= 8, tb <= DW_TB <= 4 */
        for (int j = 0; j < ob; j++)
            for (int k = 0; k < tb; k++)
                DW_KERNEL(lanes + ((size_t)j * taps + k) * LANES, taps, dy + (size_t)j * np, x, off + k, np, 1, 1);
    }
}

/* The weight gradient of a layer with many output channels (OC >= CL_MIN_OC)
 * with the channels in the lanes: for a block of TB taps and RL channels,
 * each position's output gradients (one vector of dyT, the image's output
 * gradient transposed to (HO*WO, OCp)) times the input under each tap
 * (broadcast). Only the HO*WO real outputs are visited -- the position
 * lanes above also multiply the WP - WO columns thrown away, 44% more on
 * LeNet's conv2 -- and no lanes are folded: every weight's gradient is one
 * chain of adds, position after position, image after image, in dwT (taps,
 * OCp), so any vector width gives the same bits. */
#define CL_TB 8 /* taps a block: 8 independent chains of adds hide their latency */

static inline __attribute__((always_inline)) void dw_channels_block(float *dwT, size_t ocp, const float *dyT,
                                                                    const float *x, const size_t *off, int HO, int WO,
                                                                    size_t WP, const int TB)
{
    for (size_t v = 0; v < ocp; v += RL) {
        vr acc[CL_TB];
        for (int j = 0; j < TB; j++) acc[j] = *(const vr_unaligned *)(const void *)(dwT + (size_t)j * ocp + v);
        const float *d = dyT + v;
        for (int oh = 0; oh < HO; oh++)
            for (int ow = 0; ow < WO; ow++, d += ocp) {
                const vr dv = *(const vr_unaligned *)(const void *)d;
                const float *xp = x + (size_t)oh * WP + (size_t)ow;
                for (int j = 0; j < TB; j++) acc[j] += dv * xp[off[j]];
            }
        for (int j = 0; j < TB; j++) *(vr_unaligned *)(void *)(dwT + (size_t)j * ocp + v) = acc[j];
    }
}

/* One image's weight gradient with the channels in the lanes: dwT (taps, OCp) += dyT against x under every tap. */
static void weight_grad_channels(float *dwT, size_t ocp, const float *dyT, const float *x, const size_t *off, int taps,
                                 int HO, int WO, size_t WP)
{
    for (int t = 0; t < taps; t += CL_TB) {
        float *dt = dwT + (size_t)t * ocp;
        switch (taps - t < CL_TB ? taps - t : CL_TB) {
        case 1: dw_channels_block(dt, ocp, dyT, x, off + t, HO, WO, WP, 1); break;
        case 2: dw_channels_block(dt, ocp, dyT, x, off + t, HO, WO, WP, 2); break;
        case 3: dw_channels_block(dt, ocp, dyT, x, off + t, HO, WO, WP, 3); break;
        case 4: dw_channels_block(dt, ocp, dyT, x, off + t, HO, WO, WP, 4); break;
        case 5: dw_channels_block(dt, ocp, dyT, x, off + t, HO, WO, WP, 5); break;
        case 6: dw_channels_block(dt, ocp, dyT, x, off + t, HO, WO, WP, 6); break;
        case 7: dw_channels_block(dt, ocp, dyT, x, off + t, HO, WO, WP, 7); break;
        default: dw_channels_block(dt, ocp, dyT, x, off + t, HO, WO, WP, CL_TB); break;
        }
    }
}

/* One image's weight gradient: lanes (OC, taps, LANES) += dy (OC, np) against x shifted by every tap. */
static void weight_grad(float *lanes, const float *dy, const float *x, const size_t *off, int OC, int taps, size_t np)
{
    for (int o = 0; o < OC;) {
        const int ob = even_block(OC - o, DW_OB);
        for (int t = 0; t < taps;) {
            const int tb = even_block(taps - t, DW_TB);
            dw_dispatch(ob, tb, lanes + ((size_t)o * taps + t) * LANES, taps, dy + (size_t)o * np, x, off + t, np);
            t += tb;
        }
        o += ob;
    }
}

void conv2d_backward_direct(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w,
                            int B, int C, int H, int W, int OC, int KH, int KW, int PH, int PW, int HO, int WO,
                            float *work)
{
    const geom g = geometry(C, H, W, OC, KH, KW, PH, PW, HO);
    const geom_back gb = geometry_back(C, OC, KH, KW, HO, WO, &g);
    const int taps = C * KH * KW;
    size_t *off = (size_t *)work, *offb = off + taps;
    float *wt = work + offsets_floats(C, OC, KH, KW);
    float *lanes = wt + (size_t)taps * OC; /* the weight gradient's running sums (OC, taps, LANES) */
    const int by_channel = OC >= CL_MIN_OC;
    const size_t ocp = channels_padded(OC);
    float *dwT = lanes;                             /* by_channel: (taps, ocp), in the lanes' room */
    float *dyT = lanes + (size_t)taps * OC * LANES; /* by_channel: this image's dout transposed (HO*WO, ocp) */
    float *xs = dyT + (size_t)HO * WO * ocp;        /* this image, padded */
    float *ys = xs + g.xfloats;                     /* its output gradient on virtual rows */
    float *q = ys + g.yfloats;                      /* its output gradient padded for the input gradient */
    float *dxq = q + gb.xfloats;                    /* its input gradient on virtual rows */
    tap_offsets(off, C, KH, KW, g.plane, g.WP, 0);
    if (dinp) /* wt (C, OC, KH, KW): w transposed in its channels, flipped in space */
        for (int oc = 0; oc < OC; oc++)
            for (int c = 0; c < C; c++)
                for (int kh = 0; kh < KH; kh++)
                    for (int kw = 0; kw < KW; kw++)
                        wt[(((size_t)c * OC + oc) * KH + (KH - 1 - kh)) * KW + (KW - 1 - kw)] =
                            w[(((size_t)oc * C + c) * KH + kh) * KW + kw];
    tap_offsets(offb, OC, KH, KW, gb.plane, gb.WQ, gb.WQ - (size_t)(KW - 1)); /* (kh + 1) rows, kw - (KW-1) */
    memset(lanes, 0, (size_t)taps * OC * LANES * sizeof *lanes);
    /* the padding of the image and of both layouts of its output gradient: every image writes the same
     * places, so the zeros around them are set once */
    memset(xs, 0, g.xfloats * sizeof *xs);
    memset(ys, 0, g.yfloats * sizeof *ys);
    if (dinp) memset(q, 0, gb.xfloats * sizeof *q);
    if (by_channel) memset(dyT, 0, (size_t)HO * WO * ocp * sizeof *dyT); /* the padding channels stay zero */
    for (int n = 0; n < B; n++) { /* image by image: its data stays in cache through every block */
        pad_image(xs, inp + (size_t)n * C * H * W, C, H, W, PH, PW, &g);
        for (int oc = 0; oc < OC; oc++) {
            float *yo = ys + (size_t)oc * g.np;
            for (int oh = 0; oh < HO; oh++)
                memcpy(yo + (size_t)oh * g.WP, dout + (((size_t)n * OC + (size_t)oc) * HO + (size_t)oh) * WO,
                       (size_t)WO * sizeof *yo);
        }
        if (db) sum_rows_lanes(db, ys, g.np, OC, g.np); /* a float chain of HO*WO adds would cost more */
        if (by_channel) {
            const float *dn = dout + (size_t)n * OC * HO * WO;
            for (int k = 0; k < HO * WO; k++) /* each position's channels stored together */
                for (int oc = 0; oc < OC; oc++)
                    dyT[(size_t)k * ocp + (size_t)oc] = dn[(size_t)oc * HO * WO + (size_t)k];
            weight_grad_channels(dwT, ocp, dyT, xs, off, taps, HO, WO, g.WP);
        } else {
            weight_grad(lanes, ys, xs, off, OC, taps, g.np);
        }
        if (!dinp) continue;
        for (int oc = 0; oc < OC; oc++)
            for (int oh = 0; oh < HO; oh++)
                memcpy(q + (size_t)oc * gb.plane + ((size_t)oh + (size_t)KH) * gb.WQ,
                       dout + (((size_t)n * OC + (size_t)oc) * HO + (size_t)oh) * WO, (size_t)WO * sizeof *q);
        const tap_rows tr = {OC, KH, KW, HO, gb.WQ};
        conv_rows(dxq, gb.np, q, offb, wt, C, OC * KH * KW, gb.np, &tr);
        for (int c = 0; c < C; c++) {
            float *dx = dinp + ((size_t)n * C + (size_t)c) * (size_t)H * W;
            const float *src = dxq + (size_t)c * gb.np;
            for (int h = 0; h < H; h++)
                for (int x = 0; x < W; x++)
                    dx[h * W + x] += src[((size_t)h + (size_t)PH) * gb.WQ + (size_t)x + (size_t)PW];
        }
    }
    if (by_channel) {
        for (int oc = 0; oc < OC; oc++)
            for (int t = 0; t < taps; t++) dw[(size_t)oc * taps + (size_t)t] += dwT[(size_t)t * ocp + (size_t)oc];
        return;
    }
    for (size_t k = 0; k < (size_t)taps * OC; k++) { /* the lanes folded in order, once a batch */
        float sum = 0;
        for (int l = 0; l < LANES; l++) sum += lanes[k * LANES + (size_t)l];
        dw[k] += sum;
    }
}

/* The trainer against independent references:
 *  - every layer's gradient matches central finite differences (conv with
 *    stride and padding, fc, max and avg pooling, relu, dropout with its mask,
 *    softmax cross-entropy);
 *  - the im2col + sgemm convolution equals the naive loops, and the direct
 *    stride-1 kernels equal both, forward and backward, over shapes that
 *    leave partial blocks of channels, taps and positions, and so do the
 *    paths the layer picks (LeNet's conv3 as a fully connected layer);
 *  - on a tiny, separable data set the trainer drives the loss below a known
 *    bound, with 1 and with 4 workers, fp32 and TernGrad;
 *  - the same seed gives bit-identical parameters, another seed others;
 *  - the bytes reported are the real encoded sizes;
 *  - malformed IDX files fail with the file and the reason. */
#include <zlib.h>

#include "blas_core.h"
#include "check.h"
#include "idx.h"
#include "nn.h"
#include "rng.h"
#include "trainer.h"

static model_t parse(const char *text)
{
    model_t m;
    char msg[256];
    if (model_parse(&m, text, "t.model", msg, sizeof msg) != GQ_OK) {
        fprintf(stderr, "%s\n", msg);
        exit(2);
    }
    return m;
}

/* Central differences of the mean loss for every parameter of a small net. */
static void gradcheck(const char *text, const char *what)
{
    model_t m = parse(text);
    net_t n;
    char msg[256];
    const int B = 3;
    CHECK(net_init(&n, &m, B, 7, msg, sizeof msg) == GQ_OK, "%s: net_init: %s", what, msg);
    float *x = malloc(n.in_size * B * sizeof *x);
    uint8_t labels[3] = {1, 0, 2};
    rng_t r;
    rng_init(&r, 3);
    for (size_t i = 0; i < n.in_size * B; i++) x[i] = (float)(rng_double(&r) * 2 - 1);
    for (size_t i = 0; i < n.num_params; i++)
        n.params[i] += (float)(0.05 * (rng_double(&r) - 0.5)); /* nonzero biases */
    net_zero_grad(&n);
    net_forward(&n, x, B, 1, 11);
    net_loss(&n, x, labels, B, 1, NULL);
    int bad = 0;
    double worst = 0;
    for (size_t i = 0; i < n.num_params; i++) {
        const float h = 1e-2f, saved = n.params[i];
        n.params[i] = saved + h;
        net_forward(&n, x, B, 1, 11); /* the same dropout masks */
        double lp = net_loss(&n, x, labels, B, 0, NULL);
        n.params[i] = saved - h;
        net_forward(&n, x, B, 1, 11);
        double lm = net_loss(&n, x, labels, B, 0, NULL);
        n.params[i] = saved;
        double num = (lp - lm) / (2 * h), ana = n.grads[i],
               err = fabs(num - ana) / fmax(1e-2, fmax(fabs(num), fabs(ana)));
        worst = fmax(worst, err);
        bad += err > 0.01;
    }
    CHECK(bad == 0, "%s: %d of %zu gradients off (worst relative error %.3g)", what, bad, n.num_params, worst);
    printf("%s: worst relative gradient error %.2g over %zu parameters\n", what, worst, n.num_params);
    free(x);
    net_free(&n);
    model_free(&m);
}

static void test_gradients(void)
{
    gradcheck("input 2x7x7\nconv c out=3 k=3 s=2 p=1\nrelu r\npool p op=max k=2 s=1\nfc f out=4\nsoftmax s\n",
              "conv(stride 2, pad 1) relu maxpool fc");
    gradcheck("input 1x6x6\nconv c out=2 k=1x3 p=0x1\npool p op=avg k=3 s=2 p=1\nfc f out=3\nsoftmax s\n",
              "1x3 conv, avg pool with padding");
    gradcheck("input 3x4x4\nfc a out=5\nrelu r\ndropout d\nfc b out=3\nsoftmax s\n", "fc relu dropout fc");
    gradcheck("input 2x5x5\nconv c out=3 k=3 bias=0\npool g op=avg global=1\nfc f out=3\nsoftmax s\n",
              "conv without bias, global pooling");
    gradcheck("input 2x6x6\nconv a out=3 k=3 p=1\nconv b out=7 k=2x3 p=0x1\nfc f out=3\nsoftmax s\n",
              "two stride-1 convs (the direct kernels' input gradient)");
    /* a 1x1 conv of one channel: a step of a weight scales a channel and moves no window's argmax (no kink) */
    gradcheck("input 1x8x10\nconv c out=3 k=1\npool p op=max k=2 s=2\nfc f out=3\nsoftmax s\n",
              "1x1 conv, 2x2 max pooling in vectors");
}

/* A ReLU and a max pooling commute, value and gradient: conv -> relu -> 2x2
 * pool (the ReLU written by the convolution, its gradient by the pooling's,
 * both fused) must give the bits of conv -> 2x2 pool -> relu (nothing fused
 * there), which share every parameter. Shapes whose rows the vector pooling
 * takes; a stride-1 conv (direct) and a strided one (im2col). */
static void test_relu_pool_fusion(void)
{
    const char *pairs[][2] = {
        {"input 2x8x10\nconv c out=3 k=3 p=1\nrelu r\npool p op=max k=2 s=2\nfc f out=3\nsoftmax s\n",
         "input 2x8x10\nconv c out=3 k=3 p=1\npool p op=max k=2 s=2\nrelu r\nfc f out=3\nsoftmax s\n"},
        {"input 3x20x20\nconv c out=18 k=3 p=1 s=1\nrelu r\npool p op=max k=2 s=2\nfc f out=4\nsoftmax s\n",
         "input 3x20x20\nconv c out=18 k=3 p=1 s=1\npool p op=max k=2 s=2\nrelu r\nfc f out=4\nsoftmax s\n"},
        {"input 1x33x33\nconv c out=4 k=3 s=2\nrelu r\npool p op=max k=2 s=2\nfc f out=3\nsoftmax s\n",
         "input 1x33x33\nconv c out=4 k=3 s=2\npool p op=max k=2 s=2\nrelu r\nfc f out=3\nsoftmax s\n"},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        model_t ma = parse(pairs[k][0]), mb = parse(pairs[k][1]);
        net_t a, b;
        char msg[256];
        const int B = 4;
        CHECK(net_init(&a, &ma, B, 5, msg, sizeof msg) == GQ_OK && net_init(&b, &mb, B, 5, msg, sizeof msg) == GQ_OK,
              "net_init: %s", msg);
        float *x = malloc(a.in_size * B * sizeof *x);
        uint8_t labels[4] = {0, 1, 2, 1};
        rng_t r;
        rng_init(&r, 9);
        for (size_t i = 0; i < a.in_size * B; i++) x[i] = (float)(rng_double(&r) * 2 - 1);
        net_zero_grad(&a), net_zero_grad(&b);
        net_forward(&a, x, B, 1, 1), net_forward(&b, x, B, 1, 1);
        float la = net_loss(&a, x, labels, B, 1, NULL), lb = net_loss(&b, x, labels, B, 1, NULL);
        size_t nonzero = 0;
        for (size_t i = 0; i < a.num_params; i++) nonzero += a.grads[i] != 0;
        CHECK(a.num_params == b.num_params && la == lb &&
                  memcmp(a.grads, b.grads, a.num_params * sizeof *a.grads) == 0 && nonzero > a.num_params / 2,
              "relu then pool, fused, against pool then relu (model %zu): loss %.9g vs %.9g, gradients %s (%zu of %zu "
              "nonzero)",
              k, la, lb, memcmp(a.grads, b.grads, a.num_params * sizeof *a.grads) ? "differ" : "equal", nonzero,
              a.num_params);
        free(x);
        net_free(&a), net_free(&b);
        model_free(&ma), model_free(&mb);
    }
}

/* pool_max_2x2 against the definition: each window scanned row by row, the
 * first of its largest values and that value's index. Values from a few
 * levels (and both zeros) so that windows tie; shapes with odd sides (a row
 * and a column no window covers), rows of one vector and of several with a
 * partial one, and row-pair counts that leave a partial block. */
static void test_pool_max_2x2(void)
{
    const int shapes[][4] = {{3, 2, 28, 28}, {5, 16, 10, 10}, {2, 3, 11, 13},
                             {1, 1, 8, 8},   {7, 1, 9, 17},   {2, 2, 4, 4}};
    const float levels[] = {-1.0f, -0.0f, 0.0f, 1.0f, 2.0f};
    uint64_t state = 12345;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const int B = shapes[s][0], C = shapes[s][1], H = shapes[s][2], W = shapes[s][3], HO = H / 2, WO = W / 2;
        const size_t nin = (size_t)B * C * H * W, nout = (size_t)B * C * HO * WO;
        float *x = malloc(nin * sizeof *x), *out = malloc(nout * sizeof *out);
        int *arg = malloc(nout * sizeof *arg);
        for (size_t i = 0; i < nin; i++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            x[i] = levels[(state >> 33) % 5];
        }
        int took = pool_max_2x2(out, arg, x, B, C, H, W, HO, WO);
        if (W >= 8) /* rows of 4 are narrower than a vector with AVX: the general loop's */
            CHECK(took, "pool_max_2x2 takes %dx%dx%dx%d", B, C, H, W);
        if (!took) {
            free(x), free(out), free(arg);
            continue;
        }
        size_t wrong = 0;
        for (size_t plane = 0; plane < (size_t)B * C; plane++)
            for (int oh = 0; oh < HO; oh++)
                for (int ow = 0; ow < WO; ow++) {
                    const float *p = x + plane * H * W;
                    int at = 2 * oh * W + 2 * ow;
                    for (int kh = 0; kh < 2; kh++)
                        for (int kw = 0; kw < 2; kw++) {
                            int i = (2 * oh + kh) * W + 2 * ow + kw;
                            if (p[i] > p[at]) at = i;
                        }
                    size_t o = (plane * HO + oh) * WO + ow;
                    wrong += arg[o] != at || memcmp(&out[o], &p[at], sizeof(float)) != 0;
                }
        CHECK(wrong == 0, "pool_max_2x2 %dx%dx%dx%d: %zu of %zu windows differ from the first maximum in scan order", B,
              C, H, W, wrong, nout);
        /* the gradient against the scatter-add into zeros, gradients with -0 among them */
        float *dout = malloc(nout * sizeof *dout), *dx = malloc(nin * sizeof *dx), *want = calloc(nin, sizeof *want);
        for (size_t o = 0; o < nout; o++) dout[o] = o % 7 == 3 ? -0.0f : (float)o - 0.5f * (float)nout;
        for (size_t i = 0; i < nin; i++) dx[i] = 1e30f; /* every element must be written */
        for (size_t plane = 0; plane < (size_t)B * C; plane++)
            for (size_t o = plane * HO * WO; o < (plane + 1) * HO * WO; o++)
                want[plane * H * W + (size_t)arg[o]] += dout[o];
        CHECK(pool_max_2x2_backward(dx, arg, dout, NULL, B, C, H, W, HO, WO) && memcmp(dx, want, nin * sizeof *dx) == 0,
              "pool_max_2x2_backward %dx%dx%dx%d: not the scatter-add of the output gradient into zeros", B, C, H, W);
        /* gated by the pooled values (a ReLU before): the scatter, then the ReLU's gradient by its output */
        for (size_t plane = 0; plane < (size_t)B * C; plane++)
            for (size_t i = plane * H * W; i < (plane + 1) * H * W; i++) want[i] = x[i] > 0 ? want[i] : 0;
        CHECK(pool_max_2x2_backward(dx, arg, dout, out, B, C, H, W, HO, WO) && memcmp(dx, want, nin * sizeof *dx) == 0,
              "pool_max_2x2_backward %dx%dx%dx%d gated: not the ReLU's gradient of the scatter-add", B, C, H, W);
        free(dout), free(dx), free(want);
        free(x), free(out), free(arg);
    }
}

static void test_conv_naive(void)
{
    const int B = 2, C = 3, H = 9, W = 8, OC = 4, KH = 3, KW = 2, SH = 2, SW = 1, PH = 1, PW = 1;
    const int HO = (H + 2 * PH - KH) / SH + 1, WO = (W + 2 * PW - KW) / SW + 1;
    float inp[B * C * H * W], w[OC * C * KH * KW], b[OC], o1[B * OC * HO * WO], o2[B * OC * HO * WO];
    float col[(C * KH * KW + OC) * B * HO * WO];
    CHECK(conv2d_work_floats(B, C, H, W, OC, KH, KW, SH, SW, PH, PW, HO, WO) == sizeof col / 4,
          "strided: the im2col scratch");
    rng_t r;
    rng_init(&r, 5);
    for (size_t i = 0; i < sizeof inp / 4; i++) inp[i] = (float)rng_double(&r) - 0.5f;
    for (size_t i = 0; i < sizeof w / 4; i++) w[i] = (float)rng_double(&r) - 0.5f;
    for (int i = 0; i < OC; i++) b[i] = (float)i;
    conv2d_forward(o1, inp, w, b, B, C, H, W, OC, KH, KW, SH, SW, PH, PW, HO, WO, col, 0);
    conv2d_forward_naive(o2, inp, w, b, B, C, H, W, OC, KH, KW, SH, SW, PH, PW, HO, WO);
    double worst = 0;
    for (size_t i = 0; i < sizeof o1 / 4; i++) worst = fmax(worst, fabs(o1[i] - o2[i]));
    CHECK(worst < 1e-5, "im2col convolution vs naive: max difference %.3g", worst);
}

static double max_diff(const float *a, const float *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs((double)a[i] - b[i]));
    return worst;
}

/* One stride-1 shape through both paths: outputs against the naive loops,
 * gradients (input, weights, biases, accumulated onto nonzero values) against
 * im2col's. */
static void conv_direct_case(int B, int C, int H, int W, int OC, int KH, int KW, int PH, int PW)
{
    const int HO = H + 2 * PH - KH + 1, WO = W + 2 * PW - KW + 1;
    const size_t ni = (size_t)B * C * H * W, nw = (size_t)OC * C * KH * KW, no = (size_t)B * OC * HO * WO;
    size_t nwork = conv2d_work_floats(B, C, H, W, OC, KH, KW, 1, 1, PH, PW, HO, WO),
           ndirect = conv2d_direct_work_floats(C, H, W, OC, KH, KW, PH, PW, HO, WO);
    nwork = nwork > ndirect ? nwork : ndirect; /* conv2d_work_floats sizes only the path it takes */
    float *inp = malloc(ni * 4), *w = malloc(nw * 4), *b = malloc((size_t)OC * 4), *o1 = malloc(no * 4),
          *o2 = malloc(no * 4), *dout = malloc(no * 4), *work = malloc(nwork * 4);
    float *dx1 = malloc(ni * 4), *dx2 = malloc(ni * 4), *dw1 = malloc(nw * 4), *dw2 = malloc(nw * 4),
          *db1 = malloc((size_t)OC * 4), *db2 = malloc((size_t)OC * 4);
    rng_t r;
    rng_init(&r, (uint64_t)(B * 7 + C * 5 + OC * 3 + KH));
    for (size_t i = 0; i < ni; i++) inp[i] = (float)rng_double(&r) - 0.5f, dx1[i] = dx2[i] = 0.25f;
    for (size_t i = 0; i < nw; i++) w[i] = (float)rng_double(&r) - 0.5f, dw1[i] = dw2[i] = -1;
    for (size_t i = 0; i < no; i++) dout[i] = (float)rng_double(&r) - 0.5f;
    for (int i = 0; i < OC; i++) b[i] = (float)i - 2, db1[i] = db2[i] = 3;
    conv2d_forward_direct(o1, inp, w, b, B, C, H, W, OC, KH, KW, PH, PW, HO, WO, work, 0);
    conv2d_forward_naive(o2, inp, w, b, B, C, H, W, OC, KH, KW, 1, 1, PH, PW, HO, WO);
    double fwd = max_diff(o1, o2, no);
    conv2d_backward_direct(dx1, dw1, db1, dout, inp, w, B, C, H, W, OC, KH, KW, PH, PW, HO, WO, work);
    conv2d_backward_im2col(dx2, dw2, db2, dout, inp, w, B, C, H, W, OC, KH, KW, 1, 1, PH, PW, HO, WO, work);
    double dx = max_diff(dx1, dx2, ni), dwd = max_diff(dw1, dw2, nw), dbd = max_diff(db1, db2, (size_t)OC);
    /* and whichever path conv2d_forward/backward take for this shape (direct, im2col, or fc) */
    conv2d_forward(o1, inp, w, b, B, C, H, W, OC, KH, KW, 1, 1, PH, PW, HO, WO, work, 0);
    fwd = fmax(fwd, max_diff(o1, o2, no));
    for (size_t i = 0; i < ni; i++) dx1[i] = 0.25f;
    for (size_t i = 0; i < nw; i++) dw1[i] = -1;
    for (int i = 0; i < OC; i++) db1[i] = 3;
    conv2d_backward(dx1, dw1, db1, dout, inp, w, B, C, H, W, OC, KH, KW, 1, 1, PH, PW, HO, WO, work);
    dx = fmax(dx, max_diff(dx1, dx2, ni)), dwd = fmax(dwd, max_diff(dw1, dw2, nw));
    dbd = fmax(dbd, max_diff(db1, db2, (size_t)OC));
    /* sums of up to B*HO*WO products of magnitude <= 0.25: float rounding in another order */
    double tol = 1e-5 * (1 + (double)B * HO * WO / 64);
    CHECK(fwd < 1e-5 && dx < 1e-5 && dwd < tol && dbd < tol,
          "direct conv B%d C%d %dx%d OC%d k%dx%d p%dx%d: forward %.3g, dinp %.3g, dw %.3g, db %.3g off", B, C, H, W, OC,
          KH, KW, PH, PW, fwd, dx, dwd, dbd);
    free(inp), free(w), free(b), free(o1), free(o2), free(dout), free(work);
    free(dx1), free(dx2), free(dw1), free(dw2), free(db1), free(db2);
}

static void test_conv_direct(void)
{
    conv_direct_case(4, 1, 28, 28, 6, 5, 5, 2, 2);  /* LeNet-5 conv1 */
    conv_direct_case(3, 6, 14, 14, 16, 5, 5, 0, 0); /* conv2: channels in blocks 6+5+5 */
    conv_direct_case(2, 3, 9, 8, 7, 3, 2, 1, 1);    /* odd sizes: edges of every block */
    conv_direct_case(1, 2, 5, 3, 1, 1, 3, 0, 1);    /* one channel, a 1x3 kernel, a row shorter than a vector */
    conv_direct_case(2, 5, 7, 7, 13, 7, 7, 3, 3);   /* a kernel as wide as the image */
    conv_direct_case(3, 16, 5, 5, 120, 5, 5, 0, 0); /* conv3: a 1x1 output, taken as a fully connected layer */
}

/* The direct kernels' documented summation order, written plainly: a
 * forward output is one float chain over the taps in (c, kh, kw) order, then
 * the bias; a bias gradient sums an image's positions p = oh*WP + ow (WP
 * the padded width) into 8 running sums by p mod 8, adds those in order and
 * adds that to the gradient, image by image; a weight gradient's 8 running
 * sums by p mod 8 run on from image to image through the batch, and are
 * added in order to the gradient once -- or, with 16 output channels or
 * more, one running sum from zero over the batch's images and positions in
 * order, added to the gradient once. The kernels must give these bits
 * exactly, whatever register blocks the build chose (AVX-512, AVX2 and SSE
 * builds each run this). */
static void conv_direct_bits_case(int B, int C, int H, int W, int OC, int K, int P)
{
    const int HO = H + 2 * P - K + 1, WO = W + 2 * P - K + 1, WP = W + 2 * P, taps = C * K * K;
    const size_t ni = (size_t)B * C * H * W, nw = (size_t)OC * taps, no = (size_t)B * OC * HO * WO;
    float *inp = malloc(ni * 4), *w = malloc(nw * 4), *b = malloc((size_t)OC * 4), *o1 = malloc(no * 4),
          *o2 = malloc(no * 4), *dout = malloc(no * 4), *dw1 = malloc(nw * 4), *dw2 = malloc(nw * 4),
          *db1 = malloc((size_t)OC * 4), *db2 = malloc((size_t)OC * 4), *dx = calloc(ni, 4);
    float *work = malloc(conv2d_direct_work_floats(C, H, W, OC, K, K, P, P, HO, WO) * 4);
    rng_t r;
    rng_init(&r, (uint64_t)(C * 31 + OC));
    for (size_t i = 0; i < ni; i++) inp[i] = (float)rng_double(&r) - 0.5f;
    for (size_t i = 0; i < nw; i++) w[i] = (float)rng_double(&r) - 0.5f, dw1[i] = dw2[i] = 0.125f;
    for (size_t i = 0; i < no; i++) dout[i] = (float)rng_double(&r) - 0.5f;
    for (int i = 0; i < OC; i++) b[i] = 0.1f * (float)i, db1[i] = db2[i] = -0.5f;
#define IN(n, c, h, x_)                                                                                                \
    (((h) < 0 || (h) >= H || (x_) < 0 || (x_) >= W) ? 0.0f : inp[(((size_t)(n)*C + (c)) * H + (h)) * W + (x_)])
    float *wlanes = calloc(nw * 8, 4); /* the weight gradient's running sums (OC, taps, 8) */
    for (int n = 0; n < B; n++)
        for (int oc = 0; oc < OC; oc++) {
            for (int oh = 0; oh < HO; oh++)
                for (int ow = 0; ow < WO; ow++) {
                    float s = 0;
                    for (int t = 0; t < taps; t++) {
                        const int c = t / (K * K), kh = t / K % K, kw = t % K;
                        s += w[(size_t)oc * taps + t] * IN(n, c, oh - P + kh, ow - P + kw);
                    }
                    o2[(((size_t)n * OC + oc) * HO + oh) * WO + ow] = s + b[oc];
                }
            const float *dy = dout + ((size_t)n * OC + oc) * HO * WO;
            for (int t = -1; t < taps; t++) { /* t = -1: the bias */
                float bias_lane[8] = {0}, s = 0, *lane = t < 0 ? bias_lane : wlanes + ((size_t)oc * taps + t) * 8;
                for (int oh = 0; oh < HO; oh++)
                    for (int ow = 0; ow < WO; ow++) {
                        const int c = t < 0 ? 0 : t / (K * K), kh = t < 0 ? 0 : t / K % K, kw = t < 0 ? 0 : t % K;
                        const float xin = t < 0 ? 1.0f : IN(n, c, oh - P + kh, ow - P + kw);
                        /* 16 or more output channels: one chain a weight, no lanes */
                        lane[t >= 0 && OC >= 16 ? 0 : (oh * WP + ow) % 8] += dy[oh * WO + ow] * xin;
                    }
                if (t >= 0) continue;
                for (int l = 0; l < 8; l++) s += lane[l];
                db2[oc] += s;
            }
        }
    for (size_t k = 0; k < nw; k++) {
        float s = 0;
        for (int l = 0; l < 8; l++) s += wlanes[k * 8 + l];
        dw2[k] += OC >= 16 ? wlanes[k * 8] : s;
    }
    free(wlanes);
#undef IN
    conv2d_forward_direct(o1, inp, w, b, B, C, H, W, OC, K, K, P, P, HO, WO, work, 0);
    conv2d_backward_direct(dx, dw1, db1, dout, inp, w, B, C, H, W, OC, K, K, P, P, HO, WO, work);
    CHECK(memcmp(o1, o2, no * 4) == 0 && memcmp(dw1, dw2, nw * 4) == 0 && memcmp(db1, db2, (size_t)OC * 4) == 0,
          "direct conv C%d OC%d k%d p%d: not the documented summation order (forward %s, dw %s, db %s)", C, OC, K, P,
          memcmp(o1, o2, no * 4) ? "differs" : "same", memcmp(dw1, dw2, nw * 4) ? "differs" : "same",
          memcmp(db1, db2, (size_t)OC * 4) ? "differs" : "same");
    free(inp), free(w), free(b), free(o1), free(o2), free(dout), free(dw1), free(dw2), free(db1), free(db2);
    free(dx), free(work);
}

static void test_conv_direct_bits(void)
{
    conv_direct_bits_case(2, 1, 28, 28, 6, 5, 2);  /* LeNet-5 conv1 */
    conv_direct_bits_case(2, 6, 14, 14, 16, 5, 0); /* conv2 */
    conv_direct_bits_case(1, 3, 9, 11, 7, 3, 1);   /* blocks left partial */
    conv_direct_bits_case(2, 3, 9, 11, 20, 3, 1);  /* channels in the lanes: 12 padding ones, 27 taps (8+8+8+3) */
}

/* Two classes of 6x6 images: bright left half or bright right half, with noise. */
static idx_dataset toy(int n, uint64_t seed)
{
    idx_dataset d = {malloc((size_t)n * 36), malloc((size_t)n), n, 6, 6};
    rng_t r;
    rng_init(&r, seed);
    for (int i = 0; i < n; i++) {
        int cls = (int)(rng_u64(&r) & 1);
        d.labels[i] = (uint8_t)cls;
        for (int p = 0; p < 36; p++) {
            int left = p % 6 < 3;
            double v = (left != cls ? 180 : 40) + 60 * (rng_double(&r) - 0.5);
            d.images[(size_t)i * 36 + p] = (uint8_t)v;
        }
    }
    return d;
}

static double LAST_LOSS;
static double LAST_UP;
static float *LAST_PARAMS; /* the parameters after the last epoch reported */
static size_t LAST_NP;
static void keep(const epoch_stats *s, void *ctx)
{
    (void)ctx;
    LAST_LOSS = s->train_loss;
    LAST_UP = s->bytes_up_per_iter;
    if (LAST_NP != s->num_params) {
        free(LAST_PARAMS);
        LAST_PARAMS = malloc(s->num_params * sizeof *LAST_PARAMS);
        LAST_NP = s->num_params;
    }
    memcpy(LAST_PARAMS, s->params, s->num_params * sizeof *LAST_PARAMS);
}

static void test_training(void)
{
    model_t m = parse("input 1x6x6\nconv c out=4 k=3\nrelu r\npool p op=max k=2 s=2\nfc f out=2\nsoftmax s\n");
    idx_dataset tr = toy(512, 1), te = toy(128, 2);
    train_config c = {0};
    c.model = &m;
    qz_parse_spec("fp32", &c.quant, NULL, 0);
    c.workers = 1, c.batch = 16, c.epochs = 5, c.optimizer = OPT_MOMENTUM, c.lr = 0.05, c.momentum = 0.9;
    c.seed = 3, c.error_feedback = -1;
    char msg[256];
    CHECK(train_run(&c, &tr, &te, keep, NULL, msg, sizeof msg) == GQ_OK, "train fp32: %s", msg);
    CHECK(LAST_LOSS < 0.05, "fp32, 1 worker: final training loss %.4f below 0.05", LAST_LOSS);
    size_t np = LAST_NP;
    float *a = malloc(np * sizeof *a), *b = malloc(np * sizeof *b);
    memcpy(a, LAST_PARAMS, np * sizeof *a);
    c.workers = 4, c.batch = 4;
    qz_parse_spec("terngrad", &c.quant, NULL, 0);
    CHECK(train_run(&c, &tr, &te, keep, NULL, msg, sizeof msg) == GQ_OK, "train terngrad: %s", msg);
    CHECK(LAST_LOSS < 0.1, "terngrad, 4 workers: final training loss %.4f below 0.1", LAST_LOSS);
    /* bytes: per worker, conv w (36), conv b (4), fc w (32), fc b (2): 32-byte header + 4-byte scale +
     * 2 bits an element per tensor (the shared scaler is agreed by an all-reduce of its own, not counted here) */
    double expect = (32 + 4 + 9) + (32 + 4 + 1) + (32 + 4 + 8) + (32 + 4 + 1);
    CHECK(LAST_UP == expect, "terngrad uplink %.0f bytes per worker per iteration, expected %.0f", LAST_UP, expect);
    memcpy(a, LAST_PARAMS, np * sizeof *a);
    CHECK(train_run(&c, &tr, &te, keep, NULL, msg, sizeof msg) == GQ_OK, "rerun");
    memcpy(b, LAST_PARAMS, np * sizeof *b);
    CHECK(memcmp(a, b, np * sizeof *a) == 0, "the same seed gives bit-identical parameters");
    c.seed = 4;
    train_run(&c, &tr, &te, keep, NULL, msg, sizeof msg);
    memcpy(b, LAST_PARAMS, np * sizeof *b);
    CHECK(memcmp(a, b, np * sizeof *a) != 0, "another seed, other parameters");
    free(a), free(b), free(LAST_PARAMS);
    LAST_PARAMS = NULL, LAST_NP = 0;
    idx_free(&tr), idx_free(&te);
    model_free(&m);
}

/* Two workers whose gradients are identical (every image the same) update exactly as one worker: the
 * average of two equal floats is that float, whatever the scheme sums first, so one worker on n images and
 * two on 2n images (the same number of iterations) reach the same parameters bit for bit -- in every scheme
 * the trainer runs. An averaging that drops a worker, counts one twice, or divides by the wrong count
 * breaks it. */
static void test_identical_workers(void)
{
    model_t m = parse("input 1x6x6\nconv c out=4 k=3\nrelu r\npool p op=max k=2 s=2\nfc f out=2\nsoftmax s\n");
    idx_dataset te = toy(32, 2), one = toy(256, 1), two = toy(512, 1);
    for (int i = 1; i < 256; i++) memcpy(one.images + (size_t)i * 36, one.images, 36), one.labels[i] = one.labels[0];
    for (int i = 0; i < 512; i++) memcpy(two.images + (size_t)i * 36, one.images, 36), two.labels[i] = one.labels[0];
    train_config c = train_config_defaults();
    c.model = &m, c.batch = 8, c.epochs = 2, c.seed = 5;
    char msg[256];
    c.workers = 1;
    CHECK(train_run(&c, &one, &te, keep, NULL, msg, sizeof msg) == GQ_OK, "one worker: %s", msg);
    const size_t np = LAST_NP;
    float *ref = malloc(np * sizeof *ref);
    memcpy(ref, LAST_PARAMS, np * sizeof *ref);
    static const sync_kind SCHEMES[] = {SYNC_PS, SYNC_PS_SHARDED, SYNC_RING, SYNC_ALLGATHER};
    for (size_t k = 0; k < sizeof SCHEMES / sizeof SCHEMES[0]; k++) {
        c.workers = 2, c.sync = SCHEMES[k];
        CHECK(train_run(&c, &two, &te, keep, NULL, msg, sizeof msg) == GQ_OK, "two workers: %s", msg);
        CHECK(LAST_NP == np && memcmp(LAST_PARAMS, ref, np * sizeof *ref) == 0,
              "%s: two workers with identical gradients end where one worker does", sync_name(SCHEMES[k]));
    }
    /* a ring that re-quantizes at every hop, with a lossless quantizer (top-k keeping every element): the one hop
     * of two workers adds the other's gradient (g + g = 2g, exactly), the average is g again -- no hop or a
     * second one would leave g / 2 or 3g / 2 */
    c.workers = 2, c.sync = SYNC_RING;
    qz_parse_spec("topk:ratio=1", &c.quant, NULL, 0);
    CHECK(train_run(&c, &two, &te, keep, NULL, msg, sizeof msg) == GQ_OK, "two workers, topk:ratio=1: %s", msg);
    CHECK(LAST_NP == np && memcmp(LAST_PARAMS, ref, np * sizeof *ref) == 0,
          "ring re-quantizing every hop, lossless: two workers with identical gradients end where one worker does");
    free(ref), free(LAST_PARAMS);
    LAST_PARAMS = NULL, LAST_NP = 0;
    idx_free(&one), idx_free(&two), idx_free(&te);
    model_free(&m);
}

static void write_gz(const char *path, const unsigned char *bytes, size_t n)
{
    gzFile f = gzopen(path, "wb");
    gzwrite(f, bytes, (unsigned)n);
    gzclose(f);
}

static void test_idx(void)
{
    unsigned char img[16 + 2 * 4] = {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8};
    unsigned char lab[8 + 2] = {0, 0, 8, 1, 0, 0, 0, 2, 3, 9};
    char dir[] = "/tmp/gqsim-idx-XXXXXX", a[256], b[256], msg[256] = "";
    if (!mkdtemp(dir)) return;
    snprintf(a, sizeof a, "%s/i.gz", dir), snprintf(b, sizeof b, "%s/l.gz", dir);
    write_gz(a, img, sizeof img), write_gz(b, lab, sizeof lab);
    idx_dataset d;
    CHECK(idx_load(&d, a, b, 0, msg, sizeof msg) == GQ_OK && d.n == 2 && d.rows == 2 && d.images[7] == 8 &&
              d.labels[1] == 9,
          "a good IDX pair loads: %s", msg);
    idx_free(&d);
    CHECK(idx_load(&d, a, b, 1, msg, sizeof msg) == GQ_OK && d.n == 1 && d.images[3] == 4 && d.labels[0] == 3,
          "the first item alone: %s", msg);
    idx_free(&d);
    /* a byte after the last item: an error whenever the whole file is read (0, or items at the count) */
    unsigned char img_extra[sizeof img + 1];
    memcpy(img_extra, img, sizeof img), img_extra[sizeof img] = 0;
    write_gz(a, img_extra, sizeof img_extra);
    CHECK(idx_load(&d, a, b, 0, msg, sizeof msg) != GQ_OK && strstr(msg, "data after"), "extra byte, all: %s", msg);
    CHECK(idx_load(&d, a, b, 2, msg, sizeof msg) != GQ_OK && strstr(msg, "data after"), "extra byte, 2 of 2: %s", msg);
    CHECK(idx_load(&d, a, b, 1, msg, sizeof msg) == GQ_OK && d.n == 1, "extra byte, 1 of 2 unread: %s", msg);
    idx_free(&d);
    /* a label out of range in the second item: refused when it is read */
    lab[9] = 10;
    write_gz(a, img, sizeof img), write_gz(b, lab, sizeof lab);
    CHECK(idx_load(&d, a, b, 2, msg, sizeof msg) != GQ_OK && strstr(msg, "item 1"), "bad label read: %s", msg);
    CHECK(idx_load(&d, a, b, 1, msg, sizeof msg) == GQ_OK && d.n == 1, "bad label unread: %s", msg);
    idx_free(&d);
    lab[9] = 9;
    write_gz(b, lab, sizeof lab);
    write_gz(a, img, sizeof img - 1);
    CHECK(idx_load(&d, a, b, 1, msg, sizeof msg) == GQ_OK && d.n == 1, "truncated after the items read: %s", msg);
    idx_free(&d);
    CHECK(idx_load(&d, a, b, 0, msg, sizeof msg) != GQ_OK && strstr(msg, "i.gz: truncated"), "truncated: %s", msg);
    img[3] = 1;
    write_gz(a, img, sizeof img);
    CHECK(idx_load(&d, a, b, 0, msg, sizeof msg) != GQ_OK && strstr(msg, "magic"), "wrong magic: %s", msg);
    img[3] = 3;
    write_gz(a, img, sizeof img);
    lab[7] = 3;
    unsigned char lab3[11];
    memcpy(lab3, lab, 10), lab3[10] = 1;
    write_gz(b, lab3, sizeof lab3);
    CHECK(idx_load(&d, a, b, 0, msg, sizeof msg) != GQ_OK && strstr(msg, "2 images but") && strstr(msg, "3 labels"),
          "count mismatch: %s", msg);
    CHECK(idx_load(&d, "/nonexistent/x.gz", b, 0, msg, sizeof msg) != GQ_OK && strstr(msg, "x.gz"), "missing file: %s",
          msg);
    remove(a), remove(b), rmdir(dir);
}

/* OpenBLAS cores by feature set: a Sapphire Rapids Xeon (AVX-512 with BF16),
 * a Skylake-SP, a Zen 2 (AVX2, no AVX-512), a Sandy Bridge, a Core 2. */
static void test_blas_core(void)
{
    cpu_features spr = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, skx = spr, zen2 = {1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0},
                 snb = {1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}, core2 = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, none = {0};
    skx.avx512bf16 = 0;
    cpu_features half = spr; /* AVX-512F without BW/VL: not enough for SkylakeX's kernels */
    half.avx512bw = 0;
    CHECK(strcmp(blas_core_for(&spr), "Cooperlake") == 0, "AVX-512 + BF16: Cooperlake (%s)", blas_core_for(&spr));
    CHECK(strcmp(blas_core_for(&skx), "SkylakeX") == 0, "AVX-512: SkylakeX (%s)", blas_core_for(&skx));
    CHECK(strcmp(blas_core_for(&half), "Haswell") == 0, "AVX-512F alone: Haswell (%s)", blas_core_for(&half));
    CHECK(strcmp(blas_core_for(&zen2), "Haswell") == 0, "AVX2 + FMA: Haswell (%s)", blas_core_for(&zen2));
    CHECK(strcmp(blas_core_for(&snb), "Sandybridge") == 0, "AVX: Sandybridge (%s)", blas_core_for(&snb));
    CHECK(strcmp(blas_core_for(&core2), "Core2") == 0, "SSSE3: Core2 (%s)", blas_core_for(&core2));
    CHECK(strcmp(blas_core_for(&none), "Prescott") == 0, "nothing: Prescott (%s)", blas_core_for(&none));
    CHECK(blas_core_rank("Prescott") < blas_core_rank("Haswell") &&
              blas_core_rank("Zen") == blas_core_rank("Haswell") &&
              blas_core_rank("Haswell") < blas_core_rank("SkylakeX") &&
              blas_core_rank("SkylakeX") < blas_core_rank("Cooperlake") && blas_core_rank("Itanium") == -1,
          "core ranks: Prescott < Haswell = Zen < SkylakeX < Cooperlake; unknown -1");
}

int main(void)
{
    test_blas_core();
    test_gradients();
    test_conv_naive();
    test_conv_direct();
    test_conv_direct_bits();
    test_pool_max_2x2();
    test_relu_pool_fusion();
    test_training();
    test_identical_workers();
    test_idx();
    return check_summary();
}

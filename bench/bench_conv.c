/* Cost of the trainer's direct convolution kernels on LeNet-5's two
 * convolutions (64 images, the trainer's batch): forward, weight gradient
 * alone, and weight plus input gradient, against a 512^3 CBLAS sgemm timed
 * in the same run (the reference `gqsim train` reports). Each figure is the
 * fastest of several repetitions; GFLOP/s count the useful multiply-adds
 * only (2 * OC * C*KH*KW * HO*WO an image), not the positions the kernels
 * compute and drop. Prints the OpenBLAS kernel in use: run it where gqsim
 * would select a better one with OPENBLAS_CORETYPE set (see
 * docs/performance.md#trainer).
 * Build: cmake --build build --target bench_conv; run: build/bench_conv [REPS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_core.h"
#include "gq_clock.h"
#include "nn.h"
#include "rng.h"
#include "trainer.h"

typedef struct {
    const char *name;
    int C, H, W, OC, K, P;
} conv_shape;

static float *random_floats(size_t n, rng_t *r)
{
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; x && i < n; i++) x[i] = (float)(rng_double(r) - 0.5);
    return x;
}

int main(int argc, char **argv)
{
    const int reps = argc > 1 ? atoi(argv[1]) : 20, B = 64;
    const conv_shape shapes[] = {{"conv1 1x28x28 -> 6, 5x5 pad 2", 1, 28, 28, 6, 5, 2},
                                 {"conv2 6x14x14 -> 16, 5x5", 6, 14, 14, 16, 5, 0}};
    const char *core = blas_core_in_use();
    if (strcmp(core, "not-OpenBLAS") == 0) { /* a reference 25x too slow would make every ratio a flattery */
        fprintf(stderr, "bench_conv: cblas_sgemm is not OpenBLAS's in this binary (link order): no reference\n");
        return 1;
    }
    const double gemm = train_sgemm_gflops(); /* gqsim train's reference, one thread */
    printf("OpenBLAS kernel %s; sgemm 512^3 (reference) %.1f GFLOP/s\n", core, gemm);
    printf("%-32s %-18s %10s %10s\n", "layer, 64 images", "kernel", "GFLOP/s", "x sgemm");
    rng_t r;
    rng_init(&r, 1);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const conv_shape *c = &shapes[s];
        const int HO = c->H + 2 * c->P - c->K + 1, WO = c->W + 2 * c->P - c->K + 1;
        const size_t nin = (size_t)B * c->C * c->H * c->W, nout = (size_t)B * c->OC * HO * WO,
                     nw = (size_t)c->OC * c->C * c->K * c->K;
        float *x = random_floats(nin, &r), *w = random_floats(nw, &r), *bias = random_floats((size_t)c->OC, &r),
              *y = random_floats(nout, &r), *dy = random_floats(nout, &r), *dx = random_floats(nin, &r),
              *dw = random_floats(nw, &r), *db = random_floats((size_t)c->OC, &r),
              *work = malloc(conv2d_direct_work_floats(c->C, c->H, c->W, c->OC, c->K, c->K, c->P, c->P, HO, WO) *
                             sizeof *work);
        const double flops = 2.0 * (double)nw * HO * WO * B; /* one pass */
        double best[3] = {INFINITY, INFINITY, INFINITY};
        for (int t = 0; t < reps; t++) {
            double t0 = gq_now();
            conv2d_forward_direct(y, x, w, bias, B, c->C, c->H, c->W, c->OC, c->K, c->K, c->P, c->P, HO, WO, work, 0);
            double t1 = gq_now();
            conv2d_backward_direct(NULL, dw, db, dy, x, w, B, c->C, c->H, c->W, c->OC, c->K, c->K, c->P, c->P, HO, WO,
                                   work);
            double t2 = gq_now();
            conv2d_backward_direct(dx, dw, db, dy, x, w, B, c->C, c->H, c->W, c->OC, c->K, c->K, c->P, c->P, HO, WO,
                                   work);
            double t3 = gq_now();
            best[0] = fmin(best[0], t1 - t0), best[1] = fmin(best[1], t2 - t1), best[2] = fmin(best[2], t3 - t2);
        }
        const char *kernel[3] = {"forward", "weight gradient", "weight + input"};
        const double passes[3] = {1, 1, 2};
        for (int k = 0; k < 3; k++) {
            double rate = passes[k] * flops / best[k] / 1e9;
            printf("%-32s %-18s %10.1f %10.2f\n", c->name, kernel[k], rate, rate / gemm);
        }
        free(x), free(w), free(bias), free(y), free(dy), free(dx), free(dw), free(db), free(work);
    }
    return 0;
}

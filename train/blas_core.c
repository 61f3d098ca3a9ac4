/* The OpenBLAS core for this CPU's features, and the sgemm the trainer's rate is compared with; see blas_core.h. */
#define _GNU_SOURCE /* dladdr */
#include "blas_core.h"

#include "gq_clock.h"

#include <cblas.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char *openblas_get_corename(void); /* OpenBLAS's own, not in cblas.h */

cpu_features cpu_features_detect(void)
{
    cpu_features f = {0};
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    f.ssse3 = __builtin_cpu_supports("ssse3") != 0;
    f.sse4_2 = __builtin_cpu_supports("sse4.2") != 0;
    f.avx = __builtin_cpu_supports("avx") != 0;
    f.avx2 = __builtin_cpu_supports("avx2") != 0;
    f.fma = __builtin_cpu_supports("fma") != 0;
    f.avx512f = __builtin_cpu_supports("avx512f") != 0;
    f.avx512bw = __builtin_cpu_supports("avx512bw") != 0;
    f.avx512vl = __builtin_cpu_supports("avx512vl") != 0;
    f.avx512dq = __builtin_cpu_supports("avx512dq") != 0;
    f.avx512cd = __builtin_cpu_supports("avx512cd") != 0;
    f.avx512bf16 = __builtin_cpu_supports("avx512bf16") != 0;
#endif
    return f;
}

const char *blas_core_for(const cpu_features *f)
{
    int skx = f->avx512f && f->avx512bw && f->avx512vl && f->avx512dq && f->avx512cd && f->avx2 && f->fma;
    if (skx && f->avx512bf16) return "Cooperlake";
    if (skx) return "SkylakeX";
    if (f->avx2 && f->fma) return "Haswell";
    if (f->avx) return "Sandybridge";
    if (f->sse4_2) return "Nehalem";
    if (f->ssse3) return "Core2";
    return "Prescott";
}

int blas_core_rank(const char *core)
{
    static const struct {
        const char *name;
        int rank;
    } RANKS[] = {
        {"Prescott", 0},   {"Core2", 1},       {"Penryn", 1},      {"Dunnington", 1},
        {"Nehalem", 2},    {"Barcelona", 2},   {"Sandybridge", 3}, {"Bulldozer", 3},
        {"Piledriver", 3}, {"Steamroller", 3}, {"Excavator", 3},   {"Haswell", 4},
        {"Zen", 4},        {"SkylakeX", 5},    {"Cooperlake", 6},  {"SapphireRapids", 6},
    };
    for (size_t i = 0; core && i < sizeof RANKS / sizeof RANKS[0]; i++)
        if (strcmp(core, RANKS[i].name) == 0) return RANKS[i].rank;
    return -1;
}

const char *blas_core_in_use(void)
{
    /* A binary that links another CBLAS before OpenBLAS (GSL's reference one comes with GSL's link flags)
     * runs that library's cblas_sgemm, 30x slower here, while OpenBLAS still names its core: say so. */
    Dl_info gemm, blas;
    if (dladdr((void *)(uintptr_t)cblas_sgemm, &gemm) && dladdr((void *)(uintptr_t)openblas_get_corename, &blas) &&
        gemm.dli_fname && blas.dli_fname && strcmp(gemm.dli_fname, blas.dli_fname) != 0)
        return "not-OpenBLAS";
    const char *c = openblas_get_corename();
    return c ? c : "unknown";
}

double train_sgemm_gflops(void)
{
    const int N = 512;
    float *a = malloc((size_t)N * N * sizeof *a), *b = malloc((size_t)N * N * sizeof *b),
          *c = malloc((size_t)N * N * sizeof *c);
    if (!a || !b || !c) return 0;
    for (int i = 0; i < N * N; i++) a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.1f;
    openblas_set_num_threads(1);
    double best = 1e9;
    for (int t = 0; t < 3; t++) {
        double t0 = gq_now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
        double dt = gq_now() - t0;
        best = dt < best ? dt : best;
    }
    free(a), free(b), free(c);
    return 2.0 * N * N * N / best / 1e9;
}

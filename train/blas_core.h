/* Which OpenBLAS kernel ("core") this CPU should run. OpenBLAS picks its core
 * by CPU family and model; a CPU newer than its table (a Xeon that 0.3.21 does
 * not know, under a hypervisor) falls back to "Prescott" and runs SSE3 kernels
 * at a fraction of the speed. The features decide here instead, and the CLI
 * sets OPENBLAS_CORETYPE before OpenBLAS initialises (re-executing itself). */
#ifndef GQ_BLAS_CORE_H
#define GQ_BLAS_CORE_H

typedef struct {
    int ssse3, sse4_2, avx, avx2, fma, avx512f, avx512bw, avx512vl, avx512dq, avx512cd, avx512bf16;
} cpu_features;

/* This CPU's features (CPUID and the OS's saved state, as GCC reads them). */
cpu_features cpu_features_detect(void);
/* The best OpenBLAS 0.3.21 x86-64 core for these features: "Cooperlake",
 * "SkylakeX", "Haswell", "Sandybridge", "Nehalem", "Core2" or "Prescott". */
const char *blas_core_for(const cpu_features *f);
/* A core's rank by the instructions its kernels use (Prescott 0 .. Cooperlake
 * 6; AMD's Zen cores rank with Haswell, Excavator and kin with Sandybridge);
 * -1 for a name outside the table (a core this code does not judge). */
int blas_core_rank(const char *core);
/* The kernel OpenBLAS runs now; "not-OpenBLAS" where cblas_sgemm comes
 * from another library (one linked before OpenBLAS). */
const char *blas_core_in_use(void);

/* OpenBLAS's own, not in cblas.h: one thread keeps small GEMMs fast and runs reproducible. */
void openblas_set_num_threads(int);

/* CBLAS sgemm GFLOP/s on this machine, one thread: the reference the
 * trainer's achieved rate is read against (best of three 512^3 products). */
double train_sgemm_gflops(void);

#endif

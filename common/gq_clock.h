/* Monotonic wall-clock seconds, the one clock every timing in gqsim reads
 * (benchmarks, calibration, the trainer's per-epoch times). */
#ifndef GQ_CLOCK_H
#define GQ_CLOCK_H

#include <time.h>

static inline double gq_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif

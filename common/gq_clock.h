/* The clocks gqsim's measurements read (benchmarks, calibration, the
 * trainer's per-epoch times) — never a prediction: monotonic wall-clock
 * seconds, and the calling thread's or the whole process's CPU seconds
 * (which another process on the machine does not inflate). */
#ifndef GQ_CLOCK_H
#define GQ_CLOCK_H

#include <time.h>

static inline double gq_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double gq_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double gq_process_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif

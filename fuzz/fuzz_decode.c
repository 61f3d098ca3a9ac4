/* Fuzz target for the decoders (libFuzzer entry point; fuzz/standalone_main.c
 * drives it without libFuzzer). Two properties per input:
 *   1. decoding arbitrary bytes returns an error or n finite floats, never a
 *      crash or an out-of-bounds access;
 *   2. the input read as floats round-trips through a quantizer chosen by its
 *      first byte: encode succeeds (or reports non-finite input) and decode
 *      gives back n finite values.
 * Build: cmake -DGQ_FUZZ=ON -DCMAKE_C_COMPILER=clang, then
 *        ./fuzz_decode_libfuzzer -max_total_time=60 ../fuzz/corpus */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const SPECS[] = {
    "fp32",
    "fp16",
    "terngrad",
    "terngrad:pack=trits,bucket=7",
    "terngrad:scale=sigma",
    "qsgd:levels=3",
    "qsgd:code=elias,bucket=16",
    "qsgd:levels=255,norm=max,bucket=5",
    "orq:levels=2",
    "orq:levels=16,bucket=9",
    "bingrad-b:bucket=3",
    "bingrad-pb",
    "signsgd:bucket=4",
    "topk:ratio=0.3",
    "terngrad:pack=int8,bucket=6",
    "signsgd:pack=byte",
    "topk:ratio=0.2,index=64",
    "topk:ratio=0.5,index=32",
    "powersgd:rank=1",
    "powersgd:rank=3,warm=off,min=20",
};

static void fail(const char *what, const char *spec, size_t n, size_t r)
{
    fprintf(stderr, "fuzz_decode: %s (%s, n=%zu, result %s)\n", what, spec ? spec : "-", n,
            gq_is_error(r) ? gq_strerror(gq_error_code(r)) : "ok");
    abort();
}

static void check_decode(const uint8_t *data, size_t size)
{
    qz_header h;
    if (qz_peek(data, size, &h) != GQ_OK || h.n > (1u << 20)) {
        (void)qz_decode(NULL, 0, data, size);
        return;
    }
    float *y = malloc(h.n * sizeof *y);
    if (!y) return;
    size_t r = qz_decode(y, h.n, data, size);
    if (!gq_is_error(r)) {
        if (r != h.n) fail("decode returned the wrong count", NULL, (size_t)h.n, r);
        for (size_t i = 0; i < r; i++)
            if (!isfinite(y[i])) fail("decode produced a non-finite value", NULL, (size_t)h.n, r);
    }
    free(y);
}

static void check_roundtrip(const uint8_t *data, size_t size)
{
    if (size < 1 + sizeof(float)) return;
    size_t n = (size - 1) / sizeof(float);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    memcpy(x, data + 1, n * sizeof *x);
    qz_params p;
    const char *spec = SPECS[data[0] % (sizeof SPECS / sizeof SPECS[0])];
    qz_parse_spec(spec, &p, NULL, 0);
    size_t cap = qz_bound(&p, n), wcap = qz_workspace_size(&p, n);
    uint8_t *buf = malloc(cap);
    void *work = malloc(wcap ? wcap : 1);
    size_t r = qz_encode(buf, cap, x, n, &p, data[0], work, wcap);
    if (gq_is_error(r)) {
        /* the only acceptable failures: non-finite input, and then NONFINITE; else a finite |x| at or above the
         * quantizer's largest input (powersgd's 2^60), and then RANGE */
        int finite = 1, in_range = 1;
        for (size_t i = 0; i < n; i++) finite &= isfinite(x[i]), in_range &= fabsf(x[i]) < qz_largest_input(&p);
        const gq_err want = !finite ? GQ_ERR_NONFINITE : !in_range ? GQ_ERR_RANGE : GQ_OK;
        if (gq_error_code(r) != want) fail("encode failed other than its input says", spec, n, r);
    } else {
        size_t d = qz_decode(y, n, buf, r);
        if (r > cap || d != n) fail("round trip did not decode", spec, n, d);
        for (size_t i = 0; i < n; i++)
            if (!isfinite(y[i])) fail("round trip produced a non-finite value", spec, n, d);
    }
    free(x);
    free(y);
    free(buf);
    free(work);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_decode(data, size);
    check_roundtrip(data, size);
    return 0;
}

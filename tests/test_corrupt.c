/* Untrusted input: every truncation of every quantizer's buffer, every
 * single-byte corruption of small buffers, and targeted header damage
 * (magic, version, id, flags) are reported as errors, never a crash or an
 * out-of-bounds read (run under ASan in CI; buffers are exactly sized). */
#include "check.h"

static const char *const ALL[] = {
    "fp32",
    "fp16",
    "terngrad",
    "terngrad:pack=trits",
    "terngrad:pack=int8,bucket=64",
    "qsgd",
    "qsgd:code=elias",
    "qsgd:levels=9,norm=max",
    "orq",
    "orq:levels=16,bucket=32",
    "bingrad-b",
    "bingrad-pb",
    "signsgd",
    "signsgd:pack=byte",
    "topk:ratio=0.1",
    "topk:ratio=0.1,index=64",
    "powersgd",
    "powersgd:rank=1,warm=off,min=10",
};
#define NALL (sizeof ALL / sizeof ALL[0])

static size_t decode_copy(const unsigned char *buf, size_t size, float *y, size_t cap)
{
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, buf, size);
    size_t r = qz_decode(y, cap, copy, size);
    free(copy);
    return r;
}

int main(void)
{
    const size_t n = 300;
    float *x = test_gradient(DIST_LAPLACE, n, 5), *y = malloc(n * sizeof *y);
    for (size_t c = 0; c < NALL; c++) {
        qz_params p = test_spec(ALL[c]);
        size_t size;
        unsigned char *buf = test_encode(&p, x, n, 1, &size);
        CHECK(decode_copy(buf, size, y, n) == n, "%s: intact buffer decodes", ALL[c]);
        int accepted = 0;
        for (size_t len = 0; len < size; len++) accepted += !gq_is_error(decode_copy(buf, len, y, n));
        CHECK(accepted == 0, "%s: %d truncations accepted", ALL[c], accepted);
        int flips = 0;
        for (size_t i = 0; i < size; i++)
            for (int bit = 0; bit < 8; bit += 3) {
                buf[i] ^= (unsigned char)(1u << bit);
                flips += !gq_is_error(decode_copy(buf, size, y, n));
                buf[i] ^= (unsigned char)(1u << bit);
            }
        CHECK(flips == 0, "%s: %d single-bit corruptions went undetected", ALL[c], flips);
        /* trailing garbage */
        unsigned char *longer = malloc(size + 1);
        memcpy(longer, buf, size);
        longer[size] = 0;
        CHECK(gq_is_error(qz_decode(y, n, longer, size + 1)), "%s: a trailing byte is rejected", ALL[c]);
        free(longer);

        unsigned char save = buf[0];
        buf[0] = 'X';
        CHECK(gq_error_code(decode_copy(buf, size, y, n)) == GQ_ERR_BAD_MAGIC, "%s: bad magic", ALL[c]);
        buf[0] = save;
        save = buf[4];
        buf[4] = 3;
        CHECK(gq_error_code(decode_copy(buf, size, y, n)) == GQ_ERR_VERSION, "%s: unknown version", ALL[c]);
        buf[4] = 0;
        CHECK(gq_error_code(decode_copy(buf, size, y, n)) == GQ_ERR_VERSION, "%s: version 0", ALL[c]);
        buf[4] = 1; /* version 1 is known, but its checksum differs */
        CHECK(gq_error_code(decode_copy(buf, size, y, n)) == GQ_ERR_CORRUPT, "%s: v2 buffer stamped v1", ALL[c]);
        buf[4] = save;
        save = buf[5];
        buf[5] = 200;
        CHECK(gq_error_code(decode_copy(buf, size, y, n)) == GQ_ERR_CORRUPT, "%s: unknown quantizer id", ALL[c]);
        buf[5] = save;
        save = buf[7];
        buf[7] = 0x80;
        CHECK(gq_error_code(decode_copy(buf, size, y, n)) == GQ_ERR_CORRUPT, "%s: unknown flag", ALL[c]);
        buf[7] = save;
        free(buf);
    }
    CHECK(gq_error_code(qz_decode(y, n, "GQZ", 3)) == GQ_ERR_TRUNCATED, "a 3-byte prefix of the magic is truncated");
    CHECK(gq_error_code(qz_decode(y, n, "", 0)) == GQ_ERR_TRUNCATED, "an empty buffer is truncated");
    free(x);
    free(y);
    return check_summary();
}

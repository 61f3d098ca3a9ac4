/* The wire variants of frameworks that do not pack bits (docs/wire-format.md):
 * TernGrad as one int8 per element, signSGD as one byte per element, top-k
 * with 32- or 64-bit indices. Sizes from the documented formulas; the values
 * decoded equal the packed forms' for the same seed (only the packing
 * differs); the bytes on the wire are the documented -1/0/+1; a byte no code
 * travels as is rejected even under a valid checksum (recomputed here from
 * the documented XXH3 construction). */
#include <xxhash.h>

#include "check.h"

/* The checksum as docs/wire-format.md defines it, written independently. */
static void reseal(unsigned char *buf, size_t size)
{
    const XXH64_hash_t seed = XXH3_64bits(buf, 28), h = XXH3_64bits_withSeed(buf + 32, size - 32, seed);
    const uint32_t c = (uint32_t)h ^ (uint32_t)(h >> 32);
    for (int i = 0; i < 4; i++) buf[28 + i] = (unsigned char)(c >> (8 * i));
}

/* Encodes with both specs; 1 if the decoded values are bit-identical. */
static int same_values(const char *a, const char *b, const float *x, size_t n)
{
    qz_params pa = test_spec(a), pb = test_spec(b);
    size_t sa, sb;
    float *ya = test_roundtrip(&pa, x, n, 42, &sa), *yb = test_roundtrip(&pb, x, n, 42, &sb);
    int same = ya && yb && memcmp(ya, yb, n * sizeof *ya) == 0;
    free(ya), free(yb);
    return same;
}

int main(void)
{
    static const size_t NS[] = {1, 7, 100, 513, 4097, 100000};
    for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++) {
        const size_t n = NS[t];
        float *x = test_gradient(DIST_LAPLACE, n, 70 + t);
        size_t s;
        /* sizes: header, one float per bucket, one byte per element */
        qz_params tg = test_spec("terngrad:pack=int8"), tgb = test_spec("terngrad:bucket=64,pack=int8");
        qz_params sg = test_spec("signsgd:pack=byte"), sgb = test_spec("signsgd:bucket=100,pack=byte");
        free(test_encode(&tg, x, n, 1, &s));
        CHECK(s == 32 + 4 + n && qz_exact_size(&tg, n) == s, "terngrad int8 n=%zu: %zu bytes, 36+n due", n, s);
        free(test_encode(&tgb, x, n, 1, &s));
        CHECK(s == 32 + 4 * ((n + 63) / 64) + n, "terngrad int8 bucket=64 n=%zu: %zu bytes", n, s);
        free(test_encode(&sg, x, n, 1, &s));
        CHECK(s == 32 + 4 + n, "signsgd byte n=%zu: %zu bytes, 36+n due", n, s);
        free(test_encode(&sgb, x, n, 1, &s));
        CHECK(s == 32 + 4 * ((n + 99) / 100) + n, "signsgd byte bucket=100 n=%zu: %zu bytes", n, s);
        /* top-k: 8 for k, then k indices of 4 or 8 bytes and k floats */
        size_t k = (size_t)ceil(0.01 * (double)n);
        k = k < 1 ? 1 : k;
        qz_params t32 = test_spec("topk:index=32"), t64 = test_spec("topk:ratio=0.01,index=64");
        free(test_encode(&t32, x, n, 1, &s));
        CHECK(s == 32 + 8 + 8 * k, "topk index=32 n=%zu: %zu bytes, %zu due", n, s, 32 + 8 + 8 * k);
        free(test_encode(&t64, x, n, 1, &s));
        CHECK(s == 32 + 8 + 12 * k, "topk index=64 n=%zu: %zu bytes, %zu due", n, s, 32 + 8 + 12 * k);

        /* only the packing differs: the same draws, the same values */
        CHECK(same_values("terngrad", "terngrad:pack=int8", x, n), "terngrad int8 = 2bit values, n=%zu", n);
        CHECK(same_values("terngrad:bucket=64,scale=sigma", "terngrad:bucket=64,scale=sigma,pack=int8", x, n),
              "terngrad int8 = 2bit values (buckets, sigma), n=%zu", n);
        CHECK(same_values("signsgd:bucket=100", "signsgd:bucket=100,pack=byte", x, n), "signsgd byte = bit, n=%zu", n);
        CHECK(same_values("topk", "topk:index=64", x, n) && same_values("topk", "topk:index=32", x, n),
              "topk 32/64-bit indices = auto, n=%zu", n);
        free(x);
    }

    /* the bytes on the wire: int8 -1/0/+1, the sign of the value decoded */
    const size_t n = 1000;
    float *x = test_gradient(DIST_GAUSSIAN, n, 9), *y = malloc(n * sizeof *y);
    const char *const BYTE_SPECS[] = {"terngrad:pack=int8", "signsgd:pack=byte"};
    for (int c = 0; c < 2; c++) {
        qz_params p = test_spec(BYTE_SPECS[c]);
        size_t size;
        unsigned char *buf = test_encode(&p, x, n, 3, &size);
        CHECK(buf && qz_decode(y, n, buf, size) == n, "%s decodes", BYTE_SPECS[c]);
        const signed char *codes = (const signed char *)buf + 36;
        int off = 0, zeros = 0;
        for (size_t i = 0; i < n; i++) {
            const int want = y[i] > 0 ? 1 : y[i] < 0 ? -1 : 0;
            off += codes[i] != want;
            zeros += codes[i] == 0;
        }
        CHECK(off == 0, "%s: %d bytes are not the sign of their value", BYTE_SPECS[c], off);
        CHECK(c == 0 ? zeros > 0 && zeros < (int)n : zeros == 0, "%s: %d zero bytes", BYTE_SPECS[c], zeros);
        CHECK(buf[7] == 0x10, "%s: header flag 0x10 (pack byte), got 0x%02x", BYTE_SPECS[c], buf[7]);
        qz_header h;
        char spec[128];
        CHECK(qz_peek(buf, size, &h) == GQ_OK && h.params.pack == QZ_PACK_BYTE, "%s: the header says byte",
              BYTE_SPECS[c]);
        qz_format_spec(&h.params, spec, sizeof spec);
        CHECK(strstr(spec, c == 0 ? "pack=int8" : "pack=byte") != NULL, "%s: peeked spec '%s'", BYTE_SPECS[c], spec);
        /* the documented checksum is the one written */
        unsigned char sum[4];
        memcpy(sum, buf + 28, 4);
        reseal(buf, size);
        CHECK(memcmp(sum, buf + 28, 4) == 0, "%s: the checksum is XXH3 as documented", BYTE_SPECS[c]);
        /* bytes no code travels as, under a valid checksum */
        const unsigned char BAD[] = {2, 0x7F, 0x80, 0xFE};
        int accepted = 0;
        for (size_t b = 0; b < sizeof BAD; b++) {
            const unsigned char save = buf[36 + 500];
            buf[36 + 500] = BAD[b];
            reseal(buf, size);
            accepted += !gq_is_error(qz_decode(y, n, buf, size));
            buf[36 + 500] = save;
        }
        if (c == 1) { /* signSGD has no zero */
            buf[36 + 10] = 0;
            reseal(buf, size);
            accepted += !gq_is_error(qz_decode(y, n, buf, size));
        }
        CHECK(accepted == 0, "%s: %d invalid code bytes accepted", BYTE_SPECS[c], accepted);
        free(buf);
    }
    free(x), free(y);

    /* 64-bit sizes: index=32 cannot address beyond 2^32, index=64 always 8 bytes */
    const size_t big = (size_t)1 << 40, small = 1000;
    qz_params t32 = test_spec("topk:ratio=0.001,index=32"), t64 = test_spec("topk:ratio=0.5,index=64");
    CHECK(gq_error_code(qz_bound(&t32, big)) == GQ_ERR_TOO_LARGE, "topk index=32 at 2^40 is an error");
    CHECK(qz_bound(&t64, small) == 32 + 8 + 12 * 500, "topk index=64 at n=1000 (%zu)", qz_bound(&t64, small));
    qz_params tg = test_spec("terngrad:pack=int8");
    CHECK(qz_bound(&tg, big) == 32 + 4 + big, "terngrad int8 at 2^40");

    /* canonical specs: the packing and width shown only where not the default */
    char buf[128];
    qz_params p = test_spec("signsgd:pack=byte");
    qz_format_spec(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "signsgd:bucket=0,pack=byte") == 0, "signsgd byte spec '%s'", buf);
    p = test_spec("signsgd:pack=bit");
    qz_format_spec(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "signsgd:bucket=0") == 0, "signsgd bit spec '%s'", buf);
    p = test_spec("topk:index=64");
    qz_format_spec(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "topk:ratio=0.01,index=64") == 0, "topk index spec '%s'", buf);
    p = test_spec("terngrad:pack=int8");
    qz_format_spec(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "terngrad:bucket=0,clip=2.5,scale=max,pack=int8") == 0, "terngrad int8 spec '%s'", buf);
    return check_summary();
}

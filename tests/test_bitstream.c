/* Bit I/O: the bit-stream writer and reader round-trip, the fast dense packer
 * produces exactly the bytes of the reference bit-stream writer for every
 * width and count, trits pack 5 per byte, and overflow/overrun are reported. */
#include "bitstream.h"
#include "check.h"
#include "qz_internal.h"
#include "rng.h"

static void test_writer_reader(void)
{
    rng_t r;
    rng_init(&r, 1);
    enum { N = 5000 };
    static uint32_t vals[N];
    static unsigned widths[N];
    static uint8_t buf[N * 4 + 8];
    bitwriter bw;
    bw_init(&bw, buf, sizeof buf);
    size_t total = 0;
    for (int i = 0; i < N; i++) {
        widths[i] = 1 + (unsigned)(rng_u64(&r) % 32);
        vals[i] = (uint32_t)rng_u64(&r) & (widths[i] == 32 ? 0xFFFFFFFFu : ((1u << widths[i]) - 1));
        bw_put(&bw, vals[i], widths[i]);
        total += widths[i];
    }
    size_t bytes = bw_close(&bw);
    CHECK(bytes == (total + 7) / 8, "wrote %zu bytes for %zu bits", bytes, total);
    bitreader br;
    br_init(&br, buf, bytes);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += br_get(&br, widths[i]) != vals[i];
    CHECK(bad == 0 && !br.overrun, "%d values differ after a round trip", bad);
    br_get(&br, 16);
    CHECK(br.overrun, "reading past the end sets overrun");

    uint8_t small[3];
    bw_init(&bw, small, sizeof small);
    bw_put(&bw, 0xABCDEF, 24);
    bw_put(&bw, 1, 1);
    CHECK(bw_close(&bw) == 0, "overflow of a 3-byte buffer is reported");
}

static void test_pack_matches_reference(void)
{
    rng_t r;
    rng_init(&r, 2);
    static uint8_t codes[1000], back[1000], fast[1000], ref[1000];
    int bad = 0;
    /* every count to 999: the vector packer's loop ends at each width's own
     * bound (its stores reach 16 bytes past a group), every such end included */
    for (unsigned w = 1; w <= 8; w++)
        for (size_t count = 1; count <= 999; count++) {
            for (size_t i = 0; i < count; i++) codes[i] = (uint8_t)(rng_u64(&r) & ((1u << w) - 1));
            size_t bytes = (count * w + 7) / 8;
            memset(fast, 0xEE, sizeof fast);
            qz_pack_bits(fast, codes, count, w);
            bitwriter bw;
            bw_init(&bw, ref, sizeof ref);
            for (size_t i = 0; i < count; i++) bw_put(&bw, codes[i], w);
            size_t rb = bw_close(&bw);
            bad += rb != bytes || memcmp(fast, ref, bytes) != 0 || fast[bytes] != 0xEE;
            qz_unpack_bits(back, fast, count, w);
            bad += memcmp(back, codes, count) != 0;
        }
    CHECK(bad == 0, "%d packer mismatches against the bit-stream reference", bad);
}

static void test_trits(void)
{
    uint8_t codes[23], packed[5], back[23];
    for (int i = 0; i < 23; i++) codes[i] = (uint8_t)((i * 7) % 3);
    qz_pack_trits(packed, codes, 23);
    CHECK(qz_unpack_trits(back, packed, 23) == 0 && memcmp(back, codes, 23) == 0, "trits round trip");
    /* first byte: codes 0,1,2,0,1 -> 0 + 3 + 18 + 0 + 81 */
    CHECK(packed[0] == 102, "trit byte is c0+3c1+9c2+27c3+81c4 (got %u)", packed[0]);
    packed[1] = 243;
    CHECK(qz_unpack_trits(back, packed, 23) != 0, "a byte >= 243 is rejected");
    qz_pack_trits(packed, codes, 23);
    packed[4] = 9; /* last byte holds 3 trits: values >= 27 are invalid, 9 is valid */
    CHECK(qz_unpack_trits(back, packed, 23) == 0, "valid tail accepted");
    packed[4] = 27;
    CHECK(qz_unpack_trits(back, packed, 23) != 0, "unused tail trits must be zero");
}

int main(void)
{
    test_writer_reader();
    test_pack_matches_reference();
    test_trits();
    return check_summary();
}

/* A little-endian bit stream (LSB first) over a caller-owned byte buffer.
 *
 * Writer: a 64-bit accumulator flushed a byte at a time; bw_close() returns
 * the bytes written, or 0 if the buffer overflowed (the writer never writes
 * past `end`). Reader: the same layout, every read bounds-checked; a read past
 * the end sets `overrun` and returns zeros, so decoders of untrusted input
 * check one flag instead of every call. Bit order matches the dense packer in
 * qz_pack.h: element i of width w sits at bits [i*w, (i+1)*w). */
#ifndef GQ_BITSTREAM_H
#define GQ_BITSTREAM_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t acc;   /* pending bits, LSB first */
    unsigned nbits; /* number of pending bits, < 8 between calls */
    uint8_t *ptr, *start, *end;
    int overflow;
} bitwriter;

static inline void bw_init(bitwriter *bw, void *dst, size_t cap)
{
    bw->acc = 0;
    bw->nbits = 0;
    bw->start = bw->ptr = (uint8_t *)dst;
    bw->end = bw->start + cap;
    bw->overflow = 0;
}

/* Appends the low `nbits` (<= 32) bits of value. */
static inline void bw_put(bitwriter *bw, uint32_t value, unsigned nbits)
{
    assert(nbits <= 32);
    assert(nbits == 32 || (value >> nbits) == 0);
    bw->acc |= (uint64_t)value << bw->nbits;
    bw->nbits += nbits;
    while (bw->nbits >= 8) {
        if (bw->ptr < bw->end)
            *bw->ptr++ = (uint8_t)bw->acc;
        else
            bw->overflow = 1;
        bw->acc >>= 8;
        bw->nbits -= 8;
    }
}

/* Pads the last partial byte with zeros. @return bytes written, 0 on overflow. */
static inline size_t bw_close(bitwriter *bw)
{
    if (bw->nbits > 0) bw_put(bw, 0, 8 - bw->nbits);
    return bw->overflow ? 0 : (size_t)(bw->ptr - bw->start);
}

typedef struct {
    uint64_t acc;
    unsigned nbits;
    const uint8_t *ptr, *end;
    int overrun;
} bitreader;

static inline void br_init(bitreader *br, const void *src, size_t size)
{
    br->acc = 0;
    br->nbits = 0;
    br->ptr = (const uint8_t *)src;
    br->end = br->ptr + size;
    br->overrun = 0;
}

/* Reads `nbits` (<= 32) bits; past the end, sets overrun and yields zeros. */
static inline uint32_t br_get(bitreader *br, unsigned nbits)
{
    assert(nbits <= 32);
    while (br->nbits < nbits) {
        if (br->ptr < br->end) {
            br->acc |= (uint64_t)*br->ptr++ << br->nbits;
        } else {
            br->overrun = 1;
        }
        br->nbits += 8;
    }
    uint32_t v = (uint32_t)(br->acc & ((nbits == 32) ? 0xFFFFFFFFull : ((1ull << nbits) - 1)));
    br->acc >>= nbits;
    br->nbits -= nbits;
    return v;
}

/* Bits not yet consumed; the reader has consumed all input when this is < 8
 * and the remaining pending bits are zero padding. */
static inline size_t br_bits_left(const bitreader *br) { return (size_t)(br->end - br->ptr) * 8 + br->nbits; }

#endif

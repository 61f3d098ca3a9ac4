/* The physical ranges every parser of a rate, a latency, a size or a count
 * checks against: one table, so that a cluster spec, a SimGrid XML, a CSV
 * column and an option refuse the same impossible values (1e-300 Gb/s, a
 * negative latency, a GPU slower than an image a day, a codec slower than an
 * element a second) with the same bounds, and no prediction made from
 * accepted inputs overflows to inf or nan. Also SimGrid's value-with-unit
 * syntax ("125MBps", "10us") for the XML reader. */
#ifndef GQ_PHYS_RANGE_H
#define GQ_PHYS_RANGE_H

#include <stddef.h>

/* PHYS_FATPIPE_RATE: a FATPIPE link, which SimGrid never shares, so that it stands for "no limit"
 * (gqsim's racks' backplane and a host's memory bus at 1 PB/s) rather than a cable */
typedef enum {
    PHYS_RATE,
    PHYS_FATPIPE_RATE,
    PHYS_LATENCY,
    PHYS_MESSAGE_BYTES,
    PHYS_IMAGE_RATE,  /* a GPU's (or a cluster's) training throughput, images/s */
    PHYS_CODEC_RATE,  /* a codec's flat rate, elements/s */
    PHYS_CODEC_NS,    /* a codec's cost an element, ns */
    PHYS_FLOP_RATE,   /* a GPU's peak arithmetic rate, FLOP/s */
    PHYS_MEMORY_RATE, /* a GPU's memory bandwidth, bytes/s */
    PHYS_COUNT_
} phys_quantity;

/* The bounds the option tables need as constants (the same numbers as the table in phys_range.c). */
#define PHYS_IMAGE_RATE_LO 1e-5 /* images/s: 0.86 a day */
#define PHYS_IMAGE_RATE_HI 1e9
#define PHYS_CODEC_RATE_LO 1.0 /* elements/s */
#define PHYS_CODEC_RATE_HI 1e15
#define PHYS_CODEC_NS_HI 1e9 /* ns an element: one element a second */

typedef struct {
    const char *what;  /* "a link rate" */
    const char *unit;  /* the unit of lo and hi: "bytes/s" */
    double lo, hi;     /* inclusive bounds */
    const char *human; /* the bounds as people write them */
} phys_range;

const phys_range *phys_range_of(phys_quantity q);
/* 1 if x is finite and within q's bounds. */
int phys_in_range(phys_quantity q, double x);
/* "must be between 1 kbit/s and 100 Tbit/s" (q's bounds), for messages. */
const char *phys_bounds_text(phys_quantity q);

/* Parses a SimGrid bandwidth ("1e9Bps", "10Gbps", "125MBps", "1GiBps") into bytes/s or a
 * latency ("5us", "1e-3s", "2ms") into seconds. A bare number is refused (SimGrid
 * itself warns and guesses). @return 0; -1 out of range or not a number (the reason in why); -2 a
 * unit not known here, left to SimGrid (a negative value is -1 whatever its unit). */
int phys_parse_simgrid(phys_quantity q, const char *text, double *value, char *why, size_t cap);

#endif

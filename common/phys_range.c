/* The physical ranges and SimGrid's units; see phys_range.h. The bounds are
 * wide enough for anything built (a 10 Mb/s lab link, a 1.6 Tb/s NIC, a
 * satellite hop, a host CPU training at a few images a second) and narrow
 * enough that a typo cannot reach the simulator: 1 kbit/s to 100 Tbit/s,
 * latencies from 0 to an hour, messages up to 1 TB, GPUs from an image a day
 * and 1 GFLOP/s, codecs from an element a second. */
#include "phys_range.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const phys_range RANGES[PHYS_COUNT_] = {
    [PHYS_RATE] = {"a link rate", "bytes/s", 1e3 / 8, 100e12 / 8, "between 1 kbit/s and 100 Tbit/s"},
    [PHYS_FATPIPE_RATE] = {"a fat pipe's rate", "bytes/s", 1e3 / 8, 1e15, "between 1 kbit/s and 1 PB/s"},
    [PHYS_LATENCY] = {"a latency", "s", 0, 3600, "between 0 and 3600 s"},
    [PHYS_MESSAGE_BYTES] = {"a message size", "bytes", 1, 1e12, "between 1 byte and 1e12 bytes"},
    [PHYS_IMAGE_RATE] = {"a training rate", "images/s", PHYS_IMAGE_RATE_LO, PHYS_IMAGE_RATE_HI,
                         "between 1e-5 images/s (about one a day) and 1e9 images/s"},
    [PHYS_CODEC_RATE] = {"a codec's rate", "elements/s", PHYS_CODEC_RATE_LO, PHYS_CODEC_RATE_HI,
                         "between 1 and 1e15 elements/s"},
    [PHYS_CODEC_NS] = {"a codec's cost an element", "ns", 0, PHYS_CODEC_NS_HI,
                       "between 0 and 1e9 ns (one element a second)"},
    [PHYS_FLOP_RATE] = {"a peak arithmetic rate", "FLOP/s", 1e9, 1e16, "between 0.001 and 10000 TFLOP/s"},
    [PHYS_MEMORY_RATE] = {"a memory bandwidth", "bytes/s", 1e8, 1e14, "between 0.1 and 100000 GB/s"},
};

const phys_range *phys_range_of(phys_quantity q) { return q < PHYS_COUNT_ ? &RANGES[q] : NULL; }

int phys_in_range(phys_quantity q, double x)
{
    const phys_range *r = phys_range_of(q);
    return r && isfinite(x) && x >= r->lo && x <= r->hi;
}

const char *phys_bounds_text(phys_quantity q) { return q < PHYS_COUNT_ ? RANGES[q].human : "?"; }

typedef struct {
    const char *suffix;
    double scale;
} unit;

/* SimGrid's units (its xml/platf_sax_cb: "bps" bits, "Bps" bytes; k/M/G/T/P decimal, Ki/Mi/Gi/Ti binary) */
static const unit RATE_UNITS[] = {{"Bps", 1},
                                  {"kBps", 1e3},
                                  {"KBps", 1e3},
                                  {"MBps", 1e6},
                                  {"GBps", 1e9},
                                  {"TBps", 1e12},
                                  {"PBps", 1e15},
                                  {"EBps", 1e18},
                                  {"KiBps", 1024.0},
                                  {"MiBps", 1048576.0},
                                  {"GiBps", 1073741824.0},
                                  {"TiBps", 1099511627776.0},
                                  {"bps", 0.125},
                                  {"kbps", 125},
                                  {"Kbps", 125},
                                  {"Mbps", 125e3},
                                  {"Gbps", 125e6},
                                  {"Tbps", 125e9},
                                  {"Pbps", 125e12},
                                  {"Kibps", 128.0},
                                  {"Mibps", 131072.0},
                                  {"Gibps", 134217728.0},
                                  {"Tibps", 137438953472.0},
                                  {NULL, 0}};
static const unit TIME_UNITS[] = {{"s", 1},  {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9},  {"ps", 1e-12},
                                  {"m", 60}, {"h", 3600},  {"d", 86400}, {"w", 604800}, {NULL, 0}};

int phys_parse_simgrid(phys_quantity q, const char *text, double *value, char *why, size_t cap)
{
    const unit *units = q == PHYS_RATE || q == PHYS_FATPIPE_RATE ? RATE_UNITS : q == PHYS_LATENCY ? TIME_UNITS : NULL;
    if (!units) return snprintf(why, cap, "no SimGrid unit for this quantity"), -1;
    char *end;
    const double x = strtod(text, &end);
    if (end == text) return snprintf(why, cap, "'%.40s' is not a number with a unit", text), -1;
    for (const unit *u = units; u->suffix; u++)
        if (strcmp(end, u->suffix) == 0) {
            *value = x * u->scale;
            if (!phys_in_range(q, *value))
                return snprintf(why, cap, "'%.40s': %s must be %s", text, RANGES[q].what, RANGES[q].human), -1;
            return 0;
        }
    if (x < 0) return snprintf(why, cap, "'%.40s': %s must be %s", text, RANGES[q].what, RANGES[q].human), -1;
    return snprintf(why, cap, "'%.40s' has no unit known here", text), -2;
}

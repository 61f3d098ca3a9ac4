/* Fuzz target for ping-pong CSVs, `platforms calibrate --pingpong`
 * (libFuzzer entry point; standalone_main.c drives it without libFuzzer):
 * arbitrary bytes are refused with FILE:LINE (or FILE: for a file with no
 * rows), or read into sizes and times within the physical ranges. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "phys_range.h"
#include "user_tables.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    double bytes[64], secs[64];
    int n = -1;
    char msg[512];
    gq_err e = pingpong_parse((const char *)data, size, "fuzz.csv", bytes, secs, 64, &n, msg, sizeof msg);
    if (e == GQ_OK) {
        if (n < 1 || n > 64) abort();
        for (int i = 0; i < n; i++)
            if (!phys_in_range(PHYS_MESSAGE_BYTES, bytes[i]) || !phys_in_range(PHYS_LATENCY, secs[i]) || secs[i] <= 0)
                abort();
    } else if (e == GQ_ERR_SPEC && strncmp(msg, "fuzz.csv:", 9) != 0) {
        abort();
    }
    return 0;
}

/* Fuzz target for the measured-throughput CSV reader behind `gqsim validate`
 * (libFuzzer entry point; standalone_main.c drives it without libFuzzer):
 * arbitrary bytes are refused with FILE:LINE, or read into rows whose
 * numbers are all within their documented ranges. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measured.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    measured_set s;
    char msg[1024];
    gq_err e = measured_parse((const char *)data, size, "fuzz.csv", &s, msg, sizeof msg);
    if (e == GQ_OK) {
        if (s.n == 0) abort();
        for (size_t i = 0; i < s.n; i++) {
            const measured_row *r = &s.rows[i];
            if (r->gpus < 1 || r->gpus > MEASURED_MAX_GPUS || r->batch < 1 || r->batch > MEASURED_MAX_BATCH ||
                !(r->images_per_s > 0 && r->images_per_s <= 1e9) || r->line < 2 || !r->model[0])
                abort();
        }
    } else if (e == GQ_ERR_SPEC && strncmp(msg, "fuzz.csv:", 9) != 0) {
        abort();
    }
    measured_free(&s);
    return 0;
}

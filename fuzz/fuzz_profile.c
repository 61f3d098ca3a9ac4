/* Fuzz target for codec cost profile files, the --codec-costs reader
 * (libFuzzer entry point; standalone_main.c drives it without libFuzzer):
 * arbitrary bytes are refused with FILE:LINE, or read into rows whose costs
 * are all finite, non-negative and at most 1e12 ns, each with a known
 * quantizer and a device name. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec_cost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    codec_profile p;
    char msg[512];
    gq_err e = codec_profile_parse((const char *)data, size, "fuzz.csv", &p, msg, sizeof msg);
    if (e == GQ_OK) {
        for (size_t i = 0; i < p.n; i++) {
            const codec_cost *c = &p.rows[i].cost;
            const double v[4] = {c->enc_fixed_ns, c->enc_ns, c->dec_fixed_ns, c->dec_ns};
            for (int k = 0; k < 4; k++)
                if (!isfinite(v[k]) || v[k] < 0 || v[k] > 1e12) abort();
            if (!p.rows[i].device[0] || p.rows[i].q.id < QZ_FP32 || p.rows[i].q.id >= QZ_ID_END_) abort();
        }
    } else if (e == GQ_ERR_SPEC && strncmp(msg, "fuzz.csv:", 9) != 0) {
        abort();
    }
    codec_profile_free(&p);
    return 0;
}

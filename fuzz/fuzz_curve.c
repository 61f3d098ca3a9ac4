/* Fuzz target for accuracy curves, `tta --accuracy-curve` (libFuzzer entry
 * point; standalone_main.c drives it without libFuzzer): arbitrary bytes are
 * refused with FILE:LINE (or FILE: for a whole-file reason), or read into
 * curves whose every seed's every epoch from the first given holds a fraction
 * in [0, 1] (given or interpolated between two given), the epochs before it
 * unknown (NaN) or given. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "user_tables.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static acc_curve curves[4];
    int n = -1;
    char msg[512];
    gq_err e = acc_curves_parse((const char *)data, size, "fuzz.csv", curves, 4, &n, msg, sizeof msg);
    if (e == GQ_OK) {
        if (n < 1 || n > 4) abort();
        for (int k = 0; k < n; k++) {
            if (curves[k].epochs < 1 || curves[k].epochs > ACC_CURVE_MAX_EPOCHS || !curves[k].quant[0]) abort();
            if (curves[k].nseeds < 1 || curves[k].nseeds > ACC_CURVE_MAX_SEEDS) abort();
            if (curves[k].first < 1 || curves[k].first > curves[k].epochs) abort();
            if (curves[k].interpolated > curves[k].nseeds * curves[k].epochs) abort();
            for (size_t si = 0; si < curves[k].nseeds; si++)
                for (size_t i = 0; i < curves[k].epochs; i++) {
                    const double a = curves[k].acc[si][i];
                    if (!(a >= 0 && a <= 1) && !(isnan(a) && i + 1 < curves[k].epochs)) abort();
                }
        }
    } else if (e == GQ_ERR_SPEC && strncmp(msg, "fuzz.csv:", 9) != 0) {
        abort();
    }
    return 0;
}

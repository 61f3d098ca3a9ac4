/* Fuzz target for the CSV readers of configurations: the measured-throughput reader behind `gqsim validate`, the
 * same in grid mode behind `gqsim sweep`, and the per-tensor plan reader behind `simulate --plan` (for LeNet-5)
 * (libFuzzer entry point; standalone_main.c drives it without libFuzzer): arbitrary bytes are refused with
 * FILE:LINE, or read into rows whose numbers are all within their documented ranges. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measured.h"
#include "tensor_plan.h"

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

    e = measured_parse_grid((const char *)data, size, "fuzz.csv", &s, msg, sizeof msg);
    if (e == GQ_OK) {
        if (s.n == 0) abort();
        for (size_t i = 0; i < s.n; i++) {
            const measured_row *r = &s.rows[i];
            if (r->gpus < 1 || r->gpus > MEASURED_MAX_GPUS || r->batch > MEASURED_MAX_BATCH ||
                !(r->images_per_s >= 0 && r->images_per_s <= 1e9) || r->line < 2 || !r->model[0])
                abort();
        }
    } else if (e == GQ_ERR_SPEC && strncmp(msg, "fuzz.csv:", 9) != 0) {
        abort();
    }
    measured_free(&s);

    static model_t lenet;
    static int parsed;
    if (!parsed) {
        static const char LENET[] = "name lenet5\ninput 1x28x28\nconv conv1 out=6 k=5 p=2\npool pool1 op=max k=2 s=2\n"
                                    "conv conv2 out=16 k=5\npool pool2 op=max k=2 s=2\nconv conv3 out=120 k=5\n"
                                    "fc fc4 out=84\nfc fc5 out=10\n";
        if (model_parse(&lenet, LENET, "lenet5", msg, sizeof msg) != GQ_OK) abort();
        parsed = 1;
    }
    tensor_plan p;
    e = tensor_plan_parse((const char *)data, size, "fuzz.csv", &lenet, &p, msg, sizeof msg);
    if (e == GQ_OK) {
        if (p.n != 10) abort(); /* every tensor once */
        tensor_plan_free(&p);
    } else if ((e == GQ_ERR_SPEC && strncmp(msg, "fuzz.csv:", 9) != 0) || p.quant != NULL) {
        abort();
    }
    return 0;
}

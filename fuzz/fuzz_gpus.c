/* Fuzz target for GPU profile files, the --gpu-file reader (libFuzzer entry
 * point; standalone_main.c drives it without libFuzzer): arbitrary bytes are
 * refused with FILE:LINE, or read into GPUs whose peak and bandwidth are
 * within the reader's documented ranges. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* the reader takes text; a NUL inside ends it early, as gq_read_file would refuse it */
    gpu_db db;
    memset(&db, 0, sizeof db);
    char msg[512];
    gq_err e = gpu_db_add_specs(&db, text, "fuzz.csv", msg, sizeof msg);
    if (e == GQ_OK) {
        for (size_t i = 0; i < db.ngpus; i++)
            if (!db.gpus[i].name[0] || !(db.gpus[i].peak_flops > 0 && db.gpus[i].peak_flops <= 1e16) ||
                !(db.gpus[i].mem_bw > 0 && db.gpus[i].mem_bw <= 1e14))
                abort();
    } else if (e == GQ_ERR_SPEC && strncmp(msg, "fuzz.csv:", 9) != 0) {
        abort();
    }
    gpu_db_free(&db);
    free(text);
    return 0;
}

/* Fuzz target for the model parser (libFuzzer entry point; standalone_main.c
 * drives it without libFuzzer). Arbitrary text either fails with a message
 * naming FILE:LINE, or parses into a model whose totals are the sums of its
 * layers and whose every layer has a positive output shape. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    model_t m;
    char msg[512];
    gq_err e = model_parse(&m, text, "fuzz.model", msg, sizeof msg);
    if (e == GQ_OK) {
        uint64_t w = 0, b = 0;
        for (size_t i = 0; i < m.nlayers; i++) {
            const model_layer *l = &m.layers[i];
            if (l->shape.c < 1 || l->shape.h < 1 || l->shape.w < 1) abort();
            w += l->weight_params, b += l->bias_params;
        }
        if (w != m.weight_params || b != m.bias_params || m.nlayers == 0) abort();
    } else if (e == GQ_ERR_SPEC && strncmp(msg, "fuzz.model:", 11) != 0) {
        abort(); /* every parse error names the file and line */
    }
    model_free(&m);
    free(text);
    return 0;
}

/* Fuzz target for the reader of a user's SimGrid XML (libFuzzer entry
 * point; standalone_main.c drives it without libFuzzer): arbitrary text is
 * refused with a message naming the file, or read into a cluster with known
 * links and 1..65536 nodes of 1..1024 GPUs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    cluster_spec c;
    char msg[512];
    if (cluster_parse_xml(text, "fuzz.xml", &c, msg, sizeof msg) == GQ_OK) {
        if (!c.intra || !c.inter || !c.gpu[0] || c.nodes < 1 || c.nodes > 65536 || c.gpus_per_node < 1 ||
            c.gpus_per_node > 1024)
            abort();
    } else if (strncmp(msg, "fuzz.xml", 8) != 0) {
        abort();
    }
    free(text);
    return 0;
}

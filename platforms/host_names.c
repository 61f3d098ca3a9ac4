/* Host names, made and parsed in one place; see host_names.h. */
#include "host_names.h"

#include <stdio.h>
#include <string.h>

const char *host_name(char out[HOST_NAME_CAP], host_kind kind, int node, int gpu)
{
    if (kind == HOST_GPU)
        snprintf(out, HOST_NAME_CAP, "n%dg%d", node, gpu);
    else if (kind == HOST_CPU)
        snprintf(out, HOST_NAME_CAP, "n%dcpu", node);
    else if (kind == HOST_HUB)
        snprintf(out, HOST_NAME_CAP, "hub%d", node);
    else
        out[0] = '\0';
    return out;
}

host_kind host_name_parse(const char *name, int *node, int *gpu)
{
    int end = 0; /* %n is stored only where everything before it matched */
    *gpu = -1;
    if (sscanf(name, "n%dg%d%n", node, gpu, &end) == 2 && end > 0 && !name[end] && *node >= 0 && *gpu >= 0)
        return HOST_GPU;
    *gpu = -1, end = 0;
    if (sscanf(name, "n%dcpu%n", node, &end) == 1 && end > 0 && !name[end] && *node >= 0) return HOST_CPU;
    end = 0;
    if (sscanf(name, "hub%d%n", node, &end) == 1 && end > 0 && !name[end] && *node >= 0) return HOST_HUB;
    return HOST_NONE;
}

const char *host_gpu_prefix(char out[HOST_NAME_CAP], int node)
{
    snprintf(out, HOST_NAME_CAP, "n%dg", node);
    return out;
}

int host_gpu_prefix_parse(const char *prefix)
{
    int node = -1, end = 0;
    return sscanf(prefix, "n%dg%n", &node, &end) == 1 && end > 0 && !prefix[end] && node >= 0 ? node : -1;
}

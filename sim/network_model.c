/* SimGrid's network models by name, with calibrated factors: the value of the
 * network_model run parameter (sim.h). libc only: gqsim-smpi checks it too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#include "gq_number.h"
#include "sim_bounds.h"

static const sim_network MODELS[] = {
    {"LV08", 13.01, 0.97, 1}, /* SimGrid's fit to TCP (Velho and Legrand, 2009) */
    {"CM02", 1, 1, 0},
};

const char *sim_network_default(int rdma) { return MODELS[rdma ? 1 : 0].name; }

int sim_network_parse(const char *spec, sim_network *n, char *msg, size_t cap)
{
    const char *colon = strchr(spec, ':');
    const size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    const sim_network *found = NULL;
    for (size_t i = 0; i < sizeof MODELS / sizeof *MODELS && !found; i++)
        if (len == strlen(MODELS[i].name) && strncmp(spec, MODELS[i].name, len) == 0) found = &MODELS[i];
    if (!found)
        return snprintf(msg, cap, "network model '%s' is not LV08 or CM02[:latency-factor=X,bandwidth-factor=Y]", spec),
               -1;
    *n = *found;
    for (const char *k = colon ? colon + 1 : NULL; k;) {
        const char *eq = strchr(k, '='), *end = strchr(k, ',');
        if (!end) end = k + strlen(k);
        if (!eq || eq > end) return snprintf(msg, cap, "network model '%s': expected key=value", spec), -1;
        char text[64] = "";
        if ((size_t)(end - eq - 1) < sizeof text) memcpy(text, eq + 1, (size_t)(end - eq - 1));
        double v = 0;
        const int bad = gq_parse_real_in(text, SIM_NET_FACTOR_MIN, 0, SIM_NET_FACTOR_MAX, &v) != 0;
        double *dst = (eq - k == 14 && strncmp(k, "latency-factor", 14) == 0)     ? &n->latency_factor
                      : (eq - k == 16 && strncmp(k, "bandwidth-factor", 16) == 0) ? &n->bandwidth_factor
                                                                                  : NULL;
        if (!dst)
            return snprintf(msg, cap, "network model '%s': keys are latency-factor and bandwidth-factor", spec), -1;
        if (bad)
            return snprintf(msg, cap,
                            "network model '%s': a factor must be a number in [" SIM_STR(
                                SIM_NET_FACTOR_MIN) ", " SIM_STR(SIM_NET_FACTOR_MAX) "]",
                            spec),
                   -1;
        *dst = v;
        k = *end ? end + 1 : NULL;
    }
    return 0;
}

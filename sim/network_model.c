/* SimGrid's network models by name, with calibrated factors: the value of the
 * network_model run parameter (sim.h). libc only: gqsim-smpi checks it too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#include "gq_number.h"
#include "sim_bounds.h"

int sim_network_parse(const char *spec, sim_network *n, char *msg, size_t cap)
{
    const char *colon = strchr(spec, ':');
    const size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len == 4 && strncmp(spec, "LV08", 4) == 0)
        *n = (sim_network){"LV08", 13.01, 0.97}; /* SimGrid's fit to TCP (Velho and Legrand, 2009) */
    else if (len == 4 && strncmp(spec, "CM02", 4) == 0)
        *n = (sim_network){"CM02", 1, 1};
    else
        return snprintf(msg, cap, "network model '%s' is not LV08 or CM02[:latency-factor=X,bandwidth-factor=Y]", spec),
               -1;
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

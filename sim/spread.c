/* Work spread over mpirun's ranks, one way for every command that runs under it (sweep's rows, advise's
 * finalists): the items heaviest first by their estimated cost (ties in the order given), each to the rank least
 * loaded so far (ties to the lowest), so that no rank ends more than the heaviest item after another. */
#include <stdlib.h>

#include "scenario.h"

typedef struct {
    double cost;
    size_t index;
} spread_item;

static int heaviest_first(const void *a, const void *b)
{
    const spread_item *x = a, *y = b;
    if (x->cost != y->cost) return x->cost < y->cost ? 1 : -1;
    return (x->index > y->index) - (x->index < y->index);
}

int sim_spread(const double *cost, size_t n, int ranks, int *owner)
{
    spread_item *items = malloc((n ? n : 1) * sizeof *items);
    double *load = calloc(ranks > 0 ? (size_t)ranks : 1, sizeof *load);
    if (!items || !load) return free(items), free(load), -1;
    for (size_t i = 0; i < n; i++) items[i] = (spread_item){cost[i], i};
    qsort(items, n, sizeof *items, heaviest_first);
    for (size_t k = 0; k < n; k++) {
        int least = 0;
        for (int r = 1; r < ranks; r++)
            if (load[r] < load[least]) least = r;
        owner[items[k].index] = least, load[least] += items[k].cost + 1e-9; /* +: an item of no cost still counts */
    }
    free(items), free(load);
    return 0;
}

/* How many iterations make an epoch: one rule for the trainer, for time to
 * accuracy and for the simulator's epoch times, so that an epoch means the
 * same number of steps everywhere. */
#ifndef GQ_EPOCH_H
#define GQ_EPOCH_H

/* Every worker takes a whole batch each iteration; the last round that
 * cannot give every worker a whole batch is dropped (PyTorch's DataLoader
 * with drop_last=True, what the trainer does). 0 when images do not fill one
 * iteration. */
static inline long long gq_iterations_per_epoch(long long images, long long workers, long long batch)
{
    return workers > 0 && batch > 0 && images > 0 ? images / (workers * batch) : 0;
}

#endif

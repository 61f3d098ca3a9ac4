/* IDX files (the MNIST / Fashion-MNIST format), gzip'd or not, read with zlib.
 * Every malformed input is an error naming the file: wrong magic, a truncated
 * file, sizes that do not fit. */
#ifndef GQ_IDX_H
#define GQ_IDX_H

#include <stddef.h>
#include <stdint.h>

#include "gq_error.h"

typedef struct {
    uint8_t *images; /* n x rows x cols, row-major */
    uint8_t *labels; /* n */
    int n, rows, cols;
} idx_dataset;

/* Loads images and labels (the counts their headers state must match): the first `items` of them, or all
 * when `items` is 0 or more than the files hold. */
gq_err idx_load(idx_dataset *d, const char *images_path, const char *labels_path, uint32_t items, char *msg,
                size_t cap);
void idx_free(idx_dataset *d);

/* The directory holding Fashion-MNIST: `dir` if given, else $GQSIM_FASHION_MNIST,
 * else the Debian package's location. Writes it into out. */
void idx_fashion_dir(const char *dir, char *out, size_t cap);

#endif

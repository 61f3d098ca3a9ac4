/* IDX reader; see idx.h. The format: a big-endian magic (0x00000803 for
 * images, 0x00000801 for labels), big-endian dimension sizes, then bytes. */
#include "idx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int read_be32(gzFile f, uint32_t *v)
{
    unsigned char b[4];
    if (gzread(f, b, 4) != 4) return -1;
    *v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    return 0;
}

/* Reads one IDX file of `ndims` dimensions; dims[] gets the sizes the header states. Only the first `items`
 * items are read (0: all of them, and then nothing may follow the last): a run that uses 1,024 of 60,000
 * images need not inflate the other 59,000, and under mpirun every rank loads its own copy. */
static gq_err read_idx(const char *path, uint32_t magic, int ndims, uint32_t *dims, uint32_t items, uint8_t **data,
                       char *msg, size_t cap)
{
    gzFile f = gzopen(path, "rb");
    if (!f) return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: cannot open it", path);
    uint32_t m;
    gq_err e = GQ_OK;
    if (read_be32(f, &m))
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: truncated header", path);
    else if (m != magic)
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: magic 0x%08x, expected 0x%08x", path, m, magic);
    size_t total = 1;
    for (int i = 0; e == GQ_OK && i < ndims; i++) {
        if (read_be32(f, &dims[i]))
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: truncated header", path);
        else if (dims[i] == 0 || dims[i] > 10000000)
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: dimension %d is %u", path, i, dims[i]);
        else
            total *= i == 0 && items > 0 && items < dims[0] ? items : dims[i];
    }
    const int whole = e != GQ_OK || items == 0 || items >= dims[0]; /* dims[0] is read only once it was */
    if (e == GQ_OK && total > ((size_t)1 << 31))
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: %zu bytes is too large", path, total);
    if (e == GQ_OK) {
        /* the header's size is a claim: the buffer grows as data arrives, never past what the file holds */
        size_t have = total < ((size_t)1 << 20) ? total : ((size_t)1 << 20);
        *data = malloc(have);
        if (!*data)
            e = GQ_ERR_NOMEM;
        else {
            size_t got = 0;
            while (got < total) {
                if (got == have) {
                    const size_t grow = have * 2 < total ? have * 2 : total;
                    uint8_t *bigger = realloc(*data, grow);
                    if (!bigger) {
                        e = GQ_ERR_NOMEM;
                        break;
                    }
                    *data = bigger, have = grow;
                }
                int r = gzread(f, *data + got, (unsigned)(have - got > (1u << 30) ? (1u << 30) : have - got));
                if (r <= 0) break;
                got += (size_t)r;
            }
            if (e != GQ_OK) {
                free(*data);
                *data = NULL;
                gzclose(f);
                return gq_fail(e, msg, cap, "%s: out of memory reading %zu bytes", path, got);
            }
            unsigned char extra;
            if (got < total)
                e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: truncated: %zu of %zu data bytes", path, got, total);
            else if (whole && gzread(f, &extra, 1) == 1)
                e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: data after the last item", path);
            if (e != GQ_OK) {
                free(*data);
                *data = NULL;
            }
        }
    }
    gzclose(f);
    return e;
}

gq_err idx_load(idx_dataset *d, const char *images, const char *labels, uint32_t items, char *msg, size_t cap)
{
    memset(d, 0, sizeof *d);
    uint32_t di[3], dl[1];
    gq_err e = read_idx(images, 0x00000803, 3, di, items, &d->images, msg, cap);
    if (e == GQ_OK) e = read_idx(labels, 0x00000801, 1, dl, items, &d->labels, msg, cap);
    if (e == GQ_OK && di[0] != dl[0])
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s has %u images but %s %u labels", images, di[0], labels, dl[0]);
    const uint32_t n = e != GQ_OK ? 0 : items > 0 && items < di[0] ? items : di[0];
    for (uint32_t i = 0; e == GQ_OK && i < n; i++)
        if (d->labels[i] > 9)
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: label %u of item %u is not 0..9", labels, d->labels[i], i);
    if (e != GQ_OK) {
        idx_free(d);
        return e;
    }
    d->n = (int)n;
    d->rows = (int)di[1];
    d->cols = (int)di[2];
    return GQ_OK;
}

void idx_free(idx_dataset *d)
{
    free(d->images);
    free(d->labels);
    memset(d, 0, sizeof *d);
}

void idx_fashion_dir(const char *dir, char *out, size_t cap)
{
    const char *env = getenv("GQSIM_FASHION_MNIST");
    snprintf(out, cap, "%s", dir && *dir ? dir : env && *env ? env : "/usr/share/datasets/fashion-mnist");
}

/* signSGD with a scale (Bernstein et al. 2018; the scaled form of
 * Karimireddy et al. 2019, "EF-signSGD"): each element becomes +-m, m the mean
 * |g| of its bucket, so the bucket keeps its L1 norm. Biased: pair it with
 * error feedback in the trainer. Zero maps to +m. Wire: one float per bucket,
 * one bit per element (1 = negative), or with pack=byte one signed byte per
 * element (+1, -1), as libraries that do not pack bits send it. */
#include <math.h>
#include <stdio.h>

#include "qz_internal.h"

static unsigned sg_nstored(const qz_params *p) { return (void)p, 1; }
static unsigned sg_nlevels(const qz_params *p) { return (void)p, 2; }
static qz_pack sg_packing(const qz_params *p) { return p->pack; }
static const int8_t SG_BYTES[2] = {1, -1}; /* pack=byte: +m -> +1, -m -> -1 */

static gq_err sg_fit(float *stored, const float *x, size_t len, const qz_params *p, void *work)
{
    (void)p, (void)work;
    qz_moments m = qz_moments_of(x, len, QZ_MOMENT_SUMABS);
    if (!m.finite) return GQ_ERR_NONFINITE;
    stored[0] = qz_finite_scale(m.sumabs / (double)len);
    return GQ_OK;
}

static gq_err sg_fit_many(float *stored, const float *x, size_t blen, const qz_params *p)
{
    (void)p;
    qz_moments m[QZ_FIT_MANY];
    qz_moments_many(m, x, blen, QZ_FIT_MANY, QZ_MOMENT_SUMABS);
    for (int t = 0; t < QZ_FIT_MANY; t++) {
        if (!m[t].finite) return GQ_ERR_NONFINITE;
        stored[t] = qz_finite_scale(m[t].sumabs / (double)blen);
    }
    return GQ_OK;
}

static void sg_quantize(uint8_t *codes, const float *x, size_t len, const float *stored, const qz_params *p,
                        uint32_t key, uint32_t idx0)
{
    (void)stored, (void)p, (void)key, (void)idx0;
    for (size_t i = 0; i < len; i++) codes[i] = x[i] < 0;
}

static void sg_table(float *table, const float *stored, const qz_params *p)
{
    (void)p;
    table[0] = stored[0];
    table[1] = -stored[0];
}

static const qz_dense SG = {.nstored = sg_nstored,
                            .nlevels = sg_nlevels,
                            .packing = sg_packing,
                            .byte_of = SG_BYTES,
                            .fit = sg_fit,
                            .fit_many = sg_fit_many,
                            .quantize = sg_quantize,
                            .table = sg_table};

static void sg_defaults(qz_params *p) { p->bucket = 0; }

/* the packing only where it is not the default, so that existing specs read as before */
static int sg_format(const qz_params *p, char *buf, size_t cap)
{
    return snprintf(buf, cap, ":bucket=%llu%s", (unsigned long long)p->bucket,
                    p->pack == QZ_PACK_BYTE ? ",pack=byte" : "");
}
/* bucket L1 norms, then sign bits */
static void sg_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    const int byte = p->pack == QZ_PACK_BYTE; /* pack=byte: a byte per element, not bits */
    enc[0] = 2, enc[1] = byte ? 9 : 8.125, dec[0] = 1, dec[1] = byte ? 5 : 4.125;
}

const qz_codec qz_signsgd = {
    .id = QZ_SIGNSGD,
    .name = "signsgd",
    .biased = 1,
    .summary = "signSGD: sign times the bucket's mean |g| (biased; use error feedback)",
    .keys_help = "bucket=0 pack=bit|byte",
    .keys = QZ_KEY_BUCKET | QZ_KEY_PACK,
    .defaults = sg_defaults,
    .level_count = sg_nlevels,
    .dense = &SG,
    .pack_names = QZ_SG_PACK_NAMES,
    .format_keys = sg_format,
    .gpu_traffic = sg_gpu_traffic,
};

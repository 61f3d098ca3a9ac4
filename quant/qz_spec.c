/* Quantizer specs: `NAME[:key=value,...]` (docs/papers.md §2) to qz_params and back,
 * with range checks whose messages name the bad part. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gq_number.h"
#include "gq_suggest.h"
#include "qz_internal.h"

gq_err qz_defaults(qz_id id, qz_params *p)
{
    const qz_codec *c = qz_codec_of(id);
    if (!c) return GQ_ERR_PARAM;
    memset(p, 0, sizeof *p);
    p->id = id;
    c->defaults(p);
    return GQ_OK;
}

gq_err qz_validate(const qz_params *p, char *msg, size_t cap)
{
    const qz_codec *c = qz_codec_of(p->id);
    if (!c) return gq_fail(GQ_ERR_PARAM, msg, cap, "unknown quantizer id %d", (int)p->id);
    const char *name = c->name;
    char why[160];
    if (c->check && c->check(p, why, sizeof why) != 0) return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: %s", name, why);
    if (!(p->clip >= 0.0f && p->clip <= 1e6f))
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: clip=%g must be from 0 to 1e6", name, p->clip);
    if (!(p->shared_scale >= 0.0f && isfinite(p->shared_scale)))
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: shared scale %g must be finite and >= 0", name, p->shared_scale);
    if ((unsigned)p->scale > 1 || (unsigned)p->pack > 2 || (unsigned)p->norm > 1 || (unsigned)p->code > 1 ||
        (unsigned)p->index > 2 || (unsigned)p->fit > 1)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: bad enumerated option", name);
    /* a packing or index width only where the codec has it */
    if (p->pack != QZ_PACK_2BIT && (!c->pack_names || strcmp(c->pack_names[p->pack], "-") == 0))
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: no such packing", name);
    if (p->index != QZ_INDEX_AUTO && !(c->keys & QZ_KEY_INDEX))
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: no index width to set", name);
    if (p->fit != QZ_FIT_EXACT && !(c->keys & QZ_KEY_FIT))
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: no level search to set", name);
    return GQ_OK;
}

/* ---- parsing ------------------------------------------------------------------ */

typedef struct {
    const char *key;
    unsigned bit;
} key_name;

static const key_name KEYS[] = {
    {"bucket", QZ_KEY_BUCKET}, {"levels", QZ_KEY_LEVELS}, {"clip", QZ_KEY_CLIP}, {"scale", QZ_KEY_SCALE},
    {"pack", QZ_KEY_PACK},     {"norm", QZ_KEY_NORM},     {"code", QZ_KEY_CODE}, {"ratio", QZ_KEY_RATIO},
    {"index", QZ_KEY_INDEX},   {"rank", QZ_KEY_RANK},     {"warm", QZ_KEY_WARM}, {"min", QZ_KEY_MIN},
    {"fit", QZ_KEY_FIT},
};

/* The packings' names, by qz_pack: TernGrad's, and signSGD's (which has no trits). */
const char *const QZ_SCALE_NAMES[] = {"max", "sigma", NULL}, *const QZ_NORM_NAMES[] = {"l2", "max", NULL},
                  *const QZ_CODE_NAMES[] = {"dense", "elias", NULL},
                  *const QZ_TG_PACK_NAMES[] = {"2bit", "trits", "int8", NULL},
                  *const QZ_SG_PACK_NAMES[] = {"bit", "-", "byte", NULL},
                  *const QZ_INDEX_NAMES[] = {"auto", "32", "64", NULL}, *const QZ_OFF_ON[] = {"off", "on", NULL},
                  *const QZ_FIT_NAMES[] = {"exact", "hist", NULL};

static int parse_u64(const char *s, uint64_t *v)
{
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end) return -1;
    *v = x;
    return 0;
}

/* A float key's value: a number a float holds, and one that does not round to 0 unless it is 0 (a clip of 1e-310
 * is not the clip of 0, which turns clipping off). */
static int parse_float(const char *s, float *v)
{
    double x;
    if (gq_parse_real(s, &x) != 0 || fabs(x) > FLT_MAX || (x != 0 && (float)x == 0)) return -1;
    *v = (float)x;
    return 0;
}

/* One enumerated value: index of `s` in the NULL-terminated names, or -1. */
static int parse_enum(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

static gq_err set_key(qz_params *p, const char *name, const char *key, const char *val, char *msg, size_t cap)
{
    int e;
    uint64_t u;
    if (strcmp(key, "bucket") == 0) {
        if (parse_u64(val, &u)) goto bad_number;
        p->bucket = u;
    } else if (strcmp(key, "levels") == 0) {
        if (parse_u64(val, &u) || u > 1000) goto bad_number;
        p->levels = (unsigned)u;
    } else if (strcmp(key, "rank") == 0) {
        if (parse_u64(val, &u) || u > 1000) goto bad_number;
        p->rank = (unsigned)u;
    } else if (strcmp(key, "min") == 0) {
        if (parse_u64(val, &u)) goto bad_number;
        p->min_elements = u;
    } else if (strcmp(key, "warm") == 0) {
        if ((e = parse_enum(val, QZ_OFF_ON)) < 0)
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: warm='%s' is not on or off", name, val);
        p->warm = e;
    } else if (strcmp(key, "clip") == 0) {
        if (parse_float(val, &p->clip)) goto bad_float;
    } else if (strcmp(key, "ratio") == 0) {
        if (parse_float(val, &p->ratio)) goto bad_float;
    } else if (strcmp(key, "scale") == 0) {
        if ((e = parse_enum(val, QZ_SCALE_NAMES)) < 0)
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: scale='%s' is not max or sigma", name, val);
        p->scale = (qz_scale)e;
    } else if (strcmp(key, "pack") == 0) {
        const char *const *names = qz_codec_of(p->id)->pack_names;
        if (!names || (e = parse_enum(val, names)) < 0 || strcmp(val, "-") == 0) {
            char allowed[64] = "";
            for (int k = 0, n = 0; names && names[k]; k++) /* "2bit, trits or int8", "bit or byte" */
                if (strcmp(names[k], "-") != 0) {
                    const int last = !names[k + 1] || (strcmp(names[k + 1], "-") == 0 && !names[k + 2]);
                    n += snprintf(allowed + n, sizeof allowed - (size_t)n, "%s%s", n ? (last ? " or " : ", ") : "",
                                  names[k]);
                }
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: pack='%s' is not %s", name, val, allowed);
        }
        p->pack = (qz_pack)e;
    } else if (strcmp(key, "index") == 0) {
        if ((e = parse_enum(val, QZ_INDEX_NAMES)) < 0)
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: index='%s' is not auto, 32 or 64", name, val);
        p->index = (qz_index)e;
    } else if (strcmp(key, "norm") == 0) {
        if ((e = parse_enum(val, QZ_NORM_NAMES)) < 0)
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: norm='%s' is not l2 or max", name, val);
        p->norm = (qz_norm)e;
    } else if (strcmp(key, "fit") == 0) {
        if ((e = parse_enum(val, QZ_FIT_NAMES)) < 0)
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: fit='%s' is not exact or hist", name, val);
        p->fit = (qz_fit)e;
    } else if (strcmp(key, "code") == 0) {
        if ((e = parse_enum(val, QZ_CODE_NAMES)) < 0)
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: code='%s' is not dense or elias", name, val);
        p->code = (qz_code)e;
    }
    return GQ_OK;
bad_number:
    return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: %s='%.40s' is not a valid number", name, key, val);
bad_float:
    return gq_fail(GQ_ERR_SPEC, msg, cap,
                   "%s: %s='%.40s' is not a number a float holds (0, or 1.4e-45 to 3.4e38 in size)", name, key, val);
}

gq_err qz_parse_spec(const char *spec, qz_params *p, char *msg, size_t cap)
{
    char buf[256];
    if (!spec || !*spec) return gq_fail(GQ_ERR_SPEC, msg, cap, "empty quantizer spec");
    if (strlen(spec) >= sizeof buf) return gq_fail(GQ_ERR_SPEC, msg, cap, "quantizer spec too long");
    strcpy(buf, spec);
    char *colon = strchr(buf, ':');
    if (colon) *colon = '\0';

    const char *ids[QZ_ID_END_] = {NULL}; /* by id; ids start at 1 */
    for (qz_id id = QZ_FP32; id < QZ_ID_END_; id++) ids[id] = qz_name(id);
    const int named = gq_match_name(buf, ids, QZ_ID_END_);
    const qz_codec *c = named >= 0 ? qz_codec_of((qz_id)named) : NULL;
    if (!c) {
        char known[256] = "";
        const char *names[QZ_ID_END_];
        size_t n = 0;
        for (qz_id id = QZ_FP32; id < QZ_ID_END_; id++) {
            strcat(known, id == QZ_FP32 ? "" : ", ");
            strcat(known, qz_name(id));
            names[n++] = qz_name(id);
        }
        char near[64];
        return gq_fail(GQ_ERR_SPEC, msg, cap, "unknown quantizer '%s'%s (known: %s)", buf,
                       gq_did_you_mean(buf, names, n, near, sizeof near), known);
    }
    qz_defaults(c->id, p);
    if (colon) {
        unsigned seen = 0;
        for (char *kv = colon + 1, *next; kv; kv = next) {
            next = strchr(kv, ',');
            if (next) *next++ = '\0';
            if (*kv == '\0') return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: empty key=value in '%s'", c->name, spec);
            char *eq = strchr(kv, '=');
            if (!eq) return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: '%s' is not key=value", c->name, kv);
            *eq = '\0';
            unsigned bit = 0;
            for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++)
                if (strcmp(kv, KEYS[k].key) == 0) bit = KEYS[k].bit;
            if (!(bit & c->keys))
                return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: unknown key '%s' (keys: %s)", c->name, kv,
                               c->keys ? c->keys_help : "none");
            if (seen & bit) return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: key '%s' given twice", c->name, kv);
            seen |= bit;
            gq_err e = set_key(p, c->name, kv, eq + 1, msg, cap);
            if (e != GQ_OK) return e;
        }
    }
    gq_err e = qz_validate(p, msg, cap);
    return e == GQ_OK ? GQ_OK : GQ_ERR_SPEC;
}

size_t qz_format_spec(const qz_params *p, char *buf, size_t cap)
{
    const qz_codec *c = qz_codec_of(p->id);
    int r = snprintf(buf, cap, "%s", qz_name(p->id)), k = 0;
    if (c && c->format_keys && r >= 0)
        k = c->format_keys(p, (size_t)r < cap ? buf + r : NULL, (size_t)r < cap ? cap - (size_t)r : 0);
    return r < 0 || k < 0 ? 0 : (size_t)r + (size_t)k;
}

/* ---- short labels --------------------------------------------------------------------------- */

/* The value of key in spec's key=value list ("" if absent); the name is spec up to ':'. */
static void spec_value(const char *spec, const char *key, char *value, size_t cap)
{
    value[0] = '\0';
    const char *p = strchr(spec, ':');
    const size_t klen = strlen(key);
    while (p && *p) {
        p++;
        const size_t len = strcspn(p, ",");
        if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            snprintf(value, cap, "%.*s", (int)(len - klen - 1), p + klen + 1);
            return;
        }
        p += len;
    }
}

static size_t name_length(const char *spec) { return strcspn(spec, ":"); }

static int same_name(const char *a, const char *b)
{
    return name_length(a) == name_length(b) && strncmp(a, b, name_length(a)) == 0;
}

void qz_short_labels(const char *const *specs, size_t n, char (*labels)[QZ_LABEL_MAX])
{
    enum { MAX_KEYS = 16 };
    for (size_t i = 0; i < n; i++) {
        /* the keys of this name's specs, in the order the first of them lists them */
        char keys[MAX_KEYS][32];
        size_t nkeys = 0;
        for (size_t j = 0; j < n; j++) {
            if (!same_name(specs[i], specs[j])) continue;
            for (const char *p = strchr(specs[j], ':'); p && *p; p += strcspn(p, ",")) {
                p++;
                char key[32];
                snprintf(key, sizeof key, "%.*s", (int)strcspn(p, "=,"), p);
                size_t k = 0;
                while (k < nkeys && strcmp(keys[k], key) != 0) k++;
                if (k == nkeys && nkeys < MAX_KEYS) snprintf(keys[nkeys++], sizeof keys[0], "%s", key);
            }
        }
        char *label = labels[i];
        size_t used = (size_t)snprintf(label, QZ_LABEL_MAX, "%.*s", (int)name_length(specs[i]), specs[i]);
        for (size_t k = 0; k < nkeys; k++) {
            char mine[QZ_LABEL_MAX], other[QZ_LABEL_MAX];
            spec_value(specs[i], keys[k], mine, sizeof mine);
            int differs = 0;
            for (size_t j = 0; j < n && !differs; j++)
                if (same_name(specs[i], specs[j])) {
                    spec_value(specs[j], keys[k], other, sizeof other);
                    differs = strcmp(mine, other) != 0;
                }
            if (differs && used < QZ_LABEL_MAX)
                used += (size_t)snprintf(label + used, QZ_LABEL_MAX - used, "-%s", *mine ? mine : "default");
        }
    }
    /* distinct specs whose labels still meet (cut short, or written differently): numbered */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(labels[i], labels[j]) == 0 && strcmp(specs[i], specs[j]) != 0) {
                size_t used = strlen(labels[j]);
                if (used + 4 >= QZ_LABEL_MAX) used = QZ_LABEL_MAX - 5;
                snprintf(labels[j] + used, QZ_LABEL_MAX - used, "#%zu", j + 1);
            }
}

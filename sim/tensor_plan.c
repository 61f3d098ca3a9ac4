/* Per-tensor plans: their tensors' names, their table and file; see tensor_plan.h. */
#include "tensor_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_csv.h"

gq_err tensor_plan_init(tensor_plan *p, size_t n, const qz_params *q)
{
    p->n = n;
    p->quant = calloc(n + 1, sizeof *p->quant);
    if (!p->quant) return p->n = 0, GQ_ERR_NOMEM;
    for (size_t k = 0; k < n; k++) p->quant[k] = *q;
    return GQ_OK;
}

gq_err tensor_plan_copy(tensor_plan *dst, const tensor_plan *src)
{
    dst->n = src->n;
    dst->quant = malloc((src->n + 1) * sizeof *dst->quant);
    if (!dst->quant) return dst->n = 0, GQ_ERR_NOMEM;
    memcpy(dst->quant, src->quant, src->n * sizeof *src->quant);
    return GQ_OK;
}

void tensor_plan_free(tensor_plan *p)
{
    free(p->quant);
    p->quant = NULL, p->n = 0;
}

size_t tensor_plan_tensors(const model_t *m, xch_tensor *out)
{
    qz_params fp32;
    qz_parse_spec("fp32", &fp32, NULL, 0);
    const xch_policy none = {0};
    return xch_tensors(m, &fp32, &none, out);
}

void tensor_plan_name(const model_t *m, const xch_tensor *t, char *out, size_t cap)
{
    snprintf(out, cap, "%s.%s", m->layers[t->layer].name, t->bias ? "bias" : "weight");
}

gq_err tensor_plan_table(const model_t *m, const tensor_plan *p, gq_table *t)
{
    static const char *const H[] = {TENSOR_PLAN_COLUMNS};
    xch_tensor *T = malloc((2 * m->nlayers + 1) * sizeof *T);
    if (!T) return GQ_ERR_NOMEM;
    const size_t nt = tensor_plan_tensors(m, T);
    table_init(t, H, sizeof H / sizeof H[0]);
    for (size_t k = 0; k < nt && k < p->n; k++) {
        char name[MODEL_NAME_MAX + 8], spec[256];
        tensor_plan_name(m, &T[k], name, sizeof name);
        qz_format_spec(&p->quant[k], spec, sizeof spec);
        table_row(t, "%s\t%zu\t%s", name, T[k].n, spec);
    }
    free(T);
    return GQ_OK;
}

gq_err tensor_plan_parse(const char *text, size_t len, const char *file, const model_t *m, tensor_plan *p, char *msg,
                         size_t cap)
{
    memset(p, 0, sizeof *p);
    xch_tensor *T = malloc((2 * m->nlayers + 1) * sizeof *T);
    int *line_of = calloc(2 * m->nlayers + 1, sizeof *line_of); /* where each tensor was given */
    gq_csv *r = malloc(sizeof *r);
    gq_err e = T && line_of && r ? GQ_OK : GQ_ERR_NOMEM;
    size_t nt = 0;
    if (e == GQ_OK) nt = tensor_plan_tensors(m, T);
    qz_params fp32;
    qz_parse_spec("fp32", &fp32, NULL, 0);
    if (e == GQ_OK) e = tensor_plan_init(p, nt, &fp32);
    const char *why = NULL;
    int ct = -1, cn = -1, cc = -1, got = 0;
    if (e == GQ_OK) {
        gq_csv_init(r, text, len);
        got = gq_csv_next(r, &why);
        if (got <= 0) e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, 1, "%s", got ? why : "empty file, no header");
    }
    if (e == GQ_OK) {
        ct = gq_csv_column(r, "tensor", NULL), cn = gq_csv_column(r, "elements", NULL),
        cc = gq_csv_column(r, "codec", NULL);
        if (ct < 0 || cn < 0 || cc < 0)
            e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, 1, "needs columns tensor, elements, codec");
    }
    while (e == GQ_OK) {
        const int line = r->line;
        if ((got = gq_csv_next(r, &why)) == 0) break;
        if (got < 0) {
            e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "%s", why);
            break;
        }
        if (gq_csv_blank(r)) continue;
        size_t k = 0;
        char name[MODEL_NAME_MAX + 8];
        for (; k < nt; k++) {
            tensor_plan_name(m, &T[k], name, sizeof name);
            if (strcmp(name, r->field[ct]) == 0) break;
        }
        char *end;
        errno = 0;
        const unsigned long long n = strtoull(r->field[cn], &end, 10);
        char whyq[256];
        if (k == nt)
            e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "model '%s' has no tensor '%.100s'", m->name,
                           r->field[ct]);
        else if (line_of[k])
            e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "tensor '%s' again (first on line %d)", name, line_of[k]);
        else if (end == r->field[cn] || *end || errno || n != T[k].n)
            e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line,
                           "tensor '%s' has %zu elements, not '%.40s': a plan for another model?", name, T[k].n,
                           r->field[cn]);
        else if (qz_parse_spec(r->field[cc], &p->quant[k], whyq, sizeof whyq) != GQ_OK)
            e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "codec '%.100s': %s", r->field[cc], whyq);
        else
            line_of[k] = line;
    }
    for (size_t k = 0; e == GQ_OK && k < nt; k++)
        if (!line_of[k]) {
            char name[MODEL_NAME_MAX + 8];
            tensor_plan_name(m, &T[k], name, sizeof name);
            e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, r->line > 1 ? r->line - 1 : 1,
                           "no row for tensor '%s' (a plan names every tensor of model '%s')", name, m->name);
        }
    if (e != GQ_OK) tensor_plan_free(p);
    free(T), free(line_of), free(r);
    return e;
}

void tensor_plan_describe(const tensor_plan *p, char *out, size_t cap)
{
    enum { MAX_KINDS = 16 };
    size_t count[MAX_KINDS] = {0}, first[MAX_KINDS], kinds = 0, other = 0;
    for (size_t k = 0; k < p->n; k++) {
        size_t j = 0;
        while (j < kinds && memcmp(&p->quant[first[j]], &p->quant[k], sizeof p->quant[k]) != 0) j++;
        if (j == kinds && kinds == MAX_KINDS) {
            other++;
            continue;
        }
        if (j == kinds) first[kinds++] = k;
        count[j]++;
    }
    size_t used = (size_t)snprintf(out, cap, "per tensor:");
    for (size_t done = 0; done < kinds && used < cap; done++) { /* most tensors first, ties in the plan's order */
        size_t best = kinds;
        for (size_t j = 0; j < kinds; j++)
            if (count[j] && (best == kinds || count[j] > count[best])) best = j;
        char spec[256];
        qz_format_spec(&p->quant[first[best]], spec, sizeof spec);
        used += (size_t)snprintf(out + used, cap - used, "%s %zu %s", done ? ";" : "", count[best], spec);
        count[best] = 0;
    }
    if (other && used < cap) snprintf(out + used, cap - used, "; %zu more", other);
}

/* Built-in and user models and GPU data; see zoo.h. */
#include "zoo.h"
#include "gq_suggest.h"

#include "gq_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole text file, NUL-terminated; refuses binary files. */
static gq_err read_text(const char *path, char **text, char *msg, size_t cap)
{
    return gq_read_file(path, (size_t)256 << 20, 1, text, NULL, msg, cap);
}

static gq_err add_model(gq_zoo *z, const char *text, const char *file, char *msg, size_t cap)
{
    model_t *m = calloc(1, sizeof *m);
    model_t **grown = realloc(z->models, (z->n + 1) * sizeof *grown);
    if (!m || !grown) {
        free(m);
        return gq_fail(GQ_ERR_NOMEM, msg, cap, "%s: out of memory", file);
    }
    z->models = grown;
    gq_err e = model_parse(m, text, file, msg, cap);
    if (e != GQ_OK) {
        model_free(m);
        free(m);
        return e;
    }
    z->models[z->n++] = m;
    return GQ_OK;
}

gq_err zoo_load(gq_zoo *z, const char *gpu_file, char *msg, size_t cap)
{
    memset(z, 0, sizeof *z);
    gq_err e = GQ_OK;
    for (size_t i = 0; e == GQ_OK && i < gq_builtin_model_count(); i++) {
        char file[128];
        snprintf(file, sizeof file, "models/%s.model", gq_builtin_model_name(i));
        e = add_model(z, gq_builtin_model(gq_builtin_model_name(i)), file, msg, cap);
    }
    z->nbuiltin = z->n;
    if (e == GQ_OK) e = gpu_db_add_specs(&z->gpus, gq_builtin_data("gpus"), "data/gpus.csv", msg, cap);
    if (e == GQ_OK)
        e = gpu_db_add_measurements(&z->gpus, gq_builtin_data("gpu_throughput"), "data/gpu_throughput.csv", msg, cap);
    if (e == GQ_OK)
        e = gpu_db_add_precision_measurements(&z->gpus, gq_builtin_data("gpu_throughput_precision"),
                                              "data/gpu_throughput_precision.csv", msg, cap);
    if (e == GQ_OK && gpu_file) {
        char *text;
        e = read_text(gpu_file, &text, msg, cap);
        if (e == GQ_OK) {
            e = gpu_db_add_specs(&z->gpus, text, gpu_file, msg, cap);
            free(text);
        }
    }
    if (e != GQ_OK) zoo_free(z);
    return e;
}

void zoo_free(gq_zoo *z)
{
    for (size_t i = 0; i < z->n; i++) {
        model_free(z->models[i]);
        free(z->models[i]);
    }
    free(z->models);
    gpu_db_free(&z->gpus);
    memset(z, 0, sizeof *z);
}

const model_t *zoo_model(gq_zoo *z, const char *name, char *msg, size_t cap)
{
    for (size_t i = 0; i < z->n; i++) /* built-ins by name, files by the path they were loaded from */
        if (strcmp(i < z->nbuiltin ? z->models[i]->name : z->models[i]->path, name) == 0) return z->models[i];
    const char *builtin[64];
    const size_t nbuiltin = z->nbuiltin < 64 ? z->nbuiltin : 64;
    for (size_t i = 0; i < nbuiltin; i++) builtin[i] = z->models[i]->name;
    const int named = gq_match_name(name, builtin, nbuiltin); /* AlexNet is alexnet */
    if (named >= 0) return z->models[named];
    size_t len = strlen(name);
    int is_path = strchr(name, '/') || (len > 6 && strcmp(name + len - 6, ".model") == 0);
    if (!is_path) {
        char known[512] = "";
        const char *names[64];
        size_t n = 0;
        for (size_t i = 0; i < z->nbuiltin; i++) {
            strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, z->models[i]->name, sizeof known - strlen(known) - 1);
            if (n < 64) names[n++] = z->models[i]->name;
        }
        char near[96];
        gq_fail(GQ_ERR_SPEC, msg, cap, "unknown model '%s'%s (built-in: %s; or a path to a .model file)", name,
                gq_did_you_mean(name, names, n, near, sizeof near), known);
        return NULL;
    }
    char *text;
    if (read_text(name, &text, msg, cap) != GQ_OK) return NULL;
    gq_err e = add_model(z, text, name, msg, cap);
    free(text);
    if (e != GQ_OK) return NULL;
    model_t *m = z->models[z->n - 1];
    snprintf(m->path, sizeof m->path, "%s", name);
    return m;
}

const gpu_spec *zoo_gpu(const gq_zoo *z, const char *name, char *msg, size_t cap)
{
    const gpu_spec *g = gpu_find(&z->gpus, name);
    if (g) return g;
    char known[512] = "";
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < z->gpus.ngpus; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, z->gpus.gpus[i].name, sizeof known - strlen(known) - 1);
        if (n < 64) names[n++] = z->gpus.gpus[i].name;
    }
    char near[96];
    gq_fail(GQ_ERR_SPEC, msg, cap, "unknown GPU '%s'%s (known: %s; or add a row with --gpu-file)", name,
            gq_did_you_mean(name, names, n, near, sizeof near), known);
    return NULL;
}

model_zoo zoo_view(const gq_zoo *z) { return (model_zoo){(const model_t *const *)z->models, z->nbuiltin}; }

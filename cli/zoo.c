/* Built-in and user models and GPU data for the commands; see zoo.h. */
#include "zoo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

static int add_model(gq_zoo *z, const char *text, const char *file)
{
    model_t *m = calloc(1, sizeof *m);
    model_t **grown = realloc(z->models, (z->n + 1) * sizeof *grown);
    if (!m || !grown) {
        free(m);
        cli_error("%s: out of memory", file);
        return -1;
    }
    z->models = grown;
    char msg[512];
    if (model_parse(m, text, file, msg, sizeof msg) != GQ_OK) {
        cli_error("%s", msg);
        model_free(m);
        free(m);
        return -1;
    }
    z->models[z->n++] = m;
    return 0;
}

int zoo_load(gq_zoo *z, const char *gpu_file)
{
    memset(z, 0, sizeof *z);
    for (size_t i = 0; i < gq_builtin_model_count(); i++) {
        char file[128];
        snprintf(file, sizeof file, "models/%s.model", gq_builtin_model_name(i));
        if (add_model(z, gq_builtin_model(gq_builtin_model_name(i)), file) != 0) return zoo_free(z), -1;
    }
    z->nbuiltin = z->n;
    char msg[512];
    if (gpu_db_add_specs(&z->gpus, gq_builtin_data("gpus"), "data/gpus.csv", msg, sizeof msg) != GQ_OK ||
        gpu_db_add_measurements(&z->gpus, gq_builtin_data("gpu_throughput"), "data/gpu_throughput.csv", msg,
                                sizeof msg) != GQ_OK) {
        cli_error("%s", msg);
        zoo_free(z);
        return -1;
    }
    if (gpu_file) {
        unsigned char *text;
        size_t size;
        if (cli_read_file(gpu_file, &text, &size) != 0) return zoo_free(z), -1;
        char *s = malloc(size + 1);
        memcpy(s, text, size);
        s[size] = '\0';
        free(text);
        gq_err e = gpu_db_add_specs(&z->gpus, s, gpu_file, msg, sizeof msg);
        free(s);
        if (e != GQ_OK) {
            cli_error("%s", msg);
            zoo_free(z);
            return -1;
        }
    }
    return 0;
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

const model_t *zoo_model(gq_zoo *z, const char *name)
{
    for (size_t i = 0; i < z->nbuiltin; i++)
        if (strcmp(z->models[i]->name, name) == 0) return z->models[i];
    size_t len = strlen(name);
    int is_path = strchr(name, '/') || (len > 6 && strcmp(name + len - 6, ".model") == 0);
    if (!is_path) {
        char known[512] = "";
        for (size_t i = 0; i < z->nbuiltin; i++) {
            strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, z->models[i]->name, sizeof known - strlen(known) - 1);
        }
        cli_error("unknown model '%s' (built-in: %s; or a path to a .model file)", name, known);
        return NULL;
    }
    unsigned char *text;
    size_t size;
    if (cli_read_file(name, &text, &size) != 0) return NULL;
    if (memchr(text, '\0', size)) {
        cli_error("%s: not a text file", name);
        free(text);
        return NULL;
    }
    char *s = malloc(size + 1);
    memcpy(s, text, size);
    s[size] = '\0';
    free(text);
    int rc = add_model(z, s, name);
    free(s);
    return rc == 0 ? z->models[z->n - 1] : NULL;
}

const gpu_spec *zoo_gpu(const gq_zoo *z, const char *name)
{
    const gpu_spec *g = gpu_find(&z->gpus, name);
    if (g) return g;
    char known[512] = "";
    for (size_t i = 0; i < z->gpus.ngpus; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, z->gpus.gpus[i].name, sizeof known - strlen(known) - 1);
    }
    cli_error("unknown GPU '%s' (known: %s; or add a row with --gpu-file)", name, known);
    return NULL;
}

model_zoo zoo_view(const gq_zoo *z) { return (model_zoo){(const model_t *const *)z->models, z->nbuiltin}; }

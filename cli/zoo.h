/* The model zoo and GPU database as the commands see them: every built-in
 * model and data file (compiled into the binary), plus models read from files
 * named on the command line. Resolution prints one-line errors (cli/ only). */
#ifndef GQ_ZOO_H
#define GQ_ZOO_H

#include "gpu.h"
#include "model.h"

typedef struct {
    model_t **models; /* built-ins first, then files loaded on demand */
    size_t n, nbuiltin;
    gpu_db gpus;
} gq_zoo;

/* Parses the built-in models and GPU data, then the optional user GPU file
 * (rows added or overriding). @return 0, or -1 after printing. */
int zoo_load(gq_zoo *z, const char *gpu_file);
void zoo_free(gq_zoo *z);

/* A built-in name, or a path to a .model file (anything with '/' or ending in
 * ".model"). NULL after printing an error. */
const model_t *zoo_model(gq_zoo *z, const char *name_or_path);
/* A GPU by name; NULL after printing an error listing the known ones. */
const gpu_spec *zoo_gpu(const gq_zoo *z, const char *name);

/* The zoo as gpu_compute wants it. */
model_zoo zoo_view(const gq_zoo *z);

/* Built-in texts, compiled in (cmake/embed_files.cmake). */
const char *gq_builtin_model(const char *name);
size_t gq_builtin_model_count(void);
const char *gq_builtin_model_name(size_t i);
const char *gq_builtin_data(const char *name);

#endif

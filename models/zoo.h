/* The model zoo and GPU database: every built-in model and data file
 * (compiled into the library), plus models read from files named by the
 * user. Library code: errors come back as one line in msg. */
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
 * (rows added or overriding). On failure z is left empty (zoo_free is safe).
 * @return GQ_OK, or an error with one line in msg. */
gq_err zoo_load(gq_zoo *z, const char *gpu_file, char *msg, size_t cap);
void zoo_free(gq_zoo *z);

/* A built-in name, or a path to a .model file (anything with '/' or ending in
 * ".model"), loaded once. NULL with one line in msg. */
const model_t *zoo_model(gq_zoo *z, const char *name_or_path, char *msg, size_t cap);
/* A GPU by name; NULL with a line listing the known ones in msg. */
const gpu_spec *zoo_gpu(const gq_zoo *z, const char *name, char *msg, size_t cap);

/* The zoo as gpu_compute wants it. */
model_zoo zoo_view(const gq_zoo *z);

/* Built-in texts, compiled in (cmake/embed_files.cmake). */
const char *gq_builtin_model(const char *name);
size_t gq_builtin_model_count(void);
const char *gq_builtin_model_name(size_t i);
const char *gq_builtin_data(const char *name);

#endif

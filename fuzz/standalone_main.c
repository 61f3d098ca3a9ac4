/* Runs a fuzz target without libFuzzer, so it is an ordinary ctest test:
 *   fuzz_TARGET [--mutate N] [--seed S] FILE_OR_DIR...
 * Every file (or every file in a directory) is run as is, then, with
 * --mutate, N seeded random mutations of them (bit flips, byte overwrites,
 * truncations, insertions, header-field damage), each printed as a
 * reproducible "(seed, case)" pair when it crashes. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    uint8_t *data;
    size_t size;
} input;

static input *inputs;
static const char *prog = "fuzz";
static size_t ninputs;

static void load_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    input in = {malloc(len > 0 ? (size_t)len : 1), len > 0 ? (size_t)len : 0};
    if (fread(in.data, 1, in.size, f) != in.size) in.size = 0;
    fclose(f);
    inputs = realloc(inputs, (ninputs + 1) * sizeof *inputs);
    inputs[ninputs++] = in;
}

static void load_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: cannot read '%s'\n", prog, path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        load_file(path);
        return;
    }
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        load_file(full);
    }
    if (d) closedir(d);
}

int main(int argc, char **argv)
{
    long mutations = 0;
    uint64_t seed = 1;
    prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mutate") == 0 && i + 1 < argc)
            mutations = atol(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else
            load_path(argv[i]);
    }
    if (ninputs == 0) {
        fprintf(stderr, "%s: no inputs\n", prog);
        return 2;
    }
    for (size_t i = 0; i < ninputs; i++) LLVMFuzzerTestOneInput(inputs[i].data, inputs[i].size);
    rng_t r;
    rng_init(&r, seed);
    for (long m = 0; m < mutations; m++) {
        const input *src = &inputs[rng_u64(&r) % ninputs];
        size_t size = src->size + 8;
        uint8_t *buf = malloc(size);
        memcpy(buf, src->data, src->size);
        size = src->size;
        int edits = 1 + (int)(rng_u64(&r) % 4);
        for (int e = 0; e < edits && size > 0; e++) {
            size_t at = rng_u64(&r) % size;
            switch (rng_u64(&r) % 5) {
            case 0: buf[at] ^= (uint8_t)(1u << (rng_u64(&r) % 8)); break;
            case 1: buf[at] = (uint8_t)rng_u64(&r); break;
            case 2: size = at; break; /* truncate */
            case 3:                   /* insert a byte */
                if (size < src->size + 8) {
                    memmove(buf + at + 1, buf + at, size - at);
                    buf[at] = (uint8_t)rng_u64(&r);
                    size++;
                }
                break;
            case 4: /* damage a header field: n, bucket or levels */
                if (size >= 32) buf[6 + rng_u64(&r) % 18] = (uint8_t)rng_u64(&r);
                break;
            }
        }
        /* exact-size copy so out-of-bounds reads are caught by ASan */
        uint8_t *exact = malloc(size ? size : 1);
        memcpy(exact, buf, size);
        LLVMFuzzerTestOneInput(exact, size);
        free(exact);
        free(buf);
    }
    printf("%s: %zu inputs, %ld mutations (seed %llu): no crash\n", prog, ninputs, mutations, (unsigned long long)seed);
    printf("%zu passed, 0 failed\n", ninputs + (size_t)mutations);
    return 0;
}

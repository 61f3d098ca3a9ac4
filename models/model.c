/* The model-description parser (format: docs/model-format.md) and the shape,
 * parameter and FLOP arithmetic. Text is read line by line; `define ... end`
 * blocks are macros expanded by plain substitution of $-names, so Inception
 * modules and residual blocks are written once. Every layer is checked as it
 * is added, against the layers before it, and every error names FILE:LINE. */
#include "model.h"

#include "gq_number.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 1024
#define MAX_TOKENS 32
#define MAX_MACROS 32
#define MAX_MACRO_PARAMS 16
#define MAX_MACRO_DEPTH 8
#define NO_PENDING (-3)

typedef struct {
    char name[MODEL_NAME_MAX];
    char params[MAX_MACRO_PARAMS][32];
    char defaults[MAX_MACRO_PARAMS][64]; /* "" = required */
    int nparams;
    int first, last; /* body: source lines [first, last) */
} macro_def;

typedef struct {
    char *text;   /* comment-stripped, trimmed */
    int number;   /* 1-based line in the file */
    int in_macro; /* part of a define ... end block */
} src_line;

typedef struct {
    const char *file;
    char *msg;
    size_t cap;
    model_t *m;
    src_line *lines;
    int nlines;
    macro_def macros[MAX_MACROS];
    int nmacros;
    size_t cap_layers;
    int *slots; /* open-addressing table of layer indices by name: from= and duplicate checks stay O(1) */
    size_t nslots;
    int seen_layer, seen_name, seen_batch, seen_backward;
    int pending_in; /* default input of the next layer, set by a macro call; NO_PENDING if none */
    /* where we are, for messages: the file line, and the macro stack */
    int line;
    const char *macro_stack[MAX_MACRO_DEPTH];
    int macro_lines[MAX_MACRO_DEPTH];
    int depth;
} parser;

static gq_err fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static gq_err fail(parser *p, const char *fmt, ...)
{
    if (!p->msg || p->cap == 0) return GQ_ERR_SPEC;
    int n = snprintf(p->msg, p->cap, "%s:%d: ", p->file, p->line);
    for (int d = 0; d < p->depth && n >= 0 && (size_t)n < p->cap; d++)
        n += snprintf(p->msg + n, p->cap - (size_t)n, "in '%s' (its line %d): ", p->macro_stack[d], p->macro_lines[d]);
    if (n >= 0 && (size_t)n < p->cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->msg + n, p->cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return GQ_ERR_SPEC;
}

const char *const PRECISION_NAMES[] = {"fp32", "amp", "tf32", NULL};

const char *layer_type_name(layer_type t)
{
    static const char *const NAMES[] = {"conv", "fc",     "pool", "relu",    "lrn",
                                        "bn",   "concat", "add",  "dropout", "softmax"};
    return (unsigned)t < sizeof NAMES / sizeof NAMES[0] ? NAMES[t] : "?";
}

static int type_of(const char *s, layer_type *t)
{
    for (int i = LAYER_CONV; i <= LAYER_SOFTMAX; i++)
        if (strcmp(s, layer_type_name((layer_type)i)) == 0) {
            *t = (layer_type)i;
            return 0;
        }
    return -1;
}

/* ---- small parsers ------------------------------------------------------------------ */

static int parse_int(const char *s, int *v)
{
    if (!isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    long x = strtol(s, &end, 10);
    if (errno || *end || x > INT_MAX / 4) return -1;
    *v = (int)x;
    return 0;
}

/* "3" or "1x7" */
static int parse_pair(const char *s, int *a, int *b)
{
    const char *x = strchr(s, 'x');
    if (!x) {
        if (parse_int(s, a)) return -1;
        *b = *a;
        return 0;
    }
    char first[32];
    if ((size_t)(x - s) >= sizeof first) return -1;
    memcpy(first, s, (size_t)(x - s));
    first[x - s] = '\0';
    return parse_int(first, a) || parse_int(x + 1, b) ? -1 : 0;
}

static int split(char *s, char **tok)
{
    int n = 0;
    for (char *t = strtok(s, " \t"); t && n < MAX_TOKENS; t = strtok(NULL, " \t")) tok[n++] = t;
    return n;
}

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Index of the layer called `name`, or -2. */
static int find_layer(const parser *p, const char *name)
{
    if (!p->nslots) return -2;
    for (size_t i = name_hash(name) & (p->nslots - 1);; i = (i + 1) & (p->nslots - 1)) {
        int idx = p->slots[i];
        if (idx < 0) return -2;
        if (strcmp(p->m->layers[idx].name, name) == 0) return idx;
    }
}

/* Files layer `idx` under its name, growing the table to stay at most half full. */
static void slot_put(parser *p, int idx)
{
    size_t i = name_hash(p->m->layers[idx].name) & (p->nslots - 1);
    while (p->slots[i] >= 0) i = (i + 1) & (p->nslots - 1);
    p->slots[i] = idx;
}

static gq_err index_layer(parser *p, int idx)
{
    if (2 * (p->m->nlayers + 1) > p->nslots) {
        size_t n = p->nslots ? 2 * p->nslots : 256;
        int *slots = malloc(n * sizeof *slots), *old = p->slots;
        if (!slots) return GQ_ERR_NOMEM;
        for (size_t i = 0; i < n; i++) slots[i] = -1;
        const size_t oldn = p->nslots;
        p->slots = slots, p->nslots = n;
        for (size_t i = 0; i < oldn; i++)
            if (old[i] >= 0) slot_put(p, old[i]);
        free(old);
    }
    slot_put(p, idx);
    return GQ_OK;
}

/* A name as the files use it: printable, no spaces or control characters. */
static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || *s == 0x7f) return 0;
    return 1;
}

/* Counts that every later stage holds exactly, as doubles too. */
#define MODEL_MAX_COUNT ((uint64_t)1 << 53)

/* a * b, or 0 with *ok cleared when it passes MODEL_MAX_COUNT. */
static uint64_t mul_count(uint64_t a, uint64_t b, int *ok)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r) || r > MODEL_MAX_COUNT) {
        *ok = 0;
        return 0;
    }
    return r;
}

/* ---- shapes ---------------------------------------------------------------------------- */

static shape3 input_shape(const model_t *m, int idx) { return idx < 0 ? m->input : m->layers[idx].shape; }

/* Output size of a sliding window; Caffe's rule in ceil mode (the last
 * window must start inside the padded input). @return <= 0 if it would be empty. */
static int window_out(int in, int k, int s, int pad, int ceil_mode)
{
    long span = (long)in + 2L * pad - k;
    if (span < 0) return 0;
    long out = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
    if (ceil_mode && pad > 0 && (out - 1) * s >= (long)in + pad) out--;
    return out > INT_MAX / 4 ? 0 : (int)out; /* 0: reported as not fitting */
}

/* ---- layers ---------------------------------------------------------------------------- */

/* Which of a layer's keys were given: what its shape needs, and whether from= names its inputs. */
typedef struct {
    int out, k, s, from;
} layer_keys;

/* A layer's key=value tokens (tok[2..ntok)) into L, each once, each one its type takes. */
static gq_err read_keys(parser *p, char **tok, int ntok, model_layer *L, layer_keys *have)
{
    for (int i = 2; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq) return fail(p, "%s '%s': '%s' is not key=value", tok[0], L->name, tok[i]);
        *eq = '\0';
        const char *k = tok[i], *v = eq + 1;
        for (int j = 2; j < i; j++)
            if (strcmp(tok[j], k) == 0) return fail(p, "%s '%s': key '%s' is given twice", tok[0], L->name, k);
        int bad = 0, known = 1;
        if (strcmp(k, "from") == 0) {
            char buf[MAX_LINE];
            snprintf(buf, sizeof buf, "%s", v);
            L->ninputs = 0;
            for (char *name = strtok(buf, ","); name; name = strtok(NULL, ",")) {
                int idx = strcmp(name, "input") == 0 ? -1 : find_layer(p, name);
                if (idx == -2) return fail(p, "%s '%s': from=%s: no earlier layer of that name", tok[0], L->name, name);
                if (L->ninputs == MODEL_MAX_INPUTS)
                    return fail(p, "%s '%s': more than %d inputs", tok[0], L->name, MODEL_MAX_INPUTS);
                L->inputs[L->ninputs++] = idx;
            }
            if (L->ninputs == 0) return fail(p, "%s '%s': empty from=", tok[0], L->name);
            have->from = 1;
        } else if (strcmp(k, "out") == 0 && (L->type == LAYER_CONV || L->type == LAYER_FC)) {
            bad = parse_int(v, &L->out) || L->out < 1;
            have->out = 1;
        } else if (strcmp(k, "bias") == 0 && (L->type == LAYER_CONV || L->type == LAYER_FC)) {
            bad = parse_int(v, &L->bias) || L->bias > 1;
        } else if (strcmp(k, "k") == 0 && (L->type == LAYER_CONV || L->type == LAYER_POOL)) {
            bad = parse_pair(v, &L->kh, &L->kw) || L->kh < 1 || L->kw < 1;
            have->k = 1;
        } else if (strcmp(k, "s") == 0 && (L->type == LAYER_CONV || L->type == LAYER_POOL)) {
            bad = parse_pair(v, &L->sh, &L->sw) || L->sh < 1 || L->sw < 1;
            have->s = 1;
        } else if (strcmp(k, "p") == 0 && (L->type == LAYER_CONV || L->type == LAYER_POOL)) {
            bad = parse_pair(v, &L->ph, &L->pw);
        } else if (strcmp(k, "g") == 0 && L->type == LAYER_CONV) {
            bad = parse_int(v, &L->groups) || L->groups < 1;
        } else if (strcmp(k, "op") == 0 && L->type == LAYER_POOL) {
            if (strcmp(v, "max") == 0)
                L->pool_max = 1;
            else if (strcmp(v, "avg") == 0)
                L->pool_max = 0;
            else
                bad = 1;
        } else if (strcmp(k, "global") == 0 && L->type == LAYER_POOL) {
            bad = parse_int(v, &L->pool_global) || L->pool_global > 1;
        } else if (strcmp(k, "round") == 0 && L->type == LAYER_POOL) {
            if (strcmp(v, "floor") == 0)
                L->pool_ceil = 0;
            else if (strcmp(v, "ceil") == 0)
                L->pool_ceil = 1;
            else
                bad = 1;
        } else {
            known = 0;
        }
        if (!known) return fail(p, "%s '%s': unknown key '%s'", tok[0], L->name, k);
        if (bad) return fail(p, "%s '%s': bad value %s=%s", tok[0], L->name, k, v);
    }
    return GQ_OK;
}

/* A layer's output shape, parameters and forward FLOPs from its input's shape; *ok cleared by a count past
 * MODEL_MAX_COUNT. */
static gq_err shape_layer(parser *p, model_layer *L, const layer_keys *have, int *ok)
{
    const model_t *m = p->m;
    shape3 in = input_shape(m, L->inputs[0]);
    L->in = in;
    L->shape = in;
    switch (L->type) {
    case LAYER_CONV:
        if (!have->out || !have->k) return fail(p, "conv '%s': needs out= and k=", L->name);
        if (L->ph < 0 || L->pw < 0) return fail(p, "conv '%s': negative padding", L->name);
        if (in.c % L->groups || L->out % L->groups)
            return fail(p, "conv '%s': %d input and %d output channels do not split into g=%d groups", L->name, in.c,
                        L->out, L->groups);
        L->shape.c = L->out;
        L->shape.h = window_out(in.h, L->kh, L->sh, L->ph, 0);
        L->shape.w = window_out(in.w, L->kw, L->sw, L->pw, 0);
        if (L->shape.h < 1 || L->shape.w < 1)
            return fail(p, "conv '%s': a %dx%d kernel does not fit the %dx%d input", L->name, L->kh, L->kw, in.h, in.w);
        L->weight_params =
            mul_count(mul_count(mul_count((uint64_t)L->out, (uint64_t)(in.c / L->groups), ok), (uint64_t)L->kh, ok),
                      (uint64_t)L->kw, ok);
        L->bias_params = L->bias ? (uint64_t)L->out : 0;
        L->fwd_flops = 2.0 * (double)L->weight_params * L->shape.h * L->shape.w;
        break;
    case LAYER_FC: {
        if (!have->out) return fail(p, "fc '%s': needs out=", L->name);
        uint64_t fan_in = mul_count(mul_count((uint64_t)in.c, (uint64_t)in.h, ok), (uint64_t)in.w, ok);
        L->shape = (shape3){L->out, 1, 1};
        L->weight_params = mul_count(fan_in, (uint64_t)L->out, ok);
        L->bias_params = L->bias ? (uint64_t)L->out : 0;
        L->fwd_flops = 2.0 * (double)L->weight_params;
        break;
    }
    case LAYER_POOL:
        if (L->pool_global) {
            if (have->k || have->s) return fail(p, "pool '%s': global=1 takes no k= or s=", L->name);
            L->kh = in.h, L->kw = in.w;
            L->shape.h = L->shape.w = 1;
            break;
        }
        if (!have->k) return fail(p, "pool '%s': needs k= (or global=1)", L->name);
        if (!have->s) L->sh = L->kh, L->sw = L->kw;
        if (L->ph < 0 || L->pw < 0 || L->ph >= L->kh || L->pw >= L->kw)
            return fail(p, "pool '%s': padding must be >= 0 and below the kernel size", L->name);
        L->shape.h = window_out(in.h, L->kh, L->sh, L->ph, L->pool_ceil);
        L->shape.w = window_out(in.w, L->kw, L->sw, L->pw, L->pool_ceil);
        if (L->shape.h < 1 || L->shape.w < 1)
            return fail(p, "pool '%s': a %dx%d window does not fit the %dx%d input", L->name, L->kh, L->kw, in.h, in.w);
        break;
    case LAYER_BN:
        L->weight_params = (uint64_t)in.c; /* scale (gamma) */
        L->bias_params = (uint64_t)in.c;   /* shift (beta) */
        break;
    case LAYER_CONCAT:
        L->shape.c = 0;
        for (int i = 0; i < L->ninputs; i++) {
            shape3 s = input_shape(m, L->inputs[i]);
            if (s.h != in.h || s.w != in.w)
                return fail(p, "concat '%s': input %d is %dx%d, the first is %dx%d", L->name, i + 1, s.h, s.w, in.h,
                            in.w);
            if (s.c > INT_MAX / 4 - L->shape.c) return fail(p, "concat '%s': too many channels", L->name);
            L->shape.c += s.c;
        }
        break;
    case LAYER_ADD:
        for (int i = 1; i < L->ninputs; i++) {
            shape3 s = input_shape(m, L->inputs[i]);
            if (s.c != in.c || s.h != in.h || s.w != in.w)
                return fail(p, "add '%s': input %d is %dx%dx%d, the first is %dx%dx%d", L->name, i + 1, s.c, s.h, s.w,
                            in.c, in.h, in.w);
        }
        break;
    default: break;
    }

    return GQ_OK;
}

static gq_err add_layer(parser *p, char **tok, int ntok)
{
    model_t *m = p->m;
    model_layer L;
    memset(&L, 0, sizeof L);
    if (type_of(tok[0], &L.type) != 0) return fail(p, "unknown layer type or macro '%s'", tok[0]);
    if (ntok < 2) return fail(p, "%s: missing the layer name", tok[0]);
    if (strlen(tok[1]) >= MODEL_NAME_MAX) return fail(p, "layer name '%s' is too long", tok[1]);
    if (strchr(tok[1], '=')) return fail(p, "%s: missing the layer name before '%s'", tok[0], tok[1]);
    if (find_layer(p, tok[1]) >= 0) return fail(p, "layer name '%s' is used twice", tok[1]);
    if (strcmp(tok[1], "input") == 0) return fail(p, "'input' is reserved for the model's input");
    if (!printable(tok[1])) return fail(p, "layer name holds a control character");
    strcpy(L.name, tok[1]);
    L.line = p->line;
    L.sh = L.sw = 1;
    L.groups = 1;
    L.bias = 1;
    L.pool_max = 1;
    layer_keys have = {0};
    const gq_err ke = read_keys(p, tok, ntok, &L, &have);
    if (ke != GQ_OK) return ke;
    if (!have.from) {
        L.ninputs = 1;
        L.inputs[0] = p->pending_in != NO_PENDING ? p->pending_in : m->nlayers > 0 ? (int)m->nlayers - 1 : -1;
    }
    p->pending_in = NO_PENDING; /* a macro's input feeds its first layer only */
    if ((L.type == LAYER_CONCAT || L.type == LAYER_ADD) && L.ninputs < 2)
        return fail(p, "%s '%s': needs from= with at least two layers", tok[0], L.name);
    if (L.type != LAYER_CONCAT && L.type != LAYER_ADD && L.ninputs != 1)
        return fail(p, "%s '%s': takes exactly one input", tok[0], L.name);

    int ok = 1; /* cleared by a count beyond MODEL_MAX_COUNT */
    const gq_err se = shape_layer(p, &L, &have, &ok);
    if (se != GQ_OK) return se;
    uint64_t elements = mul_count(mul_count((uint64_t)L.shape.c, (uint64_t)L.shape.h, &ok), (uint64_t)L.shape.w, &ok);
    (void)elements;
    if (ok && (m->weight_params + m->bias_params > MODEL_MAX_COUNT - L.weight_params - L.bias_params ||
               L.weight_params + L.bias_params > MODEL_MAX_COUNT))
        ok = 0;
    if (!ok)
        return fail(p, "%s '%s': its sizes pass 2^53 parameters or elements (an overflow; check the shapes)", tok[0],
                    L.name);
    if (m->nlayers == p->cap_layers) {
        size_t cap = p->cap_layers ? 2 * p->cap_layers : 64;
        model_layer *nl = realloc(m->layers, cap * sizeof *nl);
        if (!nl) return GQ_ERR_NOMEM;
        m->layers = nl;
        p->cap_layers = cap;
    }
    m->layers[m->nlayers++] = L;
    if (index_layer(p, (int)m->nlayers - 1) != GQ_OK) return GQ_ERR_NOMEM;
    m->weight_params += L.weight_params;
    m->bias_params += L.bias_params;
    m->fwd_flops += L.fwd_flops;
    m->activations += (double)L.shape.c * L.shape.h * L.shape.w;
    p->seen_layer = 1;
    return GQ_OK;
}

/* ---- statements and macros ------------------------------------------------------------- */

static gq_err statement(parser *p, const char *text);

static const macro_def *find_macro(const parser *p, const char *name)
{
    for (int i = 0; i < p->nmacros; i++)
        if (strcmp(p->macros[i].name, name) == 0) return &p->macros[i];
    return NULL;
}

/* Replaces $param, $name and $in in `body` into out. */
static gq_err substitute(parser *p, const macro_def *d, const char *body, char vals[][MODEL_NAME_MAX * 2],
                         const char *inst, const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *c = body; *c;) {
        if (*c != '$') {
            if (n + 1 >= cap) return fail(p, "line too long after expanding '%s'", d->name);
            out[n++] = *c++;
            continue;
        }
        const char *id = ++c;
        while (isalnum((unsigned char)*c) || *c == '_') c++;
        size_t len = (size_t)(c - id);
        const char *val = NULL;
        if (len == 4 && strncmp(id, "name", 4) == 0)
            val = inst;
        else if (len == 2 && strncmp(id, "in", 2) == 0)
            val = in;
        for (int i = 0; !val && i < d->nparams; i++)
            if (strlen(d->params[i]) == len && strncmp(id, d->params[i], len) == 0) val = vals[i];
        if (!val) return fail(p, "macro '%s': unknown $%.*s", d->name, (int)len, id);
        size_t vl = strlen(val);
        if (n + vl + 1 >= cap) return fail(p, "line too long after expanding '%s'", d->name);
        memcpy(out + n, val, vl);
        n += vl;
    }
    out[n] = '\0';
    return GQ_OK;
}

static gq_err expand(parser *p, const macro_def *d, char **tok, int ntok)
{
    if (ntok < 2 || strchr(tok[1], '=')) return fail(p, "macro '%s': missing the instance name", d->name);
    if (p->depth == MAX_MACRO_DEPTH) return fail(p, "macros nested deeper than %d", MAX_MACRO_DEPTH);
    char vals[MAX_MACRO_PARAMS][MODEL_NAME_MAX * 2];
    int given[MAX_MACRO_PARAMS] = {0};
    int in_idx = NO_PENDING;
    for (int i = 2; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq) return fail(p, "macro '%s': '%s' is not key=value", d->name, tok[i]);
        *eq = '\0';
        if (strcmp(tok[i], "from") == 0) {
            in_idx = strcmp(eq + 1, "input") == 0 ? -1 : find_layer(p, eq + 1);
            if (in_idx == -2) return fail(p, "macro '%s': from=%s: no earlier layer of that name", d->name, eq + 1);
            continue;
        }
        int k = -1;
        for (int j = 0; j < d->nparams; j++)
            if (strcmp(d->params[j], tok[i]) == 0) k = j;
        if (k < 0) return fail(p, "macro '%s': unknown argument '%s'", d->name, tok[i]);
        if (given[k]) return fail(p, "macro '%s': argument '%s' is given twice", d->name, tok[i]);
        snprintf(vals[k], sizeof vals[k], "%s", eq + 1);
        given[k] = 1;
    }
    for (int j = 0; j < d->nparams; j++) {
        if (given[j]) continue;
        if (!d->defaults[j][0]) return fail(p, "macro '%s': missing argument '%s'", d->name, d->params[j]);
        snprintf(vals[j], sizeof vals[j], "%s", d->defaults[j]);
    }
    /* the macro's input: from=, else what the enclosing macro passed on, else the previous layer */
    if (in_idx == NO_PENDING) in_idx = p->pending_in;
    if (in_idx == NO_PENDING) in_idx = p->m->nlayers ? (int)p->m->nlayers - 1 : -1;
    char in[MODEL_NAME_MAX];
    snprintf(in, sizeof in, "%s", in_idx < 0 ? "input" : p->m->layers[in_idx].name);
    p->pending_in = in_idx;
    char inst[MODEL_NAME_MAX];
    snprintf(inst, sizeof inst, "%s", tok[1]);
    p->macro_stack[p->depth] = d->name;
    for (int l = d->first; l < d->last; l++) {
        if (!p->lines[l].text[0]) continue;
        char line[MAX_LINE];
        p->macro_lines[p->depth] = p->lines[l].number;
        p->depth++;
        gq_err e = substitute(p, d, p->lines[l].text, vals, inst, in, line, sizeof line);
        if (e == GQ_OK) e = statement(p, line);
        p->depth--;
        if (e != GQ_OK) return e;
    }
    return GQ_OK;
}

static gq_err statement(parser *p, const char *text)
{
    char buf[MAX_LINE], *tok[MAX_TOKENS];
    snprintf(buf, sizeof buf, "%s", text);
    int ntok = split(buf, tok);
    if (ntok == 0) return GQ_OK;
    model_t *m = p->m;
    if (strcmp(tok[0], "name") == 0 || strcmp(tok[0], "input") == 0 || strcmp(tok[0], "batch") == 0 ||
        strcmp(tok[0], "backward") == 0) {
        if (p->depth > 0) return fail(p, "'%s' is not allowed inside a macro", tok[0]);
        if (ntok != 2) return fail(p, "'%s' takes one value", tok[0]);
        if (strcmp(tok[0], "name") == 0) {
            if (strlen(tok[1]) >= MODEL_NAME_MAX) return fail(p, "model name too long");
            if (!printable(tok[1])) return fail(p, "the model name holds a control character");
            if (p->seen_name++) return fail(p, "'name' is given twice");
            strcpy(m->name, tok[1]);
        } else if (strcmp(tok[0], "input") == 0) {
            if (p->seen_layer) return fail(p, "'input' must come before the first layer");
            if (m->input.c) return fail(p, "'input' is given twice");
            shape3 s;
            char a[32], b[32], c[32];
            int used = 0;
            if (sscanf(tok[1], "%31[0-9]x%31[0-9]x%31[0-9]%n", a, b, c, &used) != 3 || tok[1][used] ||
                parse_int(a, &s.c) || parse_int(b, &s.h) || parse_int(c, &s.w) || s.c < 1 || s.h < 1 || s.w < 1 ||
                s.c > MODEL_MAX_DIM || s.h > MODEL_MAX_DIM || s.w > MODEL_MAX_DIM)
                return fail(p, "input '%s' is not CxHxW with sizes in 1..%d", tok[1], MODEL_MAX_DIM);
            m->input = s;
        } else if (strcmp(tok[0], "batch") == 0) {
            if (p->seen_batch++) return fail(p, "'batch' is given twice");
            if (parse_int(tok[1], &m->batch) || m->batch < 1)
                return fail(p, "batch '%s' is not a positive integer", tok[1]);
        } else {
            if (p->seen_backward++) return fail(p, "'backward' is given twice");
            if (gq_parse_real_in(tok[1], 0, 1, 100, &m->backward_ratio) != 0 || m->backward_ratio == 100)
                return fail(p, "backward '%s' is not a ratio in (0, 100)", tok[1]);
        }
        return GQ_OK;
    }
    if (m->input.c == 0) return fail(p, "'input CxHxW' must come before the first layer");
    const macro_def *d = find_macro(p, tok[0]);
    if (d) return expand(p, d, tok, ntok);
    return add_layer(p, tok, ntok);
}

/* Reads `define NAME a b=1 ... end` blocks out of the line list. */
static gq_err collect_macros(parser *p)
{
    for (int l = 0; l < p->nlines; l++) {
        p->line = p->lines[l].number;
        char buf[MAX_LINE], *tok[MAX_TOKENS];
        snprintf(buf, sizeof buf, "%s", p->lines[l].text);
        int ntok = split(buf, tok);
        if (ntok == 0) continue;
        if (strcmp(tok[0], "end") == 0) return fail(p, "'end' without 'define'");
        if (strcmp(tok[0], "define") != 0) continue;
        if (ntok < 2) return fail(p, "define: missing the macro name");
        if (p->nmacros == MAX_MACROS) return fail(p, "more than %d macros", MAX_MACROS);
        layer_type t;
        if (type_of(tok[1], &t) == 0 || find_macro(p, tok[1]))
            return fail(p, "define: '%s' is already a layer type or macro", tok[1]);
        macro_def *d = &p->macros[p->nmacros];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "%s", tok[1]);
        for (int i = 2; i < ntok; i++) {
            if (d->nparams == MAX_MACRO_PARAMS)
                return fail(p, "define %s: more than %d parameters", d->name, MAX_MACRO_PARAMS);
            char *eq = strchr(tok[i], '=');
            if (eq) *eq = '\0';
            if (strcmp(tok[i], "name") == 0 || strcmp(tok[i], "in") == 0 || strcmp(tok[i], "from") == 0)
                return fail(p, "define %s: '%s' is reserved", d->name, tok[i]);
            snprintf(d->params[d->nparams], sizeof d->params[0], "%s", tok[i]);
            snprintf(d->defaults[d->nparams], sizeof d->defaults[0], "%s", eq ? eq + 1 : "");
            d->nparams++;
        }
        d->first = l + 1;
        int end = -1;
        for (int k = l + 1; k < p->nlines && end < 0; k++) {
            const char *t = p->lines[k].text;
            if (strncmp(t, "define", 6) == 0 && (t[6] == ' ' || t[6] == '\t' || !t[6])) {
                p->line = p->lines[k].number;
                return fail(p, "define inside define '%s' (missing 'end'?)", d->name);
            }
            if (strcmp(t, "end") == 0) end = k;
        }
        if (end < 0) return fail(p, "define %s: no matching 'end'", d->name);
        d->last = end;
        p->nmacros++;
        for (int k = l; k <= end; k++) p->lines[k].in_macro = 1;
        l = end;
    }
    return GQ_OK;
}

gq_err model_parse(model_t *m, const char *text, const char *file, char *msg, size_t cap)
{
    memset(m, 0, sizeof *m);
    m->backward_ratio = 2.0;
    parser *p = calloc(1, sizeof *p);
    char *copy = strdup(text);
    if (!p || !copy) {
        free(p);
        free(copy);
        return GQ_ERR_NOMEM;
    }
    p->file = file;
    p->pending_in = NO_PENDING;
    p->msg = msg;
    p->cap = cap;
    p->m = m;
    int maxl = 1;
    for (const char *c = copy; *c; c++) maxl += *c == '\n';
    p->lines = calloc((size_t)maxl, sizeof *p->lines);
    gq_err e = p->lines ? GQ_OK : GQ_ERR_NOMEM;
    int number = 0;
    for (char *line = copy, *next; e == GQ_OK && line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        number++;
        p->line = number;
        if (strlen(line) >= MAX_LINE) e = fail(p, "line longer than %d characters", MAX_LINE - 1);
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        while (*line && isspace((unsigned char)*line)) line++;
        size_t len = strlen(line);
        while (len > 0 && isspace((unsigned char)line[len - 1])) line[--len] = '\0';
        p->lines[p->nlines].text = line;
        p->lines[p->nlines++].number = number;
    }
    if (e == GQ_OK) e = collect_macros(p);
    for (int l = 0; e == GQ_OK && l < p->nlines; l++) {
        if (p->lines[l].in_macro) continue;
        p->line = p->lines[l].number;
        e = statement(p, p->lines[l].text);
    }
    if (e == GQ_OK && m->nlayers == 0) {
        p->line = number;
        e = fail(p, "no layers (an empty or comment-only model)");
    }
    if (e == GQ_OK && !m->name[0]) {
        const char *base = strrchr(file, '/');
        snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : file);
        char *dot = strrchr(m->name, '.');
        if (dot && dot != m->name) *dot = '\0';
    }
    free(p->lines);
    free(p->slots);
    free(p);
    free(copy);
    if (e != GQ_OK) model_free(m);
    return e;
}

void model_free(model_t *m)
{
    if (!m) return;
    free(m->layers);
    m->layers = NULL;
    m->nlayers = 0;
}

void model_layer_times(const model_t *m, double total_fwd_s, double total_bwd_s, double *fwd_s, double *bwd_s)
{
    for (size_t i = 0; i < m->nlayers; i++) {
        double share = m->fwd_flops > 0 ? m->layers[i].fwd_flops / m->fwd_flops : 1.0 / (double)m->nlayers;
        fwd_s[i] = total_fwd_s * share;
        bwd_s[i] = total_bwd_s * share;
    }
}

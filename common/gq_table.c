/* Tables of text cells, and their layout as text no wider than a terminal;
 * see gq_table.h. */
#include "gq_table.h"

#include "gq_alloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- cells ------------------------------------------------------------------------------------ */

static int is_number(const char *s)
{
    if (!*s || strpbrk(s, "xXpP")) return 0; /* strtod would read hexadecimal */
    char *end;
    strtod(s, &end);
    return *end == '\0';
}

/* Significant digits of a decimal number's mantissa ("0.0250" has 3), or -1 if it is not one. */
static int significant_digits(const char *s)
{
    int n = 0, zeros = 0, started = 0;
    for (const char *p = s + (*s == '-' || *s == '+'); *p && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') continue;
        if (*p < '0' || *p > '9') return -1;
        if (*p == '0' && !started) continue;
        started = 1;
        if (*p == '0') {
            zeros++; /* trailing zeros count only if a digit follows */
        } else {
            n += zeros + 1;
            zeros = 0;
        }
    }
    return n + zeros;
}

void table_real(char *buf, size_t cap, double x)
{
    /* a whole number as one: 37530, never 3.753e+04 beside a 41283 of the same column */
    if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(buf, cap, "%.0f", x);
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, x);
        if (strtod(buf, NULL) == x) return;
    }
}

/* A cell as the row formatted it, or its shortest round-trip form when that is shorter and it has 17 digits. A NaN
 * is what does not apply to the row: an empty cell, as every other such value, never "nan". */
static char *stored(const char *cell)
{
    if (strcmp(cell, "nan") == 0 || strcmp(cell, "-nan") == 0) return gq_xstrdup("");
    if (is_number(cell) && significant_digits(cell) == 17) {
        char shortest[40];
        table_real(shortest, sizeof shortest, strtod(cell, NULL));
        if (strlen(shortest) < strlen(cell)) return gq_xstrdup(shortest);
    }
    return gq_xstrdup(cell);
}

void table_init(gq_table *t, const char *const *header, size_t ncols)
{
    t->ncols = ncols;
    t->nrows = 1;
    t->key_cols = 1;
    t->cap = ncols * 16;
    t->cells = gq_xcalloc(t->cap, sizeof *t->cells);
    for (size_t c = 0; c < ncols; c++) t->cells[c] = gq_xstrdup(header[c]);
}

void table_row(gq_table *t, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if ((t->nrows + 1) * t->ncols > t->cap) {
        t->cap = 2 * (t->nrows + 1) * t->ncols;
        t->cells = gq_xrealloc(t->cells, t->cap * sizeof *t->cells);
    }
    char *cell = line;
    for (size_t c = 0; c < t->ncols; c++) {
        char *tab = cell ? strchr(cell, '\t') : NULL;
        if (tab) *tab = '\0';
        t->cells[t->nrows * t->ncols + c] = stored(cell ? cell : "");
        cell = tab ? tab + 1 : NULL;
    }
    t->nrows++;
}

const char *table_cell(const gq_table *t, size_t r, size_t c)
{
    return r < t->nrows && c < t->ncols ? t->cells[r * t->ncols + c] : "";
}

void table_copy_row(gq_table *dst, const gq_table *src, size_t r)
{
    if (dst->ncols == 0) table_init(dst, (const char *const *)src->cells, src->ncols), dst->key_cols = src->key_cols;
    if ((dst->nrows + 1) * dst->ncols > dst->cap) {
        dst->cap = 2 * (dst->nrows + 1) * dst->ncols;
        dst->cells = gq_xrealloc(dst->cells, dst->cap * sizeof *dst->cells);
    }
    for (size_t c = 0; c < dst->ncols; c++) dst->cells[dst->nrows * dst->ncols + c] = stored(table_cell(src, r, c));
    dst->nrows++;
}

int table_column(const gq_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->cells[c], name) == 0) return (int)c;
    return -1;
}

void table_free(gq_table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->nrows = t->ncols = t->cap = t->key_cols = 0;
}

/* ---- text layout ------------------------------------------------------------------------------ */

/* text cells longer than these become footnotes when a table is still too wide; names of rows are kept longer */
#define FOOTNOTE_FROM 13
#define KEY_FOOTNOTE_FROM 24
#define WRAP_AT_LEAST 24 /* a last column is wrapped in lines only if they can be this long */

typedef struct {
    const gq_table *t;
    size_t rows;        /* data rows */
    char **shown;       /* nrows x ncols: the cells as text shows them */
    unsigned char *num; /* which data cells are numbers (aligned right) */
    size_t *foot;       /* per cell: its footnote number, or 0 */
    char **notes;       /* footnote texts, 1-based */
    size_t nnotes;
    int wrap;                    /* headers break after '_' */
    size_t wrap_col, wrap_width; /* wrap_col > 0: column wrap_col - 1, the last, in lines of wrap_width */
} layout;

static const char *shown_at(const layout *l, size_t r, size_t c) { return l->shown[r * l->t->ncols + c]; }

static size_t data_width(const layout *l, size_t c)
{
    size_t w = 0;
    for (size_t r = 1; r <= l->rows; r++) {
        size_t len = strlen(shown_at(l, r, c));
        if (len > w) w = len;
    }
    return w;
}

/* The header's lines when broken after '_' into lines of at most w (a piece longer than w is one line). */
static size_t header_lines(const char *h, size_t w, char lines[][128], size_t max)
{
    size_t n = 0, len = 0;
    char line[128] = "";
    for (const char *p = h; *p;) {
        const char *cut = strchr(p, '_');
        size_t piece = cut ? (size_t)(cut - p) + 1 : strlen(p);
        if (piece > 127) piece = 127;
        if (len > 0 && len + piece > w) {
            if (lines && n < max) snprintf(lines[n], 128, "%s", line);
            n++;
            len = 0;
        }
        memcpy(line + len, p, piece < 127 - len ? piece : 127 - len);
        len += piece < 127 - len ? piece : 127 - len;
        line[len] = '\0';
        p += piece;
    }
    if (lines && n < max) snprintf(lines[n], 128, "%s", line);
    return n + 1;
}

/* The width a header needs when it may break after '_': its best split in two lines, or whole when breaking
 * saves less than 3 characters (a lone "s" on a line of its own helps nobody). */
static size_t header_width(const char *h, size_t data)
{
    const size_t len = strlen(h);
    size_t best = len;
    for (const char *cut = strchr(h, '_'); cut; cut = strchr(cut + 1, '_')) {
        const size_t first = (size_t)(cut - h) + 1, second = len - first;
        const size_t w = first > second ? first : second;
        if (w < best) best = w;
    }
    if (best < data) best = data;
    return len >= best + 3 ? best : len;
}

static size_t column_width(const layout *l, size_t c)
{
    size_t d = data_width(l, c);
    if (c + 1 == l->wrap_col && d > l->wrap_width) d = l->wrap_width;
    const size_t h = l->wrap ? header_width(shown_at(l, 0, c), d) : strlen(shown_at(l, 0, c));
    return d > h ? d : h;
}

/* The length of text's first line in lines of at most w: up to the last space that fits, or w where none does. */
static size_t first_line(const char *text, size_t w)
{
    const size_t len = strlen(text);
    if (len <= w) return len;
    for (size_t k = w; k > 0; k--)
        if (text[k] == ' ') return k;
    return w;
}

static size_t columns_width(const layout *l, const size_t *cols, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += column_width(l, cols[i]) + (i ? 2 : 0);
    return w;
}

static void print_columns(FILE *out, const layout *l, const size_t *cols, size_t n)
{
    enum { MAX_LINES = 8 };
    size_t lines = 1;
    for (size_t i = 0; i < n; i++) {
        size_t k = l->wrap ? header_lines(shown_at(l, 0, cols[i]), column_width(l, cols[i]), NULL, 0) : 1;
        if (k > lines) lines = k;
    }
    if (lines > MAX_LINES) lines = MAX_LINES;
    for (size_t k = 0; k < lines; k++) {
        char line[4096];
        size_t len = 0;
        for (size_t i = 0; i < n && len < sizeof line; i++) {
            const size_t w = column_width(l, cols[i]);
            char hl[MAX_LINES][128];
            const char *h = shown_at(l, 0, cols[i]);
            size_t nh = 1;
            if (l->wrap) {
                nh = header_lines(h, w, hl, MAX_LINES);
                if (nh > MAX_LINES) nh = MAX_LINES; /* a header of more pieces shows its first eight lines */
            } else
                snprintf(hl[0], sizeof hl[0], "%s", h);
            /* the last line of a header sits on the table's last header line */
            const char *text = k + nh >= lines ? hl[k + nh - lines] : "";
            const int m = snprintf(line + len, sizeof line - len, "%-*s  ", (int)w, text);
            if (m > 0) len += (size_t)m;
        }
        if (len >= sizeof line) len = sizeof line - 1;
        while (len > 0 && line[len - 1] == ' ') len--;
        fprintf(out, "%.*s\n", (int)len, line);
    }
    for (size_t r = 1; r <= l->rows; r++)
        for (size_t i = 0; i < n; i++) {
            const size_t c = cols[i], w = column_width(l, c);
            const char *cell = shown_at(l, r, c);
            if (l->num[r * l->t->ncols + c]) {
                fprintf(out, "%*s", (int)w, cell);
            } else if (i + 1 == n && c + 1 == l->wrap_col) { /* a long last column in lines under each other */
                size_t indent = 0;
                for (size_t j = 0; j + 1 < n; j++) indent += column_width(l, cols[j]) + 2;
                for (int line = 0; *cell || line == 0; line++) {
                    const size_t k = first_line(cell, l->wrap_width);
                    fprintf(out, "%*s%.*s", line ? (int)indent : 0, "", (int)k, cell);
                    cell += k;
                    while (*cell == ' ') cell++;
                    if (*cell) fputc('\n', out);
                }
            } else if (i + 1 == n) {
                fputs(cell, out); /* no trailing blanks */
            } else
                fprintf(out, "%-*s", (int)w, cell);
            fputs(i + 1 == n ? "\n" : "  ", out);
        }
}

/* A number of more than 6 significant digits to 6: text is read, CSV is computed with. */
static char *for_text(const char *cell, int header)
{
    if (!header && is_number(cell) && (strchr(cell, '.') || strstr(cell, "e+") || strstr(cell, "e-")) &&
        significant_digits(cell) > 6) {
        char s[40];
        const double x = strtod(cell, NULL);
        /* a million and more in whole units, as the column's whole numbers are (no 1.28117e+06 beside 41283) */
        snprintf(s, sizeof s, fabs(x) >= 1e6 && fabs(x) < 1e15 ? "%.0f" : "%.6g", x);
        return gq_xstrdup(s);
    }
    return gq_xstrdup(cell);
}

/* Long text cells of the given columns become "[k]"; the same text, the same k. */
static void footnote(layout *l, const size_t *cols, size_t n)
{
    const size_t nc = l->t->ncols;
    for (size_t r = 1; r <= l->rows; r++)
        for (size_t i = 0; i < n; i++) {
            const size_t at = r * nc + cols[i];
            const size_t from = cols[i] < l->t->key_cols ? KEY_FOOTNOTE_FROM : FOOTNOTE_FROM;
            if (l->num[at] || strlen(l->shown[at]) <= from) continue;
            size_t k = 0;
            for (size_t j = 1; j <= l->nnotes && !k; j++)
                if (strcmp(l->notes[j], l->shown[at]) == 0) k = j;
            if (!k) {
                l->notes = gq_xrealloc(l->notes, (l->nnotes + 2) * sizeof *l->notes);
                k = ++l->nnotes;
                l->notes[k] = gq_xstrdup(l->shown[at]);
            }
            free(l->shown[at]);
            char mark[32];
            snprintf(mark, sizeof mark, "[%zu]", k);
            l->shown[at] = gq_xstrdup(mark);
        }
}

/* Columns whose value is the same on every row, as "name: value" lines (one per line and aligned when every
 * column is, as for a single row). */
static size_t print_common(FILE *out, const layout *l, const unsigned char *common, const unsigned char *empty,
                           size_t width)
{
    const size_t nc = l->t->ncols;
    size_t every = 1, name_w = 0;
    for (size_t c = 0; c < nc; c++) {
        if (empty[c]) continue; /* left out */
        if (!common[c])
            every = 0;
        else if (strlen(shown_at(l, 0, c)) > name_w)
            name_w = strlen(shown_at(l, 0, c));
    }
    size_t used = 0;
    for (size_t c = 0; c < nc; c++) {
        if (!common[c]) continue;
        const char *name = shown_at(l, 0, c), *value = shown_at(l, 1, c);
        if (every) {
            fprintf(out, "%-*s  %s\n", (int)name_w, name, value);
            continue;
        }
        const size_t len = strlen(name) + 2 + strlen(value);
        if (used && used + 3 + len > width) fputc('\n', out), used = 0;
        fprintf(out, "%s%s: %s", used ? "   " : "", name, value);
        used += (used ? 3 : 0) + len;
    }
    if (used) fputc('\n', out);
    return every || used; /* whether anything was printed */
}

/* "label  text", the text in lines under each other where it is longer than the width leaves (never a word cut,
 * unless a word alone is longer: a spec, which has no spaces, breaks after a comma, where its keys part). */
static void print_key(FILE *out, const char *label, const char *text, size_t label_w, size_t width)
{
    const size_t room = width > label_w + 2 + WRAP_AT_LEAST ? width - label_w - 2 : WRAP_AT_LEAST;
    fprintf(out, "%-*s  ", (int)label_w, label);
    for (int line = 0; *text || line == 0; line++) {
        size_t k = first_line(text, room);
        if (k == room && strlen(text) > room && !memchr(text, ' ', room)) { /* one long word */
            k = room;
            while (k > 0 && text[k - 1] != ',') k--;
            if (k == 0) k = strcspn(text, " "); /* no comma: whole */
        }
        fprintf(out, "%*s%.*s\n", line ? (int)label_w + 2 : 0, "", (int)k, text);
        text += k;
        while (*text == ' ') text++;
    }
}

void table_text(FILE *out, const gq_table *t, size_t width, const table_key *keys, size_t nkeys)
{
    const size_t nc = t->ncols, cells = t->nrows * nc;
    layout l = {.t = t, .rows = t->nrows - 1};
    l.shown = gq_xcalloc(cells, sizeof *l.shown);
    l.num = gq_xcalloc(cells, 1);
    for (size_t i = 0; i < cells; i++) {
        l.shown[i] = for_text(t->cells[i], i < nc);
        l.num[i] = i >= nc && is_number(t->cells[i]);
    }
    size_t *cols = gq_xcalloc(nc ? nc : 1, sizeof *cols), ncols = 0;
    unsigned char *common = gq_xcalloc(nc ? nc : 1, 1);
    unsigned char *empty = gq_xcalloc(nc ? nc : 1, 1);
    for (size_t c = 0; c < nc; c++) { /* a column empty on every row says nothing here (CSV keeps it) */
        size_t r = 1;
        while (r <= l.rows && !t->cells[r * nc + c][0]) r++;
        empty[c] = r > l.rows && l.rows > 0 && c >= t->key_cols;
        if (!empty[c]) cols[ncols++] = c;
    }

    if (columns_width(&l, cols, ncols) > width && l.rows >= 1) {
        /* 1: what every row shares, above the table */
        size_t differ = 0;
        for (size_t c = 0; c < nc; c++) {
            int same = 1;
            for (size_t r = 2; r <= l.rows && same; r++) same = strcmp(shown_at(&l, r, c), shown_at(&l, 1, c)) == 0;
            common[c] = (unsigned char)(same && !empty[c]);
            differ += !same;
        }
        if (!differ && l.rows > 1) /* rows alike in every column: still one line each */
            for (size_t c = 0; c < t->key_cols && c < nc; c++) common[c] = 0;
        ncols = 0;
        for (size_t c = 0; c < nc; c++)
            if (!common[c] && !empty[c]) cols[ncols++] = c;
        if (print_common(out, &l, common, empty, width) && ncols) fputc('\n', out);
        /* 2: headers broken after '_'; 3: a long last text column in lines; 4: long text as footnotes */
        if (columns_width(&l, cols, ncols) > width) l.wrap = 1;
        if (columns_width(&l, cols, ncols) > width && ncols > 1) {
            const size_t others = columns_width(&l, cols, ncols - 1) + 2, last = cols[ncols - 1];
            int text = 1;
            for (size_t r = 1; r <= l.rows && text; r++) text = !l.num[r * nc + last];
            if (text && others + WRAP_AT_LEAST <= width) l.wrap_col = last + 1, l.wrap_width = width - others;
        }
        if (columns_width(&l, cols, ncols) > width) footnote(&l, cols, ncols);
    }
    if (ncols && columns_width(&l, cols, ncols) <= width) {
        print_columns(out, &l, cols, ncols);
    } else if (ncols) {
        /* 5: panels of the remaining columns, each led by the key columns */
        size_t *panel = gq_xcalloc(ncols, sizeof *panel), *rest = gq_xcalloc(ncols, sizeof *rest), nkey = 0, nrest = 0;
        for (size_t i = 0; i < ncols; i++)
            if (cols[i] < t->key_cols)
                panel[nkey++] = cols[i];
            else
                rest[nrest++] = cols[i];
        if (!nkey) { /* every key column is above the table: the first left leads */
            panel[nkey++] = rest[0];
            memmove(rest, rest + 1, --nrest * sizeof *rest);
        }
        if (!nrest) print_columns(out, &l, panel, nkey);
        for (size_t i = 0; i < nrest;) {
            size_t n = nkey;
            panel[n++] = rest[i++];
            for (; i < nrest; i++, n++) {
                panel[n] = rest[i];
                if (columns_width(&l, panel, n + 1) > width) break;
            }
            print_columns(out, &l, panel, n);
            if (i < nrest) fputc('\n', out);
        }
        free(rest);
        free(panel);
    }
    if (nkeys || l.nnotes) {
        size_t w = 0;
        for (size_t k = 0; k < nkeys; k++)
            if (strlen(keys[k].label) > w) w = strlen(keys[k].label);
        for (size_t k = 1; k <= l.nnotes; k++) {
            char mark[32];
            if ((size_t)snprintf(mark, sizeof mark, "[%zu]", k) > w) w = strlen(mark);
        }
        fputc('\n', out);
        for (size_t k = 0; k < nkeys; k++) print_key(out, keys[k].label, keys[k].full, w, width);
        for (size_t k = 1; k <= l.nnotes; k++) {
            char mark[32];
            snprintf(mark, sizeof mark, "[%zu]", k);
            print_key(out, mark, l.notes[k], w, width);
            free(l.notes[k]);
        }
    }
    for (size_t i = 0; i < cells; i++) free(l.shown[i]);
    free(l.shown);
    free(l.num);
    free(l.notes);
    free(cols);
    free(common);
    free(empty);
}

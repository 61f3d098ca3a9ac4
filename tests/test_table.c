/* Tables as users read them: cells stored at round-trip precision, the text
 * layout that fits a width (as is, then what every row shares above it,
 * headers broken after '_', footnotes, panels), the quantizers' short labels
 * and names matched without case. Expected texts are written out in full. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "gq_suggest.h"
#include "gq_table.h"

static char *render(const gq_table *t, size_t width, const table_key *keys, size_t nkeys)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    table_text(f, t, width, keys, nkeys);
    fclose(f);
    return buf;
}

static size_t widest_line(const char *s)
{
    size_t best = 0;
    for (const char *p = s; *p;) {
        const size_t n = strcspn(p, "\n");
        if (n > best) best = n;
        p += n + (p[n] == '\n');
    }
    return best;
}

static void test_numbers(void)
{
    char b[40];
    table_real(b, sizeof b, 0.1);
    CHECK(strcmp(b, "0.1") == 0, "0.1 in its shortest form (got %s)", b);
    table_real(b, sizeof b, 1.0 / 3);
    CHECK(strcmp(b, "0.3333333333333333") == 0, "1/3 needs 16 digits (got %s)", b);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int all = 1;
    for (int i = 0; i < 10000; i++) { /* every shortest form reads back as the double it came from */
        const double x = exp(gsl_ran_gaussian(r, 20.0));
        table_real(b, sizeof b, x);
        all &= strtod(b, NULL) == x && strlen(b) <= 23;
    }
    gsl_rng_free(r);
    CHECK(all, "10000 doubles from 1e-60 to 1e60: their shortest forms read back exactly");

    static const char *const H[] = {"a", "b", "c"};
    gq_table t;
    table_init(&t, H, 3);
    table_row(&t, TABLE_REAL "\t%.2f\t" TABLE_REAL, 0.1, 1.1, 243860896.0);
    CHECK(strcmp(table_cell(&t, 1, 0), "0.1") == 0 && strcmp(table_cell(&t, 1, 1), "1.10") == 0 &&
              strcmp(table_cell(&t, 1, 2), "243860896") == 0,
          "TABLE_REAL cells stored short, a chosen %%.2f kept: %s %s %s", table_cell(&t, 1, 0), table_cell(&t, 1, 1),
          table_cell(&t, 1, 2));
    table_row(&t, TABLE_REAL "\tx\t%s", 1.0 / 3, "3.14159265");
    char *s = render(&t, 100, NULL, 0);
    CHECK(strcmp(s, "a         b     c\n"
                    "     0.1  1.10  243860896\n"
                    "0.333333  x       3.14159\n") == 0,
          "text: numbers of more than 6 digits to 6, integers whole, text left:\n%s", s);
    free(s);
    table_free(&t);

    /* one format a column: whole numbers in full (37530, not 3.753e+04 beside 41283), a million and more with a
     * fraction in whole units in text */
    table_real(b, sizeof b, 37530);
    CHECK(strcmp(b, "37530") == 0, "a whole number in full (got %s)", b);
    table_real(b, sizeof b, 999999999999999.0);
    CHECK(strcmp(b, "999999999999999") == 0, "whole numbers below 1e15 in full (got %s)", b);
    table_real(b, sizeof b, 1e15);
    CHECK(strcmp(b, "1e+15") == 0, "1e15 and more as the shortest form (got %s)", b);
    table_init(&t, H, 3);
    table_row(&t, TABLE_REAL "	" TABLE_REAL "	" TABLE_REAL, 37530.0, 1281167.5, 999999.25);
    s = render(&t, 100, NULL, 0);
    CHECK(strcmp(s, "a      b        c\n"
                    "37530  1281168  999999\n") == 0,
          "text: 1281167.5 as 1281168 (whole units from a million), 999999.25 to 6 digits:\n%s", s);
    free(s);
    table_free(&t);
}

/* A column empty on every row (a NaN, as a price nobody gave) is left out of the text, kept in CSV; a key column
 * stays; a column with one cell filled stays. */
static void test_empty_columns(void)
{
    static const char *const H[] = {"name", "cost", "x", "note"};
    gq_table t;
    table_init(&t, H, 4);
    table_row(&t, "a	" TABLE_REAL "	1	%s", NAN, "");
    table_row(&t, "b	" TABLE_REAL "	2	%s", NAN, "n");
    char *s = render(&t, 100, NULL, 0);
    CHECK(strcmp(s, "name  x  note\n"
                    "a     1  \n"
                    "b     2  n\n") == 0,
          "the empty cost column left out of the text:\n%s", s);
    free(s);
    CHECK(table_column(&t, "cost") == 1 && strcmp(table_cell(&t, 1, 1), "") == 0, "the table keeps it (CSV writes it)");
    table_free(&t);
    table_init(&t, H, 4);
    table_row(&t, "%s	" TABLE_REAL "	1	%s", "", NAN, "");
    t.key_cols = 1;
    s = render(&t, 100, NULL, 0);
    CHECK(strcmp(s, "name  x\n"
                    "      1\n") == 0,
          "an empty key column stays, the others go:\n%s", s);
    free(s);
    table_free(&t);
}

/* A header breaks after '_' only where that saves 3 characters or more: "abc_def" (7) into "abc_" and "def" saves
 * exactly 3 and breaks; "abc_de" (6) into "abc_" and "de" saves 2 and stays whole. */
static void test_header_break(void)
{
    static const char *const H[] = {"abc_def", "abc_de"};
    gq_table t;
    table_init(&t, H, 2);
    table_row(&t, "1\t2");
    table_row(&t, "3\t4");
    char *s = render(&t, 14, NULL, 0); /* one short of the 15 the headers take whole */
    CHECK(strcmp(s, "abc_\n"
                    "def   abc_de\n"
                    "   1       2\n"
                    "   3       4\n") == 0,
          "14 columns: abc_def broken (3 saved), abc_de whole (2 saved):\n%s", s);
    free(s);
    table_free(&t);
}

static void test_layout(void)
{
    static const char *const H[] = {"gpus", "quant", "engine", "bytes_per_gpu_up", "note"};
    gq_table t;
    table_init(&t, H, 5);
    t.key_cols = 2;
    table_row(&t, "1\tfp32\tsimgrid\t0\tshort");
    table_row(&t, "8\tterngrad\tsimgrid\t15241946\ta rather long remark");
    char *s = render(&t, 100, NULL, 0);
    const char *whole = "gpus  quant     engine   bytes_per_gpu_up  note\n"
                        "   1  fp32      simgrid                 0  short\n"
                        "   8  terngrad  simgrid          15241946  a rather long remark\n";
    CHECK(strcmp(s, whole) == 0, "a table that fits is printed as it is:\n%s", s);
    const size_t natural = widest_line(s);
    free(s);
    s = render(&t, natural, NULL, 0);
    CHECK(strcmp(s, whole) == 0, "at exactly its width (%zu) still as it is", natural);
    free(s);
    s = render(&t, natural - 1, NULL, 0);
    CHECK(strcmp(s, "engine: simgrid\n"
                    "\n"
                    "gpus  quant     bytes_per_gpu_up  note\n"
                    "   1  fp32                     0  short\n"
                    "   8  terngrad          15241946  a rather long remark\n") == 0,
          "one column narrower: the column every row shares goes above:\n%s", s);
    free(s);
    s = render(&t, 40, NULL, 0);
    CHECK(strcmp(s, "engine: simgrid\n"
                    "\n"
                    "                bytes_per_\n"
                    "gpus  quant     gpu_up      note\n"
                    "   1  fp32               0  short\n"
                    "   8  terngrad    15241946  [1]\n"
                    "\n"
                    "[1]  a rather long remark\n") == 0,
          "40 columns: headers broken after '_', a long text as a footnote:\n%s", s);
    free(s);
    s = render(&t, 24, NULL, 0);
    CHECK(strcmp(s, "engine: simgrid\n"
                    "\n"
                    "                bytes_per_\n"
                    "gpus  quant     gpu_up\n"
                    "   1  fp32               0\n"
                    "   8  terngrad    15241946\n"
                    "\n"
                    "gpus  quant     note\n"
                    "   1  fp32      short\n"
                    "   8  terngrad  [1]\n"
                    "\n"
                    "[1]  a rather long remark\n") == 0,
          "24 columns: panels, each led by the key columns (gpus, quant):\n%s", s);
    free(s);
    const table_key keys[] = {{"terngrad", "terngrad:bucket=0,clip=2.5"}};
    s = render(&t, 100, keys, 1);
    CHECK(strstr(s, "\n\nterngrad  terngrad:bucket=0,clip=2.5\n") != NULL, "the caller's key under the table:\n%s", s);
    free(s);
    table_free(&t);

    /* footnotes at their threshold: a text of 13 characters stays, one of 14 becomes [1] */
    static const char *const F[] = {"name", "text", "value"};
    gq_table ft;
    table_init(&ft, F, 3);
    table_row(&ft, "a\tabcdefghijklm\t1.5");
    table_row(&ft, "b\tabcdefghijklmn\t2.5");
    s = render(&ft, 26, NULL, 0);
    CHECK(strcmp(s, "name  text           value\n"
                    "a     abcdefghijklm    1.5\n"
                    "b     [1]              2.5\n"
                    "\n"
                    "[1]  abcdefghijklmn\n") == 0,
          "26 columns: 14 characters a footnote, 13 not:\n%s", s);
    free(s);
    table_free(&ft);

    /* a long last column in lines under each other, cut at spaces; the key's long text the same way */
    static const char *const D[] = {"name", "description"};
    gq_table dt;
    table_init(&dt, D, 2);
    table_row(&dt, "fp32\tuncompressed 32-bit floats (the baseline)");
    table_row(&dt, "x\tshort");
    const table_key long_key[] = {{"k", "one two three four five six seven eight nine ten eleven"}};
    s = render(&dt, 40, long_key, 1);
    CHECK(strcmp(s, "name  description\n"
                    "fp32  uncompressed 32-bit floats (the\n"
                    "      baseline)\n"
                    "x     short\n"
                    "\n"
                    "k  one two three four five six seven\n"
                    "   eight nine ten eleven\n") == 0,
          "40 columns: the description in lines of 34, the key's text in lines of 37:\n%s", s);
    free(s);
    table_free(&dt);

    /* one row too wide: a line per column */
    gq_table one;
    table_init(&one, H, 5);
    table_row(&one, "64\tterngrad\tsimgrid\t33216714\tLV08(lat x13.01, bw x0.97, crosstraffic)");
    s = render(&one, 30, NULL, 0);
    CHECK(strcmp(s, "gpus              64\n"
                    "quant             terngrad\n"
                    "engine            simgrid\n"
                    "bytes_per_gpu_up  33216714\n"
                    "note              LV08(lat x13.01, bw x0.97, crosstraffic)\n") == 0,
          "a single row too wide: one aligned line per column:\n%s", s);
    free(s);
    table_free(&one);
}

/* A key's text too long for its line breaks between words; a spec (one word) after a comma, where its keys part;
 * a word without a comma stays whole. */
static void test_long_key(void)
{
    static const char *const H[] = {"name", "n"};
    gq_table t;
    table_init(&t, H, 2);
    table_row(&t, "a\t1");
    const table_key keys[] = {
        {"a", "cluster:gpus-per-node=8,gpu=V100,intra=nvlink2,inter=ib-edr,nics=4,topology=star,oversub=1"},
        {"b", "averyveryverylongwordwithoutanycommaatallthatgoesonandonpastthewidth"}};
    char *s = render(&t, 40, keys, 2);
    CHECK(strcmp(s, "name  n\n"
                    "a     1\n"
                    "\n"
                    "a  cluster:gpus-per-node=8,gpu=V100,\n"
                    "   intra=nvlink2,inter=ib-edr,nics=4,\n"
                    "   topology=star,oversub=1\n"
                    "b  averyveryverylongwordwithoutanycommaatallthatgoesonandonpastthewidth\n") == 0,
          "width 40: the spec in lines broken after commas, the comma-less word whole:\n%s", s);
    free(s);
    table_free(&t);
}

static void test_labels(void)
{
    const char *specs[] = {"fp32", "qsgd:levels=5,bucket=512,norm=l2", "qsgd:levels=9,bucket=512,norm=l2",
                           "terngrad:bucket=0,clip=2.5", "qsgd:levels=5,bucket=512,norm=l2"};
    char labels[5][QZ_LABEL_MAX];
    qz_short_labels(specs, 5, labels);
    CHECK(strcmp(labels[0], "fp32") == 0 && strcmp(labels[1], "qsgd-5") == 0 && strcmp(labels[2], "qsgd-9") == 0 &&
              strcmp(labels[3], "terngrad") == 0 && strcmp(labels[4], "qsgd-5") == 0,
          "labels: %s %s %s %s %s (fp32 qsgd-5 qsgd-9 terngrad qsgd-5)", labels[0], labels[1], labels[2], labels[3],
          labels[4]);
    const char *two[] = {"qsgd:levels=3,norm=max", "qsgd:levels=5,norm=l2", "qsgd:levels=5,norm=max"};
    qz_short_labels(two, 3, labels);
    CHECK(strcmp(labels[0], "qsgd-3-max") == 0 && strcmp(labels[1], "qsgd-5-l2") == 0 &&
              strcmp(labels[2], "qsgd-5-max") == 0,
          "every key in which they differ, in order: %s %s %s", labels[0], labels[1], labels[2]);
    const char *alone[] = {"orq:levels=3,bucket=512"};
    qz_short_labels(alone, 1, labels);
    CHECK(strcmp(labels[0], "orq") == 0, "alone, the name (got %s)", labels[0]);

    const char *names[] = {"qsgd", "fp32", NULL, "Mixed", "mixed"};
    CHECK(gq_match_name("qsgd", names, 5) == 0 && gq_match_name("QSGD", names, 5) == 0 &&
              gq_match_name("Fp32", names, 5) == 1,
          "a name, or the one equal to it but for case");
    CHECK(gq_match_name("mixed", names, 5) == 4 && gq_match_name("MIXED", names, 5) == -1 &&
              gq_match_name("qsg", names, 5) == -1,
          "the exact one first; two equal but for case, neither; no near misses");
}

int main(void)
{
    test_numbers();
    test_layout();
    test_header_break();
    test_labels();
    test_empty_columns();
    test_long_key();
    return check_summary();
}

/* Quantizer specs: defaults, every key, canonical round trip, and errors that
 * name the bad part (docs/papers.md §2). */
#include "check.h"
#include "gq_suggest.h"

/* Field by field: a struct's padding is not part of its value (memcmp saw it differ under -O1). */
static int same_params(const qz_params *a, const qz_params *b)
{
    return a->id == b->id && a->bucket == b->bucket && a->levels == b->levels && a->clip == b->clip &&
           a->scale == b->scale && a->pack == b->pack && a->norm == b->norm && a->code == b->code &&
           a->ratio == b->ratio && a->index == b->index && a->shared_scale == b->shared_scale && a->fit == b->fit;
}

static void expect_error(const char *spec, const char *needle)
{
    qz_params p;
    char msg[256] = "";
    gq_err e = qz_parse_spec(spec, &p, msg, sizeof msg);
    CHECK(e == GQ_ERR_SPEC && strstr(msg, needle) != NULL, "spec '%s': expected an error naming '%s', got '%s'", spec,
          needle, msg);
}

/* "Did you mean" (common/gq_suggest.c), the rule every refused name follows: distances with swaps of neighbours,
 * case alone, and the threshold at equality (1 edit under 6 characters, 2 from 6 on). */
static void test_suggest(void)
{
    CHECK(gq_edit_distance("qsgd", "qsdg") == 1 && gq_edit_distance("ab", "ba") == 1 &&
              gq_edit_distance("abc", "abc") == 0 && gq_edit_distance("kitten", "sitting") == 3 &&
              gq_edit_distance("terngrad", "tengrad") == 1 && gq_edit_distance("a", "abcd") == 3,
          "distances %d %d %d %d %d %d", gq_edit_distance("qsgd", "qsdg"), gq_edit_distance("ab", "ba"),
          gq_edit_distance("abc", "abc"), gq_edit_distance("kitten", "sitting"),
          gq_edit_distance("terngrad", "tengrad"), gq_edit_distance("a", "abcd"));
    const char *const names[] = {"fp32", "qsgd", "terngrad", "alexnet", "alexnet-owt"};
    const size_t n = sizeof names / sizeof names[0];
    struct {
        const char *word, *want;
    } const C[] = {
        {"qsgd", NULL}, /* a known name is no mistake */
        {"AlexNet", "alexnet"},
        {"QSGD", "qsgd"},   /* case alone */
        {"qsgd9", "qsgd"},  /* 5 characters, 1 edit: suggested */
        {"qsxyd", NULL},    /* 5 characters, 2 edits: too far */
        {"qsgd99", "qsgd"}, /* 6 characters, 2 edits: suggested */
        {"qsg999", NULL},   /* 6 characters, 3 edits */
        {"alexnet-ow", "alexnet-owt"},
        {"tengrad", "terngrad"},
        {"zzz", NULL},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        const char *got = gq_suggest(C[i].word, names, n);
        CHECK(got == C[i].want || (got && C[i].want && strcmp(got, C[i].want) == 0), "'%s': got %s, want %s", C[i].word,
              got ? got : "none", C[i].want ? C[i].want : "none");
    }
    char msg[256];
    qz_params q;
    CHECK(qz_parse_spec("tengrad", &q, msg, sizeof msg) == GQ_ERR_SPEC &&
              strstr(msg, "unknown quantizer 'tengrad', did you mean 'terngrad'?"),
          "got '%s'", msg);
}

int main(void)
{
    test_suggest();
    qz_params p = test_spec("terngrad");
    CHECK(p.id == QZ_TERNGRAD && p.clip == 2.5f && p.bucket == 0 && p.scale == QZ_SCALE_MAX && p.pack == QZ_PACK_2BIT,
          "terngrad defaults");
    p = test_spec("terngrad:clip=0,pack=trits,bucket=4096");
    CHECK(p.clip == 0 && p.pack == QZ_PACK_TRITS && p.bucket == 4096, "terngrad keys");
    p = test_spec("qsgd:levels=9,bucket=512,norm=max");
    CHECK(p.id == QZ_QSGD && p.levels == 9 && p.norm == QZ_NORM_MAX && p.code == QZ_CODE_DENSE, "qsgd keys");
    p = test_spec("orq:levels=5,bucket=512");
    CHECK(p.id == QZ_ORQ && p.levels == 5 && p.bucket == 512, "orq keys");
    p = test_spec("orq:levels=9,fit=hist");
    CHECK(p.id == QZ_ORQ && p.levels == 9 && p.fit == QZ_FIT_HIST, "orq fit=hist");
    p = test_spec("orq:fit=exact");
    CHECK(p.fit == QZ_FIT_EXACT, "orq fit=exact");
    {
        char buf[128];
        qz_format_spec(&p, buf, sizeof buf);
        CHECK(strcmp(buf, "orq:levels=5,bucket=512") == 0, "the default search is left out of the canonical form: '%s'",
              buf);
        p.fit = QZ_FIT_HIST;
        qz_format_spec(&p, buf, sizeof buf);
        qz_params back = test_spec(buf);
        CHECK(strcmp(buf, "orq:levels=5,bucket=512,fit=hist") == 0 && same_params(&p, &back),
              "fit=hist round-trips: '%s'", buf);
    }
    p = test_spec("bingrad-pb:bucket=128");
    CHECK(p.id == QZ_BINGRAD_PB && p.bucket == 128, "bingrad-pb keys");
    p = test_spec("terngrad:pack=int8");
    CHECK(p.pack == QZ_PACK_BYTE, "terngrad int8");
    p = test_spec("signsgd:pack=byte,bucket=8");
    CHECK(p.id == QZ_SIGNSGD && p.pack == QZ_PACK_BYTE && p.bucket == 8, "signsgd byte");
    p = test_spec("topk:index=64");
    CHECK(p.index == QZ_INDEX_64, "topk index=64");
    p = test_spec("topk:ratio=0.001");
    CHECK(p.id == QZ_TOPK && fabsf(p.ratio - 0.001f) < 1e-9f, "topk ratio");

    /* canonical form parses back to the same parameters, for every quantizer */
    int bad = 0;
    for (size_t i = 0; i < qz_count(); i++) {
        qz_params a, b;
        qz_defaults((qz_id)(QZ_FP32 + i), &a);
        char buf[256];
        qz_format_spec(&a, buf, sizeof buf);
        b = test_spec(buf);
        bad += !same_params(&a, &b);
    }
    CHECK(bad == 0, "%d canonical specs do not round-trip", bad);

    expect_error("ternary", "unknown quantizer 'ternary'");
    expect_error("qsgd:levels=4", "levels=4");
    expect_error("qsgd:levels=1", "levels=1");
    expect_error("orq:levels=17", "levels=17");
    expect_error("qsgd:lvls=5", "unknown key 'lvls'");
    expect_error("fp32:bucket=4", "unknown key 'bucket'");
    expect_error("qsgd:levels=x", "levels='x'");
    expect_error("qsgd:levels=5,levels=7", "given twice");
    expect_error("qsgd:levels=5,", "empty key=value");
    expect_error("qsgd:levels", "not key=value");
    expect_error("terngrad:clip=-1", "clip=-1");
    expect_error("terngrad:scale=sigma,clip=0", "scale=sigma");
    expect_error("terngrad:pack=3bit", "pack='3bit'");
    expect_error("signsgd:pack=trits", "pack='trits' is not bit or byte");
    expect_error("signsgd:pack=-", "pack='-'");
    expect_error("qsgd:pack=int8", "unknown key 'pack'");
    expect_error("topk:index=16", "index='16' is not auto, 32 or 64");
    expect_error("orq:index=64", "unknown key 'index'");
    expect_error("orq:fit=sorted", "fit='sorted' is not exact or hist");
    expect_error("qsgd:fit=hist", "unknown key 'fit'");
    expect_error("topk:ratio=0", "ratio=0");
    expect_error("topk:ratio=1.5", "ratio=1.5");
    expect_error("qsgd:norm=l1", "norm='l1'");
    expect_error("", "empty");
    return check_summary();
}

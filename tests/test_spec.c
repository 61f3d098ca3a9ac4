/* Quantizer specs: defaults, every key, canonical round trip, and errors that
 * name the bad part (docs/papers.md §2). */
#include "check.h"

/* Field by field: a struct's padding is not part of its value (memcmp saw it differ under -O1). */
static int same_params(const qz_params *a, const qz_params *b)
{
    return a->id == b->id && a->bucket == b->bucket && a->levels == b->levels && a->clip == b->clip &&
           a->scale == b->scale && a->pack == b->pack && a->norm == b->norm && a->code == b->code &&
           a->ratio == b->ratio && a->index == b->index && a->shared_scale == b->shared_scale;
}

static void expect_error(const char *spec, const char *needle)
{
    qz_params p;
    char msg[256] = "";
    gq_err e = qz_parse_spec(spec, &p, msg, sizeof msg);
    CHECK(e == GQ_ERR_SPEC && strstr(msg, needle) != NULL, "spec '%s': expected an error naming '%s', got '%s'", spec,
          needle, msg);
}

int main(void)
{
    qz_params p = test_spec("terngrad");
    CHECK(p.id == QZ_TERNGRAD && p.clip == 2.5f && p.bucket == 0 && p.scale == QZ_SCALE_MAX && p.pack == QZ_PACK_2BIT,
          "terngrad defaults");
    p = test_spec("terngrad:clip=0,pack=trits,bucket=4096");
    CHECK(p.clip == 0 && p.pack == QZ_PACK_TRITS && p.bucket == 4096, "terngrad keys");
    p = test_spec("qsgd:levels=9,bucket=512,norm=max");
    CHECK(p.id == QZ_QSGD && p.levels == 9 && p.norm == QZ_NORM_MAX && p.code == QZ_CODE_DENSE, "qsgd keys");
    p = test_spec("orq:levels=5,bucket=512");
    CHECK(p.id == QZ_ORQ && p.levels == 5 && p.bucket == 512, "orq keys");
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
    expect_error("topk:ratio=0", "ratio=0");
    expect_error("topk:ratio=1.5", "ratio=1.5");
    expect_error("qsgd:norm=l1", "norm='l1'");
    expect_error("", "empty");
    return check_summary();
}

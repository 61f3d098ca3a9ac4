/* The measured-throughput CSV reader behind `gqsim validate`: RFC 4180
 * quoting (a quantizer spec holds commas), CRLF, columns in any order, line
 * numbers that count the newlines inside quoted fields, and every range
 * error naming FILE:LINE. */
#include "check.h"
#include "measured.h"
#include "run_params.h"

static gq_err parse(const char *text, measured_set *s, char *msg, size_t cap)
{
    msg[0] = '\0';
    return measured_parse(text, strlen(text), "m.csv", s, msg, cap);
}

static void test_good(void)
{
    measured_set s;
    char msg[512];
    const char *text = "images_per_s,quant,gpus,model,gpu,batch,platform,extra\r\n"
                       "250.5,\"qsgd:levels=3,norm=max\",8,vgg-a,GTX 1080,32,terngrad-ethernet,\"say \"\"hi\"\"\"\r\n"
                       "\r\n"
                       "1e3,fp32,16,alexnet,P100,128,\"cluster:gpus-per-node=4,gpu=P100,intra=nvlink1,inter=ib-edr\","
                       "\"two\nlines\"\n"
                       "99,,1,resnet50,V100,64,dgx1-v100,x";
    gq_err e = parse(text, &s, msg, sizeof msg);
    CHECK(e == GQ_OK && s.n == 3, "three rows (%s)", msg);
    if (e != GQ_OK || s.n != 3) return;
    CHECK(strcmp(s.rows[0].quant, "qsgd:levels=3,norm=max") == 0 && s.rows[0].gpus == 8 && s.rows[0].batch == 32 &&
              s.rows[0].images_per_s == 250.5 && strcmp(s.rows[0].gpu, "GTX 1080") == 0 && s.rows[0].line == 2,
          "row 1: a quoted spec with a comma, at line 2 (got '%s', line %d)", s.rows[0].quant, s.rows[0].line);
    CHECK(strcmp(s.rows[1].platform, "cluster:gpus-per-node=4,gpu=P100,intra=nvlink1,inter=ib-edr") == 0 &&
              s.rows[1].images_per_s == 1000 && s.rows[1].line == 4,
          "row 2: a quoted cluster spec, after a blank line, at line 4 (line %d)", s.rows[1].line);
    CHECK(s.rows[2].line == 6 && s.rows[2].quant[0] == '\0' && s.rows[2].gpus == 1,
          "row 3: line 6, counting the newline inside row 2's quotes (line %d)", s.rows[2].line);
    measured_free(&s);
    /* batch_per_gpu, the name published sets use, read as batch */
    e = parse("model,gpu,batch_per_gpu,gpus,images_per_s,platform\nresnet50,V100,64,8,2900,dgx1-v100\n", &s, msg,
              sizeof msg);
    CHECK(e == GQ_OK && s.n == 1 && s.rows[0].batch == 64 && s.rows[0].gpus == 8,
          "batch_per_gpu read as the batch (%s; batch %g)", msg, e == GQ_OK && s.n ? (double)s.rows[0].batch : -1.0);
    if (e == GQ_OK) measured_free(&s);
}

static void expect(const char *text, const char *prefix)
{
    measured_set s;
    char msg[512];
    gq_err e = parse(text, &s, msg, sizeof msg);
    CHECK(e == GQ_ERR_SPEC && strncmp(msg, prefix, strlen(prefix)) == 0 && s.n == 0 && !s.rows,
          "expected '%s...', got '%s'", prefix, msg);
}

static void test_bad(void)
{
    const char *h = "model,platform,gpu,batch,gpus,images_per_s\n";
    char text[512];
    expect("", "m.csv:1: empty file");
    expect("model,gpu\nalexnet,P100\n", "m.csv:1: needs columns");
    /* an option column misspelled by one or two edits is an error, not an extra column carried along unread */
    expect("model,platform,gpu,batch,gpus,images_per_s,ps_shard\nalexnet,dgx1,P100,128,8,100,2\n",
           "m.csv:1: column 'ps_shard' is not one gqsim reads: did you mean ps_shards?");
    expect("model,platform,gpu,batch,gpus,images_per_s,overlp\nalexnet,dgx1,P100,128,8,100,0\n",
           "m.csv:1: column 'overlp' is not one gqsim reads: did you mean overlap?");
    expect("model,platform,gpu,batch,gpus,images_per_s,fp23_below\nalexnet,dgx1,P100,128,8,100,0\n",
           "m.csv:1: column 'fp23_below' is not one gqsim reads: did you mean fp32_below?");
    {
        /* three edits away, or a short name two away, is an extra column of the user's (a source, a seed) */
        measured_set s;
        char msg[256];
        CHECK(parse("model,platform,gpu,batch,gpus,images_per_s,seed,ps_shardxyz\nalexnet,dgx1,P100,128,8,100,1,x\n",
                    &s, msg, sizeof msg) == GQ_OK &&
                  s.n == 1,
              "seed (3 edits from sync) and ps_shardxyz (3 from ps_shards) are extra columns: %s", msg);
        measured_free(&s);
    }
    /* rows after the header h (0) or the header with option columns ho (1), and the error they give */
    const char *ho = "model,platform,gpu,batch,gpus,images_per_s,fp32_last,fp32_below,fusion_cycle,ps_shards\n";
    static const struct {
        int with_options;
        const char *rows, *error;
    } BAD[] = {
        {0, "alexnet,dgx1,P100,128,4294967297,100\n", "m.csv:2: gpus '4294967297' must be an integer in 1..65536"},
        {0, "alexnet,dgx1,P100,128,65537,100\n", "m.csv:2: gpus '65537'"},
        {0, "alexnet,dgx1,P100,128,8,100\nalexnet,dgx1,P100,0,8,100\n",
         "m.csv:3: batch '0' must be an integer in 1..1000000"},
        {0, "alexnet,dgx1,P100,128,8,nan\n",
         "m.csv:2: images_per_s 'nan': a training rate must be between 1e-5 images/s (about one a day) and 1e9"},
        {0, "alexnet,dgx1,P100,128,8,9.99e-6\n", "m.csv:2: images_per_s '9.99e-6': a training rate must be"},
        {0, "alexnet,dgx1,P100,128,8,-5\n", "m.csv:2: images_per_s '-5'"},
        {0, "alexnet,dgx1,P100,128,8\n", "m.csv:2: 5 fields where the header has 6"},
        {0, "\"alexnet,dgx1,P100,128,8,100\n", "m.csv:2: a quoted field is not closed"},
        {0, "ale\"xnet,dgx1,P100,128,8,100\n", "m.csv:2: a quote inside an unquoted field"},
        {1, "alexnet,dgx1,P100,128,8,100,2,,,\n", "m.csv:2: fp32_last '2' is not 0 or 1"},
        {1, "alexnet,dgx1,P100,128,8,100,,-1,,\n",
         "m.csv:2: fp32_below '-1' must be a whole number of elements in [0, 1e15]"},
        {1, "alexnet,dgx1,P100,128,8,100,,0.5,,\n", "m.csv:2: fp32_below '0.5' must be a whole number of elements"},
        {1, "alexnet,dgx1,P100,128,8,100,,,11,\n", "m.csv:2: fusion_cycle '11' must be seconds in [0, 10]"},
        {1, "alexnet,dgx1,P100,128,8,100,,,,1025\n", "m.csv:2: ps_shards '1025' must be an integer in 1..1024"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        snprintf(text, sizeof text, "%s%s", BAD[i].with_options ? ho : h, BAD[i].rows);
        expect(text, BAD[i].error);
    }
    snprintf(text, sizeof text, "%s\"alexnet\"x,dgx1,P100,128,8,100\n", h);
    expect(text, "m.csv:2: text after a closing quote");
    snprintf(text, sizeof text, "%salexnet,dgx1,P100,128,8,100\r\n\"a\r\nb\"\"c\",,,,,\"\n", h);
    expect(text, "m.csv:3: a quoted field is not closed");
    char wide[2048];
    snprintf(wide, sizeof wide, "%s\"%01100d\",dgx1,P100,128,8,100\n", h, 0);
    expect(wide, "m.csv:2: a field longer than 1023 bytes");
    snprintf(wide, sizeof wide, "%s%0130d\n", h, 0);
    for (char *c = wide + strlen(h); *c != '\n'; c += 2) *c = '0', c[1] = c[2] == '\n' ? c[1] : ',';
    expect(wide, "m.csv:2: more than 64 fields");
    snprintf(text, sizeof text, "%s\n\n", h);
    expect(text, "m.csv:3: no measured rows");
    snprintf(text, sizeof text, "%s,dgx1,P100,128,8,100\n", h);
    expect(text, "m.csv:2: model '' is empty");
}

/* The writer beside the reader: a run written as train --mpi --measured-out writes it is read back as the same
 * row, its run parameters (sync, overlap, fusion, codec_on) in the columns the reader takes them from. */
static void test_written_run_reads_back(void)
{
    sim_request run;
    run_params_defaults(&run);
    run.run.sync = SYNC_RING, run.run.overlap = 0, run.run.fusion_bytes = 0, run.run.codec_on = CODEC_ON_CPU;
    const measured_run m = {.model = "lenet5",
                            .platform = "terngrad-ethernet",
                            .gpu = "cpu",
                            .quant = "terngrad",
                            .source = "a test",
                            .run = &run,
                            .batch = 64,
                            .gpus = 4,
                            .seed = 7,
                            .images_per_s = 1234.5,
                            .compute_images_per_s = 500,
                            .iteration_s = 0.25,
                            .iterations = 30,
                            .test_accuracy = 0.875};
    gq_table t;
    table_init(&t, MEASURED_RUN_COLUMNS, MEASURED_RUN_NCOLUMNS);
    measured_add_run(&t, &m);
    char csv[4096] = "";
    for (size_t r = 0; r < 2; r++)
        for (size_t c = 0; c < t.ncols; c++)
            snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "%s%s", table_cell(&t, r, c),
                     c + 1 < t.ncols ? "," : "\n");
    measured_set s;
    char msg[512];
    const gq_err e = parse(csv, &s, msg, sizeof msg);
    const int ok = e == GQ_OK && s.n == 1;
    CHECK(ok && strcmp(s.rows[0].model, "lenet5") == 0 && s.rows[0].gpus == 4 && s.rows[0].batch == 64 &&
              s.rows[0].images_per_s == 1234.5 && strcmp(s.rows[0].sync, "ring") == 0,
          "the written row read back (%s)", ok ? csv : msg);
    static const char *const PARAMS[][2] = {{"overlap", "0"}, {"fusion", "0"}, {"codec_on", "cpu"}};
    for (size_t k = 0; ok && k < 3; k++) {
        const int col = run_param_column(run_param_by_key(PARAMS[k][0]));
        CHECK(col >= 0 && strcmp(s.rows[0].param[col], PARAMS[k][1]) == 0, "%s read back as '%s' (want '%s')",
              PARAMS[k][0], col >= 0 ? s.rows[0].param[col] : "?", PARAMS[k][1]);
    }
    if (e == GQ_OK) measured_free(&s);
    table_free(&t);
}

int main(void)
{
    test_written_run_reads_back();
    test_good();
    test_bad();
    return check_summary();
}

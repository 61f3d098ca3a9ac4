/* The search behind `gqsim advise`; see advise.h. One scenario per setting of the run parameters (scheme, fusion,
 * fp32 threshold, codec device), opened as `simulate` would open it so that a setting simulate refuses is skipped
 * the same way; the quantizers run inside it. Screening runs the analytic engine, the finalists the request's. */
#include "advise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frameworks.h"
#include "gq_epoch.h"
#include "run_params.h"
#include "sim_bounds.h"

const char *const ADVISE_QUANTS[] = {"fp32",
                                     "fp16",
                                     "terngrad",
                                     "qsgd:levels=5",
                                     "qsgd:levels=9,norm=max",
                                     "orq:levels=5",
                                     "bingrad-pb",
                                     "signsgd",
                                     "topk:ratio=0.01",
                                     "topk:ratio=0.001",
                                     "powersgd:rank=1",
                                     "powersgd:rank=2",
                                     "powersgd:rank=4",
                                     NULL};
const double ADVISE_FUSIONS[][2] = {{0, 0}, {25 * 1048576.0, 0}, {64 * 1048576.0, 0.005}};
const size_t ADVISE_NFUSIONS = sizeof ADVISE_FUSIONS / sizeof ADVISE_FUSIONS[0];
const double ADVISE_FP32_BELOW[] = {0, 16384};
const size_t ADVISE_NFP32_BELOW = sizeof ADVISE_FP32_BELOW / sizeof ADVISE_FP32_BELOW[0];

const char *const ADVISE_COLUMNS[] = {"rank",
                                      "platform",
                                      "gpus",
                                      "quant",
                                      "sync",
                                      "fusion_bytes",
                                      "fusion_cycle_s",
                                      "fp32_below",
                                      "codec_on",
                                      "iteration_s",
                                      "images_per_s",
                                      "cost_per_hour",
                                      "cost_per_million_samples",
                                      "speedup_over_fp32",
                                      "bytes_per_gpu_up",
                                      "codec_share",
                                      "screened_iteration_s",
                                      "iterations_to_target",
                                      "time_to_target_s",
                                      "accuracy_at_budget",
                                      "cost_to_target",
                                      "accuracy_note",
                                      "engine",
                                      "codec_source"};
const size_t ADVISE_NCOLUMNS = sizeof ADVISE_COLUMNS / sizeof ADVISE_COLUMNS[0];

/* One setting of the run parameters advise varies. */
typedef struct {
    sync_kind sync;
    double fusion_bytes, fusion_cycle_s, fp32_below;
    codec_device codec_on;
} setting;

/* A screened configuration. */
typedef struct {
    size_t setting, quant, order;
    double key, screened_s; /* what it is ranked by (lower first), then its screened iteration */
    int fp32, buckets;
} candidate;

static int by_time(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->screened_s != y->screened_s) return x->screened_s < y->screened_s ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int held(const sim_request *q, const char *key) { return run_param_given(run_param_by_key(key), q); }

/* Every setting: the values held where the request gives them, else each of the axis's. */
static size_t settings_of(const sim_request *q, int gpus, setting *out, size_t cap)
{
    sync_kind SYNCS[SYNC_COUNT]; /* every scheme, in the order the schemes' rows give advise */
    sim_schemes_in_search_order(SYNCS);
    const size_t nsync = held(q, "sync") ? 1 : sizeof SYNCS / sizeof SYNCS[0];
    const size_t nfusion = held(q, "fusion") || held(q, "fusion_cycle") ? 1 : ADVISE_NFUSIONS;
    const size_t nfp32 = held(q, "fp32_below") ? 1 : ADVISE_NFP32_BELOW;
    static const codec_device DEVICES[] = {CODEC_ON_GPU, CODEC_ON_CPU};
    /* BytePS's pushes are encoded by the host's CPU whatever codec_on says: one device, the CPU */
    const size_t ndev = held(q, "codec_on") || q->run.node_sum == NODE_SUM_GPUS ? 1 : 2;
    const codec_device dev = q->run.node_sum == NODE_SUM_GPUS ? CODEC_ON_CPU : q->run.codec_on;
    size_t n = 0;
    for (size_t a = 0; a < nsync; a++)
        for (size_t b = 0; b < nfusion; b++)
            for (size_t c = 0; c < nfp32; c++)
                for (size_t d = 0; d < ndev && n < cap; d++) {
                    setting s = {
                        nsync == 1 ? q->run.sync : SYNCS[a], nfusion == 1 ? q->run.fusion_bytes : ADVISE_FUSIONS[b][0],
                        nfusion == 1 ? q->run.fusion_cycle_s : ADVISE_FUSIONS[b][1],
                        nfp32 == 1 ? q->run.exchange.fp32_below : ADVISE_FP32_BELOW[c], ndev == 1 ? dev : DEVICES[d]};
                    /* every GPU to every other: SimGrid's limit, past which no finalist could be simulated */
                    if (s.sync == SYNC_PS_FLAT && nsync > 1 && gpus > SIM_SIMGRID_MAX_FLAT_GPUS) continue;
                    out[n++] = s;
                }
    return n;
}

static sim_request request_of(const sim_request *base, const setting *s, engine_kind engine)
{
    sim_request q = *base;
    q.run.sync = s->sync, q.run.fusion_bytes = s->fusion_bytes, q.run.fusion_cycle_s = s->fusion_cycle_s;
    q.run.exchange.fp32_below = s->fp32_below, q.run.codec_on = s->codec_on, q.run.engine = engine;
    return q;
}

/* One configuration with `engine`; GQ_ERR_USAGE where the simulator refuses the combination. */
static gq_err run_one(const sim_request *base, const setting *st, const char *quant, int gpus, engine_kind engine,
                      sim_outcome *o, char *msg, size_t cap)
{
    const sim_request q = request_of(base, st, engine);
    sim_scenario s;
    gq_err e = scenario_open(&s, &q, msg, cap);
    if (e == GQ_OK) e = scenario_run(&s, quant, gpus, o, msg, cap);
    scenario_close(&s);
    return e;
}

/* Quantizer `quant`'s curve (the curve of its canonical spec), or NULL. */
static const tta_curve *curve_of(const advise_request *a, const char *quant)
{
    qz_params p;
    char canon[256];
    qz_parse_spec(quant, &p, NULL, 0);
    qz_format_spec(&p, canon, sizeof canon);
    for (int j = 0; a->curves && j < a->ncurves; j++)
        if (strcmp(a->curves[j].quant, canon) == 0) return &a->curves[j];
    return NULL;
}

/* A quantizer's accuracy data on `gpus` GPUs of `batch` images: its curve, its iterations an epoch, and the
 * iterations it needs to reach the target (0: it never does, or no target). */
typedef struct {
    const tta_curve *curve;
    double per_epoch, to_target;
} quant_accuracy;

static quant_accuracy accuracy_of(const advise_request *a, const char *quant, int batch)
{
    quant_accuracy q = {curve_of(a, quant),
                        (double)gq_iterations_per_epoch((long long)a->dataset_images, a->gpus, batch), 0};
    if (q.curve && q.per_epoch >= 1 && a->target > 0) {
        const tta_result r = tta_reach(&q.curve->acc[0][0], q.curve->nseeds, ACC_CURVE_MAX_EPOCHS, q.curve->epochs,
                                       a->target, q.per_epoch);
        q.to_target = r.reached ? r.iterations : 0;
    }
    return q;
}

/* The test accuracy after `budget` seconds of iterations of iteration_s: the seeds' mean at the last epoch the
 * budget completes (the curve's last where it completes more), NAN where it completes none. */
static double accuracy_at(const quant_accuracy *q, double iteration_s, double budget)
{
    if (!q->curve || q->per_epoch < 1 || !(iteration_s > 0)) return NAN;
    const double epochs = floor(budget / (iteration_s * q->per_epoch));
    if (epochs < 1) return NAN;
    const size_t e = epochs < (double)q->curve->epochs ? (size_t)epochs : q->curve->epochs;
    double sum = 0;
    for (size_t si = 0; si < q->curve->nseeds; si++) sum += q->curve->acc[si][e - 1];
    return sum / (double)q->curve->nseeds;
}

/* Why a configuration is left out of the ranking (KEPT: it is not). */
typedef enum { KEPT, NEVER_REACHED, REACHED_LATE, NO_EPOCH_IN_BUDGET } left_out;

/* What a configuration is ranked by, lower first: its iteration; with a target, its time to it (within the budget,
 * if any); with a budget alone, minus its accuracy at the budget. @return KEPT, or why it is left out (the target
 * never or not within the budget reached, not one epoch within the budget). */
static left_out rank_key(const advise_request *a, const quant_accuracy *q, double iteration_s, double *key)
{
    if (!a->curves) return *key = iteration_s, KEPT;
    if (a->target > 0) {
        *key = q->to_target * iteration_s;
        return !(q->to_target > 0) ? NEVER_REACHED : a->budget_s > 0 && *key > a->budget_s ? REACHED_LATE : KEPT;
    }
    const double acc = accuracy_at(q, iteration_s, a->budget_s);
    *key = -acc;
    return isnan(acc) ? NO_EPOCH_IN_BUDGET : KEPT;
}

/* What the screening left out, and why: for the one line that says why nothing was left. */
typedef struct {
    size_t settings, engine_refused, refused, no_curve, never, late, no_epoch;
    double soonest_s, fastest_epoch_s, best_final; /* the soonest time to the target, epoch, last accuracy seen */
    char engine_why[1024], refused_why[1024];
} screening_record;

/* The one line for a screening that kept nothing, naming its real cause. */
static gq_err nothing_kept(const advise_request *a, const sim_request *base, const screening_record *w, char *msg,
                           size_t cap)
{
    if (w->settings > 0 && w->engine_refused == w->settings)
        return gq_fail(GQ_ERR_USAGE, msg, cap, "advise: the %s engine runs none of the %zu settings searched: %s",
                       sim_engine_name(base->run.engine), w->settings, w->engine_why);
    if (w->settings > 0 && w->engine_refused + w->refused == w->settings)
        return gq_fail(GQ_ERR_USAGE, msg, cap, "advise: every setting searched is refused: %s",
                       w->refused_why[0] ? w->refused_why : w->engine_why);
    if (a->curves && w->no_curve && !w->never && !w->late && !w->no_epoch)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "advise: none of the quantizers searched has an accuracy curve (--quant names others than the "
                       "curves')");
    if (a->curves && w->no_epoch && !w->never && !w->late)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "advise: the budget of %g s completes no epoch of %.0f images in any configuration (the fastest "
                       "epoch takes %.4g s)",
                       a->budget_s, a->dataset_images, w->fastest_epoch_s);
    if (a->curves && w->late) /* some reach it: what stops them is the budget */
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "advise: the target %g is reached, but not within the budget of %g s (the soonest takes %.4g s)",
                       a->target, a->budget_s, w->soonest_s);
    if (a->curves && w->never)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "advise: no quantizer's curve reaches the target %g (the best last accuracy is %.4f)", a->target,
                       w->best_final);
    /* every quantizer refused in every setting left: options that do not go together, said by the first refusal */
    return gq_fail(w->refused_why[0] ? GQ_ERR_USAGE : GQ_ERR_PARAM, msg, cap,
                   "advise: no configuration could be simulated%s%s", w->refused_why[0] ? ": " : "", w->refused_why);
}

/* The screening: one scenario a setting, every quantizer in it, the analytic engine. The kept configurations go to
 * c[0..*n), each quantizer's accuracy data (with curves) to qa, what was left out and why to *w. @return GQ_OK, or an
 * error that stops the search (a setting refused by simulate or by the final engine is skipped, said in *w). */
static gq_err screen(const sim_request *base, const advise_request *a, const char *const *quants, size_t nq,
                     const setting *st, size_t nst, candidate *c, size_t *n, quant_accuracy *qa, screening_record *w,
                     char *msg, size_t cap)
{
    int read_accuracy =
        0; /* each quantizer's accuracy data, read at the first scenario (whose batch is the search's) */
    char skip[1024];
    /* the final engine's refusals (a scheme it lacks, a limit) are the setting's, whatever the quantizer: asked once
     * a setting, so that what it would refuse is never screened in (smpi: the trainer's schemes only) */
    const sim_engine *final = sim_engine_get(base->run.engine);
    const int ask_final = base->run.engine != ENGINE_ANALYTIC && final && final->check;
    for (size_t i = 0; i < nst; i++) {
        const sim_request q = request_of(base, &st[i], ENGINE_ANALYTIC);
        sim_scenario s;
        gq_err e = scenario_open(&s, &q, skip, sizeof skip);
        if (e == GQ_ERR_USAGE) { /* a setting simulate would refuse */
            if (!w->refused++) snprintf(w->refused_why, sizeof w->refused_why, "%s", skip);
            continue;
        }
        if (e != GQ_OK) return gq_fail(e, msg, cap, "%s", skip);
        if (ask_final && scenario_check(&s, quants[0], a->gpus, base->run.engine, skip, sizeof skip) != GQ_OK) {
            if (!w->engine_refused++) snprintf(w->engine_why, sizeof w->engine_why, "%s", skip);
            scenario_close(&s);
            continue;
        }
        if (!read_accuracy && a->curves) { /* the batch is the scenario's (the request's, else the model's) */
            for (size_t k = 0; k < nq; k++) {
                qa[k] = accuracy_of(a, quants[k], s.batch);
                const tta_curve *cv = qa[k].curve; /* its seeds' mean last accuracy, for the line if none is kept */
                double last = 0;
                for (size_t si = 0; cv && si < cv->nseeds; si++)
                    last += cv->acc[si][cv->epochs - 1] / (double)cv->nseeds;
                if (last > w->best_final) w->best_final = last;
            }
            const double per_epoch = (double)gq_iterations_per_epoch((long long)a->dataset_images, a->gpus, s.batch);
            if (per_epoch < 1) /* not one iteration an epoch: no curve can say anything */
                return scenario_close(&s),
                       gq_fail(GQ_ERR_PARAM, msg, cap,
                               "advise: the dataset of %.0f images is smaller than one global batch (%d GPUs x %d "
                               "images): not one iteration an epoch (--dataset-size)",
                               a->dataset_images, a->gpus, s.batch);
        }
        read_accuracy = 1;
        for (size_t k = 0; k < nq; k++) {
            qz_params p;
            qz_parse_spec(quants[k], &p, NULL, 0);
            /* fp32 has no codec and no tensor to keep in fp32: one setting of those is enough (the codec axis's
             * first device: the GPU, or the one device held) */
            if (p.id == QZ_FP32 && ((nst > 1 && st[i].codec_on != st[0].codec_on) || st[i].fp32_below != 0)) continue;
            if (a->curves && !qa[k].curve) { /* no curve: nothing to rank it by */
                w->no_curve++;
                continue;
            }
            if (a->progress) a->progress(a->progress_ctx, "screening", i * nq + k, nst * nq);
            sim_outcome o;
            e = scenario_run(&s, quants[k], a->gpus, &o, skip, sizeof skip);
            if (e == GQ_ERR_USAGE) {
                if (!w->refused_why[0]) snprintf(w->refused_why, sizeof w->refused_why, "%s", skip);
                continue;
            }
            if (e != GQ_OK) return scenario_close(&s), gq_fail(e, msg, cap, "%s", skip);
            double key;
            const left_out why_out = rank_key(a, &qa[k], o.r.iteration_s, &key);
            if (a->curves) { /* what the line says if nothing is kept */
                const double epoch_s = o.r.iteration_s * qa[k].per_epoch;
                if (epoch_s < w->fastest_epoch_s) w->fastest_epoch_s = epoch_s;
                if (why_out == REACHED_LATE && key < w->soonest_s) w->soonest_s = key;
            }
            if (why_out != KEPT) { /* the target or the budget out of reach */
                w->never += why_out == NEVER_REACHED, w->late += why_out == REACHED_LATE;
                w->no_epoch += why_out == NO_EPOCH_IN_BUDGET;
                continue;
            }
            c[*n] = (candidate){i, k, *n, key, o.r.iteration_s, p.id == QZ_FP32, o.r.buckets};
            ++*n;
        }
        scenario_close(&s);
    }
    return GQ_OK;
}

/* The finalists spread over the ranks by SimGrid's own cost estimate (sim_spread): owner[f] gets finalist f's rank. */
static gq_err deal_finalists(const sim_request *base, int gpus, const setting *st, const candidate *c,
                             const size_t *pick, size_t nf, int ranks, int *owner)
{
    cluster_spec cl;
    char why_cl[256];
    const int known = cluster_parse(base->platform, &cl, why_cl, sizeof why_cl) == GQ_OK;
    double *cost = calloc(nf + 1, sizeof *cost);
    if (!cost) return GQ_ERR_NOMEM;
    for (size_t f = 0; f < nf; f++)
        cost[f] =
            known ? sim_simgrid_cost_s(&cl, st[c[pick[f]].setting].sync, gpus, base->run.iterations, c[pick[f]].buckets)
                  : 1;
    const int rc = sim_spread(cost, nf, ranks, owner);
    free(cost);
    return rc == 0 ? GQ_OK : GQ_ERR_NOMEM;
}

/* Why the winner wins, against the best fp32 configuration (base_o; base_key its rank key, win_key the winner's). */
static void why_winner(const advise_request *a, const setting *st, const candidate *wc, const sim_outcome *w,
                       const sim_outcome *base_o, double win_key, double base_key, char *why, size_t why_cap)
{
    const double comm = base_o->r.iteration_s > 0 ? base_o->r.comm_exposed_s / base_o->r.iteration_s : 0;
    const double saved = base_o->r.bytes_up > 0 ? 1 - w->r.bytes_up / base_o->r.bytes_up : 0;
    const double codec = w->r.iteration_s > 0 ? (w->r.encode_s + w->r.decode_s) / w->r.iteration_s : 0;
    if (!wc->fp32 && base_o->images_per_s == 0)
        snprintf(why, why_cap,
                 "no fp32 configuration to compare with (--quant names none%s), so no speedup over it: %s (%s, "
                 "codec on the %s) wins, %.4g s an iteration",
                 !a->curves        ? ""
                 : a->budget_s > 0 ? ", or none completes an epoch or reaches the target within the budget"
                                   : ", or it never reaches the target",
                 w->quant, sync_name(st[wc->setting].sync), codec_device_name(st[wc->setting].codec_on),
                 w->r.iteration_s);
    else if (wc->fp32 && a->curves)
        snprintf(why, why_cap, "fp32 wins: %s; communication not hidden behind backward is %.0f%% of its iteration",
                 a->target > 0 ? "no compressor reaches the target sooner"
                               : "no compressor reaches more within the budget",
                 100 * comm);
    else if (wc->fp32)
        snprintf(why, why_cap,
                 "fp32 wins: communication not hidden behind backward is %.0f%% of its iteration, too little for "
                 "a codec to repay",
                 100 * comm);
    else {
        const setting *ws = &st[wc->setting];
        char target[128] = "";
        if (a->curves && a->target > 0 && !isinf(base_key))
            snprintf(target, sizeof target, "; it reaches %g in %.4g s, fp32 in %.4g s", a->target, win_key, base_key);
        else if (a->curves && !isinf(base_key))
            snprintf(target, sizeof target, "; in %g s it reaches %.4f, fp32 %.4f", a->budget_s, -win_key, -base_key);
        snprintf(why, why_cap,
                 "communication not hidden behind backward is %.0f%% of the best fp32 configuration's iteration; "
                 "%s (%s, codec on the %s) moves %.1f%% fewer bytes a GPU for %.0f%% of its iteration in its "
                 "codec: %.2fx fp32's images/s%s",
                 100 * comm, w->quant, sync_name(ws->sync), codec_device_name(ws->codec_on), 100 * saved, 100 * codec,
                 base_o->images_per_s > 0 ? w->images_per_s / base_o->images_per_s : NAN, target);
    }
}

/* The finalists c[pick[0..nf)] simulated again with the request's engine, spread over the ranks where there are
 * several (each rank runs its own with that engine and the others' with the analytic one, for what is the same
 * whichever runs; the numbers that differ are gathered): fin[f] their outcomes, order[f] = f. A finalist the engine
 * refuses has an infinite iteration (last). */
static gq_err run_finalists(const sim_request *base, const advise_request *a, const char *const *quants,
                            const setting *st, const candidate *c, const size_t *pick, size_t nf, sim_outcome *fin,
                            size_t *order, char *msg, size_t cap)
{
    gq_err e = GQ_OK;
    const int ranks = a->ranks > 1 && a->gather ? a->ranks : 1;
    int *owner = calloc(nf + 1, sizeof *owner);
    if (!owner) e = GQ_ERR_NOMEM;
    if (e == GQ_OK && ranks > 1) e = deal_finalists(base, a->gpus, st, c, pick, nf, ranks, owner);
    /* what a finalist's row needs from its run, shared as doubles: every rank also runs the analytic engine on every
     * finalist for the rest (the spec, the codec's source: the same whichever engine runs) */
    enum { SHARED = 8 };
    double *mine = ranks > 1 ? calloc(SHARED * nf, sizeof *mine) : NULL;
    double *all = ranks > 1 ? calloc(SHARED * nf * (size_t)ranks, sizeof *all) : NULL;
    if (ranks > 1 && (!mine || !all)) e = GQ_ERR_NOMEM;
    size_t done = 0, own = 0;
    for (size_t f = 0; f < nf; f++) own += owner[f] == (ranks > 1 ? a->rank : 0);
    for (size_t f = 0; f < nf && e == GQ_OK; f++) {
        const candidate *x = &c[pick[f]];
        const int here = owner[f] == (ranks > 1 ? a->rank : 0);
        if (here && a->progress) a->progress(a->progress_ctx, sim_engine_name(base->run.engine), done++, own);
        e = run_one(base, &st[x->setting], quants[x->quant], a->gpus, here ? base->run.engine : ENGINE_ANALYTIC,
                    &fin[f], msg, cap);
        if (e == GQ_ERR_USAGE)
            e = GQ_OK, fin[f].r.iteration_s = INFINITY; /* the engine refuses it (smpi: a scheme
                                                          the trainer does not run): last */
        if (mine && here) {
            const sim_result *r = &fin[f].r;
            const double v[SHARED] = {r->iteration_s, r->comm_exposed_s,   r->encode_s,    r->decode_s,
                                      r->bytes_up,    fin[f].images_per_s, fin[f].speedup, r->comm_s};
            memcpy(mine + SHARED * f, v, sizeof v);
        }
        order[f] = f;
    }
    if (ranks > 1 && e == GQ_OK) e = a->gather(a->gather_ctx, mine, (int)(SHARED * nf), all);
    for (size_t f = 0; ranks > 1 && e == GQ_OK && f < nf; f++) {
        const double *v = all + (size_t)owner[f] * SHARED * nf + SHARED * f;
        sim_result *r = &fin[f].r;
        r->iteration_s = v[0], r->comm_exposed_s = v[1], r->encode_s = v[2], r->decode_s = v[3], r->bytes_up = v[4];
        fin[f].images_per_s = v[5], fin[f].speedup = v[6], r->comm_s = v[7];
        /* the price an hour is the search's, whichever engine ran it; a million samples' follows the shared rate */
        fin[f].cost_per_million_samples = sim_cost_per_million(fin[f].cost_per_hour, fin[f].images_per_s);
    }
    free(mine), free(all), free(owner);
    return e;
}

/* Without accuracy curves, what a row's quantizer risks: a biased estimate (signSGD, top-k, BinGrad-b) or a low-rank
 * one (PowerSGD) trains to a lower accuracy without error feedback, and can with it (docs/accuracy-tables.md);
 * unbiased quantizers (TernGrad, QSGD, ORQ) add variance, fp16 nothing that matters. "" where there is nothing to
 * say. */
static const char *accuracy_note(const char *spec)
{
    qz_params p;
    if (qz_parse_spec(spec, &p, NULL, 0) != GQ_OK) return "";
    if (p.id == QZ_POWERSGD) return "low-rank: accuracy unchecked";
    if (qz_biased(p.id)) return "biased: accuracy unchecked";
    return "";
}

static gq_err advise_in(const sim_request *request, const advise_request *a, gq_table *rows, char *why, size_t why_cap,
                        advise_counts *counts, char *msg, size_t cap)
{
    sim_request held_request = *request, *base = &held_request;
    gq_err fe = framework_hold(base, msg, cap); /* a preset holds the axes it sets, as the user's options do */
    if (fe != GQ_OK) return fe;
    const char *curve_quants[TTA_MAX_SEEDS * 4];
    for (int j = 0; a->curves && j < a->ncurves && j < (int)(sizeof curve_quants / sizeof *curve_quants); j++)
        curve_quants[j] = a->curves[j].quant;
    const char *const *quants = a->quants ? a->quants : a->curves ? curve_quants : ADVISE_QUANTS;
    size_t nq = a->quants ? a->nquants : a->curves ? (size_t)a->ncurves : 0;
    while (!a->quants && !a->curves && ADVISE_QUANTS[nq]) nq++;
    if (a->gpus < 1 || a->top < 1 || nq < 1 || nq > sizeof curve_quants / sizeof *curve_quants)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "advise needs a GPU count, 1 to %zu quantizers and K >= 1",
                       sizeof curve_quants / sizeof *curve_quants);
    for (size_t k = 0; k < nq; k++) { /* a spec that does not parse is the user's error, not a skipped row */
        qz_params p;
        char whyq[256];
        if (qz_parse_spec(quants[k], &p, whyq, sizeof whyq) != GQ_OK)
            return gq_fail(GQ_ERR_SPEC, msg, cap, "--quant '%s': %s", quants[k], whyq);
    }
    setting st[128];
    const size_t nst = settings_of(base, a->gpus, st, sizeof st / sizeof st[0]);
    candidate *c = calloc(nst * nq + 1, sizeof *c);
    quant_accuracy *qa = calloc(nq, sizeof *qa); /* with curves: each quantizer's */
    if (!c || !qa) return free(c), free(qa), GQ_ERR_NOMEM;
    size_t n = 0;
    screening_record w = {.settings = nst, .soonest_s = INFINITY, .fastest_epoch_s = INFINITY, .best_final = 0};
    const gq_err se = screen(base, a, quants, nq, st, nst, c, &n, qa, &w, msg, cap);
    if (se != GQ_OK) return free(c), free(qa), se;
    if (counts) counts->screened = n;
    if (n == 0) return free(c), free(qa), nothing_kept(a, base, &w, msg, cap);
    qsort(c, n, sizeof *c, by_time);
    /* The finalists, simulated again with the request's engine: the best K of the screening, and the best of each
     * scheme, compressed and fp32 -- the analytic engine counts no contention (a lower bound where flows share a
     * server's link), so it ranks configurations of one scheme alike but may put a slow scheme above a fast one;
     * with each scheme's best simulated, no scheme's winner is lost to another's optimism. The fp32 baseline is
     * the best fp32 finalist. */
    size_t *pick = calloc(n, sizeof *pick), nf = 0;
    if (!pick) return free(c), free(qa), GQ_ERR_NOMEM;
    int seen[SYNC_COUNT][2] = {{0}}; /* a scheme's best, compressed and fp32, already picked */
    /* alternatives, not variations: the best K of the quantizer-and-scheme pairs, each by its best setting (its
     * fusion, small tensors in fp32 and codec device change its time by less than another pair does) */
    unsigned char *pair_seen = calloc(nq * SYNC_COUNT, 1);
    if (!pair_seen) return free(c), free(qa), free(pick), GQ_ERR_NOMEM;
    size_t pairs = 0;
    for (size_t i = 0; i < n; i++) {
        int *kind = &seen[st[c[i].setting].sync][c[i].fp32];
        unsigned char *pair = &pair_seen[c[i].quant * SYNC_COUNT + st[c[i].setting].sync];
        const int new_pair = !*pair && pairs < (size_t)a->top;
        if (new_pair || !*kind) pick[nf++] = i;
        pairs += new_pair;
        *kind = *pair = 1;
    }
    free(pair_seen);
    sim_outcome *fin = calloc(nf, sizeof *fin);
    size_t *order = calloc(nf, sizeof *order);
    gq_err e = fin && order ? GQ_OK : GQ_ERR_NOMEM;
    if (e == GQ_OK) e = run_finalists(base, a, quants, st, c, pick, nf, fin, order, msg, cap);
    /* in order of their final key, then iteration (insertion sort: few finalists; ties keep the screening's order);
     * one the final engine puts out of the target's or the budget's reach, last */
    double *final_rank = calloc(nf + 1, sizeof *final_rank);
    if (!final_rank) e = GQ_ERR_NOMEM;
    for (size_t f = 0; e == GQ_OK && f < nf; f++)
        if (isinf(fin[f].r.iteration_s) ||
            rank_key(a, &qa[c[pick[f]].quant], fin[f].r.iteration_s, &final_rank[f]) != KEPT)
            final_rank[f] = INFINITY;
#define AFTER(x, y)                                                                                                    \
    (final_rank[x] > final_rank[y] || (final_rank[x] == final_rank[y] && fin[x].r.iteration_s > fin[y].r.iteration_s))
    for (size_t i = 1; e == GQ_OK && i < nf; i++)
        for (size_t j = i; j > 0 && AFTER(order[j - 1], order[j]); j--) {
            size_t t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
#undef AFTER
    sim_outcome base_o;
    memset(&base_o, 0, sizeof base_o);
    double base_key = INFINITY; /* with curves, the fp32 baseline's rank key (time to the target, -accuracy) */
    for (size_t f = 0; e == GQ_OK && f < nf; f++)
        if (c[pick[order[f]]].fp32 && !isinf(fin[order[f]].r.iteration_s)) {
            base_o = fin[order[f]], base_key = final_rank[order[f]];
            break;
        }
    /* the rows: in final order, at most K, none out of reach. Each quantizer-and-scheme pair is among the finalists
     * once: its first candidate is its best, and a scheme's best (compressed or fp32) is the first candidate of its
     * own pair, so no later candidate of a pair is ever picked. */
    size_t *shown = calloc(nf + 1, sizeof *shown), K = 0;
    if (!shown) e = GQ_ERR_NOMEM;
    for (size_t f = 0; e == GQ_OK && f < nf && K < (size_t)a->top; f++)
        if (!isinf(final_rank[order[f]])) shown[K++] = order[f];
    if (e == GQ_OK && K == 0)
        e = gq_fail(GQ_ERR_PARAM, msg, cap, "advise: %s ran none of the finalists%s", sim_engine_name(base->run.engine),
                    a->curves ? " within the target's or the budget's reach" : "");
    if (counts) {
        counts->screened = n, counts->finalists = nf;
        if (e == GQ_OK && K > 0) {
            const candidate *w = &c[pick[order[0]]];
            counts->winner = request_of(base, &st[w->setting], base->run.engine);
            snprintf(counts->winner_quant, sizeof counts->winner_quant, "%s", quants[w->quant]);
        }
    }
    if (e == GQ_OK) {
        if (rows->ncols == 0) table_init(rows, ADVISE_COLUMNS, ADVISE_NCOLUMNS), rows->key_cols = 5;
        for (size_t r = 0; r < K; r++) {
            const candidate *x = &c[pick[shown[r]]];
            const setting *s = &st[x->setting];
            const sim_outcome *o = &fin[shown[r]];
            char sync[96];
            sync_describe(s->sync, base->run.ps_shards, base->run.ps_placement, base->run.ps_pull, base->run.ps_on_cpu,
                          base->run.node_sum, base->run.ps_cpu_machines, base->run.partition_bytes, sync, sizeof sync);
            const double codec = o->r.iteration_s > 0 ? (o->r.encode_s + o->r.decode_s) / o->r.iteration_s : 0;
            char to_target[3][40] = {"", "", ""};
            if (a->curves && a->target > 0) {
                table_real(to_target[0], sizeof to_target[0], qa[x->quant].to_target);
                table_real(to_target[1], sizeof to_target[1], final_rank[shown[r]]);
            }
            if (a->curves && a->budget_s > 0)
                table_real(to_target[2], sizeof to_target[2],
                           accuracy_at(&qa[x->quant], o->r.iteration_s, a->budget_s));
            const double to_target_cost =
                a->curves && a->target > 0 ? sim_cost_of_seconds(o->cost_per_hour, final_rank[shown[r]]) : NAN;
            table_row(
                rows,
                "%zu\t%s\t%d\t%s\t%s\t%.0f\t" TABLE_REAL "\t%.0f\t%s\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL
                "\t" TABLE_REAL "\t" TABLE_REAL "\t%.0f\t" TABLE_REAL "\t" TABLE_REAL "\t%s\t%s\t%s\t" TABLE_REAL
                "\t%s\t%s\t%s",
                r + 1, base->platform, a->gpus, o->quant, sync, s->fusion_bytes, s->fusion_cycle_s, s->fp32_below,
                codec_device_name(s->codec_on), o->r.iteration_s, o->images_per_s, o->cost_per_hour,
                o->cost_per_million_samples, base_o.images_per_s > 0 ? o->images_per_s / base_o.images_per_s : NAN,
                o->r.bytes_up, codec, x->screened_s, to_target[0], to_target[1], to_target[2], to_target_cost,
                a->curves ? "" : accuracy_note(quants[x->quant]), sim_engine_name(base->run.engine), o->codec_source);
        }
        why_winner(a, st, &c[pick[order[0]]], &fin[order[0]], &base_o, final_rank[order[0]], base_key, why, why_cap);
    }
    free(c), free(qa), free(pick), free(fin), free(order), free(final_rank), free(shown);
    return e;
}

/* Hundreds of scenarios, one zoo. */
gq_err sim_advise(const sim_request *request, const advise_request *a, gq_table *rows, char *why, size_t why_cap,
                  advise_counts *counts, char *msg, size_t cap)
{
    sim_request shared;
    gq_zoo zoo;
    sim_request_share_zoo(request, &shared, &zoo);
    const gq_err e = advise_in(&shared, a, rows, why, why_cap, counts, msg, cap);
    if (counts) counts->winner.zoo = request->zoo; /* the winner outlives this zoo */
    zoo_free(&zoo);
    return e;
}

/* Which of the choices (most accurate first) q is; nopt where none. */
static size_t choice_of(const qz_params *opt, size_t nopt, const qz_params *q)
{
    size_t j = 0;
    while (j < nopt && memcmp(&opt[j], q, sizeof *q) != 0) j++;
    return j;
}

/* The plan's iteration on the open scenario. */
static gq_err plan_time(sim_scenario *s, const tensor_plan *p, int gpus, double *t, size_t *evaluations, char *msg,
                        size_t cap)
{
    sim_outcome o;
    gq_err e = scenario_run_plan(s, NULL, p, gpus, &o, msg, cap);
    if (e == GQ_OK) *t = o.r.iteration_s, ++*evaluations;
    return e;
}

gq_err sim_advise_plan(const sim_request *q, const char *quant, int gpus, tensor_plan *plan, gq_table *table,
                       advise_plan_result *r, sim_progress_n progress, void *progress_ctx, char *msg, size_t cap)
{
    memset(r, 0, sizeof *r);
    memset(plan, 0, sizeof *plan);
    qz_params opt[3]; /* the choices, most accurate first */
    size_t nopt = 0;
    char why[512];
    if (qz_parse_spec("fp32", &opt[nopt++], NULL, 0) != GQ_OK || qz_parse_spec("fp16", &opt[nopt++], NULL, 0) != GQ_OK)
        return GQ_ERR_PARAM;
    if (qz_parse_spec(quant, &opt[nopt], why, sizeof why) != GQ_OK)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "--quant '%s': %s", quant, why);
    if (opt[nopt].id != QZ_FP32 && opt[nopt].id != QZ_FP16) nopt++;
    sim_request aq = *q;
    aq.run.engine = ENGINE_ANALYTIC;
    sim_scenario s;
    gq_err e = scenario_open(&s, &aq, msg, cap);
    if (e != GQ_OK) return e;
    /* the start: the configuration as it is, its fp32 tensors by its own policy */
    xch_tensor *T = malloc((2 * s.model->nlayers + 1) * sizeof *T);
    size_t *by_size = malloc((2 * s.model->nlayers + 1) * sizeof *by_size);
    if (!T || !by_size) e = GQ_ERR_NOMEM;
    size_t nt = 0;
    if (e == GQ_OK) nt = xch_tensors(s.model, &opt[nopt - 1], &q->run.exchange, T);
    if (e == GQ_OK) e = tensor_plan_init(plan, nt, &opt[nopt - 1]);
    for (size_t k = 0; e == GQ_OK && k < nt; k++) {
        if (!T[k].quantized) plan->quant[k] = opt[0];
        by_size[k] = k;
        for (size_t j = k; j > 0 && T[by_size[j - 1]].n < T[by_size[j]].n; j--) { /* largest first, stable */
            size_t x = by_size[j];
            by_size[j] = by_size[j - 1], by_size[j - 1] = x;
        }
    }
    tensor_plan start = {0};
    if (e == GQ_OK) e = tensor_plan_copy(&start, plan);
    double now = 0;
    if (e == GQ_OK) e = plan_time(&s, plan, gpus, &now, &r->evaluations, msg, cap);
    r->start_screened_s = now;
    for (int changed = 1; e == GQ_OK && changed && r->passes < ADVISE_PLAN_PASSES; r->passes++) {
        changed = 0;
        for (size_t i = 0; e == GQ_OK && i < nt; i++) {
            const size_t k = by_size[i];
            if (progress) progress(progress_ctx, "per tensor", r->passes * nt + i, ADVISE_PLAN_PASSES * nt);
            const qz_params had = plan->quant[k];
            const size_t current = choice_of(opt, nopt, &had);
            size_t best = nopt;
            double best_t = INFINITY;
            for (size_t j = 0; e == GQ_OK && j < nopt; j++) {
                if (j == current) { /* its time is the plan's now */
                    if (now < best_t) best_t = now, best = j;
                    continue;
                }
                plan->quant[k] = opt[j];
                double t = 0;
                e = plan_time(&s, plan, gpus, &t, &r->evaluations, msg, cap);
                if (e == GQ_OK && t < best_t) best_t = t, best = j;
            }
            plan->quant[k] = best < nopt ? opt[best] : had;
            if (e == GQ_OK && best != current) changed = 1, now = best_t;
        }
    }
    r->plan_screened_s = now;
    /* both again with the request's engine, which may see what the analytic one does not (a server's link
     * shared, a tie it broke towards fp32 that costs there): from the faster of the two, each tensor the analytic
     * plan changed, the largest first, takes whichever of its two codecs is faster there (ties: the more
     * accurate) -- so the plan is never slower than the start with that engine; with the analytic engine itself,
     * the screening's times are the answer */
    r->start_s = r->start_screened_s, r->plan_s = now;
    const int again = q->run.engine != ENGINE_ANALYTIC;
    sim_scenario fs;
    int opened = 0;
    tensor_plan screened = {0};
    if (e == GQ_OK && again) e = tensor_plan_copy(&screened, plan);
    if (e == GQ_OK && again) e = scenario_open(&fs, q, msg, cap), opened = 1;
    if (e == GQ_OK && again) {
        e = plan_time(&fs, &start, gpus, &r->start_s, &r->final_evaluations, msg, cap);
        if (e == GQ_OK) e = plan_time(&fs, plan, gpus, &r->plan_s, &r->final_evaluations, msg, cap);
        if (e == GQ_OK && r->start_s < r->plan_s) /* the analytic plan is slower here: refine the start instead */
            memcpy(plan->quant, start.quant, nt * sizeof *plan->quant), r->plan_s = r->start_s;
        for (size_t i = 0; e == GQ_OK && i < nt; i++) {
            const size_t k = by_size[i];
            if (memcmp(&start.quant[k], &screened.quant[k], sizeof start.quant[k]) == 0) continue;
            const qz_params had = plan->quant[k];
            const int back = memcmp(&had, &start.quant[k], sizeof had) == 0;
            plan->quant[k] = back ? screened.quant[k] : start.quant[k];
            if (progress) progress(progress_ctx, sim_engine_name(q->run.engine), i, nt);
            double t = 0;
            e = plan_time(&fs, plan, gpus, &t, &r->final_evaluations, msg, cap);
            if (e == GQ_OK && (t < r->plan_s ||
                               (t == r->plan_s && choice_of(opt, nopt, &plan->quant[k]) < choice_of(opt, nopt, &had))))
                r->plan_s = t;
            else
                plan->quant[k] = had;
        }
    }
    if (opened) scenario_close(&fs);
    if (e == GQ_OK && table) e = tensor_plan_table(s.model, plan, table);
    scenario_close(&s);
    tensor_plan_free(&screened);
    tensor_plan_free(&start);
    free(T), free(by_size);
    if (e != GQ_OK) tensor_plan_free(plan);
    return e;
}

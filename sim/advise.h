/* gqsim advise: the fastest way to train a model on a cluster among the options the simulator knows -- quantizer
 * and its parameters, synchronisation scheme, fusion, small tensors in fp32, where the codec runs -- found by
 * screening every combination with the analytic engine and simulating the best K again with the request's engine
 * (SimGrid by default). Every axis the user set in the request (run_param_given) is held at that value; the others
 * take the values below. A library call returning a table: the CLI only prints it. */
#ifndef GQ_ADVISE_H
#define GQ_ADVISE_H

#include "scenario.h"

/* The axes' values when not held (NULL-terminated or counted): */
extern const char *const ADVISE_QUANTS[]; /* every quantizer family with its customary parameters */
extern const double ADVISE_FUSIONS[][2];  /* {bytes, cycle seconds}: per tensor, PyTorch DDP's, Horovod's */
extern const size_t ADVISE_NFUSIONS;
extern const double ADVISE_FP32_BELOW[]; /* 0, and tensors under 16,384 elements in fp32 */
extern const size_t ADVISE_NFP32_BELOW;

typedef struct {
    const char *const *quants; /* candidate specs, or NULL: ADVISE_QUANTS (with curves: the curves' quantizers) */
    size_t nquants;
    int gpus;
    int top; /* K: the best K of the screening simulated again and returned, in order */
    /* time to accuracy: with curves (measured test accuracy per epoch of each quantizer), configurations are ranked
     * by the time to reach `target` -- the iterations its quantizer's curve needs (tta_reach, epochs of
     * dataset_images images) times its iteration -- and quantizers without a curve, or whose curve never reaches
     * the target, are left out. NULL: ranked by the iteration alone. */
    const tta_curve *curves;
    int ncurves;
    double target, dataset_images;
    /* > 0, with curves: the training time it has. With a target, configurations that reach it later are left out;
     * without, they are ranked by the accuracy their curve has at the last epoch the budget completes (the curve's
     * last, if it completes more; those that complete none are left out), then by their iteration. */
    double budget_s;
    /* spread over processes (MPI ranks): every rank screens alike, finalist f is simulated by one rank (the
     * heaviest first, each to the least loaded: SimGrid's cost estimate), and each finalist's numbers are shared by
     * gather -- all[r * n + i] = rank r's mine[i], on every rank (the trainer's allgather_doubles). ranks 0 or 1:
     * one process. Every rank returns the same rows, bit for bit as one process would. */
    int rank, ranks;
    gq_err (*gather)(void *ctx, const double *mine, int n, double *all);
    void *gather_ctx;
    /* told before each run this process makes: the phase ("screening", or the finalists' engine), how many of the
     * phase's runs are done and how many it has (for a progress line with an ETA; NULL: none) */
    sim_progress_n progress;
    void *progress_ctx;
} advise_request;

/* The columns of advise's rows: rank, the platform (the request's), then the configuration, its predicted time,
 * throughput, speedup over the best fp32 configuration found (simulated with the same engine), bytes, the codec's
 * share, the screening's time, with curves the iterations and time to the target accuracy (empty without), the engine
 * of the final prediction and where the codec's costs come from. */
extern const char *const ADVISE_COLUMNS[];
extern const size_t ADVISE_NCOLUMNS;

/* Searches: `base` carries the model, platform, engine and the axes held; rows (initialised with ADVISE_COLUMNS
 * here if empty) gets the best a->top configurations appended, best first, ties in enumeration order; `why` one line on
 * the winner against the best fp32 configuration; counts (if not NULL) how many were screened and simulated again.
 * Combinations the simulator refuses (an option that means nothing there) are skipped, not errors. */
typedef struct {
    size_t screened;        /* configurations screened with the analytic engine */
    size_t finalists;       /* simulated again with the request's engine: the best K and each scheme's best */
    sim_request winner;     /* the winner's request: the base's with its setting (platform and model the base's) */
    char winner_quant[256]; /* and its quantizer */
} advise_counts;
gq_err sim_advise(const sim_request *base, const advise_request *a, gq_table *rows, char *why, size_t why_cap,
                  advise_counts *counts, char *msg, size_t cap);

/* Per tensor, Espresso-style: from the configuration `quant` on `gpus` GPUs with q's options (its tensors under
 * fp32_below, or the classifier with fp32_last, in fp32), each tensor in turn, the largest first, takes whichever of
 * fp32, fp16 and quant gives the shortest iteration with the analytic engine (its critical path: buckets, ready
 * times, codec time on the GPU's stream), ties to the more accurate (fp32, then fp16); passes until one changes
 * nothing (at most ADVISE_PLAN_PASSES). Then with q's engine (where not analytic): from the faster of the start
 * and that plan, each tensor the plan changed takes whichever of its two codecs is faster there, so that the
 * plan is never slower than the start with q's engine. plan gets the result (initialised here), table (if not
 * NULL) it as tensor_plan_table's rows; start_s and plan_s the configuration's and the plan's iteration with q's
 * engine (with the analytic engine, the screening's). */
#define ADVISE_PLAN_PASSES 8
typedef struct {
    double start_s, plan_s;                   /* with the request's engine */
    double start_screened_s, plan_screened_s; /* with the analytic engine */
    size_t evaluations, passes;               /* analytic runs, passes over the tensors */
    size_t final_evaluations;                 /* runs with the request's engine: the start, the plan, each refinement */
} advise_plan_result;
gq_err sim_advise_plan(const sim_request *q, const char *quant, int gpus, tensor_plan *plan, gq_table *table,
                       advise_plan_result *r, sim_progress_n progress, void *progress_ctx, char *msg, size_t cap);

#endif

/* Scenarios, sweeps, the report and the validation; see scenario.h. */
#include "scenario.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_cost.h"
#include "frameworks.h"
#include "gq_epoch.h"
#include "gq_file.h"
#include "run_params.h"

void sim_request_defaults(sim_request *q) { run_params_defaults(q); }

void sim_request_share_zoo(const sim_request *q, sim_request *shared, gq_zoo *zoo)
{
    *shared = *q;
    memset(zoo, 0, sizeof *zoo);
    char msg[8];
    if (!q->zoo && zoo_load(zoo, q->gpu_file, msg, sizeof msg) == GQ_OK) shared->zoo = zoo;
}

static double normal_max_integrand(double x, void *params)
{
    const double n = *(const double *)params;
    return x * n * gsl_ran_ugaussian_pdf(x) * pow(gsl_cdf_ugaussian_P(x), n - 1);
}

double sim_slowest_of(int gpus, double cv)
{
    if (gpus <= 1 || cv <= 0) return 1;
    double n = gpus, result = 0, err = 0;
    gsl_function f = {normal_max_integrand, &n};
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(256);
    if (!w) return 1 + cv * sqrt(2 * log(n)); /* the order statistic's leading term, should memory fail */
    /* the integrand is below 1e-30 outside [-12, 12] for every n up to 2^16 */
    gsl_integration_qags(&f, -12, 12, 0, 1e-10, 256, w, &result, &err);
    gsl_integration_workspace_free(w);
    return 1 + cv * result;
}

/* Workers on host CPUs (the trainer's own runs): no peak or bandwidth to model from, so their compute rate is
 * always a measured one, and there is no PCIe between a worker and its codec. */
static const gpu_spec HOST_CPU = {.name = "cpu", .source = "host CPUs: the measured compute rate"};

/* The rules the run parameters' rows state (run_params.h): one set away from its default where its row says it
 * shapes nothing, refused with the row's line. */
static gq_err refuse_by_rows(const sim_request *q, char *msg, size_t cap)
{
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++) {
        const run_param *p = &RUN_PARAMS[i];
        if (!run_param_changed(p, q)) continue;
        const int scheme_ok = sync_is(q->run.sync, p->families) && (!p->schemes || p->schemes & SYNC_BIT(q->run.sync));
        if (p->off_scheme && !scheme_ok) return gq_fail(GQ_ERR_USAGE, msg, cap, p->off_scheme, sync_name(q->run.sync));
        if (p->off_engine && !(p->engines & ENGINE_BIT(q->run.engine)))
            return gq_fail(GQ_ERR_USAGE, msg, cap, p->off_engine, sim_engine_name(q->run.engine));
    }
    return GQ_OK;
}

/* The run parameters that do not go together, or that would change nothing here, each refused in one line
 * (GQ_ERR_USAGE: the CLI's exit 2) before the scenario opens anything: first what the rows state, then the rules
 * between several parameters. */
static gq_err refuse_combinations(const sim_request *q, char *msg, size_t cap)
{
    if (!q->model || !q->platform) return gq_fail(GQ_ERR_PARAM, msg, cap, "needs a model and a platform");
    const gq_err by_rows = refuse_by_rows(q, msg, cap);
    if (by_rows != GQ_OK) return by_rows;
    const int roots = q->run.ps_placement == PS_ROOTS;
    if (roots && q->run.sync != SYNC_PS_FLAT)
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--ps-placement roots puts each tensor on a GPU of its own (HiPress's CaSync-PS): it needs "
                       "--sync ps-flat, whose servers are the GPUs, not %s",
                       sync_name(q->run.sync));
    /* ps-flat's servers are the GPUs: each tensor whole on one, HiPress's roots or TensorFlow's greedy setter */
    const int flat_placed = q->run.sync == SYNC_PS_FLAT && q->run.ps_placement != PS_EVEN;
    if (q->run.sync == SYNC_PS_FLAT && q->run.ps_placement == PS_ROUND_ROBIN)
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--sync ps-flat places whole tensors on the GPUs as HiPress does (--ps-placement roots: "
                       "tensor k on GPU k mod P) or greedily (greedy), not round-robin");
    if (flat_placed && q->run.engine == ENGINE_SMPI)
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--ps-placement %s: the smpi engine runs the trainer's ps-flat, which splits every tensor "
                       "evenly over the GPUs",
                       ps_placement_name(q->run.ps_placement));
    if (q->run.ps_placement != PS_EVEN && !flat_placed && q->run.sync != SYNC_PS_SHARDED)
        return gq_fail(GQ_ERR_USAGE, msg, cap, "--ps-shards and --ps-placement shape --sync ps-sharded, not %s",
                       sync_name(q->run.sync));
    const int placed = q->run.sync == SYNC_PS_SHARDED && q->run.ps_placement != PS_EVEN && !roots;
    if (run_param_given(run_param_by_key("ps_pull"), q) && (!placed || !q->run.overlap))
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--ps-pull says when placed servers (--sync ps-sharded --ps-placement "
                       "round-robin|greedy) are read back%s",
                       placed ? "; with --overlap off every exchange waits for backward's end"
                              : ": there are none here");
    if (q->run.partition_bytes > 0 && q->run.node_sum == NODE_SUM_GPUS &&
        (q->run.fusion_bytes > 0 || q->run.fusion_cycle_s > 0))
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--partition with --ps-node-sum gpus makes each piece a bucket of BytePS's pipeline: "
                       "%s would fuse them again (give --fusion 0 --fusion-cycle 0)",
                       q->run.fusion_bytes > 0 ? "--fusion" : "--fusion-cycle");
    if (q->run.partition_bytes > 0 && q->run.node_sum != NODE_SUM_GPUS && !flat_placed &&
        (q->run.sync != SYNC_PS_SHARDED || q->run.ps_placement == PS_EVEN))
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--partition cuts tensors that --ps-placement round-robin, greedy or roots places whole; %s",
                       q->run.sync != SYNC_PS_SHARDED && q->run.sync != SYNC_PS_FLAT
                           ? "there are no placed servers here"
                           : "with even placement every bucket is already split evenly");
    if (q->run.node_sum != NODE_SUM_HOST && (q->run.sync != SYNC_PS_SHARDED || !q->run.ps_on_cpu))
        return gq_fail(GQ_ERR_USAGE, msg, cap, "--ps-node-sum %s %s: it needs --sync ps-sharded --ps-on cpu%s",
                       q->run.node_sum == NODE_SUM_GPUS ? "gpus" : "none",
                       q->run.node_sum == NODE_SUM_GPUS ? "sums a node's GPUs before its host's servers"
                                                        : "has every GPU push to the hosts' servers itself",
                       q->run.sync != SYNC_PS             ? ""
                       : q->run.node_sum == NODE_SUM_GPUS ? " (ps has one server, on node 0)"
                                                          : " (ps --ps-on cpu already takes every GPU's own)");
    if (q->run.ps_cpu_machines > 0 && (q->run.sync != SYNC_PS_SHARDED || !q->run.ps_on_cpu))
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--ps-cpu-machines puts the servers of --sync ps-sharded --ps-on cpu on machines of their own%s",
                       q->run.sync == SYNC_PS_SHARDED ? ": it needs --ps-on cpu" : "");
    if (q->run.ps_cpu_machines > 0 && (q->run.ps_shards > 0 || q->run.ps_placement != PS_EVEN))
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--ps-cpu-machines splits every bucket evenly over its machines: no --ps-shards or "
                       "--ps-placement (they place servers on the workers' nodes)");
    if (q->run.node_sum == NODE_SUM_GPUS &&
        (q->run.ps_shards > 0 || q->run.ps_placement != PS_EVEN || q->run.exact_flows))
        return gq_fail(
            GQ_ERR_USAGE, msg, cap,
            "--ps-node-sum gpus splits every bucket evenly over the servers as BytePS does (a server a node, "
            "or --ps-cpu-machines), as aggregated flows: no %s",
            q->run.exact_flows ? "--exact-flows" : "--ps-shards or --ps-placement");
    if (q->run.node_sum == NODE_SUM_GPUS && run_param_given(run_param_by_key("codec_on"), q))
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--codec-on with --ps-node-sum gpus: the host CPU encodes the node's sum there (BytePS's "
                       "compressors run on the CPU)");
    /* an option that would change nothing here is refused, not ignored */
    if (q->run.ring_pipelined && q->run.exact_flows)
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--ring-steps pipelined charges the steps of --sync ring; --exact-flows makes every step its "
                       "own SimGrid message");
    if (q->run.fusion_wait_previous && !fusion_wait_applies(q))
        return gq_fail(GQ_ERR_USAGE, msg, cap, "--fusion-wait previous paces Horovod's cycles of all-reduces%s",
                       q->run.fusion_cycle_s <= 0 ? ": it needs --fusion-cycle > 0"
                       : !q->run.overlap          ? ": with --overlap off every bucket waits for backward's end anyway"
                       : q->run.engine == ENGINE_SMPI
                           ? "; the smpi engine runs the trainer's exchange, tensor by tensor"
                           : " (ring, hierarchical, tree, allgather), not a parameter server's exchange");
    return GQ_OK;
}

/* The smpi engine runs the trainer's exchange as the trainer does: tensor by tensor after backward, and its
 * ps-sharded a shard on every GPU (what the other engines call ps-flat where a node has several). The defaults it
 * cannot honour (overlap on, Horovod's fusion, ps-sharded reducing inside a node first) become its nearest (off, 0,
 * ps-flat), said in s->note, as a framework preset sets what was not given; what the user gave stays, and is refused
 * where the trainer cannot run it. */
static void smpi_defaults(sim_scenario *s)
{
    static const struct {
        const char *key, *value, *said; /* the value as the library's rows read it, and as a user types it */
        const char *from;               /* only in place of this value, and only on nodes of several GPUs; NULL: any */
    } NEAREST[] = {
        {"overlap", "0", "off", NULL}, {"fusion", "0", "0", NULL}, {"sync", "ps-flat", "ps-flat", "ps-sharded"}};
    size_t n = 0;
    for (size_t k = 0; k < sizeof NEAREST / sizeof NEAREST[0]; k++) {
        const run_param *p = run_param_by_key(NEAREST[k].key);
        char now[64], nearest[64], why[128];
        sim_request set = s->req;
        if (run_param_given(p, &s->req) || run_param_set(p, &set, NEAREST[k].value, why, sizeof why) != GQ_OK) continue;
        run_param_format(p, &s->req, now, sizeof now);
        run_param_format(p, &set, nearest, sizeof nearest);
        const char *from = NEAREST[k].from;
        if (strcmp(now, nearest) == 0 || (from && (strcmp(now, from) != 0 || s->cluster.gpus_per_node == 1))) continue;
        run_param_forget(p, &set);
        s->req = set;
        n += (size_t)snprintf(s->note + n, sizeof s->note - n, "%s%s %s", n ? " " : "", p->flag, NEAREST[k].said);
    }
    if (n)
        snprintf(s->note + n, sizeof s->note - n,
                 " in place of the defaults: the smpi engine runs the trainer's exchange, tensor by tensor after "
                 "backward");
}

gq_err scenario_open(sim_scenario *s, const sim_request *q, char *msg, size_t cap)
{
    memset(s, 0, sizeof *s);
    s->req = *q;
    /* a framework's settings for what was not given, before anything reads the request */
    gq_err fe = framework_apply(&s->req, msg, cap);
    if (fe != GQ_OK) return fe;
    q = &s->req;
    const gq_err refused = refuse_combinations(q, msg, cap);
    if (refused != GQ_OK) return refused;
    s->zoo = q->zoo ? q->zoo : &s->own_zoo;
    gq_err e = q->zoo ? GQ_OK : zoo_load(&s->own_zoo, q->gpu_file, msg, cap);
    if (e != GQ_OK) return e;
    char why[512];
    if ((e = cluster_parse(q->platform, &s->cluster, why, sizeof why)) != GQ_OK) {
        scenario_close(s);
        return gq_fail(e, msg, cap, "--platform '%s': %s", q->platform, why);
    }
    if (q->gpu_hour_cost > 0 && s->cluster.node_hour_cost > 0) {
        scenario_close(s);
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--gpu-hour-cost with --platform '%s', which has its own node-hour-cost=: give one price",
                       q->platform);
    }
    if (q->run.engine == ENGINE_SMPI) smpi_defaults(s);
    if (s->cluster.rpc && sync_is(q->run.sync, SCHEME_SERVERS)) {
        /* the servers' messages */
        char src[150];
        const char *rpc = cluster_rpc_name(s->cluster.rpc);
        rpc_cost cost;
        if ((e = rpc_cost_for(rpc, &cost, src, sizeof src, why, sizeof why)) != GQ_OK) {
            scenario_close(s);
            return gq_fail(e, msg, cap, "%s: rpc=%s: %s", q->platform, rpc, why);
        }
        s->rpc_send_s = cost.send_s, s->rpc_recv_s = cost.recv_s;
        /* every flow between nodes is a message, its bytes copied by the sender's CPU and the receiver's as they
         * stream: a node's NICs move them no faster than the slower copy (each message has both ends). A user's XML
         * keeps its NICs as it declares them. */
        const double per_byte = fmax(cost.send_byte_s, cost.recv_byte_s);
        if (!s->cluster.xml_path[0] && per_byte > 0) s->cluster.rpc_copy_rate = 1 / per_byte;
        snprintf(s->rpc_source, sizeof s->rpc_source, "; %s%s", src,
                 s->cluster.xml_path[0] ? ", per byte not charged on a user's XML" : "");
    }
    const char *gpu = q->gpu ? q->gpu : s->cluster.gpu;
    if (strcmp(gpu, "cpu") == 0 && !(q->run.gpu_images_per_s > 0 && q->run.codec_on != CODEC_ON_GPU)) {
        scenario_close(s);
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "gpu 'cpu' (workers on host CPUs) needs their measured compute rate (--gpu-images-per-s, or "
                       "a compute_images_per_s column) and --codec-on cpu or none");
    }
    if (!(s->model = zoo_model(s->zoo, q->model, msg, cap))) {
        scenario_close(s);
        return GQ_ERR_SPEC;
    }
    if (!(s->gpu = strcmp(gpu, "cpu") == 0 ? &HOST_CPU : zoo_gpu(s->zoo, gpu, msg, cap))) {
        scenario_close(s);
        return GQ_ERR_USAGE; /* a name that names no GPU, as an unknown model or platform */
    }
    /* TF32 is a tensor-core mode of Ampere and later: a rate measured elsewhere cannot make an older GPU run it */
    if (q->run.precision == PRECISION_TF32 &&
        (s->gpu == &HOST_CPU || (s->gpu->compute_capability > 0 && s->gpu->compute_capability < GPU_TF32_CAPABILITY))) {
        char what[64] = "a host CPU";
        if (s->gpu != &HOST_CPU) snprintf(what, sizeof what, "compute capability %.1f", s->gpu->compute_capability);
        gq_fail(GQ_ERR_USAGE, msg, cap,
                "--precision tf32: %s (%s) has no TF32, which needs NVIDIA's Ampere (compute capability %.1f, "
                "A100) or later",
                s->gpu->name, what, GPU_TF32_CAPABILITY);
        scenario_close(s);
        return GQ_ERR_USAGE;
    }
    /* the default spread is identical GPUs' published one; a host CPU's rows (the lab's) carry their slowest rank
     * already, so none is assumed for them unless the run gives one */
    if (s->gpu == &HOST_CPU && !run_param_given(run_param_by_key("compute_jitter"), &s->req))
        s->req.run.compute_jitter = 0;
    if (q->run.codec_costs) {
        char *text;
        size_t len;
        if ((e = gq_read_file(q->run.codec_costs, (size_t)16 << 20, 1, &text, &len, msg, cap)) == GQ_OK) {
            e = codec_profile_parse(text, len, q->run.codec_costs, &s->profile, msg, cap);
            free(text);
        }
        if (e != GQ_OK) {
            scenario_close(s);
            return e;
        }
    }
    s->batch = q->batch ? q->batch : s->model->batch ? s->model->batch : 32;
    model_zoo view = zoo_view(s->zoo);
    if (gpu_compute_in(&s->zoo->gpus, &view, s->model, s->gpu, s->batch, (precision_kind)q->run.precision,
                       q->run.gpu_images_per_s, &s->compute) != GQ_OK) {
        if (q->run.precision != PRECISION_FP32)
            gq_fail(GQ_ERR_PARAM, msg, cap,
                    "--precision %s: no measured %s throughput for %s on %s (data/gpu_throughput_precision.csv); "
                    "give the measured rate with --gpu-images-per-s",
                    PRECISION_NAMES[q->run.precision], PRECISION_NAMES[q->run.precision], s->model->name, s->gpu->name);
        else
            gq_fail(GQ_ERR_PARAM, msg, cap, "no compute profile for %s on %s", s->model->name, s->gpu->name);
        scenario_close(s);
        return GQ_ERR_PARAM;
    }
    return GQ_OK;
}

/* The compute_source column: the estimate's source, the precision where it is not fp32, and the GPUs' spread where
 * there is one. @return out. */
static const char *compute_source_of(const sim_scenario *s, char *out, size_t cap)
{
    const char *source = compute_source_name(s->compute.source);
    const double cv = s->req.run.compute_jitter;
    if (s->req.run.precision == PRECISION_FP32 && cv <= 0) return source;
    int k = s->req.run.precision == PRECISION_FP32
                ? snprintf(out, cap, "%s", source)
                : snprintf(out, cap, "%s (%s)", source, PRECISION_NAMES[s->req.run.precision]);
    if (cv > 0 && k >= 0 && (size_t)k < cap) snprintf(out + k, cap - (size_t)k, "; stragglers CV %.3g", cv);
    return out;
}

void scenario_close(sim_scenario *s)
{
    zoo_free(&s->own_zoo); /* a shared zoo is its caller's */
    s->zoo = NULL;
    codec_profile_free(&s->profile);
}

/* Quantizer qp's codec on the request's device: its costs (--quant-rate's, else the profile's or the built-in
 * ones, scaled by --quant-cost-scale) and, where the trainer keeps a residual, error feedback's pass over the
 * gradient; source says where they come from. */
static gq_err codec_of(const sim_scenario *s, const qz_params *qp, sim_tensor_codec *tc, char *source, size_t scap,
                       char *msg, size_t cap)
{
    const sim_request *q = &s->req;
    char why[512];
    codec_cost cost;
    if (q->run.quant_rate > 0 && qp->id != QZ_FP32 && q->run.codec_on != CODEC_ON_NONE) {
        memset(&cost, 0, sizeof cost);
        cost.enc_ns = cost.dec_ns = 1e9 / q->run.quant_rate;
        snprintf(cost.source, sizeof cost.source, "--quant-rate %g on the %s", q->run.quant_rate,
                 codec_device_name(q->run.codec_on));
    } else {
        gq_err e = codec_cost_for(qp, q->run.codec_on, &s->zoo->gpus, s->gpu,
                                  s->req.run.codec_costs ? &s->profile : NULL, &cost, why, sizeof why);
        if (e != GQ_OK) return gq_fail(e, msg, cap, "%s", why);
    }
    /* error feedback, where the trainer keeps it (not in rings that re-quantize): adding the residual before encoding
     * and keeping the new one after is a pass over the gradient, a read and a write of 4 bytes an element, at the
     * memory bandwidth of the device that encodes (the host's: its measured pass, the sum a CPU server does) */
    const int ef = qp->id != QZ_FP32 && q->run.codec_on != CODEC_ON_NONE && xch_keeps_residual(q->run.sync, qp) &&
                   (q->run.ef == EF_ON || (q->run.ef == EF_AUTO && qz_biased(qp->id)));
    double ef_ns = 0;
    if (ef && q->run.codec_on == CODEC_ON_GPU && s->gpu->mem_bw > 0) {
        ef_ns = 8.0 / s->gpu->mem_bw * 1e9;
    } else if (ef) {
        codec_cost host;
        gq_err e =
            codec_server_cost_cpu(qp, s->req.run.codec_costs ? &s->profile : NULL, &host, &ef_ns, why, sizeof why);
        if (e != GQ_OK) return gq_fail(e, msg, cap, "--ef: %s", why);
    }
    tc->quant = *qp;
    tc->encode_ns = cost.enc_ns * q->run.quant_cost_scale + ef_ns;
    tc->decode_ns = cost.dec_ns * q->run.quant_cost_scale;
    tc->encode_fixed_ns = cost.enc_fixed_ns * q->run.quant_cost_scale;
    tc->decode_fixed_ns = cost.dec_fixed_ns * q->run.quant_cost_scale;
    if (ef)
        snprintf(source, scap, "%s; error feedback +%.3g ns/element", cost.source, ef_ns);
    else
        snprintf(source, scap, "%s", cost.source);
    return GQ_OK;
}

static gq_err run_or_check(sim_scenario *s, const char *quant, const tensor_plan *plan, int gpus, int check_engine,
                           sim_outcome *o, char *msg, size_t cap);

gq_err scenario_run(sim_scenario *s, const char *quant, int gpus, sim_outcome *o, char *msg, size_t cap)
{
    return run_or_check(s, quant, NULL, gpus, -1, o, msg, cap);
}

gq_err scenario_run_plan(sim_scenario *s, const char *quant, const tensor_plan *plan, int gpus, sim_outcome *o,
                         char *msg, size_t cap)
{
    return run_or_check(s, quant, plan, gpus, -1, o, msg, cap);
}

gq_err scenario_check(sim_scenario *s, const char *quant, int gpus, engine_kind engine, char *msg, size_t cap)
{
    sim_outcome o;
    return run_or_check(s, quant, NULL, gpus, (int)engine, &o, msg, cap);
}

/* One configuration run (check_engine < 0), or only asked of engine check_engine whether it would run it. */
/* Each tensor's codec of a plan, at its costs (each distinct codec's once, said once in codec_source): *out a new
 * array of plan->n. @return GQ_OK, or an error in msg. */
static gq_err plan_codecs(const sim_scenario *s, const tensor_plan *plan, sim_tensor_codec **out, char *codec_source,
                          size_t source_cap, char *msg, size_t cap)
{
    char why[512];
    sim_tensor_codec *per = calloc(plan->n + 1, sizeof *per);
    if (!per) return GQ_ERR_NOMEM;
    size_t used = 0;
    for (size_t k = 0; k < plan->n; k++) {
        size_t j = 0;
        while (j < k && memcmp(&plan->quant[j], &plan->quant[k], sizeof plan->quant[k]) != 0) j++;
        if (j < k) {
            per[k] = per[j];
            continue;
        }
        char src[300], spec[256];
        gq_err e = codec_of(s, &plan->quant[k], &per[k], src, sizeof src, why, sizeof why);
        qz_format_spec(&plan->quant[k], spec, sizeof spec);
        if (e != GQ_OK) return free(per), gq_fail(e, msg, cap, "--plan, %s: %s", spec, why);
        if (plan->quant[k].id != QZ_FP32 && used < source_cap)
            used += (size_t)snprintf(codec_source + used, source_cap - used, "%s%s: %s", used ? " | " : "", spec, src);
    }
    if (!used) snprintf(codec_source, source_cap, "none (fp32)");
    *out = per;
    return GQ_OK;
}

/* The inputs' physical ranges keep every prediction finite; a row that is not (a range missed) is refused, never
 * printed as inf or nan. */
static gq_err refuse_non_finite(const sim_scenario *s, const sim_outcome *o, char *msg, size_t cap)
{
    const double shown[] = {o->r.iteration_s, o->r.compute_s, o->r.comm_exposed_s,  o->r.comm_s,
                            o->r.encode_s,    o->r.decode_s,  o->r.bytes_up,        o->r.bytes_down,
                            o->images_per_s,  o->speedup,     o->r.bytes_busiest_up};
    int finite = o->r.iteration_s > 0;
    for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++) finite &= isfinite(shown[k]) && shown[k] >= 0;
    if (!finite)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "simulate %s on %s with %d GPU%s: the prediction is not a finite, positive time (%g s an "
                       "iteration): an input lies outside what the model describes",
                       s->model->name, s->req.platform, o->gpus, gq_s(o->gpus), o->r.iteration_s);
    return GQ_OK;
}

static gq_err run_or_check(sim_scenario *s, const char *quant, const tensor_plan *plan, int gpus, int check_engine,
                           sim_outcome *o, char *msg, size_t cap)
{
    const sim_request *q = &s->req;
    sim_config c;
    memset(&c, 0, sizeof c);
    memset(o, 0, sizeof *o);
    char why[512];
    sim_tensor_codec *per = NULL; /* with a plan: each tensor's codec */
    if (plan) {
        /* the configuration's quantizer, for what is decided once: the plan's first compressor, else fp32 */
        qz_parse_spec("fp32", &c.quant, NULL, 0);
        for (size_t k = 0; k < plan->n; k++)
            if (plan->quant[k].id != QZ_FP32) {
                c.quant = plan->quant[k];
                break;
            }
        if (q->run.engine == ENGINE_SMPI)
            return gq_fail(GQ_ERR_USAGE, msg, cap,
                           "--plan with --engine smpi: the trainer's exchange sends every tensor with one quantizer");
        if (q->run.ps_on_cpu && c.quant.id != QZ_FP32)
            return gq_fail(GQ_ERR_USAGE, msg, cap,
                           "--plan with --ps-on cpu: the host's codecs are modelled for one "
                           "quantizer a run, not one a tensor");
    } else if (qz_parse_spec(quant, &c.quant, why, sizeof why) != GQ_OK)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "--quant '%s': %s", quant, why);
    /* mixed precision makes fp16 gradients: sent as they are (fp32 or fp16 asked), with nothing to encode */
    const int amp_native = q->run.precision == PRECISION_AMP && (c.quant.id == QZ_FP32 || c.quant.id == QZ_FP16);
    if (q->run.precision == PRECISION_AMP && plan)
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "--plan with --precision amp: a plan's fp32 tensors would travel as fp16, which it does not "
                       "say; give the plan's codecs for fp16 gradients by hand");
    if (amp_native && qz_parse_spec("fp16", &c.quant, why, sizeof why) != GQ_OK)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "fp16: %s", why);
    for (size_t k = 0; k < (plan ? plan->n : 1); k++) {
        const qz_params *kq = plan ? &plan->quant[k] : &c.quant;
        if (q->run.ef == EF_ON && gpus > 1 && kq->id != QZ_FP32 && !xch_keeps_residual(q->run.sync, kq)) {
            char spec[256];
            qz_format_spec(kq, spec, sizeof spec);
            return gq_fail(GQ_ERR_USAGE, msg, cap,
                           "--ef on with %s in a %s: each hop re-quantizes a partial sum, there is no one residual "
                           "to feed back (%spowersgd all-reduces its factors and keeps one)",
                           spec, sync_name(q->run.sync),
                           q->run.sync == SYNC_RING ? "the trainer refuses it too; " : "");
        }
    }
    char codec_source[512] = "";
    sim_tensor_codec whole;
    if (plan) {
        const gq_err pe = plan_codecs(s, plan, &per, codec_source, sizeof codec_source, msg, cap);
        if (pe != GQ_OK) return pe;
        c.tensor_codec = per, c.ntensor_codec = plan->n;
        memset(&whole, 0, sizeof whole); /* no one codec for the model: each tensor has its own */
    } else if (amp_native) {
        memset(&whole, 0, sizeof whole);
        whole.quant = c.quant;
        snprintf(codec_source, sizeof codec_source, "none (amp: fp16 gradients as made, 2 bytes an element)");
    } else {
        gq_err e = codec_of(s, &c.quant, &whole, codec_source, sizeof codec_source, why, sizeof why);
        if (e != GQ_OK) return gq_fail(e, msg, cap, "--quant '%s': %s", quant, why);
    }
    c.model = s->model;
    c.model_source = q->model;
    c.cluster = &s->cluster;
    c.gpus = gpus;
    c.run = q->run; /* the run parameters whole; the engine below may be the check's */
    c.grads_fp16 = amp_native;
    char server_source[168] = "";
    if (q->run.reduce_on_host) { /* MPI sums fp32 on the host: quantized buffers would need a codec there too */
        if (c.quant.id != QZ_FP32)
            return free(per),
                   gq_fail(GQ_ERR_USAGE, msg, cap,
                           "--reduce-on host stages an fp32 all-reduce (MPI's), not %s%s%s: quantized rings "
                           "run on the GPUs",
                           plan ? "a plan that compresses" : "--quant '", plan ? "" : quant, plan ? "" : "'");
        codec_cost srv;
        gq_err e = codec_server_cost_cpu(&c.quant, s->req.run.codec_costs ? &s->profile : NULL, &srv, &c.server_sum_ns,
                                         why, sizeof why);
        if (e != GQ_OK) return free(per), gq_fail(e, msg, cap, "--reduce-on host: %s", why);
        snprintf(server_source, sizeof server_source, "; the ring on the host: %.140s", srv.source);
    }
    if (q->run.ps_on_cpu) { /* the host's codec and its summation */
        codec_cost srv;
        gq_err e = codec_server_cost_cpu(&c.quant, s->req.run.codec_costs ? &s->profile : NULL, &srv, &c.server_sum_ns,
                                         why, sizeof why);
        if (e != GQ_OK)
            return free(per), gq_fail(e, msg, cap, "--ps-on cpu, --quant '%s': %s", plan ? "fp32" : quant, why);
        if (q->run.quant_rate > 0 && c.quant.id != QZ_FP32) srv.enc_ns = srv.dec_ns = 1e9 / q->run.quant_rate;
        c.server_encode_ns = srv.enc_ns * q->run.quant_cost_scale;
        c.server_decode_ns = srv.dec_ns * q->run.quant_cost_scale;
        c.server_encode_fixed_ns = srv.enc_fixed_ns * q->run.quant_cost_scale;
        c.server_decode_fixed_ns = srv.dec_fixed_ns * q->run.quant_cost_scale;
        snprintf(server_source, sizeof server_source, "; %s", srv.source);
    }
    c.rpc_send_s = s->rpc_send_s, c.rpc_recv_s = s->rpc_recv_s;
    const double slowest = sim_slowest_of(gpus, q->run.compute_jitter); /* every step waits for the slowest GPU */
    c.fwd_s = s->compute.fwd_s * slowest;
    c.bwd_s = s->compute.bwd_s * slowest;
    c.encode_ns = whole.encode_ns, c.decode_ns = whole.decode_ns;
    c.encode_fixed_ns = whole.encode_fixed_ns, c.decode_fixed_ns = whole.decode_fixed_ns;
    c.codec_serial = q->run.codec_on == CODEC_ON_GPU;
    /* the host sits behind PCIe 3 x16 whatever joins the GPUs (NVLink links GPUs, not the host) */
    c.host_copy_bw = q->run.codec_on == CODEC_ON_CPU && s->gpu != &HOST_CPU ? link_kind_find("pcie3", 1)->bandwidth : 0;
    if (c.run.node_sum ==
        NODE_SUM_GPUS) { /* the GPUs only sum (NCCL); the host encodes the node's sum at its own costs */
        c.encode_ns = c.decode_ns = c.encode_fixed_ns = c.decode_fixed_ns = 0;
        c.codec_serial = 0, c.host_copy_bw = 0;
        if (c.quant.id != QZ_FP32 && !amp_native)
            snprintf(codec_source, sizeof codec_source, "the hosts' CPUs, after the node's sum is copied there");
    }
    if (check_engine >= 0) c.run.engine = (engine_kind)check_engine;
    gq_err e = check_engine >= 0 ? sim_check(&c, why, sizeof why) : sim_run(&c, &o->r, why, sizeof why);
    if (check_engine >= 0) {
        free(per);
        return e == GQ_OK ? GQ_OK : gq_fail(e, msg, cap, "%s", why);
    }
    free(per);
    if (e != GQ_OK)
        return gq_fail(e, msg, cap, "simulate %s on %s with %d GPU%s: %s", s->model->name, q->platform, gpus,
                       gq_s(gpus), why);
    if (plan)
        tensor_plan_describe(plan, o->quant, sizeof o->quant);
    else
        qz_format_spec(&c.quant, o->quant, sizeof o->quant);
    snprintf(o->codec_source, sizeof o->codec_source, "%.248s%.167s%.191s", codec_source, server_source, s->rpc_source);
    o->gpus = gpus;
    o->images_per_s = (double)gpus * s->batch / o->r.iteration_s;
    o->speedup = o->images_per_s / s->compute.images_per_s; /* one GPU, fp32, no communication */
    o->cost_per_hour = sim_cost_per_hour(s, gpus);
    o->cost_per_million_samples = sim_cost_per_million(o->cost_per_hour, o->images_per_s);
    return refuse_non_finite(s, o, msg, cap);
}

double sim_cost_per_hour(const sim_scenario *s, int gpus)
{
    if (s->req.gpu_hour_cost > 0) return s->req.gpu_hour_cost * gpus;
    if (s->cluster.node_hour_cost > 0) return s->cluster.node_hour_cost * cluster_nodes_for(&s->cluster, gpus);
    return NAN;
}

double sim_cost_per_million(double cost_per_hour, double samples_per_s)
{
    return cost_per_hour / 3600 / samples_per_s * 1e6;
}
double sim_cost_of_seconds(double cost_per_hour, double seconds) { return cost_per_hour * seconds / 3600; }

const char *const SIM_COLUMNS[] = {"model",
                                   "platform",
                                   "gpus",
                                   "quant",
                                   "sync",
                                   "iteration_s",
                                   "compute_s",
                                   "comm_exposed_s",
                                   "comm_s",
                                   "comm_to_compute",
                                   "encode_s",
                                   "decode_s",
                                   "bytes_per_gpu_up",
                                   "bytes_per_gpu_down",
                                   "bytes_busiest_gpu_up",
                                   "images_per_s",
                                   "speedup",
                                   "cost_per_hour",
                                   "cost_per_million_samples",
                                   "engine",
                                   "batch",
                                   "gpu",
                                   "overlap",
                                   "fusion_bytes",
                                   "compute_source",
                                   "network_model",
                                   "codec_source"};
const size_t SIM_NCOLUMNS = sizeof SIM_COLUMNS / sizeof SIM_COLUMNS[0];

void scenario_row(gq_table *t, const sim_scenario *s, const sim_outcome *o)
{
    const sim_request *q = &s->req;
    const sim_result *r = &o->r;
    char sync[96], compute[96];
    sync_describe(q->run.sync, q->run.ps_shards, q->run.ps_placement, q->run.ps_pull, q->run.ps_on_cpu, q->run.node_sum,
                  q->run.ps_cpu_machines, q->run.partition_bytes, sync, sizeof sync);
    table_row(t,
              "%s\t%s\t%d\t%s\t%s\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL
              "\t" TABLE_REAL "\t" TABLE_REAL "\t%.0f\t%.0f\t%.0f\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL
              "\t" TABLE_REAL "\t%s\t%d\t%s\t%s\t%.0f\t%s\t%s\t%s",
              s->model->name, q->platform, o->gpus, o->quant, sync, r->iteration_s, r->compute_s, r->comm_exposed_s,
              r->comm_s, r->compute_s > 0 ? r->comm_s / r->compute_s : 0, r->encode_s, r->decode_s, r->bytes_up,
              r->bytes_down, r->bytes_busiest_up, o->images_per_s, o->speedup, o->cost_per_hour,
              o->cost_per_million_samples, sim_engine_name(q->run.engine), s->batch, s->gpu->name,
              q->run.overlap ? "on" : "off", q->run.fusion_bytes, compute_source_of(s, compute, sizeof compute),
              r->network_model, o->codec_source);
}

/* "MODEL PLATFORM QUANT: N GPUs" to the progress callback, if any. */
static void tell(sim_progress progress, void *ctx, const char *model, const char *platform, const char *quant, int gpus)
{
    if (!progress) return;
    char what[512];
    snprintf(what, sizeof what, "%.60s %.300s %.100s: %d GPU%s", model, platform, quant, gpus, gq_s(gpus));
    progress(ctx, what);
}

gq_err scenario_sweep(sim_scenario *s, const char *const *quants, int nquants, const int *gpus, int ngpus,
                      gq_table *rows, sim_progress progress, void *ctx, char *msg, size_t cap)
{
    if (rows->ncols == 0) table_init(rows, SIM_COLUMNS, SIM_NCOLUMNS), rows->key_cols = SIM_KEY_COLUMNS;
    for (int k = 0; k < nquants; k++)
        for (int g = 0; g < ngpus; g++) {
            tell(progress, ctx, s->model->name, s->req.platform, quants[k], gpus[g]);
            sim_outcome o;
            gq_err e = scenario_run(s, quants[k], gpus[g], &o, msg, cap);
            if (e != GQ_OK) return e;
            scenario_row(rows, s, &o);
        }
    return GQ_OK;
}

/* ---- the report ------------------------------------------------------------------------------ */

const char *const REPORT_PLATFORMS[2] = {"terngrad-ethernet", "terngrad-infiniband"};
const char *const REPORT_MODELS[3] = {"alexnet", "googlenet", "vgg-a"};

static gq_err report_in(const sim_request *base, const char *const *platforms, int nplatforms,
                        const char *const *models, int nmodels, const char *const *quants, int nquants, const int *gpus,
                        int ngpus, gq_table *rows, gq_table *summary, sim_progress progress, void *ctx, char *msg,
                        size_t cap)
{
    if (nquants < 1 || ngpus < 1 || nplatforms < 1 || nmodels < 1)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "the report needs platforms, models, quantizers and GPU counts");
    /* summary columns: platform, model, each quantizer's speedup, each one's ratio to the first */
    enum { MAXQ = 16 };
    if (nquants > MAXQ) return gq_fail(GQ_ERR_PARAM, msg, cap, "the report takes at most %d quantizers", MAXQ);
    char names[MAXQ][256], ratios[MAXQ][520];
    const char *header[2 + 2 * MAXQ] = {"platform", "model"};
    size_t ncols = 2;
    for (int k = 0; k < nquants; k++) {
        qz_params q;
        char why[256];
        if (qz_parse_spec(quants[k], &q, why, sizeof why) != GQ_OK)
            return gq_fail(GQ_ERR_SPEC, msg, cap, "--quant '%s': %s", quants[k], why);
        qz_format_spec(&q, names[k], sizeof names[k]);
        header[ncols++] = names[k];
    }
    for (int k = 1; k < nquants; k++) {
        snprintf(ratios[k], sizeof ratios[k], "%s/%s", names[k], names[0]);
        header[ncols++] = ratios[k];
    }
    table_init(rows, SIM_COLUMNS, SIM_NCOLUMNS);
    rows->key_cols = SIM_KEY_COLUMNS;
    table_init(summary, header, ncols);
    summary->key_cols = 2; /* platform, model */
    for (int pi = 0; pi < nplatforms; pi++)
        for (int mi = 0; mi < nmodels; mi++) {
            sim_request q = *base;
            q.platform = platforms[pi];
            q.model = models[mi];
            /* q.batch: --batch if given, else 0, each model's customary batch, as in Figure 5 */
            sim_scenario s;
            gq_err e = scenario_open(&s, &q, msg, cap);
            double at_max[MAXQ];
            for (int k = 0; e == GQ_OK && k < nquants; k++)
                for (int g = 0; e == GQ_OK && g < ngpus; g++) {
                    tell(progress, ctx, q.model, q.platform, quants[k], gpus[g]);
                    sim_outcome o;
                    e = scenario_run(&s, quants[k], gpus[g], &o, msg, cap);
                    if (e != GQ_OK) break;
                    scenario_row(rows, &s, &o);
                    if (g == ngpus - 1) at_max[k] = o.speedup;
                }
            scenario_close(&s);
            if (e != GQ_OK) return e;
            char line[2048];
            size_t n = (size_t)snprintf(line, sizeof line, "%s\t%s", q.platform, q.model);
            for (int k = 0; k < nquants && n < sizeof line; k++)
                n += (size_t)snprintf(line + n, sizeof line - n, "\t%.1f", at_max[k]);
            for (int k = 1; k < nquants && n < sizeof line; k++)
                n += (size_t)snprintf(line + n, sizeof line - n, "\t%.2f", at_max[k] / at_max[0]);
            table_row(summary, "%s", line);
        }
    return GQ_OK;
}

/* One zoo for every scenario of the report. */
gq_err sim_report(const sim_request *request, const char *const *platforms, int nplatforms, const char *const *models,
                  int nmodels, const char *const *quants, int nquants, const int *gpus, int ngpus, gq_table *rows,
                  gq_table *summary, sim_progress progress, void *ctx, char *msg, size_t cap)
{
    sim_request base;
    gq_zoo zoo;
    sim_request_share_zoo(request, &base, &zoo);
    const gq_err e = report_in(&base, platforms, nplatforms, models, nmodels, quants, nquants, gpus, ngpus, rows,
                               summary, progress, ctx, msg, cap);
    zoo_free(&zoo);
    return e;
}

/* ---- validation ------------------------------------------------------------------------------ */

/* A measured row's platform: its `platform` column (any spec), else a machine
 * name: "DGX-1" is dgx1, others a one-node cluster of the row's GPU on
 * NVLink or PCIe by the `interconnect` column. */
static void row_platform(char *out, size_t cap, const measured_row *row)
{
    if (row->platform[0])
        snprintf(out, cap, "%s", row->platform);
    else if (strcmp(row->machine, "DGX-1") == 0)
        snprintf(out, cap, "dgx1");
    else
        snprintf(out, cap, "cluster:gpus-per-node=8,gpu=%s,intra=%s,inter=10gbe", row->gpu,
                 strstr(row->interconnect, "NVLink") ? "nvlink1" : "pcie3");
}

/* The sync column: gqsim's names, or TensorFlow benchmark names (parameter_server(cpu): the variables on the
 * host CPU, TensorFlow's --local_parameter_device=cpu). */
static int row_sync(const char *s, sync_kind *k, int *on_cpu)
{
    if (!*s) return *k = SYNC_PS_SHARDED, 0;
    if (sync_parse(s, k) == 0) return 0;
    if (strcmp(s, "parameter_server(cpu)") == 0) return *on_cpu = 1, *k = SYNC_PS, 0;
    if (strncmp(s, "parameter_server", 16) == 0) return *k = SYNC_PS, 0;
    if (strncmp(s, "replicated", 10) == 0) return *k = SYNC_RING, 0;
    return -1;
}

/* A row's request: its columns over base's options (its platform in platform[], its quantizer's spec in *quant). */
static gq_err row_request(const measured_row *row, const char *file, const sim_request *base, sim_request *q,
                          char *platform, size_t platform_cap, const char **quant, char *msg, size_t cap)
{
    *q = *base;
    char why[1024];
    if (row_sync(row->sync, &q->run.sync, &q->run.ps_on_cpu))
        return gq_fail(
            GQ_ERR_SPEC, msg, cap,
            "%s:%d: sync '%s' is not ps, ps-sharded, ps-flat, ring, hierarchical, allgather, parameter_server(...) "
            "or replicated(...)",
            file, row->line, row->sync);
    if (row->sync[0]) run_param_mark(run_param_by_key("sync"), q); /* the row's, over its framework's */
    *quant = row->quant[0] ? row->quant : "fp32";
    qz_params qp;
    if (qz_parse_spec(*quant, &qp, why, sizeof why) != GQ_OK)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "%s:%d: quant '%s': %s", file, row->line, *quant, why);
    row_platform(platform, platform_cap, row);
    for (size_t k = 0; k < RUN_PARAM_COUNT; k++) { /* the row's run parameters over the base's */
        const int col = run_param_column(&RUN_PARAMS[k]);
        if (col >= 0 && row->param[col][0] && run_param_set(&RUN_PARAMS[k], q, row->param[col], why, sizeof why))
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s:%d: %s", file, row->line, why);
    }
    q->model = row->model;
    q->platform = platform;
    if (row->gpu[0]) q->gpu = row->gpu; /* a grid may leave them to the platform and the model */
    if (row->batch) q->batch = (int)row->batch;
    return GQ_OK;
}

tta_result tta_reach(const double *acc, size_t nseeds, size_t stride, size_t epochs, double target,
                     double iterations_per_epoch)
{
    tta_result r = {0, 0, 0};
    for (size_t s = 0; s < nseeds; s++) {
        const double *a = acc + s * stride;
        r.final_accuracy += a[epochs - 1] / (double)nseeds;
        for (size_t e = 0; e < epochs; e++)
            if (a[e] >= target) {
                r.reached++, r.iterations += (double)(e + 1) * iterations_per_epoch;
                break;
            }
    }
    if (r.reached) r.iterations /= (double)r.reached;
    return r;
}

const char *const TTA_COLUMNS[] = {"quant",
                                   "platform",
                                   "gpus",
                                   "target",
                                   "seeds_reached",
                                   "iterations_to_target",
                                   "iteration_s",
                                   "time_to_target_s",
                                   "final_accuracy",
                                   "target_note",
                                   "cost_to_target",
                                   "seeds",
                                   "workers",
                                   "iterations_per_epoch",
                                   "accuracy_source",
                                   "codec_source"};
const size_t TTA_NCOLUMNS = sizeof TTA_COLUMNS / sizeof TTA_COLUMNS[0];

gq_err tta_run(sim_scenario *s, tta_curve *curves, int ncurves, int gpus, double target, double dataset_images,
               gq_table *rows, double *iteration_s, char *msg, size_t cap)
{
    table_init(rows, TTA_COLUMNS, TTA_NCOLUMNS);
    rows->key_cols = 3; /* quant, platform, gpus */
    for (int k = 0; k < ncurves; k++) {
        tta_curve *cv = &curves[k];
        sim_outcome o;
        gq_err e = scenario_run(s, cv->quant, gpus, &o, msg, cap);
        if (e != GQ_OK) return e;
        if (cv->iterations_per_epoch == 0)
            cv->iterations_per_epoch = (double)gq_iterations_per_epoch((long long)dataset_images, gpus, s->batch);
        if (cv->iterations_per_epoch < 1)
            return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: %.0f images do not make one iteration of %d GPUs x batch %d",
                           cv->quant, dataset_images, gpus, s->batch);
        const tta_result r =
            tta_reach(&cv->acc[0][0], cv->nseeds, ACC_CURVE_MAX_EPOCHS, cv->epochs, target, cv->iterations_per_epoch);
        char it[64] = "", tt[64] = "", note[160];
        if (r.reached) {
            table_real(it, sizeof it, r.iterations);
            table_real(tt, sizeof tt, r.iterations * o.r.iteration_s);
        }
        if (r.reached == cv->nseeds) {
            snprintf(note, sizeof note, "reached");
        } else { /* the curve's best, the mean over its seeds, and when */
            double best = -1;
            size_t at = 0;
            for (size_t ep = 0; ep < cv->epochs; ep++) {
                double mean = 0;
                for (size_t si = 0; si < cv->nseeds; si++) mean += cv->acc[si][ep] / (double)cv->nseeds;
                if (mean > best) best = mean, at = ep + 1; /* NaN (unknown epochs) never above */
            }
            if (r.reached)
                snprintf(note, sizeof note, "reached by %zu of %zu seeds", r.reached, cv->nseeds);
            else
                snprintf(note, sizeof note, "never reached: best %.4g at epoch %zu of %zu", best, at, cv->epochs);
        }
        /* the price of the time to the target (NaN, an empty cell, without a price or where it is not reached) */
        const double cost = r.reached ? sim_cost_of_seconds(o.cost_per_hour, r.iterations * o.r.iteration_s) : NAN;
        table_row(rows,
                  "%s\t%s\t%d\t" TABLE_REAL "\t%zu\t%s\t" TABLE_REAL "\t%s\t" TABLE_REAL "\t%s\t" TABLE_REAL
                  "\t%zu\t%d\t%.0f\t%s\t%s",
                  cv->quant, s->req.platform, gpus, target, r.reached, it, o.r.iteration_s, tt, r.final_accuracy, note,
                  cost, cv->nseeds, cv->workers ? cv->workers : gpus, cv->iterations_per_epoch, cv->source,
                  o.codec_source);
        if (iteration_s) iteration_s[k] = o.r.iteration_s;
    }
    return GQ_OK;
}

const char *const VALIDATE_COLUMNS[] = {"model",
                                        "platform",
                                        "gpu",
                                        "batch",
                                        "sync",
                                        "quant",
                                        "gpus",
                                        "measured_images_per_s",
                                        "predicted_images_per_s",
                                        "error_pct",
                                        "compute_source"};
const size_t VALIDATE_NCOLUMNS = sizeof VALIDATE_COLUMNS / sizeof VALIDATE_COLUMNS[0];

static gq_err validate_in(const measured_set *ms, const char *file, const sim_request *base, gq_table *rows,
                          double *median_pct, double *mean_pct, size_t *scored_rows, sim_progress progress, void *ctx,
                          char *msg, size_t cap)
{
    table_init(rows, VALIDATE_COLUMNS, VALIDATE_NCOLUMNS);
    rows->key_cols = 7; /* model ... gpus */
    if (ms->n == 0) return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: no measured rows", file);
    size_t scored = 0;
    double *ape = malloc(ms->n * sizeof *ape);
    if (!ape) return GQ_ERR_NOMEM;
    gq_err e = GQ_OK;
    char why[1024];
    for (size_t i = 0; i < ms->n && e == GQ_OK; i++) {
        const measured_row *row = &ms->rows[i];
        sim_request q;
        char platform[1024];
        const char *quant;
        if ((e = row_request(row, file, base, &q, platform, sizeof platform, &quant, msg, cap)) != GQ_OK) break;
        q.gpu = row->gpu, q.batch = (int)row->batch; /* measured: both named */
        tell(progress, ctx, row->model, platform, quant, (int)row->gpus);
        sim_scenario s;
        sim_outcome o;
        e = scenario_open(&s, &q, why, sizeof why);
        if (e == GQ_OK) e = scenario_run(&s, quant, (int)row->gpus, &o, why, sizeof why);
        if (e != GQ_OK) {
            gq_fail(e, msg, cap, "%s:%d: %s", file, row->line, why);
            scenario_close(&s);
            break;
        }
        double err = 100 * (o.images_per_s - row->images_per_s) / row->images_per_s;
        if (row->gpus > 1) ape[scored++] = fabs(err); /* one GPU: the throughput's own measurement, exact */
        char sync[96], compute[96]; /* sync: the scheme that ran, the row's with its framework's settings */
        const sim_request *ran = &s.req;
        sync_describe(ran->run.sync, ran->run.ps_shards, ran->run.ps_placement, ran->run.ps_pull, ran->run.ps_on_cpu,
                      ran->run.node_sum, ran->run.ps_cpu_machines, ran->run.partition_bytes, sync, sizeof sync);
        table_row(rows, "%s\t%s\t%s\t%llu\t%s\t%s\t%llu\t" TABLE_REAL "\t" TABLE_REAL "\t%+.1f\t%s", s.model->name,
                  platform, s.gpu->name, (unsigned long long)row->batch, sync, quant, (unsigned long long)row->gpus,
                  row->images_per_s, o.images_per_s, err, compute_source_of(&s, compute, sizeof compute));
        scenario_close(&s);
    }
    if (e == GQ_OK && scored == 0) *mean_pct = *median_pct = NAN;
    if (e == GQ_OK && scored > 0) {
        *mean_pct = gsl_stats_mean(ape, 1, scored);
        gsl_sort(ape, 1, scored);
        *median_pct = gsl_stats_median_from_sorted_data(ape, 1, scored);
    }
    if (scored_rows) *scored_rows = scored;
    free(ape);
    return e;
}

/* One zoo for every row's scenario. */
gq_err sim_validate(const measured_set *ms, const char *file, const sim_request *request, gq_table *rows,
                    double *median_pct, double *mean_pct, size_t *scored_rows, sim_progress progress, void *ctx,
                    char *msg, size_t cap)
{
    sim_request base;
    gq_zoo zoo;
    sim_request_share_zoo(request, &base, &zoo);
    const gq_err e = validate_in(ms, file, &base, rows, median_pct, mean_pct, scored_rows, progress, ctx, msg, cap);
    zoo_free(&zoo);
    return e;
}

/* ---- a grid of configurations ------------------------------------------------------------------------- */

static gq_err grid_in(const measured_set *grid, const char *file, const sim_request *base, const int *owner, int rank,
                      gq_table *rows, size_t *failed, sim_progress_n progress, void *ctx, char *msg, size_t cap)
{
    size_t mine = 0, done = 0;
    for (size_t i = 0; i < grid->n; i++) mine += !owner || owner[i] == rank;
    if (rows->ncols == 0) {
        const char *h[1 + sizeof SIM_COLUMNS / sizeof SIM_COLUMNS[0]] = {"line"};
        memcpy(h + 1, SIM_COLUMNS, sizeof SIM_COLUMNS);
        table_init(rows, h, 1 + SIM_NCOLUMNS);
        rows->key_cols = 1 + SIM_KEY_COLUMNS;
    }
    char why[1024];
    for (size_t i = 0; i < grid->n; i++) {
        if (owner && owner[i] != rank) continue;
        const measured_row *row = &grid->rows[i];
        sim_request q;
        char platform[1024];
        const char *quant;
        if (failed) *failed = i;
        gq_err e = row_request(row, file, base, &q, platform, sizeof platform, &quant, msg, cap);
        if (e != GQ_OK) return e;
        if (progress) progress(ctx, "sweep", done++, mine);
        sim_scenario s;
        sim_outcome o;
        e = scenario_open(&s, &q, why, sizeof why);
        if (e == GQ_OK) e = scenario_run(&s, quant, (int)row->gpus, &o, why, sizeof why);
        if (e != GQ_OK) {
            scenario_close(&s);
            return gq_fail(e, msg, cap, "%s:%d: %s", file, row->line, why);
        }
        gq_table one = {0};
        table_init(&one, SIM_COLUMNS, SIM_NCOLUMNS);
        scenario_row(&one, &s, &o);
        char line[4096];
        size_t n = (size_t)snprintf(line, sizeof line, "%d", row->line);
        for (size_t c = 0; c < SIM_NCOLUMNS && n < sizeof line; c++)
            n += (size_t)snprintf(line + n, sizeof line - n, "\t%s", table_cell(&one, 1, c));
        table_row(rows, "%s", line);
        table_free(&one);
        scenario_close(&s);
    }
    return GQ_OK;
}

/* One zoo for every row's scenario. */
gq_err sim_grid(const measured_set *grid, const char *file, const sim_request *request, const int *owner, int rank,
                gq_table *rows, size_t *failed, sim_progress_n progress, void *ctx, char *msg, size_t cap)
{
    sim_request base;
    gq_zoo zoo;
    sim_request_share_zoo(request, &base, &zoo);
    const gq_err e = grid_in(grid, file, &base, owner, rank, rows, failed, progress, ctx, msg, cap);
    zoo_free(&zoo);
    return e;
}

double sim_grid_cost_s(const measured_row *row, const sim_request *base)
{
    if (base->run.engine == ENGINE_ANALYTIC) return 0.001;
    sim_request q;
    char platform[1024], msg[256];
    const char *quant;
    cluster_spec cl;
    if (row_request(row, "", base, &q, platform, sizeof platform, &quant, msg, sizeof msg) != GQ_OK ||
        cluster_parse(platform, &cl, msg, sizeof msg) != GQ_OK)
        return 1;    /* a platform file, or a row that will fail: a second */
    int buckets = 0; /* ps-flat's cost grows with its buckets: the analytic engine's plan says how many */
    if (q.run.sync == SYNC_PS_FLAT) {
        sim_request aq = q;
        aq.run.engine = ENGINE_ANALYTIC;
        sim_scenario s;
        sim_outcome o;
        if (scenario_open(&s, &aq, msg, sizeof msg) == GQ_OK &&
            scenario_run(&s, quant, (int)row->gpus, &o, msg, sizeof msg) == GQ_OK)
            buckets = o.r.buckets;
        scenario_close(&s);
    }
    return sim_simgrid_cost_s(&cl, q.run.sync, (int)row->gpus, q.run.iterations, buckets);
}

int sim_grid_owners(const measured_set *grid, const sim_request *base, int ranks, int *owner)
{
    double *cost = malloc((grid->n + 1) * sizeof *cost);
    if (!cost) return -1;
    for (size_t i = 0; i < grid->n; i++) cost[i] = sim_grid_cost_s(&grid->rows[i], base);
    const int rc = sim_spread(cost, grid->n, ranks, owner);
    free(cost);
    return rc;
}

#!/usr/bin/env bash
# Mutation check of the test suite (a developer's tool, not run by CI): each
# mutation below breaks one line of the simulator on purpose, rebuilds in
# build-mutate/, runs the suite (all but the README tour), and says whether
# the suite went red ("killed") or stayed green ("SURVIVED": a number that no
# test pins). The source is restored after each. Results: docs/testing.md.
# Usage: bash scripts/mutate.sh   (MUTATE_ONLY=REGEX: only the mutations whose description matches;
#        MUTATE_TESTS=REGEX: only the ctest tests matching, for a quicker look -- the full run is what counts)
set -uo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-mutate -DCMAKE_BUILD_TYPE=Release > /dev/null || exit 1

# file | exact text | replacement | what the mutation does
mutations=(
  'sim/analytic.c|ph[0] = g * (N - 1) * send + p->a_inter + g * share * b->up_bytes / bw;|ph[0] = g * (N - 1) * send + p->a_inter + share * b->up_bytes / bw;|every GPU pushing: the analytic NIC carries the node sum only'
  'sim/analytic.c|work = fmax(work, T * mine * b->srv_dec_s|work = fmax(work, N * mine * b->srv_dec_s|every GPU pushing: a placed server adds one contribution a node'
  'sim/analytic.c|if (host && p->per_gpu_push) {|if (0 && host && p->per_gpu_push) {|every GPU pushing: the host still sums and messages its GPUs'
  'sim/analytic.c|cpu[n] = fmax(cpu[n], own[n]) + g * placed_sent(p, (size_t)k, n) * snd;|cpu[n] = fmax(cpu[n], own[n]) + placed_sent(p, (size_t)k, n) * snd;|every GPU pushing, reads in forward: one message a node'
  'sim/sg_child.c|send_recv(w, mbox("su%d", (node + 1) % w->N), g * share * b->up_bytes|send_recv(w, mbox("su%d", (node + 1) % w->N), share * b->up_bytes|every GPU pushing: SimGrid shards carry the node sum only'
  'sim/sg_child.c|const double away = g * others * bytes|const double away = others * bytes|every GPU pushing: the SimGrid hub takes the node sum only'
  'sim/sg_child.c|sg_host_sendto(w->hub[srv], here, (double)bytes_of(others * share * b->up_bytes));|sg_host_sendto(w->hub[srv], here, (double)bytes_of((N - 1) * share * b->up_bytes));|every GPU pushing, reads in forward: a SimGrid server takes a push a node'
  'sim/sg_child.c|const int msg = !w->plan->per_gpu_push;|const int msg = 1;|every GPU pushing: SimGrid GPUs still message their host'
  'sim/sim_internal.h|return n + 1 < p->nodes ? p->per_node|return n < p->nodes ? p->per_node|every GPU pushing: the last node as full as the others'
  'sim/plan.c|c->node_sum == NODE_SUM_NONE && multi;|c->node_sum == NODE_SUM_NONE;|every GPU pushing on one machine too'
  'sim/analytic.c|load = fmax(g, T / M);|load = fmax(1, T / M);|every GPU pushing to server machines: the analytic node NIC carries its sum only'
  'sim/sg_child.c|put_async(w, mbox("cu%d", node + j * w->N), g * bytes / per);|put_async(w, mbox("cu%d", node + j * w->N), (g > 0) * bytes / per);|every GPU pushing to server machines: SimGrid pushes the node sum only'
  'sim/sg_child.c|sleep_s(T * (w->c->rpc_recv_s + b->srv_dec_s / M)|sleep_s(w->N * (w->c->rpc_recv_s + b->srv_dec_s / M)|every GPU pushing to server machines: a SimGrid machine adds one contribution a node'
  'sim/plan.c|(p->per_node - 1) * (b->down_bytes + b->up2_bytes);|(p->per_node - 1) * (b->up_bytes + b->up2_bytes);|hierarchical traffic: the leader sends uploads, not replies'
  'sim/analytic.c|(P - 1) * (a + b->up_bytes / bw) + (P - 1) * b->dec_s;|(P - 1) * (a + b->up_bytes / bw);|analytic all-gather without its decode cost'
  'sim/analytic.c|share * b->down_bytes / bw_inter + 2|share * b->up_bytes / bw_inter + 2|analytic sharded PS: the reply charged at upload size'
  'sim/analytic.c|double steps = 2 * (N - 1);|double steps = 4 * (N - 1);|analytic hierarchical ring: steps doubled'
  'exchange/exchange.c|return q->id == QZ_TERNGRAD ? DOWNLINK_TERNGRAD : DOWNLINK_REQUANT;|return DOWNLINK_REQUANT;|TernGrad automatic downlink switched to requant'
  'sim/analytic.c|double server = P * b->srv_dec_s + b->srv_enc_s|double server = b->srv_dec_s + b->srv_enc_s|single PS decodes one contribution, not P'
  'sim/analytic.c|return steps * (a + b->up_bytes / P / bw)|return steps * (a + b->up_bytes / bw)|ring: every step sends the whole bucket'
  'sim/plan.c|u += 2 * (P - 1) / P * (b->up_bytes + b->up2_bytes), d|u += (P - 1) / P * (b->up_bytes + b->up2_bytes), d|ring traffic halved'
  'sim/sg_engine.c|? NODE_FOLDED : NODE_GROUPED;|? NODE_GROUPED : NODE_GROUPED;|SimGrid leaders schemes unfolded: one actor a GPU group again'
  'sim/sg_child.c|w->flows += 1; /* as put() counts */|w->flows += 0;|SimGrid folded flows not counted'
  'train/exchange_run.c|x->sizes_only ? qz_exact_size(q, n) : qz_encode_warm|x->sizes_only ? qz_exact_size(q, n) + 4 : qz_encode_warm|SMPI sizes only: every encoded message 4 bytes too long'
  'sim/sg_engine.c|!user_xml && p->servers && c->sync == SYNC_PS_SHARDED|0 && !user_xml && p->servers && c->sync == SYNC_PS_SHARDED|SimGrid placed servers: every pair its own flow again'
  'sim/sg_child.c|        while (*servers_done < servers) sg_cond_wait|        while (0 && *servers_done < servers) sg_cond_wait|SimGrid hub: pushes and replies stop waiting for the servers flows'
  'sim/sg_child.c|double steps = 2.0 * (w->N - 1);|double steps = 1.0 * (w->N - 1);|SimGrid hierarchical ring: half the steps'
  'sim/sg_child.c|sleep_s(w->P * (b->srv_dec_s + w->c->rpc_recv_s) + b->srv_enc_s|sleep_s(w->P * w->c->rpc_recv_s + b->srv_enc_s|SimGrid single PS without its decode cost'
  'exchange/exchange.c|if (xch_shares_scaler(p, q)) *up += 4, *down += 4;|if (xch_shares_scaler(p, q)) *up += 4;|scaler sharing: the shared scaler not sent back'
  'exchange/exchange.c|(p->fp32_last && (int)i == classifier)|(p->fp32_last && (int)i == classifier - 1)|fp32 classifier: the wrong layer'
  'sim/network_model.c|{"LV08", 13.01, 0.97}|{"LV08", 13.01, 1}|LV08 without its bandwidth factor'
  'sim/plan.c|cur->dec_down_s += requant_down ? dec + copy|cur->dec_down_s += requant_down ? copy|the reply decoded for free'
  'sim/plan.c|if (c->codec_serial && c->gpus > 1)|if (0 && c->gpus > 1)|GPU codec kernels do not delay backward'
  'sim/plan.c|const double copy = q && c->host_copy_bw > 0 ? 4 * n / c->host_copy_bw : 0;|const double copy = 0;|host codec without its PCIe copies'
  'sim/codec_cost.c|const double enc_mem = t.enc.bytes / g->mem_bw * 1e9 * inv|const double enc_mem = t.enc.bytes / 900e9 * 1e9 * inv|fitted GPU cost ignores the GPU bandwidth'
  'platforms/xml_write.c|G(phys_range_of(PHYS_FATPIPE_RATE)->hi)); /* never the bottleneck */|G(1e9)); /* never the bottleneck */|the racks backplane limits'
  'quant/topk.c|if (nc < k |if (nc < 1 |top-k trusts an unlucky sample'
  'quant/fp16.c|_mm256_set1_ps(65504.0f)|_mm256_set1_ps(65536.0f)|fp16 vector path saturates to Inf'
  'quant/qz_core.c|if (h[4] != QZ_VERSION && h[4] != QZ_VERSION_LEGACY) return GQ_ERR_VERSION;|if (h[4] != QZ_VERSION) return GQ_ERR_VERSION;|version-1 buffers refused'
  'train/blas_core.c|if (skx && f->avx512bf16) return "Cooperlake";|if (skx) return "Cooperlake";|BF16 kernels chosen without BF16'
  'sim/plan.c|cur->raw_bytes >= c->fusion_bytes|cur->raw_bytes > c->fusion_bytes|a bucket exactly --fusion bytes full stays open'
  'exchange/exchange.c|(double)n < p->fp32_below|(double)n <= p->fp32_below|a tensor of exactly --fp32-below elements sent in fp32'
  'train/trainer.c|(epoch - 1) / c->step_every|epoch / c->step_every|the step schedule decays an epoch early'
  'quant/terngrad.c|s = fmin(m.maxabs, p->clip * sigma);|s = fmax(m.maxabs, p->clip * sigma);|TernGrad scale: the larger of max and 2.5 sigma'
  'cli/cli_out.c|{SIGINT, SIGTERM, SIGHUP, SIGPIPE}|{SIGINT, SIGTERM, SIGHUP}|a closed pipe leaves the staged temporaries'
  'common/gq_csv.c|} else if (r->nfields != r->width && !gq_csv_blank(r)) {|} else if (0) {|CSV rows of another width accepted'
  'sim/scenario.c|            if (a[e] >= target) {|            if (a[e] > target) {|time to accuracy: an epoch exactly at the target not counted'
  'train/exchange_run.c|a[k] += d[k] / W;|a[k] = d[k] / W;|the server keeps the last worker, not the average'
  'sim/run_params.c|!(p->lo_open ? x > p->lo : x >= p->lo)|!(x >= p->lo)|an open lower bound accepted at equality (--quant-rate 0)'
  'sim/run_params.c|.dflt = 0.005, /* 5 ms|.dflt = 0.05, /* 5 ms|the default fusion cycle ten times Horovod s'
  'sim/scenario.c|    return 1 + cv * result;|    return 1 + cv * result / 2;|stragglers: half the expected slowest GPU'
  'sim/scenario.c|if (col >= 0 && row->param[col][0] && run_param_set|if (col >= 0 && 0 && run_param_set|validate ignores the run-parameter columns'
  'common/gq_table.c|            common[c] = (unsigned char)same;|            common[c] = 0;|text tables: nothing shared moves above'
  'common/gq_table.c|strlen(l->shown[at]) <= from) continue;|strlen(l->shown[at]) < from) continue;|footnotes: a text of exactly the limit made one'
  'quant/qz_spec.c|            if (differs && used < QZ_LABEL_MAX)|            if (0 && used < QZ_LABEL_MAX)|short labels: qsgd-5 and qsgd-9 both qsgd'
  'common/gq_suggest.c|    return alike == 1 ? found : -1;|    return alike >= 1 ? found : -1;|names without case: an ambiguous one taken'
  'sim/analytic.c|        r->comm_s += comm[k];|        r->comm_s = comm[k];|analytic communication time: the last bucket only'
  'sim/sg_child.c|            w->comm[a] += simgrid_get_clock() - exchange0;|            w->comm[a] = simgrid_get_clock() - exchange0;|SimGrid communication time: the last bucket only'
  'sim/analytic.c|nic_s = N > 1 ? G * (P - G) / P|nic_s = N > 1 ? (P - G) / P|analytic ps-flat: the NIC carries one GPU s shards'
  'sim/sg_child.c|put_async(w, mbox("fd%d", j), b->down_bytes / P);|put_async(w, mbox("fd%d", j), b->up_bytes / P);|SimGrid ps-flat: replies at upload size'
  'common/gq_epoch.h|images / (workers * batch) : 0;|(images + workers * batch - 1) / (workers * batch) : 0;|an epoch rounded up, not down'
  'models/gpu.c|return flops > 0 ? 4.0 * params / (flops / 1e9) : 0;|return flops > 0 ? 2.0 * params / (flops / 1e9) : 0;|gradient bytes per GFLOP at 2 bytes a parameter'
  'sim/scenario.c|if (q->engine != ENGINE_SIMGRID && (q->exact_flows|if (0 && (q->exact_flows|--exact-flows ignored by the analytic engine'
  'sim/scenario.c|        if (row->gpus > 1) ape[scored++] = fabs(err);|        ape[scored++] = fabs(err);|validate scores the exact 1-GPU rows'
  'sim/plan.c|cur->host_s += 2 * 4 * n / b_up + |cur->host_s += 4 * n / b_up + |a ring through host memory copied one way only'
  'sim/sg_child.c|        sleep_s(b->host_s);|        (void)0;|SimGrid ring through host memory without its copies and sums'
  'quant/powersgd.c|(double)r * (double)(*rows + *cols) < (double)*rows|(double)r * (double)(*rows + *cols) <= (double)*rows|PowerSGD compresses factors no smaller than the matrix'
  'quant/powersgd.c|(uint64_t)n >= p->min_elements ? r : 0;|(uint64_t)n > p->min_elements ? r : 0;|PowerSGD: a tensor of exactly min= elements sent as floats'
  'quant/powersgd.c|const double inv = norm > 1e-8 * before && norm > 0|const double inv = norm > 0|PowerSGD normalises rounding noise into a direction'
  'train/exchange_run.c|if (!x->sizes_only) qz_powersgd_orthonormalize(Pbar, rows, r);|(void)0;|PowerSGD ring: P not orthonormalised'
  'train/exchange_run.c|if (q.warm && !x->sizes_only) memcpy(Q, Qbar, cols * r * sizeof *Q);|(void)0;|PowerSGD ring: no warm start'
  'train/exchange_run.c|if (x->ef) x->res[(size_t)l * x->P + off + k] = M[k] - x->dec[k];|if (x->ef) x->res[(size_t)l * x->P + off + k] = x->g[k] - x->dec[k];|PowerSGD ring: the residual from the wrong worker'
  'train/exchange_run.c|add_average(out + lo, base + (size_t)((j + s) % x->W) * stride + lo|add_average(out + lo, base + (size_t)s * stride + lo|one process sums a ring chunk from worker 0, not from its own'
  'sim/plan.c|up2 = rank ? 4.0 * (double)(rank * cols) : 0;|up2 = 0;|PowerSGD: Q not all-reduced'
  'sim/analytic.c|    if (b->up2_bytes > 0) t += scheme_comm(c, p, &phase);|    (void)0;|analytic PowerSGD: the second all-reduce free'
  'sim/sg_child.c|                sleep_s(b->enc_s / 2);|                (void)0;|SimGrid PowerSGD: the encode s first half free'
  'sim/codec_cost.c|    c->enc_ns = fmax(enc_mem, enc_alu);|    c->enc_ns = enc_mem;|GPU codec model: FLOPs never bound the encode'
  'sim/scenario.c|        if (q->ef == EF_ON && gpus > 1 && kq->id != QZ_FP32 && !xch_keeps_residual(q->sync, kq)) {|        if (0) {|--ef on accepted in a re-quantizing ring'
  'cli/cmd_train.c|lo > 0 |lo >= 0 |train --versus: an interval ending at 0 told apart'
  'sim/advise.c|!*kind) pick[nf++] = i;|0) pick[nf++] = i;|advise: only the screening s best simulated again'
  'sim/advise.c|const double *v = all + (size_t)owner[f] * SHARED * nf + SHARED * f;|const double *v = all + SHARED * f;|advise over MPI ranks: every finalist read from rank 0'
  'sim/advise.c|if (x->key != y->key) return x->key < y->key ? -1 : 1;|if (x->key != y->key) return x->key > y->key ? -1 : 1;|advise: the screening sorted slowest first'
  'sim/plan.c|xch_tensor_bytes(&c->exchange, &tc->quant, tt,|xch_tensor_bytes(&c->exchange, &c->quant, tt,|a plan: every tensor charged the run s quantizer s reply'
  'sim/plan.c|if (c->tensor_codec) T[k].quantized = tc->quant.id != QZ_FP32;|(void)0;|a plan: its fp32 tensors still compressed'
  'sim/advise.c|if (e == GQ_OK && t < best_t) best_t = t, best = j;|if (e == GQ_OK && t > best_t) best_t = t, best = j;|per tensor: the slowest choice kept'
  'sim/advise.c|if (e == GQ_OK && r->start_s < r->plan_s)|if (0)|per tensor: the analytic plan kept where SimGrid finds it slower'
  'sim/advise.c|const double epochs = floor(budget / (iteration_s * q->per_epoch));|const double epochs = ceil(budget / (iteration_s * q->per_epoch));|budget: an epoch begun counted as done'
  'sim/advise.c|*key > a->budget_s);|*key >= a->budget_s);|budget: the target reached exactly at the budget left out'
  'sim/measured.c|if (grid && (cm < 0 |if (grid && 0 && (cm < 0 |sweep: a grid without its required columns read'
  'sim/tensor_plan.c|n != T[k].n)|n == 0)|a plan for another model accepted'
  'sim/scenario.c|(cost ? cost[i] : 1) / 2 < total|(cost ? cost[i] : 1) * 4 < total|sweep: blocks cut late'
  'cli/cmd_sim.c|if (all[2 * r] != GQ_OK) {|if (0) {|sweep over ranks: another rank s failure ignored'
  'cli/cmd_sim.c|time)", first / v);|time)", v / first);|advise across platforms: the ratio inverted'
  'quant/orq.c|#define ORQ_FIT_HIST_BINS 48|#define ORQ_FIT_HIST_BINS 40|orq fit=hist on a histogram of other bins'
  'quant/orq.c|    if (p->fit == QZ_FIT_HIST) return orq_levels_hist(|    if (0) return orq_levels_hist(|orq fit=hist ignored by the encoder'
  'quant/orq.c|(b1 < *best) |(b1 > *best) |orq programme: the second chain merged the wrong way'
  'quant/orq.c|fi[a] == INFINITY ? INFINITY : fi[a] - qi->base[a];|fi[a] == INFINITY ? INFINITY : fi[a] + qi->base[a];|orq programme: a predecessor term of the wrong sign'
  'quant/orq.c|if (err == GQ_OK) *ratio = best > 0 ? fitted / best : 1.0;|if (err == GQ_OK) *ratio = best > 0 ? best / fitted : 1.0;|levels excess inverted'
  'quant/orq.c|#define ORQ_BAND_HIST 6|#define ORQ_BAND_HIST 0|orq band of joint moves on histogram edges removed'
  'quant/bingrad_pb.c|    while (((size_t)2 << steps) - 1 < len / 2) steps++;|    while (0) steps++;|BinGrad-pb descent from min and max alone'
  'quant/bingrad_pb.c|        if (r.f < p.f) p = r;|        if (0) p = r;|BinGrad-pb start without its mirror image'
  'quant/terngrad.c|return _mm256_and_si256(nz, _mm256_add_epi32(sign, _mm256_set1_epi32(1)));|return _mm256_and_si256(nz, _mm256_add_epi32(sign, _mm256_set1_epi32(0)));|TernGrad lanes: +s coded as 0'
  'sim/frameworks.c|{"tf-replicated", "sync=ps-sharded,ps_placement=round-robin,|{"tf-replicated", "sync=ps-sharded,ps_placement=greedy,|tf-replicated: the master copies placed greedily, not as replica_device_setter does'
  'models/gpu.c|if (!(t1 > 0 && t > 0)) return 0;|if (!(t1 >= 0 && t > 0)) return 0;|batch line: a flat line (t1 = 0) taken for a cost'
  'models/gpu.c|            strcmp(q->framework, r->framework) != 0)|            0)|batch line: every framework s rows on one line'
  'train/idx.c|items >= dims[0];|items + 1 > 0;|IDX: the bytes after the items used taken for trailing data'
  'train/idx.c|total *= i == 0 && items > 0 && items < dims[0] ? items : dims[i];|total *= dims[i];|IDX: every item read whatever the limit'
  'sim/plan.c|return c->partition_bytes > 0 && 4.0 * (double)n >= c->partition_bytes|return c->partition_bytes > 0 && 4.0 * (double)n > c->partition_bytes|roots: a tensor of exactly the partition s bytes stays whole'
  'sim/plan.c|const size_t g = np > 1 ? j : k % (size_t)p->servers;|const size_t g = np > 1 ? j : 0;|roots: every whole tensor on GPU 0'
  'sim/analytic.c|start = fmax(start, (1 - s) * b->enc_s + roots * c->rpc_send_s);|start = fmax(start, b->enc_s + roots * c->rpc_send_s);|analytic roots: a root encodes its own share too'
  'sim/analytic.c|const double out = (hi - lo) * (1 - mine), in = (P - (hi - lo)) * mine;|const double out = (hi - lo) * (1 - mine), in = (P - (hi - lo)) * mine / 2;|analytic roots: a NIC takes in half its roots contributions'
  'sim/sg_child.c|if (s > 0) sleep_s((P - 1) * (s * b->srv_dec_s + recv + send) + s * b->srv_enc_s);|if (s > 0) sleep_s((P - 1) * (recv + send) + s * b->srv_enc_s);|SimGrid roots: a root decodes its contributions for free'
  'sim/scenario.c|if (row->sync[0]) run_param_mark(|if (0) run_param_mark(|validate: a row s sync loses to its framework s'
  'sim/plan.c|(roots && !tt->quantized))|(roots && 0))|roots: what HiPress does not compress rooted, not all-reduced'
  'sim/frameworks.c|partition=4194304,fp32_below=262144,|partition=4194304,|hipress preset: every tensor compressed'
  'sim/frameworks.c|const int flat = preset_sync_is(f, "ps-flat");|const int flat = preset_sync_is(f, "ps-sharded");|hipress preset: its roots never applied'
  'sim/analytic.c|const double arrival = fmax(in[n], until);|const double arrival = fmax(in[n], until * 0);|analytic reads: a node has a variable before its server has sent every copy'
  'sim/analytic.c|apply[s] = fmax(apply[s], fmax(fmax(srv_in[s], last), own[s]))|apply[s] = fmax(apply[s], fmax(last, own[s]))|analytic pushes: the hot server s NIC in not waited for'
  'sim/analytic.c|stall[n] = fmax(stall[n], local[n] - b->need_s);|stall[n] = fmax(stall[n], local[n]);|analytic reads: every variable needed at the start of forward'
  'sim/plan.c|cur->need_s = before[tt->layer];|cur->need_s = 0;|reads in forward: every layer needed at its start'
  'sim/plan.c|p->pull_forward = placed && c->overlap && c->gpus > 1 && !c->ps_pull_round;|p->pull_forward = placed && c->overlap && c->gpus > 1;|--ps-pull round never applied'
  'sim/frameworks.c|ps_placement=round-robin,ps_pull=round,ps_on=cpu|ps_placement=round-robin,ps_on=cpu|tf-replicated preset: its variables read during forward'
  'sim/scenario.c|run_param_by_key("ps_pull"), q) && (!placed |run_param_by_key("ps_pull"), q) && (!!placed |--ps-pull accepted without placed servers'
  'sim/sg_child.c|if (s != node && share[s] > 0) pf_wait(w, &h->pull_ended[(size_t)k * K + s], it + 1);|(void)0;|SimGrid reads: a node does not wait for its server s copies'
  'sim/sg_child.c|pf_wait(w, &h->push_ended[k], (it + 1) * senders[k]);|(void)0;|SimGrid pushes: a server applies before every node s push has ended'
  'sim/plan.c|        sim_node_local(c, p, &p->b[k], &p->b[k].local_up_s, &p->b[k].local_down_s);|        (void)0;|reads in forward: a node s own reduce and broadcast free'
  'sim/sg_child.c|            stall = fmax(stall, local - t0 - b->need_s);|            stall = fmax(stall, local - t0);|SimGrid reads: every variable needed at the start of forward'
  'sim/plan.c|p->pipelined = node_sum && multi;|p->pipelined = 0;|byteps pipeline: buckets one after another'
  'sim/analytic.c|t = done[j] = fmax(t, done[j]) + st[j];|t = done[j] = t + st[j];|byteps pipeline: a stage takes a bucket while busy with the one before'
  'sim/analytic.c|(G - 2) * p->a_node_ring / p->net.latency_factor|(G - 2) * p->a_node_ring|byteps node ring: every step pays the latency factor'
  'sim/analytic.c|const double copy = p->a_copy + b->node_bytes / G / p->b_copy;|const double copy = p->a_copy + b->node_bytes / p->b_copy;|byteps copies: each GPU copies the whole sum'
  'sim/analytic.c|load = fmax(g, T / M);|load = g;|byteps server machines: a machine s NIC load ignored'
  'sim/sg_child.c|put(w, mbox("hu%d", a), b->node_bytes / G);|put(w, mbox("hu%d", a), b->node_bytes);|byteps SimGrid pipeline: each GPU copies the whole sum'
  'sim/frameworks.c|ps_node_sum=gpus,partition=4096000,|ps_node_sum=gpus,|byteps preset: no partitions'
  'sim/plan.c|        if (node_sum && multi) { /* the node|        if (0) { /* the node|byteps: the host encodes nothing'
  'sim/advise.c|st[i].codec_on != st[0].codec_on)|st[i].codec_on != CODEC_ON_GPU)|advise: fp32 dropped where the codec device is held at the CPU'
  'sim/advise.c|const codec_device dev = q->ps_node_sum == NODE_SUM_GPUS ? CODEC_ON_CPU : q->codec_on;|const codec_device dev = q->codec_on;|advise: BytePS rows said to encode on the GPU'
  'quant/terngrad.c|_mm512_maskz_add_epi32(nz, sign, _mm512_set1_epi32(1));|_mm512_maskz_add_epi32(nz, _mm512_and_si512(sign, _mm512_setzero_si512()), _mm512_set1_epi32(1));|TernGrad sixteen lanes: signs dropped (AVX-512 builds only)'
  'quant/qsgd.c|_mm512_mask_add_epi32(lo, up, lo, _mm512_set1_epi32(1));|_mm512_mask_add_epi32(lo, up, lo, _mm512_set1_epi32(0));|QSGD sixteen lanes: never rounded up (AVX-512 builds only)'
  'quant/terngrad.c|tg_quantize_scalar(codes + i, x + i, len - i, inv24, key, idx0 + (uint32_t)i);|tg_quantize_scalar(codes + i, x + i, len - i, inv24, key, idx0);|TernGrad tail: the draws restart at the lanes first index'
  'quant/qsgd.c|return _mm256_add_epi32(k.i1, _mm256_sign_epi32(mag, _mm256_castps_si256(v)));|return _mm256_add_epi32(k.i1, mag);|QSGD lanes: signs dropped'
  'quant/qsgd.c|_mm256_cmp_ps(u, frac, _CMP_LT_OQ)); /* -1 rounds up */|_mm256_cmp_ps(u, frac, _CMP_LE_OQ)); /* -1 rounds up */|QSGD lanes: a draw equal to the fraction rounds up'
  'quant/qz_round_avx2.h|_mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)|_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)|rounding lanes: codes stored in pack order, not element order'
  'quant/qz_pack.c|32 - 4 * w));|31 - 4 * w));|vector packer: the upper half of each lane shifted one bit short'
  'quant/terngrad.c|_mm256_cmp_ps(qz_hash8_u24(hv), prob24, _CMP_LT_OQ)|_mm256_cmp_ps(qz_hash8_u24(hv), prob24, _CMP_LE_OQ)|TernGrad lanes: a draw equal to the probability rounds away'
  'sim/plan.c|p->a_ring_step = c->ring_pipelined ? p->a_ring / lat_factor : p->a_ring;|p->a_ring_step = p->a_ring;|pipelined ring: every step pays the latency factor again'
  'sim/sg_child.c|steps / w->P * b->up_bytes, w->plan->a_ring_step, steps);|steps / w->P * b->up_bytes, w->plan->a_ring, steps);|SimGrid pipelined ring: the other steps with the factor'
  'sim/frameworks.c|q->sync == SYNC_RING && q->engine != ENGINE_SMPI && !q->exact_flows)|q->sync == SYNC_RING)|NCCL presets pipeline the trainer ring under smpi and step flows'
  'sim/analytic.c|        if (alone) t += b->enc_s;|        if (0) t += b->enc_s;|analytic ps-sharded, one GPU a node: its own encode not charged'
  'sim/sg_child.c|    if (alone) sleep_s(b->dec_down_s);|    if (0) sleep_s(b->dec_down_s);|SimGrid ps-sharded, one GPU a node: the reply not decoded'
  'sim/nccl_tree.h|        while (d >= 1 && x + d > nodes) d /= 2;|        while (d >= 1 && x + d > nodes + 1) d /= 2;|tree: a right child past the last node'
  'sim/nccl_tree.h|t == 0 ? n + 1 : (n + 1) % nodes + 1;|t == 0 ? n + 1 : (n + 2) % nodes + 1;|tree: the second tree shifted by two'
  'sim/analytic.c|p->tree_half_buckets / 2.0 * b->up_bytes|p->tree_half_buckets / 4.0 * b->up_bytes|analytic tree: a node NIC carries half its half-buckets'
  'sim/analytic.c|const double hops = 2 * p->tree_depth * p->a_inter|const double hops = p->tree_depth * p->a_inter|analytic tree: the pipeline only one way'
  'sim/analytic.c|return b->enc_s + b->dec_s + first + (hops - first) / L|return b->enc_s + b->dec_s + first + (hops - first) / (L / L)|analytic tree: every hop at the latency factor'
  'sim/sg_child.c|c[n++] = put_async(w, mbox("t%d.%d.%d", t, o * w->G, lead), b->up_bytes / 2);|c[n++] = put_async(w, mbox("t%d.%d.%d", t, o * w->G, lead), b->up_bytes);|SimGrid tree: whole buckets on the tree edges'
  'sim/sg_child.c|    sleep_s(hops / L - first / L + b->enc_s / 2 + b->dec_s);|    sleep_s(hops / L - first / L + b->dec_s);|SimGrid tree: the root encode not charged'
  'sim/plan.c|            const double lead = p->tree_half_buckets / 2.0 + (p->per_node > 1)|            const double lead = p->tree_half_buckets / 2.0|tree traffic: the leader chain bytes left out'
  'sim/scenario.c|const int amp_native = q->precision == PRECISION_AMP|const int amp_native = q->precision == 99|amp: gradients not sent as fp16'
  'models/gpu.c|if (r->precision != precision|if (r->precision != r->precision|a measured row of another precision taken'
  'sim/scenario.c|        whole.quant = c.quant;|        whole.quant = c.quant, whole.encode_ns = 1;|amp: the native fp16 gradients charged an encode'
  'sim/plan.c|        start = fmax(start + cycle, end);|        start = start + cycle;|Horovod loop: the next cycle does not wait for the last all-reduce'
  'sim/plan.c|        while (k < p->n && p->b[k].ready_s < start) {|        while (k < p->n && p->b[k].ready_s <= start) {|Horovod loop: a tensor made at a cycle start taken at once'
  'sim/frameworks.c|    return allreduce && q->fusion_cycle_s > 0 && q->overlap|    return allreduce && q->fusion_cycle_s >= 0 && q->overlap|Horovod presets pace cycles that are not there'
  'sim/plan.c|                server_of[v] = (int)(v % (size_t)servers);|                server_of[v] = (int)(k % (size_t)servers);|partition: round-robin over tensors, not pieces'
  'sim/plan.c|static size_t piece_n(size_t n, size_t k, size_t j) { return n / k + (j < n % k); }|static size_t piece_n(size_t n, size_t k, size_t j) { return n / k + (j <= n % k); }|partition: one piece too many elements'
  'sim/codec_cost.c|        w[m] = a * a / (pts[i].us * pts[i].us);|        w[m] = 1 / (pts[i].us * pts[i].us);|codec fit: weights not scaled with the launches'
  'platforms/cluster_spec.c|    return c->rpc_copy_rate > 0 && c->rpc_copy_rate < wire ? c->rpc_copy_rate : wire;|    return wire;|gRPC copies: the NICs at the wire rate'
  'sim/scenario.c|const double per_byte = fmax(cost.send_byte_s, cost.recv_byte_s);|const double per_byte = fmin(cost.send_byte_s, cost.recv_byte_s);|gRPC copies: the faster end bounds the rate'
  'sim/plan.c|const double up = cluster_nic_wire_bandwidth(cl) * cl->leaf_nodes|const double up = cluster_nic_bandwidth(cl) * cl->leaf_nodes|gRPC copies: analytic fat-tree uplinks sized by the copy rate'
  'platforms/xml_write.c|G(cluster_nic_wire_bandwidth(c) * members / c->oversub)|G(nic * members / c->oversub)|gRPC copies: SimGrid fat-tree uplinks sized by the copy rate'
  'sim/codec_cost.c|!(v[k] >= 0 && v[k] < 1e6);|!(v[k] >= 0 && (k > RECV ? 1 : v[k] < 1e6));|gRPC costs: the per-byte columns unbounded'
  'platforms/xml_write.c|<link_ctn id=\"hublink%d\"/></route>\n", ind, i, router, i);|<link_ctn id=\"hublink%d\"/></route>\n", ind, i, router, first);|hubs: every node of a rack on one hub link'
  'platforms/xml_write.c|G(phys_range_of(PHYS_FATPIPE_RATE)->hi), G(c->inter->latency));|G(phys_range_of(PHYS_FATPIPE_RATE)->hi), G(2 * c->inter->latency));|hubs: a hub link of two NIC latencies'
)

killed=0
survived=0
for m in "${mutations[@]}"; do
  IFS='|' read -r file from to what <<< "$m"
  [[ -n "${MUTATE_ONLY:-}" && ! "$what" =~ $MUTATE_ONLY ]] && continue
  cp "$file" "$file.orig"
  FROM="$from" TO="$to" perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$file"
  if cmp -s "$file" "$file.orig"; then
    echo "NOT APPLIED  $what ($file: text not found)"
    mv "$file.orig" "$file"
    continue
  fi
  if ! cmake --build build-mutate -j "$(nproc)" > /dev/null 2>&1; then
    echo "NO BUILD     $what"
  elif (cd build-mutate && ctest -j "$(nproc)" -E readme_tour ${MUTATE_TESTS:+-R "$MUTATE_TESTS"} > ../build-mutate.log 2>&1); then
    echo "SURVIVED     $what"
    survived=$((survived + 1))
  else
    by=$(sed -n 's/^[[:space:]]*[0-9]* - \([a-z_]*\) .*/\1/p' build-mutate.log | tr '\n' ' ')
    echo "killed       $what  (by: $by)"
    killed=$((killed + 1))
  fi
  mv "$file.orig" "$file"
  touch "$file" # newer than the mutant's object, so the next build restores it
done
cmake --build build-mutate -j "$(nproc)" > /dev/null 2>&1
rm -f build-mutate.log
echo "mutations: $killed killed, $survived survived"

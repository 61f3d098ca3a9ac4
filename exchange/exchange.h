/* The exchange policy: what travels between workers and servers for each
 * gradient tensor, one definition for the simulator (sim/plan.c) and the
 * trainer (train/trainer.c), so that the bytes one predicts are the bytes
 * the other measures. Tensors: every layer's weights and biases apart, as
 * TernGrad quantizes them; which travel in fp32 (small ones, the
 * classifier); the server's reply (the downlink) and its size; TernGrad's
 * scaler sharing. Depends on models/ and quant/ only. */
#ifndef GQ_EXCHANGE_H
#define GQ_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "qz.h"
#include "schemes.h"

/* How the workers' gradients meet: the one list of schemes, for the simulator's engines and the
 * trainer (docs/simulation.md#synchronisation-schemes), made from the registry (schemes.h). */
#define GQ_SCHEME_ENUM(id, file, name, families) SYNC_##id,
typedef enum { GQ_SCHEMES(GQ_SCHEME_ENUM) } sync_kind;
#define GQ_SCHEME_ONE(id, file, name, families) +1
#define SYNC_COUNT (0 GQ_SCHEMES(GQ_SCHEME_ONE))     /* not an enumerator: switches over sync_kind stay exhaustive */
extern const char *const SYNC_NAMES[SYNC_COUNT + 1]; /* NULL-terminated */
const char *sync_name(sync_kind s);
int sync_parse(const char *s, sync_kind *out);
/* A scheme's families: what the rest of gqsim asks of a scheme, answered by its registry line (schemes.h;
 * SYNC_FAMILIES) rather than by a list of schemes written where the question is asked. */
enum {
    SCHEME_SERVERS = 1 << 0,         /* parameter servers: ps, ps-sharded, ps-flat (gRPC's per-message costs) */
    SCHEME_NODE_SERVERS = 1 << 1,    /* its servers are nodes, not every GPU (ps, ps-sharded): --ps-on cpu applies */
    SCHEME_REPLY = 1 << 2,           /* a reply travels back, which --downlink shapes: ps, ps-sharded, hierarchical,
                                        ps-flat */
    SCHEME_ALLREDUCE = 1 << 3,       /* the GPUs all-reduce among themselves, in cycles where Horovod's loop paces
                                        them: ring, hierarchical, allgather, tree */
    SCHEME_REQUANT_HOPS = 1 << 4,    /* partial sums pass through the GPUs, a quantizer re-applied at every hop (no
                                        residual kept for error feedback): ring, tree */
    SCHEME_FACTORS = 1 << 5,         /* PowerSGD's factors all-reduced as floats: ring, hierarchical, tree */
    SCHEME_SHARED_SCALER = 1 << 6,   /* TernGrad's scaler agreed before each bucket: ps, ps-sharded, ps-flat,
                                        allgather */
    SCHEME_NODE_LEADERS = 1 << 7,    /* a node's GPUs reduce to their leader, the leaders exchange: ps-sharded,
                                        hierarchical */
    SCHEME_ALIKE_FOLLOWERS = 1 << 8, /* a node's GPUs other than its leader move alike (the SimGrid engine may draw
                                        them as one): ps-sharded, ring, hierarchical, allgather */
    SCHEME_TRAINER = 1 << 9,         /* the trainer runs it (in one process, over MPI, under SMPI): all but
                                        hierarchical, whose inside-a-node step has no meaning for one worker a rank,
                                        and tree, which the simulator models and the trainer does not run */
};
extern const unsigned SYNC_FAMILIES[SYNC_COUNT];
/* 1 if scheme s is in every family of `families` (SCHEME_* bits). */
int sync_is(sync_kind s, unsigned families);
/* 1 if the trainer runs the scheme: sync_is(s, SCHEME_TRAINER). */
int sync_trainer_runs(sync_kind s);

/* The server's reply. AUTO: fp32 for fp32, TernGrad's summed levels for
 * terngrad, the average re-quantized otherwise. */
typedef enum { DOWNLINK_AUTO, DOWNLINK_FP32, DOWNLINK_REQUANT, DOWNLINK_TERNGRAD } downlink_kind;
extern const char *const DOWNLINK_NAMES[]; /* NULL-terminated */
const char *downlink_name(downlink_kind d);
/* "auto", "fp32", "requant", "terngrad". @return 0, or -1 if unknown. */
int downlink_parse(const char *s, downlink_kind *out);

typedef struct {
    double fp32_below;      /* tensors with fewer elements travel in fp32 */
    int fp32_last;          /* the classifier (the last layer with weights) travels in fp32 */
    downlink_kind downlink; /* the server's reply */
    int no_scaler_sharing;  /* TernGrad: 0 (default) = one scaler per tensor, the workers' maximum */
} xch_policy;

typedef struct {
    int layer;     /* index in the model */
    int bias;      /* 1: the layer's biases, 0: its weights */
    size_t n;      /* elements */
    int quantized; /* 0: travels in fp32 */
    size_t rows;   /* as a matrix (PowerSGD's view): the layer's outputs for weights, 1 for biases */
} xch_tensor;

/* Index of the classifier, the last layer with weights (-1: none). */
int xch_classifier(const model_t *m);

/* The model's tensors in layer order, each layer's weights before its biases
 * (backward makes them ready in the reverse order). `out` has room for
 * 2 x m->nlayers. @return how many. */
size_t xch_tensors(const model_t *m, const qz_params *q, const xch_policy *p, xch_tensor *out);

/* q with tensor t's matrix shape (its rows, for PowerSGD; the rest of q as given). */
qz_params xch_tensor_quant(const qz_params *q, const xch_tensor *t);

/* Whether a scheme can sum q's messages as they are, without decoding and re-encoding partial sums: fp32; fp16
 * (summed in fp16, as NCCL does); PowerSGD, whose factors P and Q are linear in the gradient and all-reduce as
 * floats; TernGrad under one shared scaler, whose levels sum as integers (xch_shares_scaler). Every other
 * quantizer needs an all-gather or a server, or a ring that re-quantizes at every hop. */
int xch_allreduce_compatible(const xch_policy *p, const qz_params *q);

/* 1 if a ring of scheme s all-reduces q's PowerSGD factors (two all-reduces a tensor, P then Q) rather than
 * re-quantizing partial sums at each hop: PowerSGD in a ring, a hierarchical or a tree all-reduce. */
int xch_factor_allreduce(sync_kind s, const qz_params *q);

/* 1 if a worker can keep its own quantization error (error feedback) in scheme s: everywhere but a ring or a
 * tree that re-quantizes partial sums (there, no error is any one worker's); fp32 has none to keep, and refuses
 * nothing. */
int xch_keeps_residual(sync_kind s, const qz_params *q);

/* The reply actually sent: AUTO resolved for quantizer q. */
downlink_kind xch_downlink(const xch_policy *p, const qz_params *q);

/* 1 if workers share one TernGrad scaler per tensor, their maximum, agreed
 * by an all-reduce of its own before they encode (only whole-tensor scalers,
 * bucket=0); the tensor's messages do not carry it. */
int xch_shares_scaler(const xch_policy *p, const qz_params *q);

/* Bytes one worker sends and receives for tensor t in one iteration, with
 * `workers` workers, given the tensor's encoded size (`encoded`, the real
 * encoder's output, header included) and the size of the server's
 * re-quantized reply (`requant`; equal to `encoded` for codecs whose size
 * does not depend on the data). */
void xch_tensor_bytes(const xch_policy *p, const qz_params *q, const xch_tensor *t, int workers, double encoded,
                      double requant, double *up, double *down);

/* ---- TernGrad's reply: the sum of W ternary vectors under one shared scaler ----------------------
 * The server adds the workers' levels (integers in -W..W) and sends them
 * back; every worker holds the shared scaler s already (it was all-reduced
 * before the encode), so the reply is the levels alone, and every worker's
 * average is level_mean(L) = s x L / W, computed one way everywhere so that a
 * server and its workers hold the same floats. The levels travel as
 * base-(2W+1) digits in groups, each group one field of the bits its largest
 * value needs, the fields packed LSB first (the quantizers' bit order):
 * ceil(groups x bits / 8) bytes. The group of k <= 64 / log2(2W+1) digits is
 * the one with the fewest bits a digit (11 digits in 45 bits for W = 8):
 * within 2% of the policy's log2(2W+1) bits a level for W <= 4096 (0.08% at
 * W = 8). Until 2026-12-05 the groups filled whole 64-bit words (4.4% over
 * at W = 8) after a copy of the scaler. */
static inline float xch_level_mean(int level_sum, float scale, int workers)
{
    return (float)((double)scale * level_sum / workers);
}
/* How the levels are grouped: `digits` base-(2W+1) digits a field of `bits` bits. */
typedef struct {
    unsigned digits, bits;
} xch_levels_group;
xch_levels_group xch_levels_grouping(int workers);
/* Bytes of n summed levels. */
size_t xch_levels_size(size_t n, int workers);
/* Writes n level sums (each in -W..W) to out (xch_levels_size bytes). */
void xch_levels_pack(uint8_t *out, const int32_t *levels, size_t n, int workers);
/* Reads them back. @return 0, or -1 if a field holds a digit out of range or the padding is not zero (a corrupt
 * buffer). */
int xch_levels_unpack(const uint8_t *in, size_t n, int workers, int32_t *levels);

#endif

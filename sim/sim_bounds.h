/* The ranges of the simulator's run options, written once: the CLI's option
 * table, validate's optional CSV columns and the plan all check against
 * these (they were three copies). Each is a literal so that messages can
 * quote it as written (SIM_STR). */
#ifndef GQ_SIM_BOUNDS_H
#define GQ_SIM_BOUNDS_H

#define SIM_MAX_PS_SHARDS 1024    /* --ps-shards, ps_shards: 1..this */
#define SIM_MAX_FUSION_BYTES 1e12 /* --fusion, fusion: bytes in [0, this] */
#define SIM_MAX_FUSION_CYCLE_S 10 /* --fusion-cycle, fusion_cycle: seconds in [0, this] */
#define SIM_MAX_FP32_BELOW 1e15   /* --fp32-below, fp32_below: elements in [0, this] */
/* a network model's calibrated factors (--network-model, platforms calibrate): in [this, 1000], so that a factor
 * cannot take a link's rate or latency to nothing (a subnormal factor made the time inf) */
#define SIM_NET_FACTOR_MIN 0.001
#define SIM_NET_FACTOR_MAX 1000

#define RUN_PARAMS_MAX 32     /* run parameters at most (run_params.h): a measured row keeps a field for each */
#define RUN_COLUMNS_MAX 24    /* run parameters read from validate's columns, at most */
#define RUN_PARAM_TEXT_MAX 96 /* a run parameter's value as text, NUL included */

#define SIM_STR_(x) #x
#define SIM_STR(x) SIM_STR_(x) /* a bound as written above, for messages */

#endif

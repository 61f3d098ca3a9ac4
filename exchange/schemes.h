/* The synchronisation schemes, one line each: the registry every list of schemes is made from -- the sync_kind enum
 * and SYNC_COUNT (exchange.h), the names and families (exchange.c), the simulator's rows (SIM_SCHEME_<ID> in
 * sim/schemes/<file>.c, sim/schemes/registry.c) and the SimGrid engine's actors (<file>_bucket, sg_child.c). A line
 * is GQ_SCHEME(ID, file, "name", families), families being exchange.h's SCHEME_* bits; the order is the enum's, and
 * so the order in which help and the scheme lists name them. A new scheme is a line here, its file in sim/schemes/
 * and its actors. */
#ifndef GQ_SCHEMES_H
#define GQ_SCHEMES_H

#define GQ_SCHEMES(GQ_SCHEME)                                                                                          \
    GQ_SCHEME(PS, ps, "ps",                                                                                            \
              SCHEME_SERVERS | SCHEME_NODE_SERVERS | SCHEME_REPLY | SCHEME_SHARED_SCALER | SCHEME_TRAINER)             \
    GQ_SCHEME(PS_SHARDED, ps_sharded, "ps-sharded",                                                                    \
              SCHEME_SERVERS | SCHEME_NODE_SERVERS | SCHEME_REPLY | SCHEME_SHARED_SCALER | SCHEME_NODE_LEADERS |       \
                  SCHEME_ALIKE_FOLLOWERS | SCHEME_TRAINER)                                                             \
    GQ_SCHEME(RING, ring, "ring",                                                                                      \
              SCHEME_ALLREDUCE | SCHEME_REQUANT_HOPS | SCHEME_FACTORS | SCHEME_ALIKE_FOLLOWERS | SCHEME_TRAINER)       \
    GQ_SCHEME(HIERARCHICAL, hierarchical, "hierarchical",                                                              \
              SCHEME_REPLY | SCHEME_ALLREDUCE | SCHEME_FACTORS | SCHEME_NODE_LEADERS | SCHEME_ALIKE_FOLLOWERS)         \
    GQ_SCHEME(ALLGATHER, allgather, "allgather",                                                                       \
              SCHEME_ALLREDUCE | SCHEME_SHARED_SCALER | SCHEME_ALIKE_FOLLOWERS | SCHEME_TRAINER)                       \
    GQ_SCHEME(PS_FLAT, ps_flat, "ps-flat", SCHEME_SERVERS | SCHEME_REPLY | SCHEME_SHARED_SCALER | SCHEME_TRAINER)      \
    GQ_SCHEME(TREE, tree, "tree", SCHEME_ALLREDUCE | SCHEME_REQUANT_HOPS | SCHEME_FACTORS)

#endif

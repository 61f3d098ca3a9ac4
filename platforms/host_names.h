/* The names gqsim gives a platform's hosts, made and read here only: a node's
 * GPUs n<N>g<G>, its host CPU n<N>cpu, the hub of its placed servers hub<N>,
 * and SimGrid's <cluster> of a node's GPUs, whose hosts it names by the prefix
 * n<N>g and a number. The XML writer, the XML reader, the SimGrid engine's
 * actors and the SMPI engine's host file all go through these, so that a name
 * written one way is never parsed another. */
#ifndef GQ_HOST_NAMES_H
#define GQ_HOST_NAMES_H

typedef enum { HOST_NONE, HOST_GPU, HOST_CPU, HOST_HUB } host_kind;

#define HOST_NAME_CAP 32 /* room for any name here: "n" and two ints and "g" or "cpu" */

/* The name of node `node`'s GPU `gpu` (HOST_GPU), host CPU (HOST_CPU) or hub (HOST_HUB) in out. @return out. */
const char *host_name(char out[HOST_NAME_CAP], host_kind kind, int node, int gpu);
/* What `name` is, whole, with its node (and GPU) where it is one of ours; HOST_NONE otherwise (a router, a
 * user's host, a name with anything after the number). Negative numbers are not ours. */
host_kind host_name_parse(const char *name, int *node, int *gpu);
/* The prefix of SimGrid's <cluster> of node `node`'s GPUs ("n3g": hosts n3g0, n3g1, ...). @return out. */
const char *host_gpu_prefix(char out[HOST_NAME_CAP], int node);
/* The node of such a prefix, whole; -1 where it is not one. */
int host_gpu_prefix_parse(const char *prefix);

#endif

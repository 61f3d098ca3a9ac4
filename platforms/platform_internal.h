/* What the files of platforms/ share and nothing outside them needs: the
 * link tables by the names built-ins use, the cluster keys' setter (one key
 * table for specs and a user's XML, cluster_spec.c), the checks of a node's
 * inside once every key is read, and a node's keys as a spec writes them. */
#ifndef GQ_PLATFORM_INTERNAL_H
#define GQ_PLATFORM_INTERNAL_H

#include "platform.h"

/* The link kinds, each row at the index of its name: built-ins name their links (L_IB_EDR), so a row
 * added anywhere cannot silently change which link a built-in has. */
enum { L_PCIE3, L_NVLINK1, L_NVLINK2, L_NVSWITCH, L_NVSWITCH4, L_INTRA_COUNT };
enum {
    L_1GBE,
    L_10GBE,
    L_25GBE,
    L_40GBE,
    L_100GBE,
    L_ROCE25,
    L_IB_FDR,
    L_IB_EDR,
    L_IB_HDR,
    L_ARIES,
    L_20GBE,
    L_IB_NDR,
    L_INTER_COUNT
};
enum { S_QPI, S_UPI, S_COUNT };
extern const link_kind INTRA[L_INTRA_COUNT], INTER[L_INTER_COUNT], SOCKET[S_COUNT];

/* Sets key k of a cluster to v, as a spec (`key=value`) or, with xml, a user's XML (`gqsim.key` properties) gives
 * it. @return 0, -1 with the reason in why (a bad value), or -2 for a key that form does not take. */
int cluster_set(cluster_spec *c, const char *k, const char *v, int xml, char *why, size_t cap);
/* Index of key k in the key table, -1 if none or (with xml) not one a user's XML gives: a parser's record of
 * keys already given. */
int cluster_key_index(const char *k, int xml);
#define CLUSTER_KEYS_MAX 32
/* The keys a form takes, for a message: "gpus-per-node, gpu, ..." (first_prefix before the first, prefix before
 * the others: "gqsim.gpu, .intra, ..."). */
void cluster_keys_list(int xml, const char *first_prefix, const char *prefix, char *out, size_t cap);

/* A user's SimGrid XML file, read (xml_read.c). */
gq_err cluster_load_xml(const char *path, cluster_spec *c, char *msg, size_t cap);

/* The inside of a node, once every key is read: the levels must nest; a second socket defaults to qpi.
 * @return 0, or -1 with the reason. */
int cluster_finish_node(cluster_spec *c, char *why, size_t cap);
/* The node's keys where they are not the plain layout's, as `,key=value` (for specs and XML comments). */
void cluster_node_keys(const cluster_spec *c, char *buf, size_t cap);
/* v in the fewest digits that read back as the same double (whole numbers as integers), in buf (32 bytes): what a
 * spec or an XML says of a number, as SimGrid and a person read it. @return buf. */
const char *platform_shortest(double v, char *buf);

#endif

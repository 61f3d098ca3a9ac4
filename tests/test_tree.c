/* The shape of --sync tree's double binary tree (sim/nccl_tree.h) against what a double binary tree must be, for
 * every node count from 1 to 1100: each tree a tree (one root, every parent lists its child, every node reaches
 * the root), depth floor(log2 nodes), no node inner in both trees, at most four half-buckets a node, and 2(N-1)
 * edges a tree; the node counts worked by hand in docs/simulation.md exactly. */
#include "check.h"
#include "nccl_tree.h"

/* A node's parents and children over both trees; its depth in tree t. */
static int links_of(int N, int n, int *inner_in)
{
    int sum = 0;
    *inner_in = 0;
    for (int t = 0; t < 2; t++) {
        int parent, child[2];
        tree_links(N, t, n, &parent, child);
        sum += (parent >= 0) + (child[0] >= 0) + (child[1] >= 0);
        *inner_in += child[0] >= 0 || child[1] >= 0;
    }
    return sum;
}

static int depth_of(int N, int t, int n)
{
    int hops = 0, c[2];
    for (int up = n; hops <= N;) {
        tree_links(N, t, up, &up, c);
        if (up < 0) return hops;
        hops++;
    }
    return -1; /* a cycle */
}

int main(void)
{
    for (int N = 1; N <= 1100; N++) {
        int bad = 0, most = 0, ends = 0, deepest[2] = {0, 0};
        const int floor_log2 = 31 - __builtin_clz((unsigned)N);
        for (int t = 0; t < 2; t++) {
            int roots = 0;
            for (int n = 0; n < N; n++) {
                int parent, child[2];
                tree_links(N, t, n, &parent, child);
                roots += parent < 0;
                if (parent >= 0) { /* the parent names n among its children */
                    int pp, pc[2];
                    tree_links(N, t, parent, &pp, pc);
                    bad += pc[0] != n && pc[1] != n;
                }
                for (int k = 0; k < 2; k++)
                    if (child[k] >= 0) {
                        int cp, cc[2];
                        tree_links(N, t, child[k], &cp, cc);
                        bad += cp != n || child[k] >= N;
                    }
                const int d = depth_of(N, t, n);
                bad += d < 0;
                deepest[t] = d > deepest[t] ? d : deepest[t];
            }
            CHECK(roots == 1, "N=%d tree %d: %d roots", N, t, roots);
            CHECK(deepest[t] == floor_log2, "N=%d tree %d: depth %d, floor(log2 N) = %d", N, t, deepest[t], floor_log2);
        }
        for (int n = 0; n < N; n++) {
            int inner;
            const int l = links_of(N, n, &inner);
            ends += l;
            most = l > most ? l : most;
            bad += inner > 1;
        }
        CHECK(bad == 0, "N=%d: %d broken links, cycles or nodes inner in both trees", N, bad);
        CHECK(ends == 4 * (N - 1), "N=%d: %d edge ends over the two trees, 2 x 2(N-1) = %d", N, ends, 4 * (N - 1));
        CHECK(most <= 4, "N=%d: a node with %d half-buckets each way", N, most);
        /* by hand: 2 nodes each parent in one tree and child in the other; 3 nodes a root with two leaves, shifted;
         * from 4 on some node is inner (3) in one tree and a leaf (1) in the other */
        const int want = N == 1 ? 0 : N == 2 ? 2 : N == 3 ? 3 : 4;
        CHECK(most == want, "N=%d: the busiest node has %d half-buckets, by hand %d", N, most, want);
    }
    /* 8 nodes, positions 1..8: tree 0 is 8 <- 4 <- {2 <- {1, 3}, 6 <- {5, 7}} (node = position - 1) */
    int parent, child[2];
    tree_links(8, 0, 7, &parent, child);
    CHECK(parent == -1 && child[0] == 3 && child[1] == -1, "N=8 tree 0: the root (position 8) has one child, 4");
    tree_links(8, 0, 5, &parent, child);
    CHECK(parent == 3 && child[0] == 4 && child[1] == 6, "N=8 tree 0: position 6 under 4, over 5 and 7");
    /* tree 1: node n at position (n + 1) mod 8 + 1, so node 6 is at 8, its root, and node 2 at 4 */
    tree_links(8, 1, 6, &parent, child);
    CHECK(parent == -1 && child[0] == 2 && child[1] == -1, "N=8 tree 1: node 6 the root, over node 2");
    return check_summary();
}

/* The shape of NCCL's double binary tree, which --sync tree runs between nodes: pure arithmetic, for the plan,
 * the SimGrid child and the tests alike. */
#ifndef GQ_NCCL_TREE_H
#define GQ_NCCL_TREE_H

/* NCCL's double binary tree over `nodes` nodes (Sanders, Speck and Traff's two trees, which NCCL 2.4 introduced):
 * tree 0 is the in-order binary tree over positions 1..nodes in which a position's lowest set bit is its height
 * (odd positions are leaves, the root the highest power of two, depth floor(log2 nodes)); tree 1 is the same tree
 * with every node moved one position on. An even position is inner in tree 0 and odd in tree 1, so no node is inner
 * in both and none sends or receives more than four half-buckets. (NCCL shifts so where the count is even and
 * mirrors where it is odd; a shift keeps the property either way, and the depth, which is all the engines take
 * from the shape beside each node's links.) Node n's parent in tree t (-1 at the root) and its children (-1 where
 * none); O(log nodes). */
static inline int tree_position(int nodes, int t, int n) { return t == 0 ? n + 1 : (n + 1) % nodes + 1; }
static inline int tree_node(int nodes, int t, int x) { return t == 0 ? x - 1 : (x - 2 + nodes) % nodes; }
static inline void tree_links(int nodes, int t, int n, int *parent, int child[2])
{
    const int x = tree_position(nodes, t, n), low = x & -x;
    child[0] = child[1] = *parent = -1;
    if (low > 1) {
        child[0] = tree_node(nodes, t, x - low / 2);
        int d = low / 2; /* the right subtree holds x+1 .. min(nodes, x+low-1): its root the highest bit that fits */
        while (d >= 1 && x + d > nodes) d /= 2;
        if (d >= 1) child[1] = tree_node(nodes, t, x + d);
    }
    /* up the full in-order tree (over all positive integers) to the first ancestor inside 1..nodes */
    for (long y = x, h = low; y <= 2L * nodes;) {
        y = (y & (2 * h)) ? y - h : y + h;
        h *= 2;
        if (y <= nodes) {
            *parent = tree_node(nodes, t, (int)y);
            return;
        }
    }
}

#endif

#pragma once
// A checkpoint diff as one merged tree, for the explorer's compare view
// (and anything else that shows a diff hierarchically): each entry placed
// at its location, objects above it summarising what changed below them.
//   auto tree = buildDiffTree(*diff, {.includeUnchanged = false});
//   for (int32_t child : tree.nodes[0].children) show(tree.nodes[child]);

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/checkpoint_diff.h"

namespace ckpt {

struct DiffTreeNode {
    std::string name;  // the location component
    int32_t parent = -1;
    std::vector<int32_t> children;
    int32_t entry = -1;  // the DiffEntry this row shows; -1 for plain objects
    // The entry's status; for plain objects Added/Deleted when everything
    // below was, Unchanged when nothing below changed, else Modified.
    DiffStatus status = DiffStatus::Unchanged;
    DiffCounts below;  // entries in this subtree (the row's own included)
    // Largest figures below (NaN-free): what "which layer moved most" sorts on.
    double maxAbsDiff = 0;
    double maxRelL2 = 0;
    double minCosine = 1;
    double mismatchFraction = 0;  // largest mismatches / elements below
};

struct DiffTreeOptions {
    bool includeUnchanged = false;
};

struct DiffTree {
    std::vector<DiffTreeNode> nodes;  // nodes[0] is the root; pre-order
};

DiffTree buildDiffTree(const CheckpointDiff& diff, const DiffTreeOptions& options = {});

}  // namespace ckpt

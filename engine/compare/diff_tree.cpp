#include "ckpt/diff_tree.h"

#include <cmath>
#include <map>

namespace ckpt {
namespace {

void foldFigures(DiffTreeNode& into, const DiffTreeNode& from) {
    into.maxAbsDiff = std::max(into.maxAbsDiff, from.maxAbsDiff);
    into.maxRelL2 = std::max(into.maxRelL2, from.maxRelL2);
    into.minCosine = std::min(into.minCosine, from.minCosine);
    into.mismatchFraction = std::max(into.mismatchFraction, from.mismatchFraction);
}

}  // namespace

DiffTree buildDiffTree(const CheckpointDiff& diff, const DiffTreeOptions& options) {
    DiffTree tree;
    tree.nodes.push_back({});
    tree.nodes[0].name = diff.pairedByPath ? "(root)" : "";
    std::map<std::pair<int32_t, std::string>, int32_t> childOf;
    auto child = [&](int32_t parent, const std::string& name) {
        auto [it, inserted] = childOf.try_emplace({parent, name}, static_cast<int32_t>(tree.nodes.size()));
        if (inserted) {
            DiffTreeNode n;
            n.name = name;
            n.parent = parent;
            tree.nodes.push_back(std::move(n));
            tree.nodes[static_cast<size_t>(parent)].children.push_back(it->second);
        }
        return it->second;
    };

    // Entries are in location order, so nodes come out in pre-order.
    for (size_t i = 0; i < diff.entries.size(); ++i) {
        const DiffEntry& e = diff.entries[i];
        if (e.status == DiffStatus::Unchanged && !options.includeUnchanged) continue;
        int32_t at = 0;
        for (const std::string& part : e.location) at = child(at, part);
        if (tree.nodes[static_cast<size_t>(at)].entry >= 0) {
            // A second row at one place (rare): a sibling of its own.
            const int32_t parent = tree.nodes[static_cast<size_t>(at)].parent;
            DiffTreeNode n;
            n.name = e.location.empty() ? "" : e.location.back();
            n.parent = parent;
            at = static_cast<int32_t>(tree.nodes.size());
            tree.nodes.push_back(std::move(n));
            tree.nodes[static_cast<size_t>(parent)].children.push_back(at);
        }
        DiffTreeNode& node = tree.nodes[static_cast<size_t>(at)];
        node.entry = static_cast<int32_t>(i);
        node.status = e.status;
        if (e.collapsedInto < 0) node.below.count(e.status);
        if (e.values) {
            const TensorDiff& v = *e.values;
            if (std::isfinite(v.maxAbsDiff)) node.maxAbsDiff = v.maxAbsDiff;
            if (!std::isnan(v.relL2)) node.maxRelL2 = v.relL2;
            if (!std::isnan(v.cosine)) node.minCosine = v.cosine;
            if (v.elements > 0) node.mismatchFraction = static_cast<double>(v.mismatches) / static_cast<double>(v.elements);
        }
    }
    // Children follow parents: fold bottom-up in reverse.
    for (size_t i = tree.nodes.size(); i-- > 1;) {
        DiffTreeNode& n = tree.nodes[i];
        DiffTreeNode& parent = tree.nodes[static_cast<size_t>(n.parent)];
        parent.below += n.below;
        foldFigures(parent, n);
    }
    for (DiffTreeNode& n : tree.nodes) {
        if (n.entry >= 0) continue;
        const DiffCounts& c = n.below;
        if (c.changed() == 0) n.status = DiffStatus::Unchanged;
        else if (c.added == c.changed() && c.unchanged == 0) n.status = DiffStatus::Added;
        else if (c.deleted == c.changed() && c.unchanged == 0) n.status = DiffStatus::Deleted;
        else n.status = DiffStatus::Modified;
    }
    return tree;
}

}  // namespace ckpt

#include "models/diff_filter.h"

#include "models/text_match.h"

#include <vector>

namespace ckpt::ui {

std::shared_ptr<const VisibleSet> computeDiffVisibleSet(const CompareSnapshot& snapshot, const DiffFilter& filter,
                                                        const CancellationToken* cancel) {
    auto out = std::make_shared<VisibleSet>();
    const auto& nodes = snapshot.tree.nodes;
    std::vector<uint8_t>& vis = out->visible;
    vis.assign(nodes.size(), 0);
    if (nodes.empty()) return out;
    const TextMatch contains(filter.text, filter.regex);
    if (out->error = contains.error(); !out->error.isEmpty()) return out;
    const bool all = contains.matchesAll();
    // Locations built parent first (the tree is in pre-order), so a filter
    // on a layer's name shows everything under it, as in the object graph.
    std::vector<QString> location(all ? 0 : nodes.size());
    if (!all)
        for (size_t i = 1; i < nodes.size(); ++i) {
            const int32_t p = nodes[i].parent;
            const QString name = QString::fromStdString(nodes[i].name);
            location[i] = p > 0 ? location[static_cast<size_t>(p)] + QLatin1Char('/') + name : name;
        }
    auto matches = [&](size_t i) {
        if (all) return true;
        if (contains(location[i])) return true;
        const DiffEntry* e = snapshot.entry(static_cast<int32_t>(i));
        if (!e) return false;
        for (const auto* side : {e->a ? &*e->a : nullptr, e->b ? &*e->b : nullptr})
            if (side && (contains(QString::fromStdString(side->path)) || contains(QString::fromStdString(side->key))))
                return true;
        return false;
    };
    // Pre-order: one reverse pass lifts matches to every ancestor.
    for (size_t i = nodes.size(); i-- > 1;) {
        if ((i & 0xfff) == 0 && cancel && cancel->isCancelled()) return nullptr;
        const DiffTreeNode& n = nodes[i];
        if (!filter.showUnchanged && n.status == DiffStatus::Unchanged) continue;
        if (matches(i)) {
            vis[i] = 1;
            ++out->matches;
        }
        if (vis[i] && n.parent >= 0) vis[static_cast<size_t>(n.parent)] = 1;
    }
    vis[0] = 1;
    return out;
}

std::shared_ptr<const VisibleSet> unchangedToggleSet(const CompareSnapshot& snapshot, bool showUnchanged) {
    if (showUnchanged) return nullptr;
    if (snapshot.changedOnly) return snapshot.changedOnly;
    return computeDiffVisibleSet(snapshot, {false, QString(), false});
}

}  // namespace ckpt::ui

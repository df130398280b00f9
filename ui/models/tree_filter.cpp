#include "models/tree_filter.h"

#include "models/text_match.h"

namespace ckpt::ui {

std::shared_ptr<const VisibleSet> computeVisibleSet(const CheckpointSnapshot& snapshot, const TreeFilter& filter,
                                                    const CancellationToken* cancel) {
    auto out = std::make_shared<VisibleSet>();
    const auto& entries = snapshot.entries;
    std::vector<uint8_t>& vis = out->visible;
    vis.assign(entries.size(), 0);
    const TextMatch contains(filter.text, filter.regex);
    if (out->error = contains.error(); !out->error.isEmpty()) return out;
    const bool all = contains.matchesAll();
    auto passesToggles = [&](const TreeEntry& e) {
        return (filter.showKeys || !isKeyRow(e)) && (filter.showSlots || !isSlotRow(e));
    };
    auto matches = [&](const TreeEntry& e) {
        if (all) return true;
        // The name is the path's last component except for composed slot
        // labels, so both are tried; and a variable is found by its own
        // checkpoint key too, as the filter box promises ("path or key"),
        // whether or not its key rows are shown.
        if (contains(pathText(e)) || contains(nameText(e))) return true;
        return e.tensor && e.tensor->key != e.path && contains(QString::fromStdString(e.tensor->key));
    };
    // Pre-order: children follow parents, so one reverse pass lifts matches
    // to every ancestor.
    for (size_t i = entries.size(); i-- > 0;) {
        if ((i & 0xfff) == 0 && cancel && cancel->isCancelled()) return nullptr;
        const TreeEntry& e = entries[i];
        if (!passesToggles(e)) continue;
        if (matches(e) && i != 0) {
            vis[i] = 1;
            ++out->matches;
        }
        if (vis[i] && e.parent >= 0) vis[static_cast<size_t>(e.parent)] = 1;
    }
    vis[0] = 1;
    return out;
}

std::shared_ptr<const VisibleSet> togglesVisibleSet(const CheckpointSnapshot& snapshot, bool showKeys, bool showSlots) {
    if (showKeys && showSlots) return nullptr;
    if (const auto& built = snapshot.toggleSets[showKeys * 2 + showSlots]) return built;
    if (snapshot.checkpoint && snapshot.checkpoint->style() != CheckpointStyle::ObjectBased) return nullptr;
    return computeVisibleSet(snapshot, {showKeys, showSlots, QString(), false});
}

}  // namespace ckpt::ui

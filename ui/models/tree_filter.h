#pragma once
// Which snapshot entries stay visible: the toggles plus the filter text.
// Computed on a worker thread over the whole snapshot (the model is lazy and
// cannot search rows it has not fetched), then handed to the model.

#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

#include "ckpt/cancellation.h"
#include "models/checkpoint_snapshot.h"

namespace ckpt::ui {

struct TreeFilter {
    bool showKeys = false;
    bool showSlots = true;
    QString text;        // empty = everything
    bool regex = false;  // else a case-insensitive substring
};

struct VisibleSet {
    // 1 for entries that are shown: they match (or a descendant does) and
    // pass the toggles. Empty vector means "all that pass the toggles".
    std::vector<uint8_t> visible;
    int64_t matches = 0;
    QString error;  // an invalid regular expression
};

// Returns nullptr when cancelled.
std::shared_ptr<const VisibleSet> computeVisibleSet(const CheckpointSnapshot& snapshot, const TreeFilter& filter,
                                                    const CancellationToken* cancel = nullptr);
// The toggles without a filter text: the set CheckpointSnapshot::build
// computed, or (a snapshot built otherwise: an edit's preview) computed
// now. nullptr when nothing is hidden.
std::shared_ptr<const VisibleSet> togglesVisibleSet(const CheckpointSnapshot& snapshot, bool showKeys, bool showSlots);

}  // namespace ckpt::ui

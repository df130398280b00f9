#pragma once
// Which rows of a comparison's merged tree stay visible: unchanged rows only
// when asked for, plus the filter text (as in the object-graph view's
// filter box, ui/models/tree_filter.h). Computed on a worker over the whole
// tree, then handed to DiffTreeModel.

#include <QString>

#include <memory>

#include "ckpt/cancellation.h"
#include "models/compare_snapshot.h"
#include "models/tree_filter.h"

namespace ckpt::ui {

struct DiffFilter {
    bool showUnchanged = false;
    QString text;        // empty = everything
    bool regex = false;  // else a case-insensitive substring
};

// Matches on the row's location, both sides' paths and checkpoint keys; an
// ancestor of a match stays visible. Returns nullptr when cancelled.
std::shared_ptr<const VisibleSet> computeDiffVisibleSet(const CompareSnapshot& snapshot, const DiffFilter& filter,
                                                        const CancellationToken* cancel = nullptr);

// The unchanged toggle without a filter text: the set compareCheckpoints
// computed, or (a snapshot built otherwise) computed now. nullptr when
// unchanged rows are shown: every row is.
std::shared_ptr<const VisibleSet> unchangedToggleSet(const CompareSnapshot& snapshot, bool showUnchanged);

}  // namespace ckpt::ui

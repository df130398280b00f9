#pragma once
// One comparison of two checkpoints as the compare view shows it: both
// checkpoints, kept open so a selected pair's values can be read later; the
// engine's diff (ckpt/checkpoint_diff.h); and its merged tree
// (ckpt/diff_tree.h) with unchanged rows included, which the view hides
// through its visible set. Built once on a worker, immutable afterwards.

#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/diff_tree.h"

namespace ckpt::ui {

struct VisibleSet;  // models/tree_filter.h

struct CompareSnapshot {
    std::shared_ptr<const Checkpoint> a, b;
    CheckpointDiff diff;
    DiffTree tree;  // includeUnchanged = true; nodes[0] is the root
    // The rows shown while unchanged ones are hidden and no text filters,
    // computed with the tree so that showing a million-row comparison costs
    // the GUI thread nothing that grows with it (unchangedToggleSet).
    std::shared_ptr<const VisibleSet> changedOnly;

    const DiffTreeNode& node(int32_t n) const { return tree.nodes[static_cast<size_t>(n)]; }
    // The entry a tree node shows; null for plain objects.
    const DiffEntry* entry(int32_t n) const {
        const int32_t e = node(n).entry;
        return e < 0 ? nullptr : &diff.entries[static_cast<size_t>(e)];
    }
};

// The row's location components, the same whichever side has it: how a
// selection is found again in the next comparison (findNode).
QStringList nodeLocation(const CompareSnapshot& snapshot, int32_t node);
// The node at 'location', walking down from the root; -1 when absent.
int32_t findNode(const CompareSnapshot& snapshot, const QStringList& location);
// "old → new" for renames, else the path of the side that has the value.
QString entryPathText(const DiffEntry& entry);
// "float32 [8, 32]"; a type change shows both sides: "float32 [8, 32] → float32 [8, 16]".
QString entryTypeText(const DiffEntry& entry);

}  // namespace ckpt::ui

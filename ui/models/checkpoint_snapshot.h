#pragma once
// What the explorer tree shows of one opened checkpoint, flattened once off
// the GUI thread so models only index into vectors. Entries are in pre-order:
// a parent always precedes its children, which lets filters propagate
// matches upwards in one reverse pass.

#include <QString>

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/display_tree.h"

namespace ckpt::ui {

// The engine's display tree (ckpt/display_tree.h), shown as it is.
using EntryKind = DisplayKind;
using TreeEntry = DisplayEntry;

// Entry text as Qt strings, converted when shown or filtered: building
// 200,000 QStrings up front cost more than opening the file.
inline QString nameText(const TreeEntry& e) { return QString::fromUtf8(e.name.data(), static_cast<qsizetype>(e.name.size())); }
inline QString pathText(const TreeEntry& e) { return QString::fromUtf8(e.path.data(), static_cast<qsizetype>(e.path.size())); }
// Rows the explorer hides unless their toggle is on.
inline bool isKeyRow(const TreeEntry& e) { return e.kind == EntryKind::Attribute; }
inline bool isSlotRow(const TreeEntry& e) { return e.underSlot; }

struct VisibleSet;  // models/tree_filter.h

struct CheckpointSnapshot {
    std::shared_ptr<const Checkpoint> checkpoint;
    // What the entries point into when it is not the checkpoint: an edit's
    // plan, whose resulting tree the edit dialog previews before writing.
    std::shared_ptr<const void> keepAlive;
    std::vector<TreeEntry> entries;     // entries[0] is the root
    std::deque<std::string> ownedText;  // composed names; a deque keeps views valid
    int64_t tensorCount = 0;
    int64_t storedBytes = 0;
    // What the toggles alone show, by showKeys * 2 + showSlots (null: every
    // row), computed with the entries so that showing a million-row tree
    // costs the GUI thread nothing that grows with it (togglesVisibleSet).
    std::array<std::shared_ptr<const VisibleSet>, 4> toggleSets;

    // buildDisplayTree without alias rows, and the toggles' visible sets.
    // Pure function of the checkpoint; runs on a worker thread.
    static std::shared_ptr<const CheckpointSnapshot> build(std::shared_ptr<const Checkpoint> checkpoint);
};

}  // namespace ckpt::ui

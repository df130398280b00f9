#pragma once
// What the explorer tree shows of one opened checkpoint, flattened once off
// the GUI thread so models only index into vectors. Entries are in pre-order:
// a parent always precedes its children, which lets filters propagate
// matches upwards in one reverse pass.

#include <QString>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/checkpoint.h"

namespace ckpt::ui {

enum class EntryKind {
    Root,
    Object,
    Variable,
    ReplicatedVariable,
    SlotVariable,
    Optimizer,
    Attribute,  // one serialized tensor of an object (its checkpoint key)
    KeyGroup,   // name-based checkpoints: a '/'-separated key prefix
    Key,        // name-based checkpoints: one tensor
};

struct TreeEntry {
    EntryKind kind = EntryKind::Object;
    // UTF-8 views into the checkpoint's immutable graph and keys (or the
    // snapshot's own text): building 200,000 QStrings up front cost more
    // than opening the file. Converted when shown or filtered.
    std::string_view name;   // column 0
    std::string_view path;   // pretty path or key; what the filter matches
    int32_t parent = -1;     // entry index, -1 for the root
    std::vector<int32_t> children;
    int32_t nodeId = -1;     // object-graph node, -1 when not a node
    const TensorInfo* tensor = nullptr;  // points into the checkpoint's bundle
    // Hidden unless the corresponding toggle is on.
    bool isKeyRow = false;
    bool isSlotRow = false;

    QString nameText() const { return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())); }
    QString pathText() const { return QString::fromUtf8(path.data(), static_cast<qsizetype>(path.size())); }
};

struct CheckpointSnapshot {
    std::shared_ptr<const Checkpoint> checkpoint;
    std::vector<TreeEntry> entries;  // entries[0] is the root
    std::deque<std::string> ownedText;  // composed names; a deque keeps views valid
    int64_t tensorCount = 0;
    int64_t storedBytes = 0;

    // Builds the tree: the object graph's first-BFS-parent spanning tree with
    // slot variables under their optimizer, or the key tree of a name-based
    // checkpoint. Pure function of the checkpoint; runs on a worker thread.
    static std::shared_ptr<const CheckpointSnapshot> build(std::shared_ptr<const Checkpoint> checkpoint);
};

} // namespace ckpt::ui

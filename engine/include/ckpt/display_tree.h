#pragma once
// A checkpoint as a tree, built once for every view of it: `ckpt tree`
// prints it, the explorer's object tree shows it. Object-based checkpoints
// give TensorFlow's first-BFS-parent spanning tree of the object graph (the
// edge that names each node), each node's serialized attributes, later edges
// to an already placed node as aliases, and slot variables under their
// optimizer; nodes no path reaches are listed under the root, so nothing
// stored is invisible. Name-based checkpoints give their keys split on '/'.
// Entries are in pre-order (a parent precedes its children). Built without
// recursion: a 200,000-deep chain is as safe as a flat model.
//   auto tree = buildDisplayTree(*ckpt);
//   for (int32_t child : tree.entries[0].children) show(tree.entries[child]);

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/checkpoint.h"

namespace ckpt {

enum class DisplayKind {
    Root,
    Object,
    Variable,
    ReplicatedVariable,
    SlotVariable,
    Optimizer,
    Attribute,  // one serialized tensor of an object (its checkpoint key)
    Alias,      // a further edge to a node placed elsewhere
    KeyGroup,   // name-based checkpoints: a '/'-separated key prefix
    Key,        // name-based checkpoints: one tensor
};

// String views point into the checkpoint (graph, keys) or the tree's own
// text; both must outlive the entry.
struct DisplayEntry {
    DisplayKind kind = DisplayKind::Object;
    // The row's label: an edge's local name; "m for model/dense/kernel" for
    // a slot variable; an attribute's checkpoint key; a key's last component.
    std::string_view name;
    // As stored: the edge's local name, the slot's name, the attribute's
    // name ("VARIABLE_VALUE"), the key component.
    std::string_view localName;
    // TensorFlow's display name of a node (an alias: of its target), or the
    // checkpoint key (prefix) of attribute, key and group rows. An attribute
    // whose key is only a prefix of several stored keys (a lookup table's
    // table-keys and table-values) has one row per key, named by it.
    std::string_view path;
    int32_t parent = -1;  // entry index, -1 for the root
    std::vector<int32_t> children;
    int32_t nodeId = -1;  // the object-graph node (an alias: its target)
    // A variable's VARIABLE_VALUE, an attribute's or a key's tensor; null
    // when the bundle lacks it.
    const TensorInfo* tensor = nullptr;
    const ObjectAttribute* attribute = nullptr;  // Attribute rows
    int32_t slotOf = -1;                         // slot variables: the original variable's node
    bool underSlot = false;                      // a slot variable or inside one
};

struct DisplayTreeOptions {
    bool aliases = true;  // include Alias rows
};

struct DisplayTree {
    bool objectBased = false;
    std::vector<DisplayEntry> entries;  // entries[0] is the root
    std::deque<std::string> ownedText;  // composed labels; a deque keeps views valid
};

DisplayTree buildDisplayTree(const Checkpoint& checkpoint, const DisplayTreeOptions& options = {});
// The same for a graph and tensors not (yet) in a bundle: an edit's
// preview. 'tensors' are sorted by key; a null graph gives the key tree.
DisplayTree buildDisplayTree(const ObjectGraph* graph, std::span<const TensorInfo> tensors,
                             const DisplayTreeOptions& options = {});

}  // namespace ckpt

#pragma once
// The checkpoint side of an object-based restore: the checkpoint's nodes as
// matching sees them, after any assignment map (RestoreOptions) moved them.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/match_report.h"
#include "ckpt/restore.h"

namespace ckpt::restore {

// A checkpoint node as matching sees it: the original node, or, with an
// assignment map, the node moved to its mapped place (plus virtual
// containers created along mapped paths).
// Names and keys are views into the checkpoint's object graph, which the
// restore context keeps alive: a graph of 150,000 nodes then costs no
// copy of its strings (issue #34).
struct SourceAttribute {
    std::string_view name;
    std::string_view key;
    std::string_view fullName;
    bool optional = false;
    const TensorInfo* tensor = nullptr;  // nullptr: the key is not in the bundle
};

struct SourceNode {
    // TensorFlow's pretty name of the original node: a view of the object
    // graph's, or of SourceGraph::names for names made here.
    std::string_view path;
    ObjectKind kind = ObjectKind::Object;
    bool isVirtual = false;
    // Local name -> node; names view the object graph or SourceGraph::names.
    std::vector<std::pair<std::string_view, int32_t>> children;
    std::vector<SourceAttribute> attributes;
    std::vector<SlotVariableRef> slots;
    const ObjectNode* original = nullptr;  // nullptr for virtual nodes
};

// Builds the (possibly remapped) source graph; InvalidArgument when the map
// sends two checkpoint nodes to the same path. 'unmatched' (may be null)
// receives a message for each entry whose 'from' moved no node.
struct SourceGraph {
    std::vector<SourceNode> nodes;
    // Local names and paths made here (a deque: the views stay valid).
    std::deque<std::string> names;
};
// The graph views 'ckpt's object graph: keep 'ckpt' alive while using it.
Result<SourceGraph> buildSourceGraph(const Checkpoint& ckpt, const std::vector<PathMapping>& map,
                                     std::vector<std::string>* unmatched = nullptr);
// Normalised key-path prefix ("encoder", "" for the root) of a mapping side:
// a key path ("model/dense", "model/dense/.ATTRIBUTES/...") or the tree's
// syntax ("(root).model.dense", or "model.dense": dots and no '/').
// InvalidArgument for a tree path with an empty name ("a..b", "a.").
Result<std::string> normaliseMappingPath(std::string_view path);
// Applies the first mapping whose 'from' is a whole-segment prefix of 'path';
// returns 'path' unchanged when none applies. 'applied' (may be null)
// receives the index of the mapping used, and is untouched when none is.
std::string applyMapping(const std::vector<PathMapping>& normalisedMap, const std::string& path, size_t* applied = nullptr);
// What a restore reports for a map entry that matched nothing ('what' is
// "object" or "variable name").
std::string unmatchedMappingMessage(const PathMapping& mapping, std::string_view what);

// A checkpoint attribute as the report shows it before any matching.
AttributeMatch describeAttribute(const SourceAttribute& a);
// The same into 'out' (every field), reusing its strings' buffers.
void describeAttribute(const SourceAttribute& a, AttributeMatch& out);

}  // namespace ckpt::restore

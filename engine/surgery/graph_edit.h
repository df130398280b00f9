#pragma once
// Structural edits of a TrackableObjectGraph, as the serialized proto: the
// one place that knows how removing an edge, renaming one or dropping an
// optimizer keeps node ids, slot references and checkpoint keys consistent.
// Paths are resolved against the graph as it was parsed, so a list of
// edits means the same whatever its order.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/object_graph.h"
#include "ckpt/status.h"
#include "ckpt/tensor_info.h"
#include "trackable_object_graph.pb.h"

namespace ckpt::surgery {

class GraphEdit {
public:
    // 'source' names the checkpoint in messages.
    static Result<GraphEdit> parse(std::string_view serialized, std::string source);

    const ObjectGraph& original() const { return m_original; }

    // A user's path ("(root).a.b", "a.b", "a/b", a slot's display name) to a
    // node of the original graph. InvalidArgument naming the path otherwise.
    Result<int32_t> resolve(std::string_view path) const;

    // How notes name what a path names: its object's display name, or the
    // alias edge and the object it leads to.
    std::string describe(std::string_view path) const;

    Status rename(std::string_view oldPath, std::string_view newPath);
    Status remove(std::string_view path);
    // Every optimizer's incoming edges and every slot reference; NotFound
    // when there is no optimizer state. Returns the optimizers' names.
    Result<std::vector<std::string>> stripOptimizers();

    // Slot references whose variable or slot the edits leave unreachable
    // (one line each, naming both); with 'drop', they are removed instead.
    std::vector<std::string> danglingReferences(bool drop);

    // Drops unreachable nodes, renumbers, recomputes has_checkpoint_values
    // and serializes. 'keyMap' receives old attribute key -> new key for
    // every kept attribute; removed attributes are absent from it.
    struct Finished {
        std::string serialized;
        ObjectGraph graph;
        std::map<std::string, std::string> keyMap;
        // Objects no longer in the graph: the top-most of each removed
        // subtree by name, and counts of the rest.
        std::vector<std::string> removedPaths;
        int32_t removedBelow = 0;        // objects under a removed path
        int32_t removedSlots = 0;        // slot variables
        int32_t removedUnreachable = 0;  // objects no path reached in the source
    };
    Result<Finished> finish();

private:
    GraphEdit() = default;
    // The edge a path names: its object's first path, or a further edge
    // to an object named elsewhere (an alias, as the tree shows it).
    struct Edge {
        int32_t parent;
        std::string name;
        int32_t node;
    };
    Result<Edge> edgeFor(std::string_view path) const;
    // Removes the edge, or renames it when 'renameTo' is not empty.
    Status cutEdge(const Edge& edge, const std::string& renameTo);
    int32_t childNamed(int32_t node, std::string_view localName) const;
    // Splits a user's path into the parent's path and the last local name.
    Result<std::pair<int32_t, std::string>> parentForNew(std::string_view newPath);
    std::vector<bool> reachable() const;

    std::string m_source;
    ObjectGraph m_original;
    tensorflow::TrackableObjectGraph m_proto;
    std::map<std::string, int32_t, std::less<>> m_byPath;  // pretty and key paths of the original
    std::map<std::string, int32_t> m_created;              // parents a rename created, by path
    std::vector<std::string> m_newTargets;                 // rename targets so far
};

// A rename's or move's target as typed (the tree's dotted form or the key
// form): InvalidArgument naming it when it starts with '/', has an empty,
// "." or ".." component, or holds a control character. Targets become
// keys and exported array names, which other tools take for file paths
// (docs/surgery.md, "Edit").
Status checkRenameTarget(std::string_view target);

// Old attribute key -> new key when a node's key path changed: the key's
// node prefix replaced, its tail kept; nullopt when it does not start with
// the node's old prefix (a key TensorFlow did not derive from the path).
std::optional<std::string> rekey(std::string_view key, std::string_view oldPrefix, std::string_view newPrefix);

// The union of several object graphs by object path: nodes reached by the
// same path from the root are one node; attributes are united by name (one
// name with two checkpoint keys is a conflict, named); slot references by
// (optimizer, variable, slot name). Graphs are tried in order.
Result<std::string> mergeObjectGraphs(const std::vector<std::pair<std::string, std::string>>& sourceAndGraph,
                                      std::vector<std::string>& notes);

// Each stored key's key after an edit (GraphEdit::Finished::keyMap): the
// attribute's new key for keys an attribute names exactly, or extends
// (legacy multi-spec saveables, docs/format.md, "Keys", when no key matches exactly);
// nullopt when the edit removed that attribute. Keys the graph does not
// name keep their key.
std::map<std::string, std::optional<std::string>> mapStoredKeys(const ObjectGraph& original,
                                                                const std::map<std::string, std::string>& keyMap,
                                                                const std::vector<TensorInfo>& sortedStored);

// Attribute keys of 'graph' that no tensor in 'sortedKeys' holds.
std::vector<std::string> missingAttributeKeys(const ObjectGraph& graph, const std::vector<std::string>& sortedKeys);

}  // namespace ckpt::surgery

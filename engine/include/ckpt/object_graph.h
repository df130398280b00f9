#pragma once
// The TrackableObjectGraph of an object-based checkpoint, decoded and
// named the way TensorFlow's diagnostics name nodes
// (docs/format.md, "TrackableObjectGraph" and "Key naming in object-based
// checkpoints"; docs/semantics.md, "Objects, edges and attributes").
// Immutable after parse(); safe to share between threads.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt {

struct ObjectChild {
    std::string localName;  // unescaped, as in the proto
    int32_t nodeId = 0;
};

struct ObjectAttribute {
    std::string name;           // usually VARIABLE_VALUE
    std::string fullName;       // TF1-style variable name, may be empty
    std::string checkpointKey;  // the bundle key holding the value
    bool optionalRestore = false;
};

struct SlotVariableRef {
    int32_t originalVariableNodeId = 0;
    std::string slotName;
    int32_t slotVariableNodeId = 0;
};

enum class ObjectKind {
    Root,
    Object,              // a container: model, layer, list, ...
    Variable,            // holds VARIABLE_VALUE
    ReplicatedVariable,  // VARIABLE_VALUE plus parallel_component_<i>
    SlotVariable,        // an optimizer's per-variable state
    Optimizer,           // owns slot variables, or looks like a Keras optimizer
};
std::string_view objectKindName(ObjectKind kind);  // "root", "variable", ...

struct ObjectNode {
    int32_t id = 0;
    // "(root).model.dense.kernel"; slot variables read
    // "(root).optimizer's state 'm' for (root).model.dense.kernel".
    // nullopt for nodes TensorFlow cannot name (unreachable).
    std::optional<std::string> prettyPath;
    // Escaped key path on the first BFS path ("model/dense/kernel"), as used in
    // checkpoint keys; empty for the root, slot variables and unreachable nodes.
    std::string keyPath;
    int32_t parentId = -1;  // first BFS parent; -1 for root, slots, unreachable
    std::string localName;  // name of the edge from parentId
    ObjectKind kind = ObjectKind::Object;
    std::vector<ObjectChild> children;
    std::vector<ObjectAttribute> attributes;
    std::vector<SlotVariableRef> slotVariables;
    std::optional<bool> hasCheckpointValues;  // absent in older files
    std::optional<std::string> registeredSaver;
};

// How many bytes the paths of all objects described by 'sourceBytes' bytes
// (a serialized graph, a model spec) may take. TensorFlow names each object
// by its whole first path, so a chain nested N deep has paths quadratic in
// N: the budget is generous for real graphs (their paths are a few times
// their serialized names) and refuses that blow-up before a path is built.
// ObjectGraph::parse holds graphs to it, parseModelSpec specs.
uint64_t objectPathBudget(uint64_t sourceBytes);

class ObjectGraph {
public:
    // Parses a serialized TrackableObjectGraph. Fails with DataLoss on bytes
    // that are not one, or on references to nodes that do not exist;
    // 'source' names the file for messages.
    static Result<ObjectGraph> parse(std::string_view serialized, std::string_view source);

    const std::vector<ObjectNode>& nodes() const { return m_nodes; }
    const ObjectNode& node(int32_t id) const { return m_nodes[static_cast<size_t>(id)]; }
    int32_t size() const { return static_cast<int32_t>(m_nodes.size()); }
    // Pretty path, or "<unnamed node N>" when TensorFlow could not name it.
    std::string displayName(int32_t id) const;
    int32_t numSlotVariables() const;

private:
    std::vector<ObjectNode> m_nodes;
};

// Local-name escaping used in checkpoint keys (docs/format.md, "Escaping local names"): '.' -> '..', then '/' -> '.S'.
std::string escapeLocalName(std::string_view name);
std::string unescapeLocalName(std::string_view name);

// TensorFlow's name for an optimizer's slot variable, used wherever one is
// shown: "(root).optimizer's state 'm' for (root).model.dense.kernel".
std::string slotVariablePath(std::string_view optimizerPath, std::string_view slotName, std::string_view variablePath);

// The key path TensorFlow gives a slot variable, under which its attributes
// are stored: "model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m".
std::string slotKeyPath(std::string_view variableKeyPath, std::string_view optimizerKeyPath, std::string_view slotName);

inline constexpr std::string_view kObjectGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH";
// Attribute names: a variable's value, and replica i's (i >= 1) as
// kParallelComponent + "<i>".
inline constexpr std::string_view kVariableValue = "VARIABLE_VALUE";
inline constexpr std::string_view kParallelComponent = "parallel_component_";

}  // namespace ckpt

#include "ckpt/object_graph.h"

#include <algorithm>
#include <climits>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "trackable_object_graph.pb.h"

namespace ckpt {
namespace {

// Budget for the bytes of all node paths: generous for real graphs (their
// paths are a few times the serialized names), refusing the quadratic blow-up
// of a chain nested thousands of levels deep.
constexpr uint64_t kPathBytesBase = 64u << 20;
constexpr uint64_t kPathBytesPerSerializedByte = 32;

ObjectKind classify(const ObjectNode& n, bool isSlot) {
    if (n.id == 0) return ObjectKind::Root;
    if (isSlot) return ObjectKind::SlotVariable;
    if (!n.slotVariables.empty()) return ObjectKind::Optimizer;
    bool hasValue = false, hasComponents = false;
    for (const ObjectAttribute& a : n.attributes) {
        hasValue |= a.name == kVariableValue;
        hasComponents |= a.name.rfind(kParallelComponent, 0) == 0;
    }
    if (hasValue && hasComponents) return ObjectKind::ReplicatedVariable;
    if (hasValue) return ObjectKind::Variable;
    // Keras >= 2.11 optimizers own their state as plain lists of variables.
    bool hasIterations = false;
    for (const ObjectChild& c : n.children) hasIterations |= c.localName == "iter" || c.localName == "_iterations";
    if (hasIterations) return ObjectKind::Optimizer;
    return ObjectKind::Object;
}

}  // namespace

std::string_view objectKindName(ObjectKind kind) {
    switch (kind) {
    case ObjectKind::Root: return "root";
    case ObjectKind::Object: return "object";
    case ObjectKind::Variable: return "variable";
    case ObjectKind::ReplicatedVariable: return "replicated_variable";
    case ObjectKind::SlotVariable: return "slot_variable";
    case ObjectKind::Optimizer: return "optimizer";
    }
    return "object";
}

std::string escapeLocalName(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    for (char c : name) {
        if (c == '.') out += "..";
        else if (c == '/') out += ".S";
        else out.push_back(c);
    }
    return out;
}

std::string unescapeLocalName(std::string_view name) {
    std::string out;
    for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '.' && i + 1 < name.size()) {
            if (name[i + 1] == '.') {
                out.push_back('.');
                ++i;
                continue;
            }
            if (name[i + 1] == 'S') {
                out.push_back('/');
                ++i;
                continue;
            }
        }
        out.push_back(name[i]);
    }
    return out;
}

std::string slotVariablePath(std::string_view optimizerPath, std::string_view slotName, std::string_view variablePath) {
    std::string out(optimizerPath);
    out += "'s state '";
    out += slotName;
    out += "' for ";
    out += variablePath;
    return out;
}

std::string slotKeyPath(std::string_view variableKeyPath, std::string_view optimizerKeyPath, std::string_view slotName) {
    std::string out(variableKeyPath);
    out += "/.OPTIMIZER_SLOT/";
    out += optimizerKeyPath;
    out += '/';
    out += escapeLocalName(slotName);
    return out;
}

namespace {

Status notAGraph(std::string_view source) {
    return dataLoss(std::string(kObjectGraphKey) + " in " + std::string(source) + " is not a valid TrackableObjectGraph");
}

// Nodes are decoded one at a time into a reused message instead of parsing
// the whole TrackableObjectGraph: a 100,000-variable checkpoint has 150,000
// nodes, and holding them all as protos next to our copy doubled the peak
// memory of opening it and made freeing them a third of the time. Same
// acceptance as ParseFromArray: unknown fields skipped.
Status decodeNodes(std::string_view serialized, std::string_view source, std::vector<ObjectNode>& nodes) {
    using google::protobuf::internal::WireFormatLite;
    constexpr uint32_t kNodesTag =
        WireFormatLite::MakeTag(tensorflow::TrackableObjectGraph::kNodesFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
    if (serialized.size() > static_cast<size_t>(INT_MAX)) return notAGraph(source);
    const auto* bytes = reinterpret_cast<const uint8_t*>(serialized.data());
    const auto size = static_cast<int>(serialized.size());
    {
        // Count first (skipping is cheap) so the node vector never reallocates.
        google::protobuf::io::CodedInputStream scan(bytes, size);
        size_t count = 0;
        for (uint32_t tag; (tag = scan.ReadTag()) != 0;) {
            count += tag == kNodesTag;
            if (!WireFormatLite::SkipField(&scan, tag)) return notAGraph(source);
        }
        // ReadTag() returns 0 both at the end and on a malformed tag.
        if (!scan.ConsumedEntireMessage()) return notAGraph(source);
        nodes.reserve(count);
    }
    google::protobuf::io::CodedInputStream in(bytes, size);
    tensorflow::TrackableObjectGraph::TrackableObject p;
    for (uint32_t tag; (tag = in.ReadTag()) != 0;) {
        if (tag != kNodesTag) {
            if (!WireFormatLite::SkipField(&in, tag)) return notAGraph(source);
            continue;
        }
        uint32_t length = 0;
        if (!in.ReadVarint32(&length)) return notAGraph(source);
        const auto limit = in.PushLimit(static_cast<int>(length));
        p.Clear();
        if (!p.MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) return notAGraph(source);
        in.PopLimit(limit);

        ObjectNode& n = nodes.emplace_back();
        n.id = static_cast<int32_t>(nodes.size() - 1);
        n.children.reserve(static_cast<size_t>(p.children_size()));
        n.attributes.reserve(static_cast<size_t>(p.attributes_size()));
        for (const auto& c : p.children()) n.children.push_back({c.local_name(), c.node_id()});
        for (const auto& a : p.attributes())
            n.attributes.push_back({a.name(), a.full_name(), a.checkpoint_key(), a.optional_restore()});
        for (const auto& sv : p.slot_variables())
            n.slotVariables.push_back({sv.original_variable_node_id(), sv.slot_name(), sv.slot_variable_node_id()});
        if (p.has_has_checkpoint_values()) n.hasCheckpointValues = p.has_checkpoint_values().value();
        if (p.has_registered_saver()) n.registeredSaver = p.registered_saver().name();
    }
    if (!in.ConsumedEntireMessage()) return notAGraph(source);
    return okStatus();
}

// Every child edge and slot reference names a node of the graph.
Status checkReferences(const std::vector<ObjectNode>& nodes, std::string_view source) {
    const auto count = static_cast<int32_t>(nodes.size());
    auto badRef = [&](int32_t from, int32_t to, const char* what) {
        return dataLoss(std::string(kObjectGraphKey) + " in " + std::string(source) + ": node " + std::to_string(from) + " " +
                        what + " node " + std::to_string(to) + ", but the graph has " + std::to_string(count) + " nodes");
    };
    for (const ObjectNode& n : nodes) {
        for (const ObjectChild& c : n.children)
            if (c.nodeId < 0 || c.nodeId >= count) return badRef(n.id, c.nodeId, "has a child edge to");
        for (const SlotVariableRef& sv : n.slotVariables) {
            if (sv.originalVariableNodeId < 0 || sv.originalVariableNodeId >= count)
                return badRef(n.id, sv.originalVariableNodeId, "has a slot for");
            if (sv.slotVariableNodeId < 0 || sv.slotVariableNodeId >= count)
                return badRef(n.id, sv.slotVariableNodeId, "has a slot variable at");
        }
    }
    return okStatus();
}

// The first BFS path from the root, children in listed order: each reached
// node gets its parent and local name here, and the bytes its paths will
// take are measured (linear) before any path is built.
struct BfsPaths {
    std::vector<int32_t> order{0};  // BFS order
    std::vector<uint64_t> prettyBytes, keyBytes;
    std::vector<bool> seen;
    uint64_t totalBytes = 6;  // "(root)"
    int32_t maxDepth = 0;
};

BfsPaths measureBfsPaths(std::vector<ObjectNode>& nodes) {
    const size_t count = nodes.size();
    BfsPaths bfs;
    bfs.prettyBytes.assign(count, 0);
    bfs.keyBytes.assign(count, 0);
    bfs.seen.assign(count, false);
    std::vector<int32_t> depth(count, 0);
    bfs.seen[0] = true;
    bfs.prettyBytes[0] = 6;  // "(root)"
    for (size_t next = 0; next < bfs.order.size(); ++next) {
        const int32_t id = bfs.order[next];
        for (const ObjectChild& c : nodes[static_cast<size_t>(id)].children) {
            const auto child = static_cast<size_t>(c.nodeId);
            if (bfs.seen[child]) continue;
            bfs.seen[child] = true;
            ObjectNode& node = nodes[child];
            node.parentId = id;
            node.localName = c.localName;
            const size_t escapes = static_cast<size_t>(std::count(c.localName.begin(), c.localName.end(), '.') +
                                                       std::count(c.localName.begin(), c.localName.end(), '/'));
            bfs.prettyBytes[child] = bfs.prettyBytes[static_cast<size_t>(id)] + 1 + c.localName.size();
            bfs.keyBytes[child] = bfs.keyBytes[static_cast<size_t>(id)] + 1 + c.localName.size() + escapes;
            depth[child] = depth[static_cast<size_t>(id)] + 1;
            bfs.maxDepth = std::max(bfs.maxDepth, depth[child]);
            bfs.totalBytes += bfs.prettyBytes[child] + bfs.keyBytes[child];
            bfs.order.push_back(c.nodeId);
        }
    }
    return bfs;
}

// Slot variables TensorFlow names by their optimizer and variable. Only BFS
// names go into them, so slots of slots (or cycles of them) never nest
// names into longer names.
struct SlotName {
    int32_t slot, optimizer, variable;
    const std::string* name;
};

std::vector<SlotName> slotNamesOf(const std::vector<ObjectNode>& nodes, BfsPaths& bfs, std::vector<bool>& isSlot) {
    std::vector<SlotName> slotNames;
    for (const ObjectNode& n : nodes) {
        for (const SlotVariableRef& s : n.slotVariables) {
            const auto slot = static_cast<size_t>(s.slotVariableNodeId);
            const auto var = static_cast<size_t>(s.originalVariableNodeId);
            isSlot[slot] = true;
            // As TensorFlow: a later reference renames the slot, even one the
            // BFS named; but never the root, and never from an unnamed node.
            if (slot == 0 || !bfs.seen[static_cast<size_t>(n.id)] || !bfs.seen[var]) continue;
            slotNames.push_back({s.slotVariableNodeId, n.id, s.originalVariableNodeId, &s.slotName});
            bfs.totalBytes += bfs.prettyBytes[static_cast<size_t>(n.id)] + s.slotName.size() + bfs.prettyBytes[var] + 16;
        }
    }
    return slotNames;
}

// TensorFlow's names for every node (docs/format.md, "Key naming in object-based checkpoints"). Each
// path repeats its parent's, so a deep chain makes the names quadratic in
// the graph: a graph whose names would outgrow a budget proportional to its
// size is refused before any is built.
Status nameNodes(std::vector<ObjectNode>& nodes, size_t serializedBytes, std::string_view source) {
    BfsPaths bfs = measureBfsPaths(nodes);
    std::vector<bool> isSlot(nodes.size(), false);
    const std::vector<SlotName> slotNames = slotNamesOf(nodes, bfs, isSlot);
    const uint64_t budget = kPathBytesBase + kPathBytesPerSerializedByte * serializedBytes;
    if (bfs.totalBytes > budget)
        return dataLoss(std::string(kObjectGraphKey) + " in " + std::string(source) + ": objects nest " +
                        std::to_string(bfs.maxDepth) + " levels deep and their paths would take " +
                        std::to_string(bfs.totalBytes) + " bytes, more than the " + std::to_string(budget) +
                        " this graph's size allows");
    nodes[0].prettyPath = "(root)";
    for (size_t i = 1; i < bfs.order.size(); ++i) {
        ObjectNode& child = nodes[static_cast<size_t>(bfs.order[i])];
        const ObjectNode& parent = nodes[static_cast<size_t>(child.parentId)];
        child.prettyPath = *parent.prettyPath + "." + child.localName;
        child.keyPath = (parent.keyPath.empty() ? "" : parent.keyPath + "/") + escapeLocalName(child.localName);
    }
    // All built before any is assigned: a renamed node's new name never
    // goes into another slot's name.
    std::vector<std::string> slotPaths;
    slotPaths.reserve(slotNames.size());
    for (const SlotName& s : slotNames)
        slotPaths.push_back(slotVariablePath(*nodes[static_cast<size_t>(s.optimizer)].prettyPath, *s.name,
                                             *nodes[static_cast<size_t>(s.variable)].prettyPath));
    for (size_t i = 0; i < slotNames.size(); ++i)
        nodes[static_cast<size_t>(slotNames[i].slot)].prettyPath = std::move(slotPaths[i]);
    for (ObjectNode& n : nodes) n.kind = classify(n, isSlot[static_cast<size_t>(n.id)]);
    return okStatus();
}

}  // namespace

Result<ObjectGraph> ObjectGraph::parse(std::string_view serialized, std::string_view source) {
    ObjectGraph graph;
    CKPT_RETURN_IF_ERROR(decodeNodes(serialized, source, graph.m_nodes));
    if (graph.m_nodes.empty())
        return dataLoss(std::string(kObjectGraphKey) + " in " + std::string(source) + " has no nodes (no root object)");
    CKPT_RETURN_IF_ERROR(checkReferences(graph.m_nodes, source));
    CKPT_RETURN_IF_ERROR(nameNodes(graph.m_nodes, serialized.size(), source));
    return graph;
}

std::string ObjectGraph::displayName(int32_t id) const {
    const ObjectNode& n = node(id);
    return n.prettyPath ? *n.prettyPath : "<unnamed node " + std::to_string(id) + ">";
}

int32_t ObjectGraph::numSlotVariables() const {
    int32_t total = 0;
    for (const ObjectNode& n : m_nodes) total += static_cast<int32_t>(n.slotVariables.size());
    return total;
}

}  // namespace ckpt

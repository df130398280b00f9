#include "ckpt/object_graph.h"

#include <deque>

#include <google/protobuf/arena.h>

#include "trackable_object_graph.pb.h"

namespace ckpt {
namespace {

constexpr std::string_view kVariableValue = "VARIABLE_VALUE";
constexpr std::string_view kParallelComponent = "parallel_component_";

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
    for (const ObjectChild& c : n.children)
        hasIterations |= c.localName == "iter" || c.localName == "_iterations";
    if (hasIterations) return ObjectKind::Optimizer;
    return ObjectKind::Object;
}

} // namespace

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
            if (name[i + 1] == '.') { out.push_back('.'); ++i; continue; }
            if (name[i + 1] == 'S') { out.push_back('/'); ++i; continue; }
        }
        out.push_back(name[i]);
    }
    return out;
}

Result<ObjectGraph> ObjectGraph::parse(std::string_view serialized, std::string_view source) {
    // An arena makes the proto's many small allocations one bump pointer and
    // its destruction one free: for a 150,000-node graph that halves parse().
    google::protobuf::Arena arena;
    auto& proto = *google::protobuf::Arena::CreateMessage<tensorflow::TrackableObjectGraph>(&arena);
    if (!proto.ParseFromArray(serialized.data(), static_cast<int>(serialized.size())))
        return dataLoss(std::string(kObjectGraphKey) + " in " + std::string(source) + " is not a valid TrackableObjectGraph");
    if (proto.nodes_size() == 0)
        return dataLoss(std::string(kObjectGraphKey) + " in " + std::string(source) + " has no nodes (no root object)");
    const int32_t count = proto.nodes_size();
    auto badRef = [&](int32_t from, int32_t to, const char* what) {
        return dataLoss(std::string(kObjectGraphKey) + " in " + std::string(source) + ": node " + std::to_string(from) + " " +
                        what + " node " + std::to_string(to) + ", but the graph has " + std::to_string(count) + " nodes");
    };

    ObjectGraph graph;
    graph.m_nodes.resize(static_cast<size_t>(count));
    for (int32_t id = 0; id < count; ++id) {
        const auto& p = proto.nodes(id);
        ObjectNode& n = graph.m_nodes[static_cast<size_t>(id)];
        n.id = id;
        n.children.reserve(static_cast<size_t>(p.children_size()));
        n.attributes.reserve(static_cast<size_t>(p.attributes_size()));
        for (const auto& c : p.children()) {
            if (c.node_id() < 0 || c.node_id() >= count) return badRef(id, c.node_id(), "has a child edge to");
            n.children.push_back({c.local_name(), c.node_id()});
        }
        for (const auto& a : p.attributes())
            n.attributes.push_back({a.name(), a.full_name(), a.checkpoint_key(), a.optional_restore()});
        for (const auto& s : p.slot_variables()) {
            if (s.original_variable_node_id() < 0 || s.original_variable_node_id() >= count)
                return badRef(id, s.original_variable_node_id(), "has a slot for");
            if (s.slot_variable_node_id() < 0 || s.slot_variable_node_id() >= count)
                return badRef(id, s.slot_variable_node_id(), "has a slot variable at");
            n.slotVariables.push_back({s.original_variable_node_id(), s.slot_name(), s.slot_variable_node_id()});
        }
        if (p.has_has_checkpoint_values()) n.hasCheckpointValues = p.has_checkpoint_values().value();
        if (p.has_registered_saver()) n.registeredSaver = p.registered_saver().name();
    }

    // First BFS path from the root names each node, children in listed order.
    std::vector<bool> seen(static_cast<size_t>(count), false);
    std::deque<int32_t> queue{0};
    seen[0] = true;
    graph.m_nodes[0].prettyPath = "(root)";
    while (!queue.empty()) {
        const int32_t id = queue.front();
        queue.pop_front();
        const ObjectNode& parent = graph.m_nodes[static_cast<size_t>(id)];
        for (const ObjectChild& c : parent.children) {
            if (seen[static_cast<size_t>(c.nodeId)]) continue;
            seen[static_cast<size_t>(c.nodeId)] = true;
            ObjectNode& child = graph.m_nodes[static_cast<size_t>(c.nodeId)];
            child.prettyPath = *parent.prettyPath + "." + c.localName;
            child.keyPath = (parent.keyPath.empty() ? "" : parent.keyPath + "/") + escapeLocalName(c.localName);
            child.parentId = id;
            child.localName = c.localName;
            queue.push_back(c.nodeId);
        }
    }
    std::vector<bool> isSlot(static_cast<size_t>(count), false);
    for (const ObjectNode& n : graph.m_nodes) {
        for (const SlotVariableRef& s : n.slotVariables) {
            isSlot[static_cast<size_t>(s.slotVariableNodeId)] = true;
            ObjectNode& slot = graph.m_nodes[static_cast<size_t>(s.slotVariableNodeId)];
            const auto& var = graph.m_nodes[static_cast<size_t>(s.originalVariableNodeId)].prettyPath;
            if (n.prettyPath && var) slot.prettyPath = *n.prettyPath + "'s state '" + s.slotName + "' for " + *var;
        }
    }
    for (ObjectNode& n : graph.m_nodes) n.kind = classify(n, isSlot[static_cast<size_t>(n.id)]);
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

} // namespace ckpt

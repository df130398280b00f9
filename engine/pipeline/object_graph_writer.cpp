// Trackable graph -> TrackableObjectGraph + tensors, the way TensorFlow's
// saver lays them out (docs/format.md, "TrackableObjectGraph", "Keys", "Slot variables").

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "ckpt/object_graph.h"
#include "ckpt/save.h"
#include "pipeline/save_graph.h"
#include "trackable_object_graph.pb.h"

namespace ckpt {
namespace {

struct GraphBuild {
    tensorflow::TrackableObjectGraph proto;
    std::vector<SaveTensor> tensors;      // without the graph tensor
    std::vector<const Tensor*> sources;   // the variable value each tensor is taken from
    std::vector<const Variable*> owners;  // and the variable it belongs to
    bool copyBytes = true;                // false: fixed-size bytes left for the caller to fill
};

std::string attributeKey(const std::string& objectPath, std::string_view attribute) {
    return objectPath + "/.ATTRIBUTES/" + escapeLocalName(attribute);
}

void addVariableAttributes(tensorflow::TrackableObjectGraph::TrackableObject& node, const std::string& objectPath,
                           const Variable& v, GraphBuild& out) {
    for (int r = 0; r < v.replicas(); ++r) {
        const std::string name = r == 0 ? std::string(kVariableValue) : std::string(kParallelComponent) + std::to_string(r);
        auto* attr = node.add_attributes();
        attr->set_name(name);
        attr->set_checkpoint_key(attributeKey(objectPath, name));
        const Tensor& value = v.value(r);
        Tensor copy;
        if (out.copyBytes) {
            copy = value;
        } else {
            copy.dtype = value.dtype;
            copy.shape = value.shape;
            copy.strings = value.strings;
        }
        out.tensors.push_back({attr->checkpoint_key(), std::move(copy), v.device(), std::nullopt, value.shape});
        out.sources.push_back(&value);
        out.owners.push_back(&v);
    }
}

Result<GraphBuild> buildGraph(const Trackable& root, bool copyBytes = true) {
    GraphBuild out;
    out.copyBytes = copyBytes;
    std::vector<const Trackable*> order;
    std::vector<std::string> paths;
    std::unordered_map<const Trackable*, int> ids;
    order.push_back(&root);
    paths.emplace_back();
    ids[&root] = 0;
    // BFS: ids in discovery order, each object's path is its first BFS path.
    for (size_t i = 0; i < order.size(); ++i) {
        for (const Trackable::Child& c : order[i]->children()) {
            if (ids.count(c.object.get())) continue;
            ids[c.object.get()] = static_cast<int>(order.size());
            order.push_back(c.object.get());
            paths.push_back(paths[i].empty() ? escapeLocalName(c.name) : paths[i] + "/" + escapeLocalName(c.name));
        }
    }
    for (size_t i = 0; i < order.size(); ++i) {
        auto* node = out.proto.add_nodes();
        for (const Trackable::Child& c : order[i]->children()) {
            auto* ref = node->add_children();
            ref->set_node_id(ids[c.object.get()]);
            ref->set_local_name(c.name);
        }
        if (order[i]->kind() == Trackable::Kind::Variable)
            addVariableAttributes(*node, paths[i], *static_cast<const Variable*>(order[i]), out);
    }
    // docs/format.md, "Slot variables": slot nodes after all BFS nodes: per optimizer, per slot name, per variable in BFS order.
    // Each optimizer's own slots are sorted, not every object probed: an
    // optimizer's work is its slots', however many objects the graph holds.
    const size_t bfsCount = order.size();
    for (size_t oi = 0; oi < bfsCount; ++oi) {
        if (order[oi]->kind() != Trackable::Kind::Optimizer) continue;
        const auto* opt = static_cast<const Optimizer*>(order[oi]);
        // Slot names in first-creation order, each with its slots.
        std::unordered_map<std::string_view, size_t> groupOf;
        std::vector<std::vector<std::pair<int, const Optimizer::Slot*>>> groups;
        for (const Optimizer::Slot& s : opt->slotVariables()) {
            const auto [group, added] = groupOf.try_emplace(s.name, groups.size());
            if (added) groups.emplace_back();
            const auto variable = s.variable.lock();
            const auto id = variable && s.slot ? ids.find(variable.get()) : ids.end();
            if (id != ids.end()) groups[group->second].emplace_back(id->second, &s);
        }
        for (auto& slots : groups) {
            std::stable_sort(slots.begin(), slots.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            int previous = -1;
            for (const auto& [vi, slot] : slots) {
                if (vi == previous) continue;  // one slot per variable and name (a dead variable's may linger)
                previous = vi;
                const int slotId = out.proto.nodes_size();
                auto* ref = out.proto.mutable_nodes(static_cast<int>(oi))->add_slot_variables();
                ref->set_original_variable_node_id(vi);
                ref->set_slot_name(slot->name);
                ref->set_slot_variable_node_id(slotId);
                const std::string slotPath = slotKeyPath(paths[static_cast<size_t>(vi)], paths[oi], slot->name);
                auto* node = out.proto.add_nodes();
                addVariableAttributes(*node, slotPath, *slot->slot, out);
            }
        }
    }
    pipeline::markCheckpointValues(out.proto);
    // A duplicate key would make the bundle ambiguous (docs/semantics.md, "Save").
    std::set<std::string_view> keys;
    for (const SaveTensor& t : out.tensors)
        if (!keys.insert(t.key).second) return invalidArgument("two objects save the same checkpoint key \"" + t.key + "\"");
    return out;
}

// Appends the object graph tensor, which every save stores last.
std::vector<SaveTensor> withGraphTensor(GraphBuild& g) {
    Tensor graph;
    graph.dtype = DataType::String;
    graph.strings.emplace_back();
    g.proto.SerializeToString(&graph.strings.back());
    g.tensors.push_back({std::string(kObjectGraphKey), std::move(graph), std::string(), std::nullopt, TensorShape{}});
    return std::move(g.tensors);
}

}  // namespace

// A node has checkpoint values when it or anything below it (children, or an
// optimizer's slots) saves a tensor; TF propagates this up the parent edges.
void pipeline::markCheckpointValues(tensorflow::TrackableObjectGraph& graph) {
    const int n = graph.nodes_size();
    std::map<int, std::set<int>> parents;
    std::set<int> checkpointed;
    for (int id = 0; id < n; ++id) {
        const auto& node = graph.nodes(id);
        if (node.attributes_size() > 0 || node.slot_variables_size() > 0 || node.has_registered_saver()) checkpointed.insert(id);
        for (const auto& c : node.children()) parents[c.node_id()].insert(id);
    }
    std::set<int> toVisit = checkpointed;
    while (!toVisit.empty()) {
        const int id = *toVisit.begin();
        toVisit.erase(toVisit.begin());
        auto it = parents.find(id);
        if (it == parents.end()) continue;
        const std::set<int> current = std::move(it->second);
        parents.erase(it);
        for (int p : current) {
            checkpointed.insert(p);
            if (parents.count(p)) toVisit.insert(p);
        }
    }
    for (int id = 0; id < n; ++id)
        graph.mutable_nodes(id)->mutable_has_checkpoint_values()->set_value(checkpointed.count(id) > 0);
}

Result<std::string> serializeObjectGraph(const Trackable& root) {
    CKPT_ASSIGN_OR_RETURN(GraphBuild g, buildGraph(root));
    std::string bytes;
    g.proto.SerializeToString(&bytes);
    return bytes;
}

Result<std::vector<SaveTensor>> snapshotForSave(const Trackable& root) {
    CKPT_ASSIGN_OR_RETURN(GraphBuild g, buildGraph(root));
    return withGraphTensor(g);
}

Result<std::vector<SaveTensor>> borrowForSave(const Trackable& root) {
    CKPT_ASSIGN_OR_RETURN(GraphBuild g, buildGraph(root, /*copyBytes=*/false));
    for (size_t i = 0; i < g.sources.size(); ++i) g.tensors[i].borrowed = g.sources[i];
    return withGraphTensor(g);
}

namespace pipeline {

Result<UnfilledSnapshot> collectSaveTensors(const Trackable& root) {
    CKPT_ASSIGN_OR_RETURN(GraphBuild g, buildGraph(root, /*copyBytes=*/false));
    UnfilledSnapshot out;
    out.sources = std::move(g.sources);
    out.owners = std::move(g.owners);
    out.tensors = withGraphTensor(g);
    return out;
}

}  // namespace pipeline

}  // namespace ckpt

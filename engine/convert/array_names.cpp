#include "convert/array_names.h"

#include "ckpt/convert.h"

#include <string_view>

namespace ckpt::convert {
namespace {

// "(root).model.dense.kernel" -> "model.dense.kernel"; the root alone keeps
// "(root)" so that its own attributes still have a name.
std::string withoutRoot(std::string_view pretty) {
    constexpr std::string_view kRoot = "(root)";
    if (pretty == kRoot) return std::string(kRoot);
    if (pretty.substr(0, kRoot.size() + 1) == "(root).") pretty.remove_prefix(kRoot.size() + 1);
    return std::string(pretty);
}

// Optimizers, anything below one on its first path, and slot variables.
std::vector<bool> optimizerOwned(const ObjectGraph& graph) {
    std::vector<bool> owned(static_cast<size_t>(graph.size()), false);
    for (const ObjectNode& n : graph.nodes()) {
        if (n.kind == ObjectKind::SlotVariable || n.kind == ObjectKind::Optimizer) {
            owned[static_cast<size_t>(n.id)] = true;
            continue;
        }
        // The parent chain is a BFS tree: it ends, bounded by the node count.
        int32_t p = n.parentId;
        for (int32_t steps = 0; p >= 0 && steps < graph.size(); ++steps) {
            if (graph.node(p).kind == ObjectKind::Optimizer) {
                owned[static_cast<size_t>(n.id)] = true;
                break;
            }
            p = graph.node(p).parentId;
        }
    }
    return owned;
}

}  // namespace

std::map<std::string, ArrayName> objectPathNames(const ObjectGraph& graph) {
    std::vector<std::string> base(static_cast<size_t>(graph.size()));
    for (const ObjectNode& n : graph.nodes())
        if (n.prettyPath && n.kind != ObjectKind::SlotVariable) base[static_cast<size_t>(n.id)] = withoutRoot(*n.prettyPath);
    // Slot variables: "<optimizer>/<slot>/<variable>", the three parts of
    // TensorFlow's "<optimizer>'s state '<slot>' for <variable>".
    for (const ObjectNode& n : graph.nodes()) {
        if (!n.prettyPath) continue;
        for (const SlotVariableRef& ref : n.slotVariables) {
            if (ref.slotVariableNodeId < 0 || ref.slotVariableNodeId >= graph.size() || ref.originalVariableNodeId < 0 ||
                ref.originalVariableNodeId >= graph.size())
                continue;
            const ObjectNode& original = graph.node(ref.originalVariableNodeId);
            std::string& slotBase = base[static_cast<size_t>(ref.slotVariableNodeId)];
            if (!original.prettyPath || !slotBase.empty()) continue;
            slotBase = withoutRoot(*n.prettyPath) + "/" + ref.slotName + "/" + withoutRoot(*original.prettyPath);
        }
    }
    const std::vector<bool> owned = optimizerOwned(graph);
    std::map<std::string, ArrayName> out;
    for (const ObjectNode& n : graph.nodes()) {
        const std::string& b = base[static_cast<size_t>(n.id)];
        if (b.empty()) continue;
        for (const ObjectAttribute& a : n.attributes) {
            if (a.checkpointKey.empty() || out.count(a.checkpointKey)) continue;
            std::string name = a.name == kVariableValue ? b : b + ":" + a.name;
            out.emplace(a.checkpointKey, ArrayName{std::move(name), owned[static_cast<size_t>(n.id)]});
        }
    }
    return out;
}

}  // namespace ckpt::convert

namespace ckpt {

std::vector<NamedTensor> namedTensors(const Checkpoint& checkpoint) {
    std::map<std::string, convert::ArrayName> paths;
    if (checkpoint.objectGraph()) paths = convert::objectPathNames(*checkpoint.objectGraph());
    std::vector<NamedTensor> out;
    out.reserve(checkpoint.bundle().tensors().size());
    for (const TensorInfo& t : checkpoint.bundle().tensors()) {
        if (t.key == kObjectGraphKey) continue;
        const auto named = paths.find(t.key);
        if (named == paths.end()) out.push_back({&t, t.key, false});
        else out.push_back({&t, named->second.name, named->second.optimizerState});
    }
    return out;
}

}  // namespace ckpt

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
// "An optimizer on the first path" is memoised per node, so a walk up stops
// at the first node already decided: linear however deep the paths nest.
std::vector<bool> optimizerOwned(const ObjectGraph& graph) {
    enum : uint8_t { kUnknown, kNo, kYes };
    const auto count = static_cast<size_t>(graph.size());
    std::vector<uint8_t> onPath(count, kUnknown);  // the node or an ancestor is an optimizer
    std::vector<int32_t> chain;
    for (const ObjectNode& start : graph.nodes()) {
        chain.clear();
        uint8_t verdict = kNo;
        // The parent chain is a BFS tree: it ends, bounded by the node count.
        for (int32_t id = start.id; id >= 0 && chain.size() <= count; id = graph.node(id).parentId) {
            if (onPath[static_cast<size_t>(id)] != kUnknown) {
                verdict = onPath[static_cast<size_t>(id)];
                break;
            }
            if (graph.node(id).kind == ObjectKind::Optimizer) {
                verdict = kYes;
                onPath[static_cast<size_t>(id)] = kYes;
                break;
            }
            chain.push_back(id);
        }
        for (int32_t c : chain) onPath[static_cast<size_t>(c)] = verdict;
    }
    std::vector<bool> owned(count, false);
    for (const ObjectNode& n : graph.nodes())
        owned[static_cast<size_t>(n.id)] = n.kind == ObjectKind::SlotVariable || onPath[static_cast<size_t>(n.id)] == kYes;
    return owned;
}

void percentEncode(std::string& out, unsigned char c) {
    static const char* kHex = "0123456789ABCDEF";
    out += '%';
    out += kHex[c >> 4];
    out += kHex[c & 15];
}

}  // namespace

std::string containedName(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    for (size_t start = 0;;) {
        const size_t end = name.find('/', start);
        const std::string_view part = name.substr(start, end == std::string_view::npos ? name.npos : end - start);
        const bool last = end == std::string_view::npos;
        if (part == "." || part == "..") {
            for (size_t i = 0; i < part.size(); ++i) percentEncode(out, '.');
        } else {
            for (const char ch : part) {
                const auto c = static_cast<unsigned char>(ch);
                if (c < 0x20 || c == 0x7f || c == '\\') percentEncode(out, c);
                else out += ch;
            }
        }
        if (last) break;
        // A '/' that would leave an empty part (leading, doubled, trailing)
        // is encoded into the name instead of separating.
        const bool emptyAround = part.empty() || end + 1 == name.size() || name[end + 1] == '/';
        if (emptyAround) percentEncode(out, '/');
        else out += '/';
        start = end + 1;
    }
    return out;
}

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

#include "compare/comparable.h"

#include <fnmatch.h>

#include <algorithm>
#include <unordered_map>

namespace ckpt::compare {
namespace {

// Deep graphs (a 200,000-long chain) must not cost depth x nodes: a
// location keeps its last components only.
constexpr int kMaxLocationDepth = 256;
constexpr std::string_view kElided = "\u2026";

// TF1 optimizers' slot names, the last component of "<variable>/<slot>".
constexpr std::string_view kNameBasedSlots[] = {"Adam",    "Adam_1",   "Momentum",   "RMSProp", "RMSProp_1",
                                                "Adagrad", "Adadelta", "Adadelta_1", "Ftrl",    "Ftrl_1",
                                                "AdamW",   "AdamW_1",  "Nadam",      "Nadam_1", "accumulator"};
constexpr std::string_view kNameBasedOptimizerKeys[] = {"global_step", "beta1_power", "beta2_power"};

struct SlotInfo {
    int32_t optimizer = -1, variable = -1;
    std::string_view name;
};

class GraphNames {
public:
    explicit GraphNames(const ObjectGraph& g) : m_graph(g) {
        for (const ObjectNode& n : g.nodes())
            for (const SlotVariableRef& s : n.slotVariables)
                m_slots.emplace(s.slotVariableNodeId, SlotInfo{n.id, s.originalVariableNodeId, s.slotName});
    }

    const SlotInfo* slot(int32_t id) const {
        auto it = m_slots.find(id);
        return it == m_slots.end() ? nullptr : &it->second;
    }

    std::vector<std::string> location(int32_t id) const {
        if (const SlotInfo* s = slot(id)) {
            auto loc = nodeLocation(s->variable);
            loc.push_back(std::string(s->name) + " (" + relativeName(s->optimizer) + ")");
            return loc;
        }
        return nodeLocation(id);
    }

    // Inside an optimizer (its own values, hyperparameters, iteration
    // count), a slot variable, or the root's save counter.
    bool optimizerState(int32_t id) const {
        if (slot(id)) return true;
        const ObjectNode& n = m_graph.node(id);
        if (n.parentId == 0 && n.localName == "save_counter") return true;
        int depth = 0;
        for (int32_t at = id; at >= 0 && depth < kMaxLocationDepth; at = m_graph.node(at).parentId, ++depth)
            if (m_graph.node(at).kind == ObjectKind::Optimizer) return true;
        return false;
    }

private:
    std::vector<std::string> nodeLocation(int32_t id) const {
        std::vector<std::string> loc;
        const ObjectNode* n = &m_graph.node(id);
        if (!n->prettyPath) return {m_graph.displayName(id)};
        for (; n->parentId >= 0; n = &m_graph.node(n->parentId)) {
            if (static_cast<int>(loc.size()) == kMaxLocationDepth) {
                loc.emplace_back(kElided);
                break;
            }
            loc.push_back(n->localName);
        }
        std::reverse(loc.begin(), loc.end());
        return loc;
    }
    std::string relativeName(int32_t id) const {
        std::string name = m_graph.displayName(id);
        constexpr std::string_view kRoot = "(root).";
        return name.starts_with(kRoot) ? name.substr(kRoot.size()) : name;
    }

    const ObjectGraph& m_graph;
    std::unordered_map<int32_t, SlotInfo> m_slots;
};

bool excludedBy(const ValueFilter& f, const ComparableValue& v) {
    if (f.weightsOnly && v.optimizerState) return true;
    auto matches = [&](const std::string& pattern) {
        return globMatches(pattern, v.path) || (v.tensor && globMatches(pattern, v.tensor->key));
    };
    if (!f.includes.empty() && std::none_of(f.includes.begin(), f.includes.end(), matches)) return true;
    return std::any_of(f.excludes.begin(), f.excludes.end(), matches);
}

void keyBased(const TensorInfo& t, ComparableValue& v) {
    v.path = t.key;
    v.location = keyLocation(t.key);
    const std::string_view key = t.key;
    const std::string_view last = v.location.empty() ? key : std::string_view(v.location.back());
    const bool tf1Slot = v.location.size() > 1 &&
                         std::find(std::begin(kNameBasedSlots), std::end(kNameBasedSlots), last) != std::end(kNameBasedSlots);
    if (tf1Slot) {
        v.role = DiffRole::SlotVariable;
        v.slotName = std::string(last);
        v.slotOf = std::string(key.substr(0, key.size() - last.size() - 1));
    }
    v.optimizerState = tf1Slot || key.find("/.OPTIMIZER_SLOT/") != std::string_view::npos || key.starts_with("optimizer/") ||
                       key.starts_with("save_counter/") ||
                       std::find(std::begin(kNameBasedOptimizerKeys), std::end(kNameBasedOptimizerKeys), key) !=
                           std::end(kNameBasedOptimizerKeys);
}

}  // namespace

bool globMatches(const std::string& pattern, std::string_view text) {
    return fnmatch(pattern.c_str(), std::string(text).c_str(), 0) == 0;
}

std::vector<std::string> keyLocation(std::string_view key) {
    std::vector<std::string> parts;
    size_t pos = 0;
    while (pos <= key.size()) {
        const size_t slash = std::min(key.find('/', pos), key.size());
        if (slash > pos) parts.emplace_back(key.substr(pos, slash - pos));
        pos = slash + 1;
    }
    if (parts.empty()) parts.emplace_back(key);
    return parts;
}

ComparableValues comparableValues(const Checkpoint& checkpoint, bool byPath, const ValueFilter& filter) {
    ComparableValues out;
    const BundleReader& bundle = checkpoint.bundle();
    std::vector<bool> used(bundle.tensors().size(), false);
    auto keep = [&](ComparableValue&& v) {
        if (excludedBy(filter, v)) ++out.excluded;
        else out.values.push_back(std::move(v));
    };
    const ObjectGraph* graph = byPath ? checkpoint.objectGraph() : nullptr;
    if (graph) {
        const GraphNames names(*graph);
        for (const ObjectNode& node : graph->nodes()) {
            for (const ObjectAttribute& attr : node.attributes) {
                const TensorInfo* t = checkpoint.tensorForAttribute(attr);
                if (!t) continue;  // a missing key: the reader's verify reports it
                const auto index = static_cast<size_t>(t - bundle.tensors().data());
                if (used[index]) continue;  // two attributes naming one key: pair it once
                used[index] = true;
                ComparableValue v;
                v.tensor = t;
                v.location = names.location(node.id);
                const bool value = attr.name == kVariableValue;
                v.path = node.prettyPath ? *node.prettyPath : t->key;
                if (!value) {
                    v.path += "[" + attr.name + "]";
                    v.location.push_back(attr.name);
                }
                if (const SlotInfo* s = names.slot(node.id)) {
                    v.role = DiffRole::SlotVariable;
                    v.slotOf = graph->displayName(s->variable);
                    v.optimizer = graph->displayName(s->optimizer);
                    v.slotName = std::string(s->name);
                } else {
                    const bool variable = node.kind == ObjectKind::Variable || node.kind == ObjectKind::ReplicatedVariable;
                    v.role = variable && value ? DiffRole::Variable : DiffRole::Attribute;
                }
                v.optimizerState = names.optimizerState(node.id);
                keep(std::move(v));
            }
        }
    }
    // Pairing an object-based checkpoint by key (against a name-based one):
    // a variable's TF1 name (full_name) is the key it would have there, as in
    // TensorFlow's name-based restore.
    std::unordered_map<std::string_view, std::string_view> fullNames;
    if (!byPath && checkpoint.objectGraph()) {
        for (const ObjectNode& node : checkpoint.objectGraph()->nodes())
            for (const ObjectAttribute& attr : node.attributes)
                if (!attr.fullName.empty()) fullNames.emplace(attr.checkpointKey, attr.fullName);
    }
    // Keys no attribute names (and every key when pairing by key).
    for (size_t i = 0; i < bundle.tensors().size(); ++i) {
        const TensorInfo& t = bundle.tensors()[i];
        if (used[i] || t.key == kObjectGraphKey) continue;
        ComparableValue v;
        v.tensor = &t;
        keyBased(t, v);
        if (auto full = fullNames.find(t.key); full != fullNames.end()) {
            v.path = std::string(full->second);
            v.location = keyLocation(full->second);
        }
        if (graph) v.role = DiffRole::Attribute;
        keep(std::move(v));
    }
    std::sort(out.values.begin(), out.values.end(),
              [](const ComparableValue& x, const ComparableValue& y) { return x.path < y.path; });
    return out;
}

}  // namespace ckpt::compare

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

std::string_view lastComponent(std::string_view key) {
    const size_t slash = key.rfind('/');
    return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

bool isNameBasedSlot(std::string_view key) {
    return key.find('/') != std::string_view::npos &&
           std::find(std::begin(kNameBasedSlots), std::end(kNameBasedSlots), lastComponent(key)) != std::end(kNameBasedSlots);
}

bool isKeyOptimizerState(std::string_view key) {
    return isNameBasedSlot(key) || key.find("/.OPTIMIZER_SLOT/") != std::string_view::npos || key.starts_with("optimizer/") ||
           key.starts_with("save_counter/") || key.starts_with("step/") || key.starts_with("global_step/") ||
           std::find(std::begin(kNameBasedOptimizerKeys), std::end(kNameBasedOptimizerKeys), key) !=
               std::end(kNameBasedOptimizerKeys);
}

// A value paired by key ('path' its key or its TF1 name); 'inGraph': a
// key no attribute of the paired-by-path graph names.
ComparableValue keyedValue(const TensorInfo& t, std::string_view path, bool inGraph) {
    ComparableValue v;
    v.tensor = &t;
    v.path = path;
    v.role = inGraph ? DiffRole::Attribute : isNameBasedSlot(v.path) ? DiffRole::SlotVariable : DiffRole::Variable;
    v.optimizerState = isKeyOptimizerState(t.key) || isKeyOptimizerState(v.path);
    return v;
}

}  // namespace

bool ValueFilter::excludesValue(const ComparableValue& v) const {
    auto matches = [&](const std::string& pattern) {
        return globMatches(pattern, v.path) || globMatches(pattern, v.tensor->key);
    };
    return (weightsOnly && v.optimizerState) || (!includes.empty() && std::none_of(includes.begin(), includes.end(), matches)) ||
           std::any_of(excludes.begin(), excludes.end(), matches);
}

ComparableValue nameBasedValue(const TensorInfo& tensor) { return keyedValue(tensor, tensor.key, false); }

class GraphNames {
public:
    explicit GraphNames(const ObjectGraph& g) : m_graph(g) {
        for (const ObjectNode& n : g.nodes())
            for (const SlotVariableRef& s : n.slotVariables)
                m_slots.emplace(s.slotVariableNodeId, SlotInfo{n.id, s.originalVariableNodeId, s.slotName});
    }

    const ObjectGraph& graph() const { return m_graph; }

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
    // count), a slot variable, or the root's save counter or step counter.
    bool optimizerState(int32_t id) const {
        if (slot(id)) return true;
        const ObjectNode& n = m_graph.node(id);
        if (n.parentId == 0 && (n.localName == "save_counter" || n.localName == "step" || n.localName == "global_step"))
            return true;
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

ComparableValues::~ComparableValues() = default;
ComparableValues::ComparableValues(ComparableValues&&) noexcept = default;
ComparableValues& ComparableValues::operator=(ComparableValues&&) noexcept = default;

ComparableValues::ComparableValues(const Checkpoint& checkpoint, bool byPath, const ValueFilter& filter) {
    const BundleReader& bundle = checkpoint.bundle();
    std::vector<bool> used(bundle.tensors().size(), false);
    auto keep = [&](const ComparableValue& v) {
        if (filter.excludesValue(v)) ++m_excluded;
        else m_values.push_back(v);
    };
    const ObjectGraph* graph = byPath ? checkpoint.objectGraph() : nullptr;
    if (graph) {
        m_names = std::make_unique<GraphNames>(*graph);
        for (const ObjectNode& node : graph->nodes()) {
            for (const ObjectAttribute& attr : node.attributes) {
                const TensorInfo* t = checkpoint.tensorForAttribute(attr);
                if (!t) continue;  // a missing key: verify reports it
                const auto index = static_cast<size_t>(t - bundle.tensors().data());
                if (used[index]) continue;  // two attributes naming one key: pair it once
                used[index] = true;
                ComparableValue v;
                v.tensor = t;
                v.node = node.id;
                const bool value = attr.name == kVariableValue;
                v.path = node.prettyPath ? std::string_view(*node.prettyPath) : std::string_view(t->key);
                if (!value) {
                    v.path = m_text.emplace_back(std::string(v.path) + "[" + attr.name + "]");
                    v.attribute = attr.name;
                }
                const bool variable = node.kind == ObjectKind::Variable || node.kind == ObjectKind::ReplicatedVariable;
                v.role = m_names->slot(node.id) ? DiffRole::SlotVariable
                         : variable && value    ? DiffRole::Variable
                                                : DiffRole::Attribute;
                v.optimizerState = m_names->optimizerState(node.id);
                keep(v);
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
        auto full = fullNames.find(t.key);
        keep(keyedValue(t, full != fullNames.end() ? full->second : std::string_view(t.key), graph != nullptr));
    }
}

ComparableValues::ComparableValues(ValueSource everyValue) : m_everyValue(std::move(everyValue)) {}

Status ComparableValues::forEachValue(const ValueVisitor& visit) const {
    if (m_everyValue) return m_everyValue(visit);
    for (const ComparableValue& v : m_values) visit(v);
    return okStatus();
}

const ComparableValue* ComparableValues::hold(TensorInfo&& tensor) {
    return &m_held.emplace_back(nameBasedValue(m_heldTensors.emplace_back(std::move(tensor))));
}

std::vector<std::string> ComparableValues::location(const ComparableValue& v) const {
    if (v.node < 0 || !m_names) return keyLocation(v.path);
    std::vector<std::string> loc = m_names->location(v.node);
    if (!v.attribute.empty()) loc.emplace_back(v.attribute);
    return loc;
}

SlotNames ComparableValues::slotNames(const ComparableValue& v) const {
    if (v.role != DiffRole::SlotVariable) return {};
    if (v.node >= 0 && m_names) {
        const SlotInfo* s = m_names->slot(v.node);
        if (!s) return {};
        return {m_names->graph().displayName(s->variable), m_names->graph().displayName(s->optimizer), std::string(s->name)};
    }
    const std::string_view last = lastComponent(v.path);
    return {std::string(v.path.substr(0, v.path.size() - last.size() - 1)), "", std::string(last)};
}

}  // namespace ckpt::compare

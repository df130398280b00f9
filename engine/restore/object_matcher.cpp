#include "restore/object_matcher.h"

#include <algorithm>
#include <deque>

namespace ckpt::restore {
namespace {

// -1 unless 'name' is parallel_component_<i> with i >= 1.
int parallelComponentIndex(std::string_view name) {
    if (name.substr(0, kParallelComponent.size()) != kParallelComponent) return -1;
    const std::string_view digits = name.substr(kParallelComponent.size());
    if (digits.empty() || digits.size() > 6) return -1;
    int i = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return -1;
        i = i * 10 + (c - '0');
    }
    return i >= 1 ? i : -1;
}

}  // namespace

Result<std::shared_ptr<ObjectMatcher>> ObjectMatcher::start(std::shared_ptr<RestoreContext> context,
                                                            const std::shared_ptr<Trackable>& root) {
    CKPT_ASSIGN_OR_RETURN(SourceGraph graph,
                          buildSourceGraph(*context->ckpt, context->options.assignmentMap, &context->unmatchedMappings));
    const bool skipSlots = context->options.skipSlotVariables;
    auto m = std::make_shared<ObjectMatcher>(std::move(context));
    m->m_nodes = std::move(graph.nodes);
    m->m_sourceNames = std::move(graph.names);  // moving a deque keeps its strings where they are
    const size_t n = m->m_nodes.size();
    m->m_objectByNode.resize(n);
    m->m_objectRaw.assign(n, nullptr);
    m->m_matched.assign(n, 0);
    m->m_restored.assign(n, 0);
    m->m_attributes.resize(n);
    m->m_plainRows.assign(n, 0);
    m->m_seenObjects.reserve(n);  // one object per node when the program matches
    if (!skipSlots) {
        for (size_t id = 0; id < n; ++id)
            for (const SlotVariableRef& s : m->m_nodes[id].slots)
                m->m_slotRestorations[s.originalVariableNodeId].push_back(
                    {static_cast<int32_t>(id), s.slotVariableNodeId, s.slotName, s.originalVariableNodeId});
    }
    const RestoreContext::ListingScope listing(*m->m_context);  // mismatch messages name program paths
    if (m->bind(0, root)) m->restoreFrom(0);
    return m;
}

Trackable* ObjectMatcher::boundObject(int32_t node) const {
    const auto i = static_cast<size_t>(node);
    if (!m_objectRaw[i] || m_objectByNode[i].expired()) return nullptr;
    return m_objectRaw[i];
}

bool ObjectMatcher::bind(int32_t node, const std::shared_ptr<Trackable>& object) {
    m_seenObjects.emplace_back(object.get(), object);
    const auto i = static_cast<size_t>(node);
    m_matched[i] = 1;
    if (boundObject(node)) return false;  // already bound (a second path, or an inconsistent reference)
    m_objectByNode[i] = object;
    m_objectRaw[i] = object.get();

    // An optimizer arriving: slots whose variables are already bound.
    if (auto it = m_deferredSlotRestorations.find(node); it != m_deferredSlotRestorations.end()) {
        const std::vector<SlotRestoration> waiting = std::move(it->second);
        m_deferredSlotRestorations.erase(it);
        for (const SlotRestoration& s : waiting) {
            auto var = m_objectByNode[static_cast<size_t>(s.variableNode)].lock();
            if (var) createOrRestoreSlot(object, var, s);
        }
    }
    // A variable arriving: its slots, now or once the optimizer is bound.
    if (auto it = m_slotRestorations.find(node); it != m_slotRestorations.end()) {
        const std::vector<SlotRestoration> slots = std::move(it->second);
        m_slotRestorations.erase(it);
        for (const SlotRestoration& s : slots) {
            auto opt = boundObject(s.optimizerNode) ? m_objectByNode[static_cast<size_t>(s.optimizerNode)].lock() : nullptr;
            if (!opt) m_deferredSlotRestorations[s.optimizerNode].push_back(s);
            else createOrRestoreSlot(opt, object, s);
        }
    }
    return true;
}

void ObjectMatcher::bindSlot(int32_t node, std::shared_ptr<Trackable> slot) {
    m_slotBinds.emplace_back(node, std::move(slot));
    if (m_bindingSlots) return;
    m_bindingSlots = true;
    while (!m_slotBinds.empty()) {
        auto [id, object] = std::move(m_slotBinds.front());
        m_slotBinds.pop_front();
        if (bind(id, object)) restoreFrom(id);
    }
    m_bindingSlots = false;
}

void ObjectMatcher::createOrRestoreSlot(const std::shared_ptr<Trackable>& optimizer, const std::shared_ptr<Trackable>& variable,
                                        const SlotRestoration& s) {
    Optimizer* opt = optimizer->asOptimizer();
    Variable* var = variable->asVariable();
    if (!opt || !var) return;
    std::shared_ptr<Variable> slot = opt->slot(*var, s.slotName);
    const SourceNode& node = m_nodes[static_cast<size_t>(s.slotNode)];
    const bool simpleVariable = std::any_of(node.attributes.begin(), node.attributes.end(),
                                            [](const SourceAttribute& a) { return a.name == kVariableValue; });
    if (!slot && m_context->options.createSlotsOnRestore && simpleVariable) {
        slot = opt->createSlot(*var, s.slotName);
        m_context->programChanged();
    }
    if (slot) {
        bindSlot(s.slotNode, std::move(slot));
        return;
    }
    m_pendingSlots.push_back({optimizer, variable, s.slotName, s.slotNode});
    hookSlots(optimizer);
}

void ObjectMatcher::restoreFrom(int32_t start) {
    ValueReader::Batch reads(m_reader);
    std::deque<int32_t> queue{start};
    while (!queue.empty()) {
        const int32_t id = queue.front();
        queue.pop_front();
        std::shared_ptr<Trackable> obj = m_objectByNode[static_cast<size_t>(id)].lock();
        if (!obj) continue;
        if (!m_restored[static_cast<size_t>(id)]) {
            m_restored[static_cast<size_t>(id)] = 1;
            restoreAttributes(id, *obj);
        }
        // m_nodes is fixed once start() built it: binding (and any hook it
        // runs) changes the program, never the source graph.
        const SourceNode& node = m_nodes[static_cast<size_t>(id)];
        for (const auto& [name, childId] : node.children) {
            std::shared_ptr<Trackable> child = obj->child(name);  // indexed for wide objects
            if (!child) {
                m_deferred[obj.get()][std::string(name)].push_back(childId);
                hookChildren(obj);
            } else if (bind(childId, child)) {
                queue.push_back(childId);
            }
        }
    }
}

void ObjectMatcher::restoreAttributes(int32_t id, Trackable& object) {
    const SourceNode& node = m_nodes[static_cast<size_t>(id)];
    // Rows are built in m_rows, whose strings keep their buffers from node
    // to node, and kept only when they say more than "every attribute
    // restored" (issue #34: 100,000 such rows took ~25 MB).
    m_rowCount = 0;
    Variable* v = object.asVariable();
    std::vector<char> hasComponent(v ? static_cast<size_t>(v->replicas()) : 0, 0);
    if (v)
        for (const SourceAttribute& a : node.attributes) {
            const int i = parallelComponentIndex(a.name);
            if (i > 0 && i < v->replicas()) hasComponent[static_cast<size_t>(i)] = 1;
        }
    for (const SourceAttribute& a : node.attributes) {
        AttributeMatch& am = nextRow();
        describeAttribute(a, am);
        int replica = -1;
        if (v) {
            if (a.name == kVariableValue) replica = 0;
            else if (const int i = parallelComponentIndex(a.name); i > 0 && i < v->replicas()) replica = i;
        }
        if (replica < 0) {
            // A variable restores as one saveable that reads only its own
            // keys: TensorFlow ignores the node's other attributes rather
            // than reporting them unused.
            am.unused = !v && !a.optional;
            if (am.unused) {
                auto it = std::find_if(m_unusedAttributes.begin(), m_unusedAttributes.end(),
                                       [&](const auto& e) { return e.first == id; });
                if (it == m_unusedAttributes.end()) m_unusedAttributes.push_back({id, {std::string(a.name)}});
                else it->second.emplace_back(a.name);
            }
            continue;
        }
        if (!a.tensor) {
            am.error = "checkpoint key \"" + std::string(a.key) + "\" of " + std::string(node.path) + " is not in the bundle " +
                       m_context->ckpt->prefix();
            m_context->errors.push_back(notFound(am.error));
            continue;
        }
        assignVariable(id, *v, *a.tensor, a.key, replica, hasComponent, am, m_rowCount - 1);
    }
    if (v && !node.attributes.empty() &&
        std::none_of(node.attributes.begin(), node.attributes.end(),
                     [](const SourceAttribute& a) { return a.name == kVariableValue; }))
        restoreMissingValue(id, *v);
    const auto rows = m_rows.begin() + static_cast<std::ptrdiff_t>(m_rowCount);
    const bool plain = m_rowCount == node.attributes.size() && std::all_of(m_rows.begin(), rows, [](const AttributeMatch& a) {
                           return a.restored && !a.unused && a.error.empty();
                       });
    m_plainRows[static_cast<size_t>(id)] = plain ? 1 : 0;
    if (!plain) m_attributes[static_cast<size_t>(id)].assign(m_rows.begin(), rows);
}

AttributeMatch& ObjectMatcher::nextRow() {
    if (m_rowCount == m_rows.size()) m_rows.emplace_back();
    return m_rows[m_rowCount++];
}

std::vector<AttributeMatch>& ObjectMatcher::attributeRows(int32_t id) {
    const auto i = static_cast<size_t>(id);
    if (m_plainRows[i]) {
        m_plainRows[i] = 0;
        plainRows(id, m_attributes[i]);
    }
    return m_attributes[i];
}

void ObjectMatcher::plainRows(int32_t id, std::vector<AttributeMatch>& out) const {
    const SourceNode& node = m_nodes[static_cast<size_t>(id)];
    out.resize(node.attributes.size());
    for (size_t k = 0; k < out.size(); ++k) {
        describeAttribute(node.attributes[k], out[k]);
        out[k].restored = true;
    }
}

// TensorFlow reads a variable's value from the key its saveable derives
// from the node's first attribute ("t1/.ATTRIBUTES/table-keys" ->
// "t1/.ATTRIBUTES/VARIABLE_VALUE"); when the bundle has no such key the
// whole restore fails with NotFoundError. A node without attributes (a
// plain object) restores nothing and fails nothing.
void ObjectMatcher::restoreMissingValue(int32_t id, Variable& v) {
    const SourceNode& node = m_nodes[static_cast<size_t>(id)];
    const std::string first(node.attributes.front().key);
    constexpr std::string_view kAttributes = ".ATTRIBUTES/";
    const size_t at = first.find(kAttributes);
    const std::string key =
        (at == std::string::npos ? first + "/" + std::string(kAttributes) : first.substr(0, at + kAttributes.size())) +
        std::string(kVariableValue);
    AttributeMatch& am = nextRow();
    am = AttributeMatch{};
    am.name = std::string(kVariableValue);
    am.checkpointKey = key;
    if (const TensorInfo* tensor = m_context->ckpt->bundle().find(key)) {
        am.dtype = tensor->dtype;
        am.shape = tensor->shape;
        std::vector<char> hasComponent(static_cast<size_t>(v.replicas()), 0);
        assignVariable(id, v, *tensor, key, 0, hasComponent, am, m_rowCount - 1);
    } else {
        am.error = "Key " + key + " not found in checkpoint " + m_context->ckpt->prefix() + ": " + std::string(node.path) +
                   " holds no variable value for program variable " + m_context->programPathOf(&v);
        m_context->errors.push_back(notFound(am.error));
    }
}

// Checks 'tensor' against the variable and queues its read into 'replica'
// (and, for the primary value, every replica without a component of its own).
void ObjectMatcher::assignVariable(int32_t id, Variable& v, const TensorInfo& tensor, std::string_view key, int replica,
                                   const std::vector<char>& hasComponent, AttributeMatch& am, size_t attribute) {
    const SourceNode& node = m_nodes[static_cast<size_t>(id)];
    std::vector<int> targets{replica};
    if (replica == 0)
        for (int i = 1; i < v.replicas(); ++i)
            if (!hasComponent[static_cast<size_t>(i)]) targets.push_back(i);
    const Status assigned = m_reader.assign(
        v, tensor, std::move(targets),
        [&] {
            return std::pair{
                std::string(node.path) + " (checkpoint key " + std::string(key) + ")",
                "program variable " + m_context->programPathOf(&v) + (replica > 0 ? " replica " + std::to_string(replica) : "")};
        },
        id, attribute);
    am.restored = assigned.isOk();
    if (!assigned.isOk()) am.error = assigned.message();
}

void ObjectMatcher::onChildAdded(Trackable& parent, const Trackable::Child& child) {
    m_context->programChanged();  // by the child just added
    const RestoreContext::ListingScope listing(*m_context);
    auto it = m_deferred.find(&parent);
    if (it == m_deferred.end()) return;
    auto jt = it->second.find(child.name);
    if (jt == it->second.end()) return;
    const std::vector<int32_t> ids = std::move(jt->second);
    it->second.erase(jt);
    for (int32_t id : ids)
        if (bind(id, child.object)) restoreFrom(id);
}

void ObjectMatcher::onSlotCreated(Optimizer& optimizer, const Optimizer::Slot& slot) {
    m_context->programChanged();  // by the slot just created
    const RestoreContext::ListingScope listing(*m_context);
    auto var = slot.variable.lock();
    for (size_t i = 0; i < m_pendingSlots.size(); ++i) {
        const PendingSlot& p = m_pendingSlots[i];
        if (p.optimizer.lock().get() != &optimizer || p.variable.lock() != var || p.slotName != slot.name) continue;
        const int32_t node = p.slotNode;
        m_pendingSlots.erase(m_pendingSlots.begin() + static_cast<std::ptrdiff_t>(i));
        bindSlot(node, slot.slot);
        return;
    }
}

void ObjectMatcher::onReadFailed(const ValueReader::Read& read, const Status& failure) {
    AttributeMatch& am = attributeRows(read.node)[read.attribute];
    am.restored = false;
    am.error = failure.toString();
}

}  // namespace ckpt::restore

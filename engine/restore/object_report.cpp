#include "restore/object_matcher.h"

#include <algorithm>
#include <unordered_set>

namespace ckpt::restore {

std::string ObjectMatcher::style() const { return "object-based"; }

void ObjectMatcher::describe(const std::vector<ProgramObject>& objects, const ObjectIndex& objectIndex,
                             std::vector<ProgramBinding>& bindings, const NodeRow& row) {
    std::unordered_set<int32_t> pendingSlots;
    for (const auto& [var, list] : m_slotRestorations)
        for (const SlotRestoration& s : list) pendingSlots.insert(s.slotNode);
    for (const auto& [opt, list] : m_deferredSlotRestorations)
        for (const SlotRestoration& s : list) pendingSlots.insert(s.slotNode);
    for (const PendingSlot& p : m_pendingSlots) pendingSlots.insert(p.slotNode);
    CheckpointNodeMatch n;  // one row, reused: its strings keep their buffers
    for (size_t id = 0; id < m_nodes.size(); ++id) {
        const SourceNode& src = m_nodes[id];
        if (src.isVirtual) continue;
        n.id = static_cast<int32_t>(id);
        n.path = src.path;
        n.kind = src.kind;
        n.hasAttributes = !src.attributes.empty();
        const Trackable* obj = boundObject(static_cast<int32_t>(id));
        if (obj && m_restored[id] && m_plainRows[id]) {
            plainRows(static_cast<int32_t>(id), n.attributes);
        } else if (obj && m_restored[id]) {
            n.attributes = m_attributes[id];
        } else {
            n.attributes.resize(src.attributes.size());
            for (size_t k = 0; k < src.attributes.size(); ++k) describeAttribute(src.attributes[k], n.attributes[k]);
        }
        if (obj) {
            const size_t index = objectIndex.find(obj);
            if (index != ObjectIndex::kAbsent) n.programPath = objects[index].path;
            else n.programPath = "(unreachable object)";
            const bool error =
                std::any_of(n.attributes.begin(), n.attributes.end(), [](const AttributeMatch& a) { return !a.error.empty(); });
            const bool unused =
                std::any_of(n.attributes.begin(), n.attributes.end(), [](const AttributeMatch& a) { return a.unused; });
            n.state = error ? NodeMatchState::Mismatch : unused ? NodeMatchState::PartiallyMatched : NodeMatchState::Matched;
            if (index != ObjectIndex::kAbsent) {
                ProgramBinding& m = bindings[index];
                if (!m.bound) {
                    m.bound = true;
                    m.checkpointNode = n.id;
                }
                if (std::any_of(n.attributes.begin(), n.attributes.end(), [](const AttributeMatch& a) { return a.restored; }))
                    m.restored = m_context->options.readValues;
            }
        } else {
            n.programPath.clear();
            n.state = pendingSlots.count(static_cast<int32_t>(id)) ? NodeMatchState::PendingSlot : NodeMatchState::Unresolved;
        }
        row(n);
    }
}

}  // namespace ckpt::restore

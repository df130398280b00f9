#include "restore/object_matcher.h"

#include <algorithm>
#include <unordered_set>

namespace ckpt::restore {

void ObjectMatcher::describe(MatchReport& r, const std::vector<ProgramObject>&, const ObjectIndex& objectIndex) {
    r.style = "object-based";
    std::unordered_set<int32_t> pendingSlots;
    for (const auto& [var, list] : m_slotRestorations)
        for (const SlotRestoration& s : list) pendingSlots.insert(s.slotNode);
    for (const auto& [opt, list] : m_deferredSlotRestorations)
        for (const SlotRestoration& s : list) pendingSlots.insert(s.slotNode);
    for (const PendingSlot& p : m_pendingSlots) pendingSlots.insert(p.slotNode);
    r.checkpointNodes.reserve(m_nodes.size());
    for (size_t id = 0; id < m_nodes.size(); ++id) {
        const SourceNode& src = m_nodes[id];
        if (src.isVirtual) continue;
        CheckpointNodeMatch n;
        n.id = static_cast<int32_t>(id);
        n.path = src.path;
        n.kind = src.kind;
        n.hasAttributes = !src.attributes.empty();
        const Trackable* obj = boundObject(static_cast<int32_t>(id));
        if (obj && m_restored[id]) {
            n.attributes = m_attributes[id];
        } else {
            for (const SourceAttribute& a : src.attributes) {
                n.attributes.push_back(describeAttribute(a));
            }
        }
        if (obj) {
            const size_t index = objectIndex.find(obj);
            n.programPath = index != ObjectIndex::kAbsent ? r.programObjects[index].path : "(unreachable object)";
            const bool error =
                std::any_of(n.attributes.begin(), n.attributes.end(), [](const AttributeMatch& a) { return !a.error.empty(); });
            const bool unused =
                std::any_of(n.attributes.begin(), n.attributes.end(), [](const AttributeMatch& a) { return a.unused; });
            n.state = error ? NodeMatchState::Mismatch : unused ? NodeMatchState::PartiallyMatched : NodeMatchState::Matched;
            if (index != ObjectIndex::kAbsent) {
                ProgramObjectMatch& m = r.programObjects[index];
                if (!m.bound) {
                    m.bound = true;
                    m.checkpointNode = n.id;
                }
                if (std::any_of(n.attributes.begin(), n.attributes.end(), [](const AttributeMatch& a) { return a.restored; }))
                    m.restored = m_context->options.readValues;
            }
        } else {
            n.state = pendingSlots.count(static_cast<int32_t>(id)) ? NodeMatchState::PendingSlot : NodeMatchState::Unresolved;
        }
        r.checkpointNodes.push_back(std::move(n));
    }
}

}  // namespace ckpt::restore

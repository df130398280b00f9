#include "restore/object_matcher.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "restore/verdicts.h"

namespace ckpt::restore {
namespace {

// TensorFlow shows at most this many unbound objects in assert_existing_objects_matched.
constexpr size_t kMaxShownObjects = 10;

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

}  // namespace

AssertionVerdict ObjectMatcher::verdict(Assertion a) {
    switch (a) {
    case Assertion::Consumed: return consumed();
    case Assertion::ExistingObjectsMatched: return existingObjectsMatched();
    case Assertion::NontrivialMatch: return nontrivialMatch();
    }
    return passed(a);
}

std::vector<AssertionVerdict> ObjectMatcher::verdicts() {
    // assert_consumed begins with assert_existing_objects_matched: one evaluation for both.
    AssertionVerdict existing = existingObjectsMatched();
    AssertionVerdict consumedVerdict = consumed(&existing);
    return {std::move(consumedVerdict), std::move(existing), nontrivialMatch()};
}

AssertionVerdict ObjectMatcher::existingObjectsMatched() {
    const Assertion a = Assertion::ExistingObjectsMatched;
    for (size_t id = 0; id < m_nodes.size(); ++id)
        if (boundObject(static_cast<int32_t>(id)) && !m_restored[id])
            return failed(a, "Object " + nodeText(static_cast<int32_t>(id)) + " not assigned a value from checkpoint.",
                          {std::string(m_nodes[id].path)});
    const std::vector<ProgramObject>& reachable = m_context->programObjects();
    const ObjectIndex& listed = m_context->programObjectIndex();
    std::vector<ProgramObject> unreachable;
    std::unordered_set<const Trackable*> unreachableSeen;  // objects the restore met that the root no longer reaches: few
    for (const auto& [raw, w] : m_seenObjects) {
        if (listed.contains(raw)) continue;
        if (auto o = w.lock(); o && unreachableSeen.insert(o.get()).second)
            unreachable.push_back({o, "(unreachable object)", ProgramObjectKind::Object, o->asVariable() != nullptr});
    }
    // Bound objects as marks on the listing (each object is listed once),
    // plus the few the root no longer reaches: no second index of 150,000.
    std::vector<char> boundListed(reachable.size(), 0);
    ObjectIndex boundUnlisted;
    for (size_t id = 0; id < m_nodes.size(); ++id)
        if (Trackable* t = boundObject(static_cast<int32_t>(id))) {
            const size_t i = listed.find(t);
            if (i != ObjectIndex::kAbsent) boundListed[i] = 1;
            else boundUnlisted.add(t);
        }
    boundUnlisted.seal();
    std::vector<const ProgramObject*> unused;
    for (size_t i = 0; i < reachable.size(); ++i)
        if (reachable[i].hasAttributes && !boundListed[i]) unused.push_back(&reachable[i]);
    for (const ProgramObject& o : unreachable)
        if (o.hasAttributes && !boundUnlisted.contains(o.object.get())) unused.push_back(&o);
    if (unused.empty()) return passed(a);
    const size_t shown = std::min(kMaxShownObjects, unused.size());
    std::string list = "[";
    std::vector<std::string> paths;
    for (size_t i = 0; i < shown; ++i) {
        if (i) list += ", ";
        list += describeProgramObject(*unused[i]);
        paths.push_back(unused[i]->path);
    }
    list += "]";
    return failed(a,
                  "Found " + std::to_string(unused.size()) +
                      " Python objects that were not bound to checkpointed values, likely due to changes in the Python "
                      "program. Showing " +
                      std::to_string(shown) + " of " + std::to_string(unused.size()) + " unmatched objects: " + list,
                  std::move(paths));
}

AssertionVerdict ObjectMatcher::consumed(const AssertionVerdict* known) {
    const Assertion a = Assertion::Consumed;
    AssertionVerdict existing = known ? *known : existingObjectsMatched();
    if (!existing.passed) {
        existing.assertion = a;
        return existing;
    }
    std::unordered_set<int32_t> slotNodes;
    for (const SourceNode& n : m_nodes)
        for (const SlotVariableRef& s : n.slots) slotNodes.insert(s.slotVariableNodeId);
    for (size_t id = 0; id < m_nodes.size(); ++id) {
        const SourceNode& n = m_nodes[id];
        if (n.attributes.empty()) continue;  // containers fail only through their children
        if (m_context->options.skipSlotVariables && slotNodes.count(static_cast<int32_t>(id))) continue;
        if (!boundObject(static_cast<int32_t>(id)))
            return failed(a, "Unresolved object in checkpoint " + std::string(n.path) + ": " + nodeText(static_cast<int32_t>(id)),
                          {std::string(n.path)});
    }
    if (!m_context->options.skipSlotVariables && !m_slotRestorations.empty()) {
        std::string text = "[";
        std::vector<std::string> paths;
        for (const auto& [var, list] : m_slotRestorations)
            for (const SlotRestoration& s : list) {
                if (text.size() > 1) text += ", ";
                text += "(optimizer " + std::string(m_nodes[static_cast<size_t>(s.optimizerNode)].path) + ", slot '" +
                        s.slotName + "', variable " + std::string(m_nodes[static_cast<size_t>(var)].path) + ")";
                paths.push_back(std::string(m_nodes[static_cast<size_t>(s.slotNode)].path));
            }
        return failed(a, "Unresolved slot restorations: " + text + "]", std::move(paths));
    }
    if (!m_unusedAttributes.empty()) {
        const std::vector<ProgramObject>& objects = m_context->programObjects();
        const ObjectIndex& index = m_context->programObjectIndex();
        std::string lines;
        std::vector<std::string> paths;
        for (const auto& [id, names] : m_unusedAttributes) {
            const size_t at = index.find(boundObject(id));
            lines += "\n" + std::string(m_nodes[static_cast<size_t>(id)].path) + " (" +
                     (at != ObjectIndex::kAbsent ? describeProgramObject(objects[at]) : std::string("<unreachable object>")) +
                     "): " + pythonList(names);
            paths.push_back(std::string(m_nodes[static_cast<size_t>(id)].path));
        }
        return failed(
            a, "Unused attributes in these objects (the attributes exist in the checkpoint but were not restored):" + lines,
            std::move(paths));
    }
    return passed(a);
}

AssertionVerdict ObjectMatcher::nontrivialMatch() {
    const Assertion a = Assertion::NontrivialMatch;
    size_t boundNodes = 0;
    for (size_t id = 0; id < m_nodes.size() && boundNodes <= 1; ++id)
        if (boundObject(static_cast<int32_t>(id))) ++boundNodes;
    if (boundNodes > 1) return passed(a);
    ObjectIndex bound;
    for (size_t id = 0; id < m_nodes.size(); ++id)
        if (Trackable* t = boundObject(static_cast<int32_t>(id))) bound.add(t);
    bound.seal();
    const std::vector<ProgramObject>& all = m_context->programObjects();
    std::string list = "[";
    std::vector<std::string> paths;
    for (const ProgramObject& o : all) {
        if (!o.hasAttributes || bound.contains(o.object.get())) continue;
        if (list.size() > 1) list += ", ";
        list += describeProgramObject(o);
        paths.push_back(o.path);
    }
    if (!paths.empty())
        return failed(a,
                      "Nothing except the root object matched a checkpointed value. Typically this means that the checkpoint "
                      "does not match the Python program. The following objects have no matching checkpointed value: " +
                          list + "]",
                      std::move(paths));
    const std::string root = all.empty() ? std::string("<ckpt.Object '(root)'>") : describeProgramObject(all.front());
    return failed(a, "Nothing to load. No dependencies have been added to " + root + " yet.", {});
}

std::vector<std::string> ObjectMatcher::warnings() {
    std::vector<std::string> out;
    for (size_t id = 0; id < m_nodes.size(); ++id)
        if (!m_nodes[id].attributes.empty() && !m_matched[id])
            out.push_back("Value in checkpoint could not be found in the restored object: " + std::string(m_nodes[id].path));
    for (const auto& [id, names] : m_unusedAttributes)
        out.push_back("An attribute in the restored object could not be found in the checkpoint. Object: " +
                      std::string(m_nodes[static_cast<size_t>(id)].path) + ", attribute: " + pythonList(names));
    return out;
}

std::string ObjectMatcher::nodeText(int32_t id) const {
    const SourceNode& n = m_nodes[static_cast<size_t>(id)];
    std::ostringstream out;
    if (!n.original) return "{}";
    for (const ObjectChild& c : n.original->children)
        out << "children {\n  node_id: " << c.nodeId << "\n  local_name: " << quoted(c.localName) << "\n}\n";
    for (const ObjectAttribute& a : n.original->attributes) {
        out << "attributes {\n  name: " << quoted(a.name) << "\n";
        if (!a.fullName.empty()) out << "  full_name: " << quoted(a.fullName) << "\n";
        out << "  checkpoint_key: " << quoted(a.checkpointKey) << "\n";
        if (a.optionalRestore) out << "  optional_restore: true\n";
        out << "}\n";
    }
    for (const SlotVariableRef& s : n.original->slotVariables)
        out << "slot_variables {\n  original_variable_node_id: " << s.originalVariableNodeId
            << "\n  slot_name: " << quoted(s.slotName) << "\n  slot_variable_node_id: " << s.slotVariableNodeId << "\n}\n";
    if (n.original->hasCheckpointValues)
        out << "has_checkpoint_values {\n  value: " << (*n.original->hasCheckpointValues ? "true" : "false") << "\n}\n";
    return out.str();
}

}  // namespace ckpt::restore

#include "restore/name_matcher.h"

#include <algorithm>
#include <deque>

#include "restore/source_graph.h"
#include "restore/verdicts.h"

namespace ckpt::restore {

Result<std::shared_ptr<NameMatcher>> NameMatcher::start(const std::shared_ptr<RestoreContext>& context,
                                                        const std::shared_ptr<Trackable>& root) {
    const std::vector<PathMapping>& raw = context->options.assignmentMap;
    std::vector<size_t> order(raw.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<PathMapping> map;
    for (const PathMapping& m : raw) {
        PathMapping n{m.from, m.to};
        while (!n.from.empty() && n.from.back() == '/') n.from.pop_back();
        while (!n.to.empty() && n.to.back() == '/') n.to.pop_back();
        map.push_back(std::move(n));
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return map[a].from.size() > map[b].from.size(); });
    std::vector<PathMapping> sorted;
    for (size_t i : order) sorted.push_back(map[i]);
    std::vector<char> used(sorted.size(), 0);
    auto m = std::make_shared<NameMatcher>(context);
    for (const TensorInfo& t : context->ckpt->bundle().tensors()) {
        size_t applied = sorted.size();
        const std::string name = applyMapping(sorted, t.key, &applied);
        if (applied < sorted.size()) used[applied] = 1;
        auto [it, inserted] = m->m_tensorsByName.emplace(name, &t);
        if (!inserted)
            return invalidArgument("assignment map makes \"" + it->second->key + "\" and \"" + t.key + "\" both restore into \"" +
                                   name + "\"");
    }
    for (size_t k = 0; k < sorted.size(); ++k)
        if (!used[k]) context->unmatchedMappings.push_back(unmatchedMappingMessage(raw[order[k]], "variable name"));
    const RestoreContext::ListingScope listing(*m->m_context);
    m->restore(root, "(root)");
    return m;
}

std::string NameMatcher::variableName(const std::shared_ptr<Trackable>& object) const {
    if (Variable* v = object->asVariable(); v && !v->fullName().empty()) return v->fullName();
    // No global name: the path of local names, '/'-joined (our fallback).
    auto it = m_paths.find(object.get());
    if (it == m_paths.end()) return {};
    std::string p = it->second;
    if (p.rfind("(root).", 0) == 0) p = p.substr(7);
    std::replace(p.begin(), p.end(), '.', '/');
    return p;
}

void NameMatcher::nameSlot(const std::shared_ptr<Trackable>& variable, Variable& slot, const std::string& slotName) const {
    if (slot.fullName().empty()) slot.setFullName(variableName(variable) + "/" + slotName);
}

void NameMatcher::restore(const std::shared_ptr<Trackable>& start, const std::string& startPath) {
    ValueReader::Batch reads(m_reader);
    std::deque<std::pair<std::shared_ptr<Trackable>, std::string>> queue{{start, startPath}};
    std::vector<std::pair<std::shared_ptr<Trackable>, std::string>> optimizers;
    while (!queue.empty()) {
        auto [obj, path] = std::move(queue.front());
        queue.pop_front();
        if (!m_restored.insert(obj.get()).second) continue;
        m_paths.emplace(obj.get(), path);
        hookChildren(obj);
        if (Variable* v = obj->asVariable()) {
            const std::string name = variableName(obj);
            auto it = m_tensorsByName.find(name);
            if (it == m_tensorsByName.end()) {
                m_unused.push_back({obj, {name}});
            } else {
                std::vector<int> replicas;
                for (int i = 0; i < v->replicas(); ++i) replicas.push_back(i);
                const TensorInfo* t = it->second;
                const std::string& programPath = path;  // clang 14 (clang-tidy) cannot capture a structured binding
                const Status assigned = m_reader.assign(*v, *t, std::move(replicas), [&] {
                    return std::pair{"\"" + t->key + "\"", "program variable " + programPath};
                });
                if (assigned.isOk()) m_tensorUsedBy[it->second] = path;
                else m_errorByObject[obj.get()] = assigned.message();
            }
        }
        for (const Trackable::Child& c : obj->children()) queue.emplace_back(c.object, path + "." + c.name);
        if (obj->asOptimizer()) {
            hookSlots(obj);
            optimizers.emplace_back(obj, path);
        }
        if (!queue.empty()) continue;
        // Slots once every regular object has its path (slot names and paths use the variable's).
        for (const auto& [o, optPath] : optimizers)
            for (const Optimizer::Slot& s : o->asOptimizer()->slotVariables()) {
                auto var = s.variable.lock();
                if (!var || !s.slot || m_restored.count(s.slot.get())) continue;
                auto vt = m_paths.find(var.get());
                const std::string varPath = vt != m_paths.end() ? vt->second : m_context->programPathOf(var.get());
                nameSlot(var, *s.slot, s.name);
                queue.emplace_back(s.slot, slotVariablePath(optPath, s.name, varPath));
            }
        optimizers.clear();
    }
}

void NameMatcher::onChildAdded(Trackable& parent, const Trackable::Child& child) {
    m_context->programChanged();  // by the child just added
    const RestoreContext::ListingScope listing(*m_context);
    auto it = m_paths.find(&parent);
    if (it != m_paths.end()) restore(child.object, it->second + "." + child.name);
}

void NameMatcher::onSlotCreated(Optimizer& optimizer, const Optimizer::Slot& slot) {
    m_context->programChanged();  // by the slot just created
    const RestoreContext::ListingScope listing(*m_context);
    auto var = slot.variable.lock();
    auto it = m_paths.find(&optimizer);
    auto vt = var ? m_paths.find(var.get()) : m_paths.end();
    if (it == m_paths.end() || vt == m_paths.end()) return;
    nameSlot(var, *slot.slot, slot.name);
    restore(slot.slot, slotVariablePath(it->second, slot.name, vt->second));
}

void NameMatcher::onReadFailed(const ValueReader::Read& read, const Status& failure) {
    m_errorByObject[read.variable.get()] = failure.toString();
    m_tensorUsedBy.erase(read.tensor);
}

AssertionVerdict NameMatcher::verdict(Assertion a) {
    std::string lines;
    std::vector<std::string> paths;
    for (const auto& [weak, names] : m_unused) {
        auto obj = weak.lock();
        if (!obj) continue;
        auto it = m_paths.find(obj.get());
        const std::string path = it != m_paths.end() ? it->second : "(unreachable object)";
        lines += "\n    " + describeProgramObject({obj, path, ProgramObjectKind::Variable, true}) + ": " + pythonList(names);
        paths.push_back(path);
    }
    if (!paths.empty()) return failed(a, "Some objects had attributes which were not restored: " + lines, std::move(paths));
    for (const ProgramObject& o : m_context->programObjects())
        if (!m_restored.count(o.object.get())) return failed(a, "Object not restored: " + describeProgramObject(o), {o.path});
    return passed(a);
}

std::string NameMatcher::style() const { return "name-based"; }

void NameMatcher::describe(const std::vector<ProgramObject>& objects, const ObjectIndex& objectIndex,
                           std::vector<ProgramBinding>& bindings, const NodeRow& row) {
    int32_t id = 0;
    CheckpointNodeMatch n;  // one row, reused: its strings keep their buffers
    n.kind = ObjectKind::Variable;
    n.hasAttributes = true;
    n.attributes.resize(1);
    AttributeMatch& am = n.attributes.front();
    am.name = std::string(kVariableValue);
    for (const TensorInfo& t : m_context->ckpt->bundle().tensors()) {
        n.id = id++;
        n.path = t.key;
        auto used = m_tensorUsedBy.find(&t);
        n.state = used != m_tensorUsedBy.end() ? NodeMatchState::Matched : NodeMatchState::Unresolved;
        if (used != m_tensorUsedBy.end()) n.programPath = used->second;
        else n.programPath.clear();
        am.checkpointKey = t.key;
        am.dtype = t.dtype;
        am.shape = t.shape;
        am.restored = used != m_tensorUsedBy.end();
        row(n);
    }
    std::unordered_set<const Trackable*> unused;
    for (const auto& [weak, names] : m_unused)
        if (auto o = weak.lock()) unused.insert(o.get());
    for (const ProgramObject& o : objects) {
        const size_t i = objectIndex.find(o.object.get());
        ProgramBinding& b = bindings[i];
        b.bound = objects[i].hasAttributes && !unused.count(o.object.get()) && !m_errorByObject.count(o.object.get());
        b.restored = b.bound && m_context->options.readValues;
    }
}

}  // namespace ckpt::restore

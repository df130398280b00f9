#include "restore/program_objects.h"

#include <algorithm>
#include <unordered_map>

#include "ckpt/object_graph.h"

namespace ckpt::restore {
namespace {

std::string shapeTuple(const TensorShape& s) {
    std::string out = "(";
    for (size_t i = 0; i < s.dims.size(); ++i) {
        if (i) out += ", ";
        out += std::to_string(s.dims[i]);
    }
    if (s.dims.size() == 1) out += ",";
    return out + ")";
}

}  // namespace

std::string describeProgramObject(const ProgramObject& o) {
    if (Variable* v = o.object->asVariable())
        return "<ckpt.Variable '" + o.path + "' shape=" + shapeTuple(v->shape()) +
               " dtype=" + std::string(dataTypeShortName(v->dtype())) + ">";
    if (o.object->asOptimizer()) return "<ckpt.Optimizer '" + o.path + "'>";
    return "<ckpt.Object '" + o.path + "'>";
}

ObjectIndex::ObjectIndex(const std::vector<ProgramObject>& objects) {
    m_items.reserve(objects.size());
    for (size_t i = 0; i < objects.size(); ++i) add(objects[i].object.get(), i);
    seal();
}

void ObjectIndex::seal() {
    std::stable_sort(m_items.begin(), m_items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    m_items.erase(std::unique(m_items.begin(), m_items.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
                  m_items.end());
}

size_t ObjectIndex::find(const Trackable* object) const {
    const auto it = std::lower_bound(m_items.begin(), m_items.end(), object,
                                     [](const auto& item, const Trackable* o) { return item.first < o; });
    return it != m_items.end() && it->first == object ? it->second : kAbsent;
}

std::vector<ProgramObject> listProgramObjects(const std::shared_ptr<Trackable>& root, bool skipSlots, size_t expected) {
    std::vector<ProgramObject> out;
    if (!root) return out;
    out.reserve(expected);
    std::unordered_map<const Trackable*, size_t> index;
    index.reserve(expected);  // rehashing 150,000 nodes as they come cost more than the listing's paths
    auto kindOf = [](Trackable& t) {
        switch (t.kind()) {
        case Trackable::Kind::Variable: return ProgramObjectKind::Variable;
        case Trackable::Kind::Optimizer: return ProgramObjectKind::Optimizer;
        case Trackable::Kind::Object: break;
        }
        return ProgramObjectKind::Object;
    };
    out.push_back({root, "(root)", kindOf(*root), root->asVariable() != nullptr});
    index.emplace(root.get(), 0);
    for (size_t i = 0; i < out.size(); ++i) {
        const Trackable* obj = out[i].object.get();  // owned by 'out', which grows below
        for (const Trackable::Child& c : obj->children()) {
            if (!index.emplace(c.object.get(), out.size()).second) continue;
            std::string path = out[i].path + "." + c.name;  // before the push_back moves out[i]
            out.push_back({c.object, std::move(path), kindOf(*c.object), c.object->asVariable() != nullptr});
        }
    }
    if (skipSlots) return out;
    const size_t regular = out.size();
    for (size_t i = 0; i < regular; ++i) {
        Optimizer* opt = out[i].object->asOptimizer();
        if (!opt) continue;
        for (const Optimizer::Slot& s : opt->slotVariables()) {
            auto var = s.variable.lock();
            if (!var || !s.slot) continue;
            auto vi = index.find(var.get());
            if (vi == index.end() || index.count(s.slot.get())) continue;
            index.emplace(s.slot.get(), out.size());
            out.push_back(
                {s.slot, slotVariablePath(out[i].path, s.name, out[vi->second].path), ProgramObjectKind::SlotVariable, true});
        }
    }
    return out;
}

}  // namespace ckpt::restore

// programFromCheckpoint / openRestoreTarget: a checkpoint used as a restore
// target, its structure rebuilt as a Trackable program (no values read).

#include "ckpt/model_spec.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace ckpt {

namespace {

// True when 'from' can reach 'to' through children.
bool reaches(const Trackable* from, const Trackable* to) {
    std::vector<const Trackable*> stack{from};
    std::unordered_set<const Trackable*> seen{from};
    while (!stack.empty()) {
        const Trackable* t = stack.back();
        stack.pop_back();
        if (t == to) return true;
        for (const Trackable::Child& c : t->children())
            if (seen.insert(c.object.get()).second) stack.push_back(c.object.get());
    }
    return false;
}

std::shared_ptr<Variable> variableFor(const TensorInfo& t, int replicas, const ModelSpecOptions& options) {
    return options.values ? Variable::make(t.dtype, t.shape, replicas) : Variable::declare(t.dtype, t.shape, replicas);
}

Result<std::shared_ptr<Trackable>> programFromNameBased(const Checkpoint& ckpt, const ModelSpecOptions& options) {
    auto root = Trackable::makeObject();
    std::map<std::string, const TensorInfo*> keys;
    for (const TensorInfo& t : ckpt.bundle().tensors()) keys.emplace(t.key, &t);
    // Every prefix path, shallow first, so parents exist before children.
    std::vector<std::string> paths;
    std::unordered_set<std::string> seen;
    for (const auto& [key, info] : keys) {
        size_t pos = 0;
        for (;;) {
            const size_t slash = key.find('/', pos);
            const std::string prefix = key.substr(0, slash);
            if (!prefix.empty() && seen.insert(prefix).second) paths.push_back(prefix);
            if (slash == std::string::npos) break;
            pos = slash + 1;
        }
    }
    std::stable_sort(paths.begin(), paths.end(), [](const std::string& a, const std::string& b) {
        return std::count(a.begin(), a.end(), '/') < std::count(b.begin(), b.end(), '/');
    });
    std::unordered_map<std::string, std::shared_ptr<Trackable>> made{{"", root}};
    for (const std::string& p : paths) {
        const size_t slash = p.rfind('/');
        const std::string parent = slash == std::string::npos ? "" : p.substr(0, slash);
        const std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
        auto pit = made.find(parent);
        if (pit == made.end() || name.empty()) continue;  // "a//b": no name to give it
        std::shared_ptr<Trackable> obj;
        if (auto k = keys.find(p); k != keys.end()) {
            auto v = variableFor(*k->second, 1, options);
            v->setFullName(p);
            obj = v;
        } else {
            obj = Trackable::makeObject();
        }
        if (pit->second->addChild(name, obj).isOk()) made.emplace(p, obj);
    }
    return root;
}

}  // namespace

Result<std::shared_ptr<Trackable>> programFromCheckpoint(const Checkpoint& ckpt, const ModelSpecOptions& options) {
    const ObjectGraph* g = ckpt.objectGraph();
    if (!g) return programFromNameBased(ckpt, options);
    const auto n = static_cast<size_t>(g->size());
    std::vector<char> isSlot(n, 0);
    for (const ObjectNode& node : g->nodes())
        for (const SlotVariableRef& s : node.slotVariables) isSlot[static_cast<size_t>(s.slotVariableNodeId)] = 1;

    std::vector<std::shared_ptr<Trackable>> made(n);
    auto make = [&](int32_t id) -> std::shared_ptr<Trackable> {
        const ObjectNode& node = g->node(id);
        if (!node.slotVariables.empty()) return Optimizer::make();
        const TensorInfo* value = nullptr;
        int replicas = 1;
        std::string fullName;
        for (const ObjectAttribute& a : node.attributes) {
            if (a.name == "VARIABLE_VALUE") {
                value = ckpt.tensorForAttribute(a);
                fullName = a.fullName;
            } else if (a.name.rfind("parallel_component_", 0) == 0) {
                ++replicas;
            }
        }
        if (!value) return Trackable::makeObject();
        auto v = variableFor(*value, replicas, options);
        if (!fullName.empty()) v->setFullName(fullName);
        return v;
    };
    made[0] = make(0);
    std::deque<int32_t> queue{0};
    while (!queue.empty()) {
        const int32_t id = queue.front();
        queue.pop_front();
        for (const ObjectChild& c : g->node(id).children) {
            const auto ci = static_cast<size_t>(c.nodeId);
            if (isSlot[ci]) continue;  // slots are made through their optimizer
            if (!made[ci]) {
                made[ci] = make(c.nodeId);
                queue.push_back(c.nodeId);
            } else if (reaches(made[ci].get(), made[static_cast<size_t>(id)].get())) {
                continue;  // this edge would close a cycle
            }
            if (made[static_cast<size_t>(id)]->child(c.localName)) continue;
            CKPT_RETURN_IF_ERROR(made[static_cast<size_t>(id)]->addChild(c.localName, made[ci]));
        }
    }
    for (size_t id = 0; id < n; ++id) {
        if (!made[id]) continue;
        Optimizer* opt = made[id]->asOptimizer();
        if (!opt) continue;
        for (const SlotVariableRef& s : g->node(static_cast<int32_t>(id)).slotVariables) {
            auto& var = made[static_cast<size_t>(s.originalVariableNodeId)];
            if (!var || !var->asVariable()) continue;
            auto slot = opt->createSlot(*var->asVariable(), s.slotName);
            for (const ObjectAttribute& a : g->node(s.slotVariableNodeId).attributes) {
                const TensorInfo* t = a.name == "VARIABLE_VALUE" ? ckpt.tensorForAttribute(a) : nullptr;
                if (t && (t->dtype != slot->dtype() || t->shape != slot->shape())) {
                    Tensor value{t->dtype, t->shape, {}, {}};  // declared, or a dtype zeroTensor cannot make
                    if (options.values)
                        if (auto zero = zeroTensor(t->dtype, t->shape)) value = std::move(*zero);
                    slot->mutableValue(0) = std::move(value);
                }
                if (t && !a.fullName.empty()) slot->setFullName(a.fullName);
            }
        }
    }
    return made[0];
}

Result<std::shared_ptr<Trackable>> openRestoreTarget(std::string_view target, const ModelSpecOptions& options) {
    if (target.size() > 5 && target.substr(target.size() - 5) == ".json") return loadModelSpec(target, options);
    CKPT_ASSIGN_OR_RETURN(auto ckpt, Checkpoint::open(target));
    return programFromCheckpoint(*ckpt, options);
}

}  // namespace ckpt

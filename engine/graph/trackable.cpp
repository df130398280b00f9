#include "ckpt/trackable.h"

#include <algorithm>
#include <unordered_set>

namespace ckpt {

namespace {
struct MakeSharedObject final : Trackable {
    MakeSharedObject() : Trackable(Kind::Object) {}
};
}  // namespace

std::shared_ptr<Trackable> Trackable::makeObject() { return std::make_shared<MakeSharedObject>(); }

namespace {
constexpr size_t kIndexedChildren = 16;  // below this a scan is cheaper than hashing
}  // namespace

std::shared_ptr<Trackable> Trackable::child(std::string_view name) const {
    if (!m_childIndex.empty()) {
        const auto it = m_childIndex.find(name);
        return it == m_childIndex.end() ? nullptr : m_children[it->second].object;
    }
    for (const Child& c : m_children)
        if (c.name == name) return c.object;
    return nullptr;
}

Status Trackable::addChild(std::string name, std::shared_ptr<Trackable> object) {
    if (!object) return invalidArgument("child \"" + name + "\" is null");
    if (child(name)) return {StatusCode::AlreadyExists, "an object already has a child named \"" + name + "\""};
    m_children.push_back({std::move(name), std::move(object)});
    if (!m_childIndex.empty()) {
        m_childIndex.emplace(m_children.back().name, m_children.size() - 1);
    } else if (m_children.size() > kIndexedChildren) {
        m_childIndex.reserve(m_children.size() * 2);
        for (size_t i = 0; i < m_children.size(); ++i) m_childIndex.emplace(m_children[i].name, i);
    }
    if (m_hooks.empty()) return okStatus();  // building a graph: no copies per child
    const Child added = m_children.back();
    // Hooks may add further children; iterate over a copy of the list.
    const auto hooks = m_hooks;
    for (const auto& hook : hooks) hook(*this, added);
    return okStatus();
}

Variable* Trackable::asVariable() { return m_kind == Kind::Variable ? static_cast<Variable*>(this) : nullptr; }
Optimizer* Trackable::asOptimizer() { return m_kind == Kind::Optimizer ? static_cast<Optimizer*>(this) : nullptr; }

Result<Tensor> zeroTensor(DataType dtype, const TensorShape& shape) {
    const auto n = shape.numElements();
    if (!n) return invalidArgument("shape " + shape.toString() + " has too many elements");
    if (!isDecodable(dtype)) return unimplemented("cannot create a " + std::string(dataTypeName(dtype)) + " tensor");
    Tensor t;
    t.dtype = dtype;
    t.shape = shape;
    if (dtype == DataType::String) t.strings.assign(static_cast<size_t>(*n), std::string());
    else t.bytes.assign(static_cast<size_t>(*n) * dataTypeSize(dtype), 0);
    return t;
}

std::shared_ptr<Variable> Variable::make(DataType dtype, TensorShape shape, int replicas) {
    std::shared_ptr<Variable> v(new Variable());
    auto zero = zeroTensor(dtype, shape);
    Tensor value = zero ? std::move(*zero) : Tensor{dtype, std::move(shape), {}, {}};
    v->m_values.assign(static_cast<size_t>(std::max(1, replicas)), value);
    return v;
}

std::shared_ptr<Variable> Variable::declare(DataType dtype, TensorShape shape, int replicas) {
    std::shared_ptr<Variable> v(new Variable());
    v->m_values.assign(static_cast<size_t>(std::max(1, replicas)), Tensor{dtype, std::move(shape), {}, {}});
    v->m_declared = true;
    return v;
}

std::shared_ptr<Variable> Variable::fromTensor(Tensor value) {
    std::shared_ptr<Variable> v(new Variable());
    v->m_values.push_back(std::move(value));
    return v;
}

Status Variable::assign(const Tensor& value) {
    if (value.dtype != dtype() || value.shape != shape())
        return invalidArgument("cannot assign a " + std::string(dataTypeName(value.dtype)) + " " + value.shape.toString() +
                               " value to a " + std::string(dataTypeName(dtype())) + " " + shape().toString() + " variable");
    unpin();
    for (Tensor& t : m_values) t = value;
    m_declared = false;
    return okStatus();
}

void Variable::setReplicaCount(int replicas) {
    unpin();
    m_values.resize(static_cast<size_t>(std::max(1, replicas)), m_values.front());
}

std::shared_ptr<Optimizer> Optimizer::make() { return std::shared_ptr<Optimizer>(new Optimizer()); }

std::shared_ptr<Variable> Optimizer::createSlot(Variable& variable, const std::string& slotName) {
    if (auto existing = slot(variable, slotName)) return existing;
    auto s = variable.declared() ? Variable::declare(variable.dtype(), variable.shape())
                                 : Variable::make(variable.dtype(), variable.shape());
    s->setDevice(variable.device());
    auto self = std::static_pointer_cast<Variable>(variable.shared_from_this());
    m_slotIndex[{&variable, slotName}] = m_slots.size();
    m_slots.push_back({self, slotName, s});
    const Slot created = m_slots.back();
    const auto hooks = m_slotHooks;  // hooks may create further slots
    for (const auto& hook : hooks) hook(*this, created);
    return s;
}

std::shared_ptr<Variable> Optimizer::slot(const Variable& variable, std::string_view slotName) const {
    const auto it = m_slotIndex.find({&variable, std::string(slotName)});
    if (it == m_slotIndex.end()) return nullptr;
    // A variable that died may have left its address to this one.
    const Slot& s = m_slots[it->second];
    return s.variable.lock().get() == &variable ? s.slot : nullptr;
}

std::vector<std::string> Optimizer::slotNames() const {
    std::vector<std::string> names;
    std::unordered_set<std::string_view> seen;
    for (const Slot& s : m_slots)
        if (seen.insert(s.name).second) names.push_back(s.name);
    return names;
}

}  // namespace ckpt

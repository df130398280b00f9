#pragma once
// The C++ trackable object model: a program's state as a graph of objects
// with named children, the way tf.train.Checkpoint sees a Python program.
// The save pipeline serializes it into _CHECKPOINTABLE_OBJECT_GRAPH plus
// tensors; restore matches a checkpoint's graph against it.
// Not thread-safe: build and mutate a graph on one thread. Saves snapshot
// the values they need before handing work to other threads; a deferred
// snapshot (deferred_snapshot.h) copies a variable when it is about to
// change, so change values through mutableValue()/assign() after each save,
// not through a reference or pointer kept from before it.
//   auto root = Trackable::makeObject();
//   auto model = Trackable::makeObject();
//   auto kernel = Variable::make(DataType::Float, TensorShape{{4, 8}});
//   CKPT_RETURN_IF_ERROR(model->addChild("kernel", kernel));
//   CKPT_RETURN_IF_ERROR(root->addChild("model", model));
//   auto adam = Optimizer::make();
//   adam->createSlot(*kernel, "m");   // zeros of kernel's dtype/shape

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ckpt/dtype.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

class Variable;
class Optimizer;

// Told before a pinned variable's values change: how a deferred snapshot
// copies a variable it has not copied yet (deferred_snapshot.h).
class VariablePin {
public:
    virtual ~VariablePin() = default;
    virtual void beforeChange(const Variable& variable) = 0;
};

class Trackable : public std::enable_shared_from_this<Trackable> {
public:
    enum class Kind { Object, Variable, Optimizer };
    struct Child {
        std::string name;  // local name, unescaped
        std::shared_ptr<Trackable> object;
    };
    // Called after addChild() succeeds; restore uses it for restore-on-create.
    using ChildAddedHook = std::function<void(Trackable& parent, const Child& child)>;

    static std::shared_ptr<Trackable> makeObject();
    virtual ~Trackable() = default;
    Trackable(const Trackable&) = delete;
    Trackable& operator=(const Trackable&) = delete;

    Kind kind() const { return m_kind; }
    const std::vector<Child>& children() const { return m_children; }
    // nullptr when there is no such child.
    std::shared_ptr<Trackable> child(std::string_view name) const;
    // Fails with AlreadyExists for a duplicate local name.
    Status addChild(std::string name, std::shared_ptr<Trackable> object);

    Variable* asVariable();
    Optimizer* asOptimizer();

    // Hooks run in registration order on every later addChild of this object.
    void addChildAddedHook(ChildAddedHook hook) { m_hooks.push_back(std::move(hook)); }

protected:
    explicit Trackable(Kind kind) : m_kind(kind) {}

private:
    struct NameHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    Kind m_kind;
    std::vector<Child> m_children;
    // Index of m_children by name, built once an object has many children
    // (a graph may give one object hundreds of thousands), so that lookups
    // and duplicate checks stay constant-time.
    std::unordered_map<std::string, size_t, NameHash, std::equal_to<>> m_childIndex;
    std::vector<ChildAddedHook> m_hooks;
};

// A variable: one tensor value (VARIABLE_VALUE), or several identical-shape
// components when replicated over devices (saved as VARIABLE_VALUE plus
// parallel_component_<i>).
class Variable : public Trackable {
public:
    // Zero-initialised value of the given dtype and shape (strings empty).
    static std::shared_ptr<Variable> make(DataType dtype, TensorShape shape, int replicas = 1);
    static std::shared_ptr<Variable> fromTensor(Tensor value);
    // A variable that declares its dtype and shape but holds no values (its
    // tensors have empty bytes and strings): for graphs that are only
    // matched, or whose values come from elsewhere (a restore reading no
    // values, an import streaming them), so that shapes allocate nothing.
    // Slots created for it are declared too. assign() gives it values.
    static std::shared_ptr<Variable> declare(DataType dtype, TensorShape shape, int replicas = 1);
    bool declared() const { return m_declared; }

    DataType dtype() const { return m_values.front().dtype; }
    const TensorShape& shape() const { return m_values.front().shape; }
    int replicas() const { return static_cast<int>(m_values.size()); }
    const Tensor& value(int replica = 0) const { return m_values[static_cast<size_t>(replica)]; }
    // For changing the value: take it anew after each save (see the top).
    Tensor& mutableValue(int replica = 0) {
        unpin();
        return m_values[static_cast<size_t>(replica)];
    }
    // Replaces every replica's value; dtype and shape must match (InvalidArgument
    // naming both otherwise).
    Status assign(const Tensor& value);
    // Grows or shrinks the replica list; new replicas copy replica 0.
    void setReplicaCount(int replicas);

    // Device string used to group tensors by task when saving
    // ("/job:worker/replica:0/task:1/device:CPU:0"); empty = local host.
    const std::string& device() const { return m_device; }
    void setDevice(std::string device) { m_device = std::move(device); }

    // TF1-style global name ("dense/kernel"): how name-based checkpoints
    // match variables, and the attribute's full_name when saving. May be empty.
    const std::string& fullName() const { return m_fullName; }
    void setFullName(std::string name) { m_fullName = std::move(name); }

    // Until the next mutable access (or destruction), which tells 'pin'
    // first. Pinning does not change the value, hence const.
    void pin(std::shared_ptr<VariablePin> pin) const { m_pin = std::move(pin); }
    ~Variable() override { unpin(); }

private:
    Variable() : Trackable(Kind::Variable) {}
    void unpin() const {
        if (m_pin) std::exchange(m_pin, nullptr)->beforeChange(*this);
    }
    mutable std::shared_ptr<VariablePin> m_pin;
    std::vector<Tensor> m_values;
    bool m_declared = false;
    std::string m_device;
    std::string m_fullName;
};

// An optimizer with per-variable slot variables (Adam's "m" and "v").
class Optimizer : public Trackable {
public:
    static std::shared_ptr<Optimizer> make();

    struct Slot {
        std::weak_ptr<Variable> variable;  // the original variable
        std::string name;
        std::shared_ptr<Variable> slot;
    };
    // Creates (or returns the existing) zero slot shaped like 'variable'.
    std::shared_ptr<Variable> createSlot(Variable& variable, const std::string& slotName);
    // nullptr when absent.
    std::shared_ptr<Variable> slot(const Variable& variable, std::string_view slotName) const;
    // Named so it does not collide with Qt's 'slots' keyword macro.
    const std::vector<Slot>& slotVariables() const { return m_slots; }
    // Slot names in first-creation order (the order TF saves them in).
    std::vector<std::string> slotNames() const;

    // Called after createSlot() makes a new slot; restore uses it to restore
    // slot values the checkpoint held back until the slot existed.
    using SlotCreatedHook = std::function<void(Optimizer& optimizer, const Slot& slot)>;
    void addSlotCreatedHook(SlotCreatedHook hook) { m_slotHooks.push_back(std::move(hook)); }

private:
    Optimizer() : Trackable(Kind::Optimizer) {}
    std::vector<Slot> m_slots;
    // Index of m_slots by (variable, slot name): an optimizer may keep
    // slots for hundreds of thousands of variables.
    struct SlotKeyHash {
        size_t operator()(const std::pair<const Variable*, std::string>& k) const {
            return std::hash<const void*>{}(k.first) ^ (std::hash<std::string>{}(k.second) * 31);
        }
    };
    std::unordered_map<std::pair<const Variable*, std::string>, size_t, SlotKeyHash> m_slotIndex;
    std::vector<SlotCreatedHook> m_slotHooks;
};

// Zero tensor (empty strings for DT_STRING) of the given dtype and shape.
Result<Tensor> zeroTensor(DataType dtype, const TensorShape& shape);

}  // namespace ckpt

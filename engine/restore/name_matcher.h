#pragma once
// Name-based restore of a checkpoint without an object graph (TF1 style):
// each program variable takes the tensor whose key is its global name (or,
// without one, its path of local names; see ckpt/restore.h), after the
// assignment map renamed the keys.

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "restore/matcher.h"

namespace ckpt::restore {

class NameMatcher final : public Matcher {
public:
    // Restores everything reachable now; fails only when the assignment map
    // sends two keys to one name.
    static Result<std::shared_ptr<NameMatcher>> start(const std::shared_ptr<RestoreContext>& context,
                                                      const std::shared_ptr<Trackable>& root);
    explicit NameMatcher(std::shared_ptr<RestoreContext> context) : Matcher(std::move(context)) {}

    // Every assertion is assert_consumed here, as in TensorFlow.
    AssertionVerdict verdict(Assertion a) override;
    std::vector<std::string> warnings() override { return {}; }
    std::string style() const override;
    void describe(const std::vector<ProgramObject>& objects, const ObjectIndex& objectIndex,
                  std::vector<ProgramBinding>& bindings, const NodeRow& row) override;

private:
    void restore(const std::shared_ptr<Trackable>& object, const std::string& path);
    std::string variableName(const std::shared_ptr<Trackable>& object) const;
    // A slot without a global name takes "<variable name>/<slot name>".
    void nameSlot(const std::shared_ptr<Trackable>& variable, Variable& slot, const std::string& slotName) const;
    void onChildAdded(Trackable& parent, const Trackable::Child& child) override;
    void onSlotCreated(Optimizer& optimizer, const Optimizer::Slot& slot) override;
    void onReadFailed(const ValueReader::Read& read, const Status& failure) override;

    std::unordered_map<std::string, const TensorInfo*> m_tensorsByName;  // after the assignment map
    std::unordered_map<const TensorInfo*, std::string> m_tensorUsedBy;   // program path
    std::unordered_set<const Trackable*> m_restored;
    std::vector<std::pair<std::weak_ptr<Trackable>, std::vector<std::string>>> m_unused;
    std::unordered_map<const Trackable*, std::string> m_paths;
    std::unordered_map<const Trackable*, std::string> m_errorByObject;
};

}  // namespace ckpt::restore

#include "restore/matcher.h"

namespace ckpt::restore {

Matcher::Matcher(std::shared_ptr<RestoreContext> context)
    : m_context(std::move(context)),
      m_reader(*m_context, [this](const ValueReader::Read& read, const Status& failure) { onReadFailed(read, failure); }) {}

std::vector<AssertionVerdict> Matcher::verdicts() {
    return {verdict(Assertion::Consumed), verdict(Assertion::ExistingObjectsMatched), verdict(Assertion::NontrivialMatch)};
}

void Matcher::hookChildren(const std::shared_ptr<Trackable>& object) {
    if (!m_hookedChildren.insert(object.get()).second) return;
    object->addChildAddedHook(
        [self = shared_from_this()](Trackable& parent, const Trackable::Child& child) { self->onChildAdded(parent, child); });
}

void Matcher::hookSlots(const std::shared_ptr<Trackable>& optimizer) {
    Optimizer* opt = optimizer->asOptimizer();
    if (!opt || !m_hookedSlots.insert(optimizer.get()).second) return;
    opt->addSlotCreatedHook(
        [self = shared_from_this()](Optimizer& o, const Optimizer::Slot& slot) { self->onSlotCreated(o, slot); });
}

}  // namespace ckpt::restore

#pragma once
// One way of matching checkpoint values to program objects: by object graph
// (ObjectMatcher) or by variable name (NameMatcher). A matcher hooks the
// program objects it meets so that children and slots created later are
// restored too (TensorFlow's restore-on-create); a hook holds its matcher,
// so deferred restores go on after the LoadStatus is dropped.
// Single-threaded, like the program graph itself.

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ckpt/match_report.h"
#include "restore/restore_context.h"
#include "restore/value_reader.h"

namespace ckpt::restore {

// What a report learns about one program object while describing the
// checkpoint's nodes (by the object's index in the listing).
struct ProgramBinding {
    bool bound = false;
    int32_t checkpointNode = -1;  // first checkpoint node bound to it
    bool restored = false;
};
using NodeRow = std::function<void(const CheckpointNodeMatch&)>;

class Matcher : public std::enable_shared_from_this<Matcher> {
public:
    explicit Matcher(std::shared_ptr<RestoreContext> context);
    virtual ~Matcher() = default;
    Matcher(const Matcher&) = delete;
    Matcher& operator=(const Matcher&) = delete;

    // Called only while the restore has no errors.
    virtual AssertionVerdict verdict(Assertion a) = 0;
    // The three verdicts (consumed, existing objects matched, nontrivial
    // match), as a report wants them all: a matcher may share work.
    virtual std::vector<AssertionVerdict> verdicts();
    virtual std::vector<std::string> warnings() = 0;
    // "object-based" or "name-based".
    virtual std::string style() const = 0;
    // Hands every checkpoint node's row to 'row', in id order, and records
    // in 'bindings' (one per object of 'objects', found by objectIndex) how
    // the program objects were bound and restored.
    virtual void describe(const std::vector<ProgramObject>& objects, const ObjectIndex& objectIndex,
                          std::vector<ProgramBinding>& bindings, const NodeRow& row) = 0;

protected:
    void hookChildren(const std::shared_ptr<Trackable>& object);
    void hookSlots(const std::shared_ptr<Trackable>& optimizer);
    virtual void onChildAdded(Trackable& parent, const Trackable::Child& child) = 0;
    virtual void onSlotCreated(Optimizer& optimizer, const Optimizer::Slot& slot) = 0;
    // A queued read failed; its error is already in the context.
    virtual void onReadFailed(const ValueReader::Read& read, const Status& failure) = 0;

    std::shared_ptr<RestoreContext> m_context;
    ValueReader m_reader;

private:
    std::unordered_set<const Trackable*> m_hookedChildren;
    std::unordered_set<const Trackable*> m_hookedSlots;
};

}  // namespace ckpt::restore

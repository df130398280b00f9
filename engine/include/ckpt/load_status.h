#pragma once
// The status a restore returns, with TensorFlow's load-status assertions.
// Restore is deferred: objects added to the program later (addChild,
// Optimizer::createSlot) are matched and restored when they appear, and the
// assertions always judge the current state, exactly as
// tf.train.Checkpoint.restore(...).assert_consumed() does.
// Not thread-safe: use it on the thread that owns the program graph.
//   auto status = restoreCheckpoint(ckpt, root);
//   if (!status) return status.status();           // could not read the checkpoint
//   CKPT_RETURN_IF_ERROR(status->assertExistingObjectsMatched());

#include <memory>
#include <string>
#include <vector>

#include "ckpt/match_report.h"
#include "ckpt/status.h"
#include "ckpt/trackable.h"

namespace ckpt {

namespace restore {
class Coordinator;
}  // namespace restore

class LoadStatus {
public:
    enum class Kind {
        ObjectBased,         // matched through _CHECKPOINTABLE_OBJECT_GRAPH
        NameBased,           // TF1 checkpoint: variables matched by full name
        InitializationOnly,  // no checkpoint: every assertion fails
    };

    Kind kind() const;

    // Each returns OK or FailedPrecondition with TensorFlow's message. A
    // restore that hit a dtype/shape mismatch or an unreadable value
    // (TensorFlow raises from restore() itself) fails all three with that
    // error (InvalidArgument / DataLoss).
    Status assertConsumed() const;
    Status assertExistingObjectsMatched() const;
    Status assertNontrivialMatch() const;
    Status check(Assertion a) const;
    AssertionVerdict verdict(Assertion a) const;

    // Silences warnings(); never fails.
    LoadStatus& expectPartial();
    // Values are assigned as objects match, so this only reports restore
    // errors; objects that matched nothing keep their initial values.
    Status initializeOrRestore() const;

    // Mismatches and read failures so far, in the order they happened.
    const std::vector<Status>& restoreErrors() const;
    // The unrestored-value lines TensorFlow logs when a status is dropped;
    // empty after expectPartial().
    std::vector<std::string> warnings() const;
    MatchReport report() const;
    // The same report, row by row (MatchReportSink): for reports too big
    // to hold, such as a CLI printing 150,000 nodes.
    void streamReport(MatchReportSink& sink) const;

    const std::shared_ptr<Trackable>& root() const { return m_root; }

private:
    friend class restore::Coordinator;
    LoadStatus(std::shared_ptr<restore::Coordinator> state, std::shared_ptr<Trackable> root)
        : m_state(std::move(state)), m_root(std::move(root)) {}
    std::shared_ptr<restore::Coordinator> m_state;
    std::shared_ptr<Trackable> m_root;
};

}  // namespace ckpt

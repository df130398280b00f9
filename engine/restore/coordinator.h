#pragma once
// One restore, as a LoadStatus sees it: which matcher runs it (object-based,
// name-based, or none for an initialization-only status), the errors so far,
// and the assertions, warnings and report built from them. Shared by the
// LoadStatus; the hooks the matcher installs on program objects hold the
// matcher, so deferred restores go on after the status is dropped, as in
// TensorFlow. Single-threaded, like the program graph itself.

#include <memory>
#include <string>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/load_status.h"
#include "ckpt/match_report.h"
#include "ckpt/restore.h"
#include "ckpt/trackable.h"
#include "restore/matcher.h"
#include "restore/restore_context.h"

namespace ckpt::restore {

class Coordinator {
public:
    static Result<LoadStatus> start(const std::shared_ptr<const Checkpoint>& ckpt, const std::shared_ptr<Trackable>& root,
                                    const RestoreOptions& options);
    static LoadStatus initializationOnly(std::shared_ptr<Trackable> root);

    LoadStatus::Kind kind() const { return m_kind; }
    AssertionVerdict verdict(Assertion a);
    MatchReport report();
    void streamReport(MatchReportSink& sink);
    std::vector<std::string> warnings();
    const std::vector<Status>& errors() const { return m_context->errors; }
    void setExpectPartial() { m_expectPartial = true; }
    bool expectPartial() const { return m_expectPartial; }

    Coordinator(const Coordinator&) = delete;
    Coordinator& operator=(const Coordinator&) = delete;
    Coordinator() = default;

private:
    LoadStatus::Kind m_kind = LoadStatus::Kind::ObjectBased;
    std::shared_ptr<RestoreContext> m_context = std::make_shared<RestoreContext>();
    std::shared_ptr<Matcher> m_matcher;  // null: initialization only
    bool m_expectPartial = false;
};

}  // namespace ckpt::restore

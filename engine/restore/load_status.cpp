#include "ckpt/load_status.h"

#include "ckpt/restore.h"
#include "restore/coordinator.h"

namespace ckpt {

LoadStatus::Kind LoadStatus::kind() const { return m_state->kind(); }
AssertionVerdict LoadStatus::verdict(Assertion a) const { return m_state->verdict(a); }
Status LoadStatus::check(Assertion a) const { return m_state->verdict(a).status; }
Status LoadStatus::assertConsumed() const { return check(Assertion::Consumed); }
Status LoadStatus::assertExistingObjectsMatched() const { return check(Assertion::ExistingObjectsMatched); }
Status LoadStatus::assertNontrivialMatch() const { return check(Assertion::NontrivialMatch); }

LoadStatus& LoadStatus::expectPartial() {
    m_state->setExpectPartial();
    return *this;
}

Status LoadStatus::initializeOrRestore() const {
    if (!m_state->errors().empty()) return m_state->errors().front();
    return okStatus();
}

const std::vector<Status>& LoadStatus::restoreErrors() const { return m_state->errors(); }
std::vector<std::string> LoadStatus::warnings() const { return m_state->warnings(); }
MatchReport LoadStatus::report() const { return m_state->report(); }
void LoadStatus::streamReport(MatchReportSink& sink) const { m_state->streamReport(sink); }

Result<LoadStatus> restoreCheckpoint(const std::shared_ptr<const Checkpoint>& checkpoint, const std::shared_ptr<Trackable>& root,
                                     const RestoreOptions& options) {
    return restore::Coordinator::start(checkpoint, root, options);
}

Result<LoadStatus> restoreCheckpoint(std::string_view path, const std::shared_ptr<Trackable>& root,
                                     const RestoreOptions& options) {
    CKPT_ASSIGN_OR_RETURN(auto ckpt, Checkpoint::open(path));
    return restore::Coordinator::start(ckpt, root, options);
}

LoadStatus initializationOnlyStatus(std::shared_ptr<Trackable> root) {
    return restore::Coordinator::initializationOnly(std::move(root));
}

Result<PathMapping> parsePathMapping(std::string_view text) {
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || text.find('=', eq + 1) != std::string_view::npos)
        return invalidArgument("mapping \"" + std::string(text) + "\" is not OLD=NEW");
    return PathMapping{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

}  // namespace ckpt

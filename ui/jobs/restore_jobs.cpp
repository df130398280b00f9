#include "jobs/restore_jobs.h"

#include "ckpt/model_spec.h"
#include "ckpt/restore.h"
#include "ckpt/save.h"
#include "ckpt/verify.h"

namespace ckpt::ui {
namespace {

QString text(const Status& s) { return QString::fromStdString(s.toString()); }

Result<LoadStatus> runRestore(const RestoreRequest& request, bool readValues) {
    std::shared_ptr<Trackable> root;
    if (request.target.isEmpty()) {
        CKPT_ASSIGN_OR_RETURN(root, programFromCheckpoint(*request.checkpoint));
    } else {
        CKPT_ASSIGN_OR_RETURN(root, openRestoreTarget(request.target.toStdString()));
    }
    RestoreOptions options;
    options.readValues = readValues;
    for (const auto& [from, to] : request.mappings) {
        if (from.isEmpty() && to.isEmpty()) continue;
        options.assignmentMap.push_back({from.toStdString(), to.toStdString()});
    }
    auto status = restoreCheckpoint(request.checkpoint, root, options);
    if (status.ok() && request.expectPartial) status->expectPartial();
    return status;
}

} // namespace

RestorePreview previewRestore(const RestoreRequest& request) {
    RestorePreview out;
    auto status = runRestore(request, false);
    if (!status.ok()) {
        out.error = text(status.status());
        return out;
    }
    out.ok = true;
    out.report = std::make_shared<const MatchReport>(status->report());
    out.overlay = std::make_shared<const MatchOverlay>(out.report);
    return out;
}

RestoreWriteResult restoreAndWrite(const RestoreRequest& request, const QString& outPrefix,
                                   const std::shared_ptr<JobControl>& job) {
    RestoreWriteResult out;
    out.prefix = outPrefix;
    // Three steps the user can tell apart in the status bar; verify reports
    // its own byte progress in the last one.
    job->setProgress(0, 3);
    auto status = runRestore(request, true);
    if (!status.ok()) {
        out.error = text(status.status());
        return out;
    }
    for (const Status& e : status->restoreErrors()) out.restoreErrors << text(e);
    if (job->isCancelled()) {
        out.cancelled = true;
        return out;
    }
    job->setProgress(1, 3);
    auto stats = writeCheckpoint(*status->root(), outPrefix.toStdString(), SaveOptions{});
    if (!stats.ok()) {
        out.error = text(stats.status());
        return out;
    }
    out.tensors = stats->tensors;
    if (job->isCancelled()) {
        out.cancelled = true;
        return out;
    }
    job->setProgress(2, 3);
    VerifyOptions options;
    options.cancel = &job->token();
    options.progress = JobControl::sinkFor(job);
    auto report = verifyBundle(outPrefix.toStdString(), options);
    if (!report.ok()) {
        out.cancelled = report.status().code() == StatusCode::Cancelled;
        if (!out.cancelled) out.error = text(report.status());
        return out;
    }
    for (const VerifyProblem& p : report->problems) out.problems << QString::fromStdString(p.message);
    out.ok = out.problems.isEmpty();
    return out;
}

} // namespace ckpt::ui

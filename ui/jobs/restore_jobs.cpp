#include "jobs/restore_jobs.h"

#include "ckpt/catalog.h"
#include "ckpt/model_spec.h"
#include "ckpt/restore.h"
#include "ckpt/restored_write.h"
#include "jobs/catalog_jobs.h"

namespace ckpt::ui {
namespace {

QString text(const Status& s) { return QString::fromStdString(s.toString()); }

std::vector<std::string> toStd(const QStringList& list) {
    std::vector<std::string> out;
    for (const QString& s : list) out.push_back(s.toStdString());
    return out;
}

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

// The restore in the catalog's history, worded as `ckpt restore` words it;
// a failure is only a warning: the restore itself happened.
QString recordInCatalog(const RestoreRequest& request, const LoadStatus& status, const RestoredWrite& written) {
    std::string assignmentMap;
    for (const auto& [from, to] : request.mappings) {
        if (from.isEmpty() && to.isEmpty()) continue;
        assignmentMap += (assignmentMap.empty() ? "" : " ") + from.toStdString() + "=" + to.toStdString();
    }
    const std::string output = written.stats ? written.stats->prefix : std::string();
    const Status recorded = recordRestore(request.catalogPath.toStdString(),
                                          restoreRecordFor(status.report(), request.target.toStdString(), assignmentMap, output,
                                                           written.restoreFailure.isOk(), "ckpt-explorer"));
    return recorded.isOk() ? QString() : text(recorded);
}

}  // namespace

RestorePreview previewRestore(const RestoreRequest& request) {
    RestorePreview out;
    auto status = runRestore(request, false);
    if (!status.ok()) {
        out.error = text(status.status());
        return out;
    }
    out.ok = true;
    out.report = std::make_shared<const MatchReport>(status->report());
    out.overlay = std::make_shared<const MatchOverlay>(out.report, request.tree.get());
    return out;
}

RestoreWriteResult restoreAndWrite(const RestoreRequest& request, const QString& outPrefix, RestoreConsent consent,
                                   const std::shared_ptr<JobControl>& job) {
    RestoreWriteResult out;
    out.prefix = outPrefix;
    // The destination before any value is read: a refusal or a question costs nothing.
    const QString openPrefix = QString::fromStdString(request.checkpoint->prefix());
    QStringList sources{openPrefix};
    if (!request.target.isEmpty()) sources << request.target;
    out.destination = judgeDestination(outPrefix, sources, {openPrefix});
    if (!out.destination.refusal.isEmpty() || (out.destination.exists && !consent.overwrite)) return out;
    out.destination.exists = false;  // answered
    // Two steps the user can tell apart in the status bar; verify reports
    // its own byte progress while the second runs.
    job->setProgress(0, 2);
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
    job->setProgress(1, 2);
    RestoredWriteOptions options;
    options.writeDespiteFailure = consent.writeDespiteFailure;
    options.overwrite = consent.overwrite;
    options.sources = toStd(sources);
    options.open = {openPrefix.toStdString()};
    options.verify.cancel = &job->token();
    options.verify.progress = JobControl::sinkFor(job);
    const RestoredWrite written = writeRestoredVerified(*status, outPrefix.toStdString(), options);
    out.prefix = QString::fromStdString(written.prefix);
    // A refused write is asked about and may come back confirmed: that
    // attempt is the one recorded, once.
    if (!written.refused && written.error.code() != StatusCode::Cancelled && !request.catalogPath.isEmpty())
        out.recordWarning = recordInCatalog(request, *status, written);
    if (!written.destination.ok()) {
        // It changed since it was judged (something was written there meanwhile): judged again, asked again.
        out.destination = judgeDestination(outPrefix, sources, {openPrefix});
        return out;
    }
    if (written.refused) {
        out.refusedBecause = text(written.restoreFailure);
        return out;
    }
    out.cancelled = written.error.code() == StatusCode::Cancelled;
    if (!written.error.isOk() && !out.cancelled) out.error = text(written.error);
    if (written.stats) out.tensors = written.stats->tensors;
    if (written.verify)
        for (const VerifyProblem& p : written.verify->problems) out.problems << QString::fromStdString(p.message);
    out.ok = written.ok();
    out.replaced = written.replaced;
    if (out.ok && !request.catalogPath.isEmpty())
        if (auto catalog = sideCatalog(request.catalogPath))
            if (auto recorded = catalog->recordWrite(written.prefix, &*written.verify); !recorded.ok())
                out.recordWarning += (out.recordWarning.isEmpty() ? QString() : QStringLiteral("; ")) + text(recorded.status());
    return out;
}

}  // namespace ckpt::ui

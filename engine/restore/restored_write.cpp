#include "ckpt/restored_write.h"

#include "pipeline/staged_checkpoint.h"

namespace ckpt {

Status restoreFailure(const LoadStatus& status, std::optional<Assertion> requiredAssertion) {
    Status failure = status.initializeOrRestore();
    if (failure.isOk() && requiredAssertion) failure = status.check(*requiredAssertion);
    return failure;
}

RestoredWrite writeRestoredVerified(const LoadStatus& status, const std::string& prefix, const RestoredWriteOptions& options) {
    RestoredWrite out;
    out.prefix = prefix;
    out.destination =
        checkDestination({.path = prefix, .sources = options.sources, .open = options.open, .overwrite = options.overwrite});
    out.restoreFailure = restoreFailure(status, options.requiredAssertion);
    if (!out.destination.ok()) {
        out.error = out.destination.status();
        return out;
    }
    out.prefix = out.destination.path;
    if (!out.restoreFailure.isOk() && !options.writeDespiteFailure) {
        out.refused = true;
        return out;
    }
    if (!status.root()) {
        out.error = failedPrecondition("the restore has no program to write");
        return out;
    }
    // Beside the destination until it verified: a checkpoint already there
    // stays whole whatever happens before commit().
    auto staged = pipeline::StagedCheckpoint::begin(out.prefix, options.overwrite);
    if (!staged.ok()) {
        out.error = staged.status();
        return out;
    }
    auto stats = writeCheckpoint(*status.root(), (*staged)->stagingPrefix(), options.save);
    if (!stats.ok()) {
        out.error = stats.status();
        return out;
    }
    auto report = verifyBundle((*staged)->stagingPrefix(), options.verify);
    if (!report.ok()) {
        out.error = report.status();
        return out;
    }
    report->prefix = out.prefix;
    out.verify = std::move(*report);
    if (!out.verify->ok()) {
        out.error = dataLoss("the restored checkpoint written for " + out.prefix +
                             " does not verify, so it was discarded: " + out.verify->problems.front().message);
        return out;
    }
    if (Status committed = (*staged)->commit(); !committed.isOk()) {
        out.error = committed;
        return out;
    }
    out.replaced = (*staged)->replaced();
    stats->prefix = out.prefix;
    out.stats = *stats;
    return out;
}

}  // namespace ckpt

#include "ckpt/restored_write.h"

namespace ckpt {

Status restoreFailure(const LoadStatus& status, std::optional<Assertion> requiredAssertion) {
    Status failure = status.initializeOrRestore();
    if (failure.isOk() && requiredAssertion) failure = status.check(*requiredAssertion);
    return failure;
}

RestoredWrite writeRestoredVerified(const LoadStatus& status, const std::string& prefix, const RestoredWriteOptions& options) {
    RestoredWrite out;
    out.prefix = prefix;
    out.restoreFailure = restoreFailure(status, options.requiredAssertion);
    if (!out.restoreFailure.isOk() && !options.writeDespiteFailure) {
        out.refused = true;
        return out;
    }
    if (!status.root()) {
        out.error = failedPrecondition("the restore has no program to write");
        return out;
    }
    auto stats = writeCheckpoint(*status.root(), prefix, options.save);
    if (!stats.ok()) {
        out.error = stats.status();
        return out;
    }
    out.prefix = stats->prefix;
    out.stats = *stats;
    auto report = verifyBundle(out.prefix, options.verify);
    if (!report.ok()) {
        out.error = report.status();
        return out;
    }
    out.verify = std::move(*report);
    return out;
}

}  // namespace ckpt

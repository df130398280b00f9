#pragma once
// Writing what a restore produced as a new checkpoint, verified: the one
// policy `ckpt restore --out` and the explorer's Restore… share. When the
// restore recorded an error, or an assertion the caller requires fails,
// the program holds initial values where the user expected restored ones:
// writing it would pass them off as a restored model, so nothing is written
// unless the caller confirms (the CLI's --force, a question in the
// explorer). What is written goes through the save pipeline and is read
// back by verifyBundle, the check `ckpt verify` makes.
//   RestoredWriteOptions options;
//   options.requiredAssertion = Assertion::Consumed;
//   auto w = writeRestoredVerified(*status, "/out/model", options);
//   if (w.refused) ask(w.restoreFailure);  else if (!w.ok()) report(w);

#include <optional>
#include <string>

#include "ckpt/load_status.h"
#include "ckpt/save.h"
#include "ckpt/status.h"
#include "ckpt/verify.h"

namespace ckpt {

struct RestoredWriteOptions {
    std::optional<Assertion> requiredAssertion;  // must pass too, when set
    bool writeDespiteFailure = false;            // the caller confirmed
    SaveOptions save;
    VerifyOptions verify;  // progress and cancellation
};

struct RestoredWrite {
    std::string prefix;                  // as requested, or as written
    Status restoreFailure;               // the first restore error or the failed assertion
    bool refused = false;                // not written because of restoreFailure
    Status error;                        // writing or verifying failed (Cancelled included)
    std::optional<SaveStats> stats;      // set once written
    std::optional<VerifyReport> verify;  // set once verified
    bool written() const { return stats.has_value(); }
    // Written, and verify found nothing wrong.
    bool ok() const { return error.isOk() && stats && verify && verify->ok(); }
};

// The first restore error, else the required assertion's failure, else OK.
Status restoreFailure(const LoadStatus& status, std::optional<Assertion> requiredAssertion);

RestoredWrite writeRestoredVerified(const LoadStatus& status, const std::string& prefix,
                                    const RestoredWriteOptions& options = {});

}  // namespace ckpt

#pragma once
// Writing what a restore produced as a new checkpoint, verified: the one
// policy `ckpt restore --out` and the explorer's Restore… share. When the
// restore recorded an error, or an assertion the caller requires fails,
// the program holds initial values where the user expected restored ones:
// writing it would pass them off as a restored model, so nothing is written
// unless the caller confirms (the CLI's --force, a question in the
// explorer). The destination follows ckpt/destination.h's rule, a separate
// consent: an existing checkpoint is replaced only with 'overwrite' (the
// CLI's --overwrite, the explorer's replace question), never the restore's
// source or an open checkpoint. What is written goes through the save
// pipeline beside the destination, is read back by verifyBundle (the
// check `ckpt verify` makes) and only then moved into place.
//   RestoredWriteOptions options;
//   options.requiredAssertion = Assertion::Consumed;
//   options.sources = {"runs/a/ckpt-3"};
//   auto w = writeRestoredVerified(*status, "/out/model", options);
//   if (w.destination.problem == DestinationProblem::Exists) ask(*w.destination.existing);
//   else if (w.refused) ask(w.restoreFailure);  else if (!w.ok()) report(w);

#include <optional>
#include <string>
#include <vector>

#include "ckpt/destination.h"
#include "ckpt/load_status.h"
#include "ckpt/save.h"
#include "ckpt/status.h"
#include "ckpt/verify.h"

namespace ckpt {

struct RestoredWriteOptions {
    std::optional<Assertion> requiredAssertion;  // must pass too, when set
    bool writeDespiteFailure = false;            // the caller confirmed
    bool overwrite = false;                      // replace a checkpoint already at the prefix
    // What the restore read (its checkpoint, a template checkpoint, the
    // spec) and checkpoints open in the explorer: never written.
    std::vector<std::string> sources;
    std::vector<std::string> open;
    SaveOptions save;
    VerifyOptions verify;  // progress and cancellation
};

struct RestoredWrite {
    std::string prefix;            // as requested, or as written
    DestinationCheck destination;  // the rule's verdict, and what is there
    Status restoreFailure;         // the first restore error or the failed assertion
    bool refused = false;          // not written because of restoreFailure
    // The destination was refused (destination.status()), or writing or
    // verifying failed (Cancelled included): nothing was moved into place.
    Status error;
    std::optional<SaveStats> stats;      // set once written and in place
    std::optional<VerifyReport> verify;  // the staged result's verification
    bool replaced = false;               // a checkpoint was at the prefix and is now this one
    bool written() const { return stats.has_value(); }
    // Written, and verify found nothing wrong.
    bool ok() const { return error.isOk() && stats && verify && verify->ok(); }
};

// The first restore error, else the required assertion's failure, else OK.
Status restoreFailure(const LoadStatus& status, std::optional<Assertion> requiredAssertion);

RestoredWrite writeRestoredVerified(const LoadStatus& status, const std::string& prefix,
                                    const RestoredWriteOptions& options = {});

}  // namespace ckpt

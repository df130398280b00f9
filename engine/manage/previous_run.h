#pragma once
// What a CheckpointManager finds in its directory when it is created:
// its own checkpoints, a previous run's (adopted or left alone) and
// foreign ones (checkpoint_manager.h, "Ownership"). Internal to the manager.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/checkpoint_manager.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/status.h"

namespace ckpt::manage {

struct PreviousRunScan {
    PreviousRunReport report;
    // Own and adopted checkpoints (absolute prefix, save time), oldest
    // first: the ones this manager may rotate.
    std::vector<std::pair<std::string, double>> managed;
};

// Sorts the checkpoints of 'directory' (no trailing '/'; prefixes are
// joined to it as given) and,
// with PreviousRun::Adopt, rewrites each previous-run checkpoint's metadata
// with 'owner' before returning. 'state' is the directory's state file, if
// any. A damaged metadata file makes its checkpoint foreign (never touched).
Result<PreviousRunScan> scanPreviousRun(const std::string& directory, const std::string& checkpointName, const std::string& owner,
                                        const std::optional<CheckpointState>& state, CheckpointManagerOptions::PreviousRun mode);

}  // namespace ckpt::manage

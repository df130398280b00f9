#pragma once
// TensorFlow's keep_checkpoint_every_n_hours, the one rule behind the
// retention planner's keep_one_per_hours and the checkpoint manager's
// legacy rotation (docs/scheduling.md, "keep_one_per_hours"). Pure.

#include <vector>

namespace ckpt::schedule {

// As CheckpointManager._sweep decides (checkpoint_management.py): the
// checkpoints leaving the active set, oldest first, by their timestamps;
// each saved at least 'seconds' after 'lastPreserved' is preserved and
// its timestamp becomes 'lastPreserved'. The others are to be deleted.
// Returns, per checkpoint, whether it is preserved.
std::vector<bool> preserveEveryInterval(const std::vector<double>& leaving, double seconds, double& lastPreserved);

}  // namespace ckpt::schedule

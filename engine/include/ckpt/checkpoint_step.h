#pragma once
// Which step a checkpoint belongs to. Its number (the "-N" of "ckpt-N") is
// often save_counter rather than the training step: tf.train.CheckpointManager
// numbers by it unless given checkpoint_number. So the step is read from the
// checkpoint when it stores one.
//   auto reader = BundleReader::open("/runs/a/ckpt-4");
//   CheckpointStep s = checkpointStep((*reader)->prefix(), reader->get());  // {4, 200, "step/..."}
//   auto quick = readCheckpointStep("/runs/a/ckpt-4");                       // same, index not decoded

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/bundle_reader.h"
#include "ckpt/status.h"

namespace ckpt {

// The number after a prefix's last '-' ("ckpt-12" -> 12), if it is all digits.
std::optional<int64_t> checkpointNumber(std::string_view prefix);
// The prefix of checkpoint 'number' of a numbered series: "<base>-<number>"
// ("runs/a/ckpt", 12 -> "runs/a/ckpt-12"), as save() and the manager name them.
std::string numberedCheckpointPrefix(std::string_view base, int64_t number);

struct CheckpointStep {
    std::optional<int64_t> number;  // checkpointNumber(prefix)
    std::optional<int64_t> step;    // stored in the checkpoint, else the number
    // The key the step was read from, "checkpoint number" when the number
    // stands in, empty when there is neither.
    std::string source;
};

// The stored step is the first int32/int64 scalar among: a root `step` or
// `global_step` variable (tf.train.Checkpoint(step=...), TF1's global step),
// then the optimizer's iteration count. 'reader' may be null (unreadable
// checkpoint): the number stands in.
CheckpointStep checkpointStep(std::string_view prefix, const BundleReader* reader);

// The same answer without opening a BundleReader: looks up only the header
// and the step keys in the .index and reads the one scalar from its data
// file, instead of decoding every entry (~60 ms for 100,000 tensors).
// An error when the index cannot be read (the caller may then fall back to
// checkpointStep(prefix, nullptr)); a step value that is damaged or
// unreadable is skipped, as checkpointStep does. When 'header' is given it
// receives the bundle header read on the way (a listing needs its shard
// count; no second lookup).
Result<CheckpointStep> readCheckpointStep(std::string_view prefix, BundleHeader* header = nullptr);

}  // namespace ckpt

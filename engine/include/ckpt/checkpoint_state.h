#pragma once
// The text-format `checkpoint` state file next to numbered checkpoints
// (docs/format.md, "CheckpointState", "The `checkpoint` file",
// "latest_checkpoint(dir)").

#include <optional>
#include <string>
#include <vector>

#include "ckpt/status.h"

namespace ckpt {

struct CheckpointState {
    std::string modelCheckpointPath;  // as written (may be relative)
    std::vector<std::string> allModelCheckpointPaths;
    std::vector<double> allModelCheckpointTimestamps;
    double lastPreservedTimestamp = 0;
};

inline constexpr const char* kCheckpointStateFile = "checkpoint";

// nullopt when <dir>/checkpoint does not exist; DataLoss naming the file when
// it exists but is not a valid text CheckpointState.
Result<std::optional<CheckpointState>> readCheckpointState(const std::string& dir);

// TensorFlow's latest_checkpoint(dir): the state file's model_checkpoint_path
// made absolute, if its .index exists; nullopt otherwise.
Result<std::optional<std::string>> latestCheckpoint(const std::string& dir);

// Writes <dir>/checkpoint atomically (temp file + rename, docs/format.md, "The `checkpoint` file"). Paths are
// stored as given (relative to 'dir' by convention).
Status writeCheckpointState(const std::string& dir, const CheckpointState& state);

// Joins a state-file path with the directory unless it is absolute.
std::string resolveStatePath(const std::string& dir, const std::string& path);

}  // namespace ckpt

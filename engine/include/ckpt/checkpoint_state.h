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

// The state file's entries whose checkpoint has no .index, as written:
// model_checkpoint_path first (when it is one), then every other path of
// all_model_checkpoint_paths in order. A state file that names these lies:
// `ckpt verify DIR` and the catalog report them.
std::vector<std::string> stateEntriesWithoutIndex(const std::string& dir, const CheckpointState& state);

// How the engine's writers (CheckpointManager, retention, the scheduler)
// write a state file, so that it never names a checkpoint that is gone:
// entries whose .index does not exist are dropped with their timestamps
// (kept only while they pair with the paths one to one), a
// model_checkpoint_path whose index is gone becomes the newest remaining
// entry, and with nothing left the file is removed instead. Nothing is
// ever added. Holds the directory's lock (storage/directory_lock.h)
// while it checks and writes, so a writer that deletes checkpoints under
// the same lock is never undone by a stale list. The file is still the
// text CheckpointState TensorFlow reads and writes.
Status commitCheckpointState(const std::string& dir, CheckpointState state);

}  // namespace ckpt

#pragma once
// The text-format `checkpoint` state file next to numbered checkpoints
// (docs/format.md, "CheckpointState", "The `checkpoint` file",
// "latest_checkpoint(dir)").

#include <functional>
#include <optional>
#include <string>
#include <string_view>
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
// A state file is read whole; a larger one is refused before it is read.
inline constexpr size_t kMaxCheckpointStateBytes = 16u << 20;
// How often updateCheckpointState reads, changes and writes again when
// other writers keep changing the file in between.
inline constexpr int kStateUpdateAttempts = 16;

// The text CheckpointState in 'text'; DataLoss naming 'path' (and the line
// and column) when it is not one.
Result<CheckpointState> parseCheckpointState(std::string_view text, const std::string& path);

// nullopt when <dir>/checkpoint does not exist; DataLoss naming the file when
// it exists but is not a valid text CheckpointState.
Result<std::optional<CheckpointState>> readCheckpointState(const std::string& dir);

// TensorFlow's latest_checkpoint(dir): the state file's model_checkpoint_path
// made absolute, if its .index exists; nullopt otherwise.
Result<std::optional<std::string>> latestCheckpoint(const std::string& dir);

// Writes <dir>/checkpoint atomically (temp file + rename locally, one PUT on
// a store; docs/format.md, "The `checkpoint` file"), whatever is there.
// Paths are stored as given (relative to 'dir' by convention).
Status writeCheckpointState(const std::string& dir, const CheckpointState& state);

// Joins a state-file path with the directory unless it is absolute.
std::string resolveStatePath(const std::string& dir, const std::string& path);

// The state file's entries whose checkpoint has no .index, as written:
// model_checkpoint_path first (when it is one), then every other path of
// all_model_checkpoint_paths in order. A state file that names these lies:
// `ckpt verify DIR` and the catalog report them.
std::vector<std::string> stateEntriesWithoutIndex(const std::string& dir, const CheckpointState& state);

// How the engine's writers (CheckpointManager, retention, the scheduler,
// the savers of several processes) write a state file, so that it never
// names a checkpoint that is gone and no writer's change is lost to
// another's. 'change' gets the file as it is now (nullopt when there is
// none, or when it does not parse: then it is replaced, as TensorFlow's
// writers replace it) and returns what to write, or nullopt to leave it as
// it is. What
// it returns is then cleaned: entries whose .index does not exist are
// dropped with their timestamps (kept only while they pair with the paths
// one to one), a model_checkpoint_path whose index is gone becomes the
// newest remaining entry, and with nothing left the file is removed
// instead. The write is a compare-and-swap on the generation that was
// read (an object store's If-Match, If-None-Match when there was none;
// locally a check and rename under the directory's lock): when another
// writer changed the file in between, it is read and 'change' is called
// again, up to kStateUpdateAttempts times, then FailedPrecondition naming
// the file.
// Locally the directory's lock (storage/directory_lock.h) is held
// throughout, so a writer that deletes checkpoints under the same lock is
// never undone by a stale list. The file stays the text CheckpointState
// TensorFlow reads and writes.
using CheckpointStateChange = std::function<std::optional<CheckpointState>(const std::optional<CheckpointState>& current)>;
Status updateCheckpointState(const std::string& dir, const CheckpointStateChange& change);

// updateCheckpointState making 'name' (a checkpoint directly in 'dir') the
// latest: its earlier entry, if any, leaves the list, and it is appended
// with 'savedAt' (timestamps kept only while they pair with the paths).
// Every other entry stays: what a scheduled copy and a merger of N
// writers record.
Status recordLatestCheckpoint(const std::string& dir, const std::string& name, double savedAt);

// updateCheckpointState writing 'state' whatever the file holds now (the
// writer's own list wins, as TensorFlow's CheckpointManager's does).
Status commitCheckpointState(const std::string& dir, CheckpointState state);

}  // namespace ckpt

#pragma once
// tf.train.CheckpointManager for the C++ object model (docs/format.md
// §9 and §12 "Save"): numbered saves <dir>/<name>-<N> from the root's
// save_counter, the `checkpoint` state file, max_to_keep /
// keep_checkpoint_every_n_hours retention, checkpoint_interval on a step
// counter, restore-or-initialize, and optional asynchronous saves.
// Async: save() snapshots every tensor into host memory and returns; one
// background thread writes; a second save waits for the first write, then
// copies into the buffers that write used (see snapshot_buffers.h: the
// manager keeps one snapshot's worth of memory between saves); a background
// error is returned by the next save(), sync() or close() (the destructor
// calls close() and prints an unreported error). The copy is eager (on the
// caller's thread, all cores) or deferred to the writer thread
// (deferred_snapshot.h), which asks the caller to change variables only
// through a fresh mutableValue()/assign() after each save.
// Thread-affine: call a manager from one thread (the writer thread is internal).
//   CheckpointManagerOptions o; o.maxToKeep = 3; o.async = true;
//   auto mgr = CheckpointManager::create(root, "/runs/a", o);
//   auto saved = (*mgr)->save();      // SaveReport: path, blocking time
//   CKPT_RETURN_IF_ERROR((*mgr)->sync());

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/save.h"
#include "ckpt/status.h"
#include "ckpt/trackable.h"

namespace ckpt {

struct CheckpointManagerOptions {
    std::string checkpointName = "ckpt";
    std::optional<int> maxToKeep = 5;  // nullopt keeps everything
    std::optional<double> keepCheckpointEveryNHours;
    std::optional<int64_t> checkpointInterval;  // needs stepCounter
    std::shared_ptr<Variable> stepCounter;      // int64 or int32 scalar
    bool async = false;
    // Async only: Eager copies every variable before save() returns, so
    // variables may then be changed any way; Deferred returns once they are
    // pinned and copies on the writer thread (deferred_snapshot.h).
    enum class Snapshot { Eager, Deferred };
    Snapshot asyncSnapshot = Snapshot::Eager;
    SaveOptions save;
    // restoreOrInitialize() hooks: restore from a prefix, or initialize fresh.
    std::function<Status(const std::string& prefix)> restore;
    std::function<Status()> initialize;
};

struct SaveReport {
    std::optional<std::string> path;  // nullopt when checkpointInterval skipped the save
    double blockingSeconds = 0;       // time save() held the caller
    double waitedSeconds = 0;         // async: part of it spent waiting for the previous write
    // Deferred snapshots: how long variable changes since the previous save
    // waited for that save's copy (the part of its cost save() did not block on).
    double previousStallSeconds = 0;
    int64_t tensors = 0;
    uint64_t bytes = 0;
};

class CheckpointManager {
public:
    // Reads <directory>/checkpoint (a corrupt one is a DataLoss error naming it).
    [[nodiscard]] static Result<std::unique_ptr<CheckpointManager>> create(std::shared_ptr<Trackable> root, std::string directory,
                                                                           CheckpointManagerOptions options);
    ~CheckpointManager();
    CheckpointManager(const CheckpointManager&) = delete;
    CheckpointManager& operator=(const CheckpointManager&) = delete;

    // Saves unless the interval says not yet ('checkInterval' false forces it).
    Result<SaveReport> save(std::optional<int64_t> checkpointNumber = std::nullopt, bool checkInterval = true);
    // Waits for the background write; returns its error, if any.
    Status sync();
    // sync() and stop the writer thread.
    Status close();

    const std::string& directory() const { return m_directory; }
    // Latest checkpoint this manager knows of (after an async save: once written).
    std::optional<std::string> latestCheckpoint() const;
    // Checkpoints still managed (oldest first), as absolute prefixes.
    std::vector<std::string> checkpoints() const;
    // Restores the latest checkpoint with options.restore, else calls
    // options.initialize; returns the restored prefix or nullopt.
    Result<std::optional<std::string>> restoreOrInitialize();

private:
    CheckpointManager() = default;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::string m_directory;
};

}  // namespace ckpt

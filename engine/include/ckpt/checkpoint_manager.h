#pragma once
// tf.train.CheckpointManager for the C++ object model (docs/format.md,
// "Checkpoint management"; docs/semantics.md, "Numbered saves and the state
// file"): numbered saves <dir>/<name>-<N> from the root's save_counter,
// the `checkpoint` state file, max_to_keep / keep_checkpoint_every_n_hours
// retention, checkpoint_interval on a step
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
//
// Ownership (docs/scheduling.md): every save writes <prefix>.info.json
// (checkpoint_metadata.h: owner, step, time, metrics, tags) durably before
// the checkpoint's index commits. The manager deletes only checkpoints
// whose metadata names its owner. At create() it sorts what the directory
// already holds: its own; a previous run's (this checkpoint name, written
// by another owner or listed in the state file without metadata), which it
// adopts (rewriting their metadata with this owner) or leaves alone as
// options.previousRun says; and foreign ones, never touched. previousRun()
// reports each group. Rotation (legacy max_to_keep / keep-every-N-hours, or
// a RetentionPolicy through retention.h's planner) runs only after the new
// checkpoint and the state file are durable; with async saves on the
// writer thread, after the commit.
//   CheckpointManagerOptions o; o.maxToKeep = 3; o.async = true;
//   auto mgr = CheckpointManager::create(root, "/runs/a", o);
//   SaveRequest request; request.step = 1200; request.metrics["loss"] = 0.25;
//   auto saved = (*mgr)->save(request);   // SaveReport: path, blocking time
//   CKPT_RETURN_IF_ERROR((*mgr)->sync());

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/retention.h"
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

    // The run id recorded in each checkpoint's metadata; the manager deletes
    // only checkpoints carrying it. Empty: "<checkpointName>@<directory>"
    // with the directory made absolute, so a restarted program with the same
    // options owns what it wrote before.
    std::string owner;
    // When set, replaces maxToKeep and keepCheckpointEveryNHours: after each
    // save the manager plans retention over the directory (retention.h) with
    // this owner and deletes what the plan deletes.
    std::optional<RetentionPolicy> retention;
    // A previous run's checkpoints found at create(): Adopt rewrites their
    // metadata with this owner and manages them with the rest (what
    // TensorFlow's manager does with the state file's list); LeaveAlone
    // never deletes them and leaves them out of the state file's list.
    enum class PreviousRun { Adopt, LeaveAlone };
    PreviousRun previousRun = PreviousRun::Adopt;
    // Wall seconds since the Unix epoch (metadata savedAt, timestamps,
    // retention's now). Empty: the system clock. Tests inject a fake one;
    // with async saves it is also called on the writer thread.
    std::function<double()> clock;
};

// What create() found in the directory, as absolute prefixes in step order.
struct PreviousRunReport {
    std::vector<std::string> own;        // already this owner's
    std::vector<std::string> adopted;    // a previous run's, now this owner's
    std::vector<std::string> leftAlone;  // a previous run's, never deleted by this manager
    std::vector<std::string> foreign;    // not this manager's kind (other names, no metadata): never touched
};

// One save with what its metadata records.
struct SaveRequest {
    std::map<std::string, double> metrics;
    std::vector<std::string> tags;
    std::optional<int64_t> checkpointNumber;  // default: save_counter
    bool checkInterval = true;                // false forces a save the interval would skip
    // The training step for the metadata. Default: the step counter, else the
    // root's int `step` / `global_step` variable, else none (readers then
    // use the step stored in the checkpoint).
    std::optional<int64_t> step;
    std::string schedule;  // the schedule that asked, if any
};

struct SaveReport {
    std::optional<std::string> path;  // nullopt when checkpointInterval skipped the save
    std::optional<int64_t> step;      // what the metadata records
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
    Result<SaveReport> save(const SaveRequest& request);
    // Async: a write is still running (a save() now would wait for it).
    bool saveInFlight() const;
    // Waits for the background write; returns its error, if any.
    Status sync();
    // sync() and stop the writer thread.
    Status close();

    const std::string& directory() const { return m_directory; }
    // Latest checkpoint this manager knows of (after an async save: once written).
    std::optional<std::string> latestCheckpoint() const;
    // Checkpoints still managed (oldest first), as absolute prefixes.
    std::vector<std::string> checkpoints() const;
    const std::string& owner() const;
    const PreviousRunReport& previousRun() const;
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

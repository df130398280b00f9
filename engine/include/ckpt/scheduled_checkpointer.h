#pragma once
// Saves for a live training loop: a trackable root, a directory, save
// triggers (save_triggers.h) and what to keep (a RetentionPolicy, or the
// manager's max_to_keep). The loop calls onStep() every step; it saves
// through a CheckpointManager when a trigger fires and says what happened.
// With triggers.onPreemption, SIGTERM/SIGINT make the next onStep() save
// once, wait until that save is durable, and set stopRequested() so the
// loop can exit. Nothing due costs a few comparisons (no I/O, no locks;
// with a store, one look at the writer while an async save's run is open).
// Thread-affine, like the manager: call it from the training loop's thread.
//   ScheduledCheckpointerOptions o;
//   o.triggers.everySteps = 100; o.triggers.onPreemption = true;
//   o.manager.retention.emplace().keepLatest = 3;
//   o.manager.async = true;
//   auto ckpt = ScheduledCheckpointer::create(root, "/runs/a", o);
//   for (int64_t step = 1; !(*ckpt)->stopRequested(); ++step) {
//       double loss = train();
//       auto r = (*ckpt)->onStep(step, {{"loss", loss}});     // r->saved, r->reason, r->report
//       if (!r.ok()) return r.status();
//   }
//   CKPT_RETURN_IF_ERROR((*ckpt)->close());

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/checkpoint_manager.h"
#include "ckpt/retention.h"
#include "ckpt/save_triggers.h"
#include "ckpt/status.h"
#include "ckpt/trackable.h"

namespace ckpt {
namespace schedule {
class ProgramRunRecorder;
}  // namespace schedule

// When to save and what to keep, as one JSON file (`ckpt demo-train
// --policy`): {"triggers": {...save_triggers.h...}, "retention":
// {...retention.h...}}. Both parts are optional (absent: the caller's
// default); unknown fields are errors.
struct CheckpointPolicy {
    std::optional<SaveTriggers> triggers;
    std::optional<RetentionPolicy> retention;
};
Result<CheckpointPolicy> parseCheckpointPolicy(std::string_view json, std::string_view source);
// The file at 'path' (at most 1 MiB), parsed; errors name the file.
Result<CheckpointPolicy> readCheckpointPolicy(const std::string& path);
std::string checkpointPolicyToJson(const CheckpointPolicy& policy);

struct ScheduledCheckpointerOptions {
    SaveTriggers triggers;
    // How saves are made and what is kept: retention (or maxToKeep),
    // owner, previousRun, async, sharding (save), clock. Its
    // checkpointInterval is not used: the triggers decide.
    CheckpointManagerOptions manager;
    std::string schedule;  // recorded in each checkpoint's metadata
    // Set: the program registers itself in this schedule store
    // (schedule_store.h) as a Program schedule named 'schedule' (required;
    // adds it, or updates a program schedule of that name) and records
    // each save as one run: trigger "due" for a trigger's save, "run-now"
    // for saveNow(), the reason and step in its note, then bytes, result
    // and checkpoint once the save is durable (an async save: when a later
    // onStep(), save, or close() finds the write committed). The store is
    // written on a thread of its own, so a save never waits for it; close()
    // returns once every run is in it. A store that cannot be opened or
    // written is reported once on stderr and recording stops; training and
    // saving go on.
    std::optional<std::string> storePath;
    // The schedule's source_path: what the program is. Empty: its
    // executable (/proc/self/exe).
    std::string program;
};

struct StepOutcome {
    bool saved = false;
    // The trigger that fired ("every 100 steps", "preemption (SIGTERM)",
    // "forced", ...), "skipped: a save is in flight", or empty when nothing was due.
    std::string reason;
    SaveReport report;  // when saved
};

class ScheduledCheckpointer {
public:
    // Creates the manager (which sorts the directory's previous run) and,
    // with triggers.onPreemption, installs the SIGTERM/SIGINT handlers.
    [[nodiscard]] static Result<std::unique_ptr<ScheduledCheckpointer>> create(std::shared_ptr<Trackable> root,
                                                                               std::string directory,
                                                                               ScheduledCheckpointerOptions options);
    ~ScheduledCheckpointer();  // records a pending async save's run, as close() does
    ScheduledCheckpointer(const ScheduledCheckpointer&) = delete;
    ScheduledCheckpointer& operator=(const ScheduledCheckpointer&) = delete;

    // Call after each training step with the state of that step. Saves when
    // a trigger fires; an error is the save's (or an earlier async save's).
    Result<StepOutcome> onStep(int64_t step, const std::map<std::string, double>& metrics = {});
    // Saves now whatever the triggers say (at the last step passed to onStep).
    Result<StepOutcome> saveNow(std::string reason = "forced", const std::map<std::string, double>& metrics = {});
    // A preemption save is done (and durable): the loop should stop.
    bool stopRequested() const { return m_stopRequested; }
    // Waits for the background write; returns its error. With a store, the
    // last async save's run is recorded here at the latest.
    Status close();

    CheckpointManager& manager() { return *m_manager; }
    const TriggerState& triggerState() const { return m_triggers; }
    int64_t saves() const { return m_saves; }

private:
    ScheduledCheckpointer(std::unique_ptr<CheckpointManager> manager, TriggerState triggers, std::string schedule,
                          std::function<double()> clock);
    Result<StepOutcome> save(int64_t step, std::string reason, const std::map<std::string, double>& metrics, bool forced);
    // The async save awaiting its run's end: recorded once its write has
    // finished ('wait': waits for it); returns the write's error.
    Status settlePendingRun(bool wait);
    double now() const;

    std::unique_ptr<CheckpointManager> m_manager;
    TriggerState m_triggers;
    std::string m_schedule;
    std::function<double()> m_clock;
    int64_t m_lastStep = 0;
    int64_t m_saves = 0;
    bool m_preemptionSaved = false;
    bool m_stopRequested = false;
    std::unique_ptr<schedule::ProgramRunRecorder> m_recorder;  // with options.storePath
    bool m_async = false;
    std::optional<std::string> m_pendingCheckpoint;  // an async save's run not yet ended
};

}  // namespace ckpt

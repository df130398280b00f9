#pragma once
// When to save: triggers a training loop (ScheduledCheckpointer) or the
// scheduler checks. They compose as any-of: a save is due when any trigger
// fires. Time comes from the caller, so tests drive a fake clock.
//   SaveTriggers t; t.everySteps = 100; t.everySeconds = 600; t.onPreemption = true;
//   TriggerState state(t, /*haveCheckpoint=*/false, /*now=*/0);
//   TriggerDecision d = state.evaluate({.step = 1, .now = 1.0});   // save: "initial save"
//   if (d.save) { save(); state.recordSave(1, 1.0); }

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt {

struct SaveTriggers {
    std::optional<int64_t> everySteps;   // step % N == 0, or N steps since the last save
    std::optional<double> everySeconds;  // wall time since the last save
    std::vector<int64_t> atSteps;        // exactly these steps
    bool onPreemption = false;           // SIGTERM / SIGINT: save at the next step, then stop
    bool initial = false;                // the first step when the directory has no checkpoint
    bool skipWhileInFlight = true;       // an async save still writing: skip, do not queue
    bool any() const { return everySteps || everySeconds || !atSteps.empty() || onPreemption || initial; }
};

// InvalidArgument naming the field: zero or negative intervals, negative steps.
Status validateSaveTriggers(const SaveTriggers& triggers);

// {"every_steps": 100, "every_seconds": "10m", "at_steps": [1, 500],
//  "on_preemption": true, "initial": true, "skip_while_in_flight": true}
Result<SaveTriggers> parseSaveTriggers(std::string_view json, std::string_view source);
std::string saveTriggersToJson(const SaveTriggers& triggers);

struct TriggerInput {
    int64_t step = 0;
    double now = 0;
    bool saveInFlight = false;
    bool forced = false;
    int preemptionSignal = 0;  // the signal received, 0 = none
};

struct TriggerDecision {
    bool save = false;
    // Why: "every 100 steps", "600 s since the last save", "at step 500",
    // "preemption (SIGTERM)", "initial save", "forced"; when not saving and
    // a trigger fired: "skipped: a save is in flight".
    std::string reason;
};

class TriggerState {
public:
    TriggerState(SaveTriggers triggers, bool haveCheckpoint, double now);
    TriggerDecision evaluate(const TriggerInput& input) const;
    void recordSave(int64_t step, double now);
    // Wall time when everySeconds is next due (for "next run" displays).
    std::optional<double> nextDueTime() const;
    const SaveTriggers& triggers() const { return m_triggers; }

private:
    SaveTriggers m_triggers;
    bool m_haveCheckpoint;
    std::optional<int64_t> m_lastStep;
    double m_lastTime;
};

// Preemption: installs SIGTERM and SIGINT handlers that only record the
// signal (async-signal-safe); the loop polls pendingPreemption() and saves.
// A second signal of the same kind while one is pending restores the
// default action, so a stuck program can still be stopped.
Status installPreemptionHandlers();
int pendingPreemption();  // the signal number, 0 if none
void clearPreemption();
std::string_view signalName(int signal);  // "SIGTERM"

}  // namespace ckpt

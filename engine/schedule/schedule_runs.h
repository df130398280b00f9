#pragma once
// What one scheduled run does, per source kind (the Scheduler records the
// run around it). Each returns how the run ended; a failure is an outcome
// with the engine's message, never a thrown error, and leaves every
// checkpoint the destination had committed as it was.

#include <cstdint>
#include <functional>

#include "ckpt/cancellation.h"
#include "ckpt/schedule.h"
#include "ckpt/schedule_store.h"

namespace ckpt::schedule {

struct RunContext {
    ScheduleStore& store;
    int64_t runId = 0;
    std::function<double()> clock;
    const CancellationToken* cancel = nullptr;  // may be null
    const ProgressSink& progress;               // may be empty
};

// The source's newest complete checkpoint copied (resharded, verified)
// into the destination unless an identical copy is there, its metadata
// and the destination's state file written, then the schedule's retention.
RunOutcome runDirectorySchedule(const Schedule& schedule, RunContext& context);

// The demo trainer run into the destination with the schedule's triggers,
// retention and owner.
RunOutcome runDemoSchedule(const Schedule& schedule, RunContext& context);

}  // namespace ckpt::schedule

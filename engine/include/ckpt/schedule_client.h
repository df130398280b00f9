#pragma once
// Running and cancelling a schedule from a process that is not the
// scheduler service: `ckpt schedule run-now|cancel` and the explorer. When
// no scheduler holds the store's lock the run happens in this process, as
// Scheduler::runNow; when a service holds it (`ckpt scheduler run`, the
// systemd unit) a run-now request is left in the store and the run is
// followed there, progress included, until it ends. Cancelling while
// following sends a cancel request, and the run still ends recorded
// (`interrupted`). Blocking: call from a worker thread in a GUI.
//   RunNowOptions o{.cancel = &token, .progress = sink};
//   o.queued = [](int64_t pid, int64_t) { say("queued for the scheduler service (pid " + std::to_string(pid) + ")"); };
//   CKPT_ASSIGN_OR_RETURN(RunNowOutcome r, runOrQueueSchedule(storePath, "nightly", o));

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "ckpt/cancellation.h"
#include "ckpt/schedule_store.h"
#include "ckpt/status.h"

namespace ckpt {

struct RunNowOptions {
    const CancellationToken* cancel = nullptr;  // may be null
    ProgressSink progress;                      // (done, total, phase); may be empty
    // Called once on the caller's thread when the run was queued for a
    // service: its pid and the request's id.
    std::function<void(int64_t servicePid, int64_t requestId)> queued;
    // false: return once queued, without following the run (RunNowOutcome::run empty).
    bool wait = true;
    // How often a queued run's request and row are read while following it.
    double pollSeconds = 0.2;
    ScheduleStoreOptions store;
};

struct RunNowOutcome {
    std::optional<ScheduleRun> run;     // as recorded when it ended
    std::optional<int64_t> servicePid;  // set when a service ran it (or will)
    std::optional<int64_t> requestId;   // the run-now request, when queued
    bool cancelRequested = false;       // a cancel request was sent while following
};

// NotFound naming an unknown schedule; FailedPrecondition for a program's
// schedule; Cancelled when cancelled before the service started the run
// (the request was withdrawn); Internal when the service stopped before or
// during the run (the next scheduler start records it). The run's own
// failure is in its record, not in the Result.
Result<RunNowOutcome> runOrQueueSchedule(std::string_view storePath, std::string_view name, const RunNowOptions& options);

// Asks whichever process runs the schedule (a service or an in-process
// run-now) to cancel it: see ScheduleStore::requestCancel. The run stops at
// its next safe point, usually within a second; a directory copy finishes
// its atomic copy first. NotFound naming an unknown schedule;
// FailedPrecondition when nothing of it is running or queued, or when its
// running row was left by a process that is gone.
Result<CancelRequest> cancelScheduleRun(std::string_view storePath, std::string_view name,
                                        const ScheduleStoreOptions& storeOptions = {});

}  // namespace ckpt

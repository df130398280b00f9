// Run-now and cancel from outside the scheduler: see ckpt/schedule_client.h.
// Whether a service runs is decided by trying for the lock (Scheduler::open)
// at the moment of asking, never by a pid file alone: a pid can outlive
// its process or be reused.

#include "ckpt/schedule_client.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "ckpt/scheduler.h"
#include "platform/clock.h"

namespace ckpt {
namespace {

// While a request waits untaken, how often to ask whether the service is still there.
constexpr double kHolderCheckSeconds = 2.0;
constexpr int kAttempts = 3;

bool processAlive(int64_t pid) {
    if (pid <= 0) return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

Status programRefused(const Schedule& schedule) {
    return failedPrecondition("schedule \"" + schedule.name + "\" is a program's own (" + schedule.sourcePath +
                              "): the program saves, the scheduler cannot run it");
}

enum class Follow { Done, RunHere };

// Follows request 'requestId' until its run ends. RunHere: the service went
// away before taking it and the request was withdrawn, so the caller runs it.
Result<Follow> follow(ScheduleStore& store, const Schedule& schedule, int64_t requestId, int64_t servicePid,
                      const RunNowOptions& options, RunNowOutcome& out) {
    const auto poll = std::chrono::duration<double>(std::max(0.01, options.pollSeconds));
    auto nextHolderCheck = std::chrono::steady_clock::now() + std::chrono::duration<double>(kHolderCheckSeconds);
    int64_t lastDone = -1, lastTotal = -1;
    std::string lastPhase;
    while (true) {
        if (options.cancel && options.cancel->isCancelled() && !out.cancelRequested) {
            out.cancelRequested = true;
            auto sent = store.requestCancel(schedule.id, platform::unixSeconds(), ::getpid());
            // Nothing to cancel: the run ended meanwhile; the next read says how.
            if (!sent.ok() && sent.status().code() != StatusCode::FailedPrecondition) return sent.status();
        }
        CKPT_ASSIGN_OR_RETURN(ScheduleRequest q, store.request(requestId));
        if (q.runId) {
            CKPT_ASSIGN_OR_RETURN(ScheduleRun run, store.run(*q.runId));
            if (options.progress &&
                (run.progressDone != lastDone || run.progressTotal != lastTotal || run.progressPhase != lastPhase)) {
                lastDone = run.progressDone;
                lastTotal = run.progressTotal;
                lastPhase = run.progressPhase;
                options.progress(lastDone, lastTotal, lastPhase);
            }
            if (run.result != RunResult::Running) {
                out.run = std::move(run);
                return Follow::Done;
            }
            if (!processAlive(run.pid))
                return internalError("the scheduler (pid " + std::to_string(run.pid) + ") stopped during run " +
                                     std::to_string(run.id) + " of \"" + schedule.name +
                                     "\"; the next scheduler start records it interrupted");
        } else if (!q.pending()) {
            if (q.error == "cancelled before it started")
                return cancelled("run-now of \"" + schedule.name + "\" cancelled before the scheduler service (pid " +
                                 std::to_string(servicePid) + ") started it");
            if (!q.error.empty()) return failedPrecondition("run-now of \"" + schedule.name + "\" was not run: " + q.error);
            if (!processAlive(q.takenBy))
                return internalError("the scheduler (pid " + std::to_string(q.takenBy) + ") stopped before running \"" +
                                     schedule.name + "\"");
        } else if (std::chrono::steady_clock::now() >= nextHolderCheck) {
            nextHolderCheck = std::chrono::steady_clock::now() + std::chrono::duration<double>(kHolderCheckSeconds);
            CKPT_ASSIGN_OR_RETURN(auto holder, Scheduler::lockHolder(store.path()));
            if (!holder) {
                CKPT_ASSIGN_OR_RETURN(bool withdrawn, store.withdrawRequest(requestId, platform::unixSeconds(),
                                                                            "the scheduler service stopped; run in the "
                                                                            "requesting process instead"));
                if (withdrawn) return Follow::RunHere;
            }
        }
        std::this_thread::sleep_for(poll);
    }
}

}  // namespace

Result<RunNowOutcome> runOrQueueSchedule(std::string_view storePath, std::string_view name, const RunNowOptions& options) {
    Status lastError;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        SchedulerOptions schedulerOptions;
        schedulerOptions.store = options.store;
        auto scheduler = Scheduler::open(storePath, schedulerOptions);
        if (scheduler.ok()) {
            RunNowOutcome out;
            CKPT_ASSIGN_OR_RETURN(out.run, (*scheduler)->runNow(name, options.cancel, options.progress));
            return out;
        }
        lastError = scheduler.status();
        if (lastError.code() != StatusCode::FailedPrecondition) return lastError;
        CKPT_ASSIGN_OR_RETURN(auto holder, Scheduler::lockHolder(storePath));
        if (!holder) continue;  // not the lock (another refusal), or it was just released: try again

        CKPT_ASSIGN_OR_RETURN(auto store, ScheduleStore::open(storePath, options.store));
        CKPT_ASSIGN_OR_RETURN(Schedule schedule, store->schedule(name));
        if (schedule.source == ScheduleSource::Program) return programRefused(schedule);
        RunNowOutcome out;
        out.servicePid = *holder;
        CKPT_ASSIGN_OR_RETURN(int64_t requestId, store->requestRun(schedule.id, platform::unixSeconds(), ::getpid()));
        out.requestId = requestId;
        if (options.queued) options.queued(*holder, requestId);
        if (!options.wait) return out;
        CKPT_ASSIGN_OR_RETURN(Follow next, follow(*store, schedule, requestId, *holder, options, out));
        if (next == Follow::Done) return out;
    }
    return lastError;
}

Result<CancelRequest> cancelScheduleRun(std::string_view storePath, std::string_view name,
                                        const ScheduleStoreOptions& storeOptions) {
    CKPT_ASSIGN_OR_RETURN(auto store, ScheduleStore::open(storePath, storeOptions));
    CKPT_ASSIGN_OR_RETURN(Schedule schedule, store->schedule(name));
    if (schedule.source == ScheduleSource::Program)
        return failedPrecondition("schedule \"" + schedule.name + "\" is a program's own (" + schedule.sourcePath +
                                  "): cancel it in the program (its saves are its own)");
    CKPT_ASSIGN_OR_RETURN(auto running, store->runningRuns());
    for (const ScheduleRun& run : running)
        if (run.scheduleId == schedule.id && !processAlive(run.pid))
            return failedPrecondition("run " + std::to_string(run.id) + " of \"" + schedule.name + "\" was left running by pid " +
                                      std::to_string(run.pid) +
                                      ", which is gone; the next scheduler start records it interrupted");
    return store->requestCancel(schedule.id, platform::unixSeconds(), ::getpid());
}

}  // namespace ckpt

#pragma once
// The scheduler: runs due schedules of one store and records every run.
// Only one scheduler per store: open() holds an exclusive lock on
// "<store>.lock" (flock, holding the pid) until the Scheduler is destroyed;
// the lock dies with the process, so a SIGKILLed scheduler never blocks
// the next. On open, runs left `running` by a process that is gone are
// recorded as `interrupted`.
// A run never loses a committed checkpoint: copies and demo saves commit
// atomically (the .index rename), metadata is written before retention,
// and retention runs only after the new checkpoint is durable. A failed
// run (disk full, unreadable source) is recorded with the error and leaves
// the destination's previous checkpoints as they were.
// Other processes reach the scheduler through the store: a run-now
// request is served by the service loop within about requestPollSeconds
// (trigger "run-now"), and a cancel request stops the run it names at its
// next safe point (recorded `interrupted`). While a run is in progress its
// progress is written to its row, throttled, for other processes to show.
// ckpt/schedule_client.h is the other side: it runs in-process when no
// scheduler holds the lock and queues a request when one does.
// Methods are for one thread at a time; runNow/runDue may be cancelled
// from another thread through the CancellationToken.
//   auto scheduler = Scheduler::open(storePath, {.log = [](std::string_view l) { puts(l); }});
//   if (!scheduler) return scheduler.status();   // "another scheduler (pid 4242) is running on ..."
//   CancellationToken stop;                      // cancelled by SIGTERM
//   return (*scheduler)->run(stop);

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/schedule.h"
#include "ckpt/schedule_store.h"
#include "ckpt/status.h"

namespace ckpt {

struct SchedulerOptions {
    // Wall time in seconds since the Unix epoch; empty = the system clock.
    // Tests inject a fake clock.
    std::function<double()> clock;
    // run() wakes at least this often to see schedules added or changed by
    // other processes (`ckpt schedule add`, the explorer).
    double maxSleepSeconds = 30;
    // run() checks for run-now requests this often (a cheap read), and a
    // run in progress checks for a cancel request this often.
    double requestPollSeconds = 0.25;
    // A run's progress is written to its row at most this often.
    double progressWriteSeconds = 0.5;
    // One line per event ("run 12 nightly: ok, ckpt-40 1.2 MiB in 0.8 s");
    // empty = silent. Called on the scheduler's thread.
    std::function<void(std::string_view line)> log;
    ScheduleStoreOptions store;
};

// When a schedule next runs and why, as the scheduler decides it.
struct ScheduleDue {
    std::optional<double> nextAt;          // nullopt: never (disabled, Program, no interval)
    bool due = false;                      // nextAt <= now
    RunTrigger trigger = RunTrigger::Due;  // CatchUp when more than one interval was missed
};

// Pure: the decision for a schedule given its last run (nullopt: never ran;
// such a schedule is due at once). A run is due one interval after the last
// run started; after downtime of several intervals it is ONE catch-up run,
// and the next is due one interval after that run.
ScheduleDue scheduleDue(const Schedule& schedule, const std::optional<ScheduleRun>& lastRun, double now);

class Scheduler {
public:
    // FailedPrecondition "another scheduler (pid N) is running on <store>"
    // when the lock is held; the store's own errors (newer schema, not a
    // database, missing directory) as ScheduleStore::open.
    // Requests a dead scheduler had taken but not begun are recorded as not
    // served, with why (their senders stop waiting).
    static Result<std::unique_ptr<Scheduler>> open(std::string_view storePath, SchedulerOptions options = {});
    // The pid of the scheduler holding the store's lock, nullopt when none
    // does. It takes a shared lock for an instant: a scheduler starting in
    // that instant is refused as if another one ran, so call it when about
    // to act on the answer, not in a loop.
    static Result<std::optional<int64_t>> lockHolder(std::string_view storePath);
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    ScheduleStore& store() { return *m_store; }
    // Runs that open() found `running` with a dead pid and marked interrupted.
    const std::vector<ScheduleRun>& interruptedAtOpen() const { return m_interrupted; }

    // Runs every enabled schedule that is due at 'now' (one run each, in
    // name order) and returns the runs as recorded. A run's failure is in
    // its record, not in the Result; the Result fails only when the store
    // does. Stops between runs when 'cancel' is cancelled.
    Result<std::vector<ScheduleRun>> runDue(double now, const CancellationToken* cancel = nullptr,
                                            const ProgressSink& progress = {});
    // Runs one schedule now (trigger "run-now"), whether or not it is due
    // or enabled. NotFound naming it; FailedPrecondition for a Program
    // schedule (the program saves, not the scheduler). Cancelling ends the
    // run as `interrupted` at the next safe point (no partial checkpoint
    // is committed). 'progress' gets (done, total, phase).
    Result<ScheduleRun> runNow(std::string_view name, const CancellationToken* cancel = nullptr,
                               const ProgressSink& progress = {});

    // Takes every pending run-now request and runs each requested schedule
    // once (several requests for one schedule share its run), in request
    // order; a request that cannot be served (a program's schedule) is
    // settled with why. Returns the runs as recorded.
    Result<std::vector<ScheduleRun>> serveRequests(const CancellationToken* cancel = nullptr, const ProgressSink& progress = {});

    // The service loop (`ckpt scheduler run`): serveRequests, runDue, then
    // sleep until the next due time (at most maxSleepSeconds) or a run-now
    // request (checked every requestPollSeconds), until 'stop' is cancelled
    // (SIGTERM / SIGINT). A run in progress when 'stop' is cancelled is
    // abandoned at its next safe point and recorded interrupted. Returns OK
    // on a clean stop; an error only when the store fails.
    Status run(const CancellationToken& stop);

    double now() const;

private:
    Scheduler() = default;
    std::string m_storePath;
    std::unique_ptr<ScheduleStore> m_store;
    // The same store for the thread that watches a run in progress (cancel
    // requests, progress writes): a store object is for one thread.
    std::unique_ptr<ScheduleStore> m_watchStore;
    SchedulerOptions m_options;
    int m_lockFd = -1;
    std::vector<ScheduleRun> m_interrupted;

    // One run, recorded; 'requestIds' are the run-now requests it serves.
    Result<ScheduleRun> execute(const Schedule& schedule, RunTrigger trigger, const CancellationToken* cancel,
                                const ProgressSink& progress, const std::vector<int64_t>& requestIds = {});
    void log(std::string_view line) const;
};

}  // namespace ckpt

// The scheduler: see ckpt/scheduler.h. The lock is an flock on a file
// beside the store, not a row in it: the kernel releases it when the
// process dies however it dies, so a SIGKILLed scheduler never needs a
// stale-lock cleanup, and the pid written into it is only for the message.

#include "ckpt/scheduler.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

#include "platform/file.h"
#include "platform/process_lock.h"
#include "schedule/run_watch.h"
#include "schedule/schedule_runs.h"
#include "platform/clock.h"

namespace ckpt {
namespace {

// run() polls its stop token this often while sleeping.
constexpr auto kStopPoll = std::chrono::milliseconds(50);
// How long settled run-now and cancel requests stay in the store.
constexpr double kKeepRequestsSeconds = 7 * 24 * 3600.0;

bool processAlive(int64_t pid) {
    if (pid <= 0) return false;
    // EPERM: it exists, owned by someone else.
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

std::string timeText(double t) {
    const std::time_t seconds = static_cast<std::time_t>(t);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

std::string describe(const ScheduleRun& run) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s", run.seconds());
    std::string line = "run " + std::to_string(run.id) + " " + run.scheduleName + " (" +
                       std::string(runTriggerName(run.trigger)) + "): " + std::string(runResultName(run.result));
    if (!run.checkpoint.empty()) line += ", " + run.checkpoint;
    if (run.bytes) line += ", " + std::to_string(run.bytes) + " bytes";
    line += std::string(" in ") + seconds;
    if (!run.error.empty()) line += ": " + run.error;
    if (!run.note.empty()) line += " [" + run.note + "]";
    return line;
}

}  // namespace

ScheduleDue scheduleDue(const Schedule& schedule, const std::optional<ScheduleRun>& lastRun, double now) {
    ScheduleDue due;
    const std::optional<double> interval = scheduleInterval(schedule);
    if (!schedule.enabled || !interval) return due;
    if (!lastRun) {
        // Never ran: at once.
        due.nextAt = std::min(now, schedule.createdAt > 0 ? schedule.createdAt : now);
        due.due = true;
        return due;
    }
    due.nextAt = lastRun->startedAt + *interval;
    due.due = now >= *due.nextAt;
    // Down for more than one interval: the missed runs collapse into one.
    if (due.due && now >= lastRun->startedAt + 2 * *interval) due.trigger = RunTrigger::CatchUp;
    return due;
}

Result<std::unique_ptr<Scheduler>> Scheduler::open(std::string_view storePath, SchedulerOptions options) {
    std::unique_ptr<Scheduler> scheduler(new Scheduler());
    scheduler->m_storePath = std::string(storePath);
    scheduler->m_options = std::move(options);
    CKPT_ASSIGN_OR_RETURN(scheduler->m_store, ScheduleStore::open(storePath, scheduler->m_options.store));
    CKPT_ASSIGN_OR_RETURN(scheduler->m_lockFd,
                          platform::takeProcessLock(scheduler->m_storePath + ".lock", "scheduler", scheduler->m_storePath));
    CKPT_ASSIGN_OR_RETURN(scheduler->m_watchStore, ScheduleStore::open(storePath, scheduler->m_options.store));

    // Settled requests are only history: a week of it is kept.
    CKPT_RETURN_IF_ERROR(scheduler->m_store->pruneRequests(platform::unixSeconds() - kKeepRequestsSeconds));
    // Run requests a dead scheduler took but never began: their senders
    // wait for a run that will not come, so they are told why.
    CKPT_ASSIGN_OR_RETURN(auto requests, scheduler->m_store->requests(std::nullopt, false, 1000));
    for (const ScheduleRequest& q : requests) {
        if (q.kind != RequestKind::Run || q.pending() || q.runId || !q.error.empty()) continue;
        CKPT_RETURN_IF_ERROR(scheduler->m_store->settleRequests(
            {q.id}, std::nullopt,
            "the scheduler that took it (pid " + std::to_string(q.takenBy) + ") stopped before running it"));
    }

    // With the lock held no other scheduler is running, so a `running` row
    // of a Directory or demo schedule was left by one that died. A Program
    // schedule's rows belong to that program: interrupted only if it is gone.
    CKPT_ASSIGN_OR_RETURN(auto running, scheduler->m_store->runningRuns());
    for (ScheduleRun& run : running) {
        auto schedule = scheduler->m_store->scheduleById(run.scheduleId);
        const bool program = schedule.ok() && schedule->source == ScheduleSource::Program;
        if (program && processAlive(run.pid)) continue;
        RunOutcome outcome;
        outcome.result = RunResult::Interrupted;
        outcome.endedAt = scheduler->now();
        outcome.error = "the process running it (pid " + std::to_string(run.pid) +
                        ") stopped during the run; checkpoints it had committed are kept, its unfinished save was not committed";
        CKPT_RETURN_IF_ERROR(scheduler->m_store->finishRun(run.id, outcome));
        run.result = RunResult::Interrupted;
        run.endedAt = outcome.endedAt;
        run.error = outcome.error;
        scheduler->log("marked " + describe(run));
        scheduler->m_interrupted.push_back(std::move(run));
    }
    return scheduler;
}

Result<std::optional<int64_t>> Scheduler::lockHolder(std::string_view storePath) {
    return platform::processLockHolder(std::string(storePath) + ".lock", "scheduler");
}

Scheduler::~Scheduler() { platform::releaseProcessLock(m_lockFd); }

double Scheduler::now() const { return m_options.clock ? m_options.clock() : platform::unixSeconds(); }

void Scheduler::log(std::string_view line) const {
    if (m_options.log) m_options.log(timeText(now()) + " " + std::string(line));
}

Result<ScheduleRun> Scheduler::execute(const Schedule& schedule, RunTrigger trigger, const CancellationToken* cancel,
                                       const ProgressSink& progress, const std::vector<int64_t>& requestIds) {
    ScheduleRun run;
    run.scheduleId = schedule.id;
    run.scheduleName = schedule.name;
    run.trigger = trigger;
    run.startedAt = now();
    run.pid = ::getpid();
    CKPT_ASSIGN_OR_RETURN(run.id, m_store->beginRun(schedule.id, trigger, run.startedAt, run.pid));
    // The senders of the requests follow this run from now on.
    if (!requestIds.empty()) CKPT_RETURN_IF_ERROR(m_store->settleRequests(requestIds, run.id, ""));
    log("run " + std::to_string(run.id) + " " + schedule.name + " (" + std::string(runTriggerName(trigger)) + ") started");

    schedule::RunWatch watch(*m_watchStore, {.scheduleId = schedule.id,
                                             .runId = run.id,
                                             .cancel = cancel,
                                             .progress = progress,
                                             .pollSeconds = m_options.requestPollSeconds,
                                             .progressSeconds = m_options.progressWriteSeconds});
    schedule::RunContext context{*m_store, run.id, [this] { return now(); }, &watch.token(), watch.sink()};
    RunOutcome outcome = schedule.source == ScheduleSource::Directory ? schedule::runDirectorySchedule(schedule, context)
                                                                      : schedule::runDemoSchedule(schedule, context);
    watch.stop();
    if (!watch.storeError().isOk()) log("run " + std::to_string(run.id) + ": " + watch.storeError().toString());
    if (const auto& request = watch.cancelRequest()) {
        const std::string who = "cancel requested by pid " + std::to_string(request->pid);
        std::string note;
        if (outcome.result == RunResult::Interrupted) note = who;
        else if (schedule.source == ScheduleSource::Directory)
            note = who + " during the copy, which finished: a copy commits atomically and is not stopped halfway";
        else note = who + " after the run's last step";
        outcome.note = outcome.note.empty() ? note : note + "; " + outcome.note;
    }
    CKPT_RETURN_IF_ERROR(m_store->finishRun(run.id, outcome));
    // A cancel that arrived after the watch's last look must not stop a later run.
    CKPT_RETURN_IF_ERROR(m_store->expireCancelRequests(schedule.id, run.id, platform::unixSeconds(), ::getpid()));
    run.endedAt = outcome.endedAt;
    run.result = outcome.result;
    run.bytes = outcome.bytes;
    run.checkpoint = outcome.checkpoint;
    run.error = outcome.error;
    run.note = outcome.note;
    run.sourceCheckpoint = outcome.sourceCheckpoint;
    run.sourceFingerprint = outcome.sourceFingerprint;
    log(describe(run));
    return run;
}

Result<std::vector<ScheduleRun>> Scheduler::runDue(double at, const CancellationToken* cancel, const ProgressSink& progress) {
    CKPT_ASSIGN_OR_RETURN(std::vector<Schedule> schedules, m_store->schedules());
    std::vector<ScheduleRun> runs;
    for (const Schedule& schedule : schedules) {
        if (cancel && cancel->isCancelled()) break;
        if (schedule.source == ScheduleSource::Program) continue;
        CKPT_ASSIGN_OR_RETURN(auto last, m_store->lastRun(schedule.id));
        const ScheduleDue due = scheduleDue(schedule, last, at);
        if (!due.due) continue;
        CKPT_ASSIGN_OR_RETURN(ScheduleRun run, execute(schedule, due.trigger, cancel, progress));
        runs.push_back(std::move(run));
    }
    return runs;
}

Result<ScheduleRun> Scheduler::runNow(std::string_view name, const CancellationToken* cancel, const ProgressSink& progress) {
    CKPT_ASSIGN_OR_RETURN(Schedule schedule, m_store->schedule(name));
    if (schedule.source == ScheduleSource::Program)
        return failedPrecondition("schedule \"" + schedule.name + "\" is a program's own (" + schedule.sourcePath +
                                  "): the program saves, the scheduler cannot run it");
    return execute(schedule, RunTrigger::RunNow, cancel, progress);
}

Result<std::vector<ScheduleRun>> Scheduler::serveRequests(const CancellationToken* cancel, const ProgressSink& progress) {
    CKPT_ASSIGN_OR_RETURN(std::vector<ScheduleRequest> taken, m_store->takeRunRequests(platform::unixSeconds(), ::getpid()));
    // One run per schedule serves all its requests, in the order of the first.
    std::vector<std::pair<int64_t, std::vector<int64_t>>> bySchedule;
    for (const ScheduleRequest& q : taken) {
        auto it = std::find_if(bySchedule.begin(), bySchedule.end(), [&](const auto& e) { return e.first == q.scheduleId; });
        if (it == bySchedule.end()) bySchedule.push_back({q.scheduleId, {q.id}});
        else it->second.push_back(q.id);
    }
    std::vector<ScheduleRun> runs;
    for (const auto& [scheduleId, ids] : bySchedule) {
        if (cancel && cancel->isCancelled()) {
            CKPT_RETURN_IF_ERROR(m_store->settleRequests(ids, std::nullopt, "the scheduler stopped before running it"));
            continue;
        }
        auto schedule = m_store->scheduleById(scheduleId);
        if (!schedule.ok()) {
            // Removed since it was asked for (its requests went with it).
            if (schedule.status().code() == StatusCode::NotFound) continue;
            return schedule.status();
        }
        if (schedule->source == ScheduleSource::Program) {
            CKPT_RETURN_IF_ERROR(m_store->settleRequests(ids, std::nullopt,
                                                         "schedule \"" + schedule->name + "\" is a program's own (" +
                                                             schedule->sourcePath +
                                                             "): the program saves, the scheduler cannot run it"));
            continue;
        }
        CKPT_ASSIGN_OR_RETURN(ScheduleRun run, execute(*schedule, RunTrigger::RunNow, cancel, progress, ids));
        runs.push_back(std::move(run));
    }
    return runs;
}

Status Scheduler::run(const CancellationToken& stop) {
    log("scheduler started on " + m_storePath + " (pid " + std::to_string(::getpid()) + ")");
    const auto requestPoll = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(std::clamp(m_options.requestPollSeconds, 0.01, 1.0)));
    while (!stop.isCancelled()) {
        CKPT_RETURN_IF_ERROR(serveRequests(&stop).status());
        if (stop.isCancelled()) break;
        CKPT_RETURN_IF_ERROR(runDue(now(), &stop).status());
        if (stop.isCancelled()) break;

        // The earliest next due time, bounded so that schedules added by
        // other processes are seen within maxSleepSeconds.
        const double current = now();
        double wakeAt = current + std::max(1.0, m_options.maxSleepSeconds);
        CKPT_ASSIGN_OR_RETURN(std::vector<Schedule> schedules, m_store->schedules());
        for (const Schedule& schedule : schedules) {
            if (schedule.source == ScheduleSource::Program) continue;
            CKPT_ASSIGN_OR_RETURN(auto last, m_store->lastRun(schedule.id));
            const ScheduleDue due = scheduleDue(schedule, last, current);
            if (due.nextAt) wakeAt = std::min(wakeAt, std::max(*due.nextAt, current));
        }
        const auto start = std::chrono::steady_clock::now();
        const auto until = start + std::chrono::duration<double>(wakeAt - current);
        auto nextRequestCheck = start + requestPoll;
        while (!stop.isCancelled() && std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(kStopPoll);
            if (std::chrono::steady_clock::now() < nextRequestCheck) continue;
            nextRequestCheck = std::chrono::steady_clock::now() + requestPoll;
            CKPT_ASSIGN_OR_RETURN(bool pending, m_store->hasPendingRunRequests());
            if (pending) break;
        }
    }
    log("scheduler stopped");
    return okStatus();
}

}  // namespace ckpt

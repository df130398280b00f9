#pragma once
// Where schedules and their runs are kept: the catalog's SQLite file
// (catalog.h; default $XDG_DATA_HOME/ckpt-explorer/catalog.db, which starts
// as a copy of an older schedules.db beside it), schema-versioned with
// PRAGMA user_version and migrated forward only. Tables `schedules`,
// `schedule_runs` and `schedule_requests`: run-now and cancel requests that the explorer
// and `ckpt schedule run-now|cancel` leave for the scheduler holding the
// store's lock (scheduler.h), which takes each one exactly once.
// WAL journal, foreign keys on, a busy timeout: several processes may open
// the same store (the scheduler service, `ckpt schedule ...`, the explorer);
// each write is one IMMEDIATE transaction, so one writer at a time.
// A file whose schema is newer than this build's, or that is not a SQLite
// database, is refused with an error naming the file and never written.
// One ScheduleStore object is for one thread at a time (open one per thread).
//   auto store = ScheduleStore::open(ScheduleStore::defaultPath().value(), {.createDirectory = true});
//   CKPT_ASSIGN_OR_RETURN(int64_t id, (*store)->addSchedule(schedule));
//   for (const Schedule& s : (*store)->schedules().value()) show(s, (*store)->lastRun(s.id).value());

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/schedule.h"
#include "ckpt/status.h"

namespace ckpt {
namespace catalog {
class Database;
}  // namespace catalog

enum class RunResult { Running, Ok, Failed, Interrupted, Skipped };
// "running", "ok", "failed", "interrupted", "skipped"
std::string_view runResultName(RunResult result);
std::optional<RunResult> runResultFromName(std::string_view name);

// Why a run started: its interval passed ("due"), the first run after the
// scheduler was down for more than one interval ("catch-up"), or a user
// asked ("run-now").
enum class RunTrigger { Due, CatchUp, RunNow };
std::string_view runTriggerName(RunTrigger trigger);  // "due", "catch-up", "run-now"
std::optional<RunTrigger> runTriggerFromName(std::string_view name);

struct ScheduleRun {
    int64_t id = 0;
    int64_t scheduleId = 0;
    std::string scheduleName;  // filled in by the queries (a join)
    RunTrigger trigger = RunTrigger::Due;
    double startedAt = 0;           // seconds since the Unix epoch
    std::optional<double> endedAt;  // nullopt while running
    RunResult result = RunResult::Running;
    uint64_t bytes = 0;      // bytes written into the destination
    std::string checkpoint;  // the prefix written (or found archived)
    std::string error;       // Failed / Interrupted: the engine's message
    std::string note;        // Skipped: why ("ckpt-12 already archived"); retention summary
    int64_t pid = 0;         // the process that ran it
    // Directory runs: the source checkpoint copied and its fingerprint
    // ("<index bytes>:<index crc32c>"), so an unchanged one is not copied again.
    std::string sourceCheckpoint;
    std::string sourceFingerprint;
    // While running: how far it is, as the scheduler last wrote it (at most
    // a few times a second). Units are the phase's: steps, bytes; total 0 =
    // unknown. Left as they were when the run ended.
    int64_t progressDone = 0;
    int64_t progressTotal = 0;
    std::string progressPhase;  // "training", "copying ckpt-40", "retention"
    double seconds() const { return endedAt ? *endedAt - startedAt : 0; }
};

// A request left in the store for the scheduler: run a schedule now, or
// cancel its run in progress.
enum class RequestKind { Run, Cancel };
std::string_view requestKindName(RequestKind kind);  // "run", "cancel"

struct ScheduleRequest {
    int64_t id = 0;
    int64_t scheduleId = 0;
    std::string scheduleName;  // filled in by the queries (a join)
    RequestKind kind = RequestKind::Run;
    double requestedAt = 0;
    int64_t pid = 0;  // the process that asked
    // Run: the run that served it, once the scheduler began it. Cancel: the
    // run it cancels (nullopt: the schedule's next run, for a run request
    // taken but not yet begun).
    std::optional<int64_t> runId;
    std::optional<double> takenAt;  // nullopt while pending
    int64_t takenBy = 0;            // the scheduler's pid
    std::string error;              // why it was not served ("cancelled before it started")
    bool pending() const { return !takenAt; }
};

// What ScheduleStore::requestCancel did.
struct CancelRequest {
    std::optional<int64_t> requestId;  // the cancel request left for the run's scheduler
    std::optional<int64_t> runId;      // the running run it cancels, when one was running
    int withdrawn = 0;                 // pending run requests withdrawn before they started
};

// How a run ended (ScheduleStore::finishRun).
struct RunOutcome {
    RunResult result = RunResult::Ok;
    double endedAt = 0;
    uint64_t bytes = 0;
    std::string checkpoint;
    std::string error;
    std::string note;
    std::string sourceCheckpoint;
    std::string sourceFingerprint;
};

struct ScheduleStoreOptions {
    // Create the file's directory when missing (the default path's
    // ~/.local/share/ckpt-explorer); otherwise a missing directory is
    // NotFound naming it.
    bool createDirectory = false;
    int busyTimeoutMs = 5000;
};

class ScheduleStore {
public:
    // The database's version (catalog.h): 2 added schedule_requests and
    // the runs' progress columns, 3 the catalog, 4 the catalog's state-file
    // problems, 5 its word index, 6 index generations, 7 the word index
    // rebuilt without column sizes. An older file is migrated
    // when opened; an older build then refuses it.
    static constexpr int kSchemaVersion = 7;

    // Catalog::defaultPath(): $XDG_DATA_HOME/ckpt-explorer/catalog.db, else
    // $HOME/.local/share/ckpt-explorer/catalog.db; FailedPrecondition
    // when neither variable is set.
    static Result<std::string> defaultPath();

    // Opens or creates the store and migrates an older schema forward.
    // FailedPrecondition naming the file for a newer schema version;
    // DataLoss naming the file for a file that is not a SQLite database or
    // is damaged; NotFound for a missing directory (see options). In
    // every refused case the file is left byte for byte unchanged.
    static Result<std::unique_ptr<ScheduleStore>> open(std::string_view path, const ScheduleStoreOptions& options = {});
    ~ScheduleStore();
    ScheduleStore(const ScheduleStore&) = delete;
    ScheduleStore& operator=(const ScheduleStore&) = delete;

    const std::string& path() const { return m_path; }

    // Schedules. add: AlreadyExists when the name is taken; InvalidArgument
    // for an ill-formed name. The store checks names only: callers run
    // validateSchedule() first (it reads the file system). Returns the id.
    Result<int64_t> addSchedule(const Schedule& schedule);
    // Replaces the schedule with schedule.id; NotFound if there is none.
    Status updateSchedule(const Schedule& schedule);
    // A Program schedule registering itself: adds it, or updates the one
    // with the same name (keeping its id and runs). Returns the id.
    Result<int64_t> upsertSchedule(const Schedule& schedule);
    // Removes the schedule and its runs; NotFound naming it if absent.
    Status removeSchedule(std::string_view name);
    Result<std::vector<Schedule>> schedules();         // by name
    Result<Schedule> schedule(std::string_view name);  // NotFound naming it
    Result<Schedule> scheduleById(int64_t id);

    // Runs. beginRun records a `running` row and returns its id; finishRun
    // records how it ended (FailedPrecondition if it had already ended).
    Result<int64_t> beginRun(int64_t scheduleId, RunTrigger trigger, double startedAt, int64_t pid);
    Status finishRun(int64_t runId, const RunOutcome& outcome);
    // Newest first; scheduleId nullopt = every schedule's; at most 'limit'.
    Result<std::vector<ScheduleRun>> runs(std::optional<int64_t> scheduleId, int limit = 100);
    Result<std::optional<ScheduleRun>> lastRun(int64_t scheduleId);
    Result<std::vector<ScheduleRun>> runningRuns();
    // The newest `ok` run of the schedule that copied a source checkpoint
    // with this fingerprint (Directory schedules skip unchanged sources).
    Result<std::optional<ScheduleRun>> lastRunWithSource(int64_t scheduleId, std::string_view sourceFingerprint);
    Result<ScheduleRun> run(int64_t runId);  // NotFound naming it
    // The running run's progress (nothing happens once it has ended). The
    // scheduler throttles these writes; readers poll run() or runs().
    Status setRunProgress(int64_t runId, int64_t done, int64_t total, std::string_view phase);

    // Requests (schedule_requests.cpp). Asked by any process; taken only by
    // the scheduler holding the lock, each in one IMMEDIATE transaction so
    // that every request is served once.
    // A run-now request; NotFound for a schedule id not in the store.
    Result<int64_t> requestRun(int64_t scheduleId, double at, int64_t pid);
    // Cancels whatever of the schedule is in progress, atomically: pending
    // run requests are withdrawn (they never start), and a cancel request
    // is left for the running run, or for the run of a request already
    // taken but not yet begun. FailedPrecondition "... has no run in
    // progress" when there is nothing to cancel.
    Result<CancelRequest> requestCancel(int64_t scheduleId, double at, int64_t pid);
    // The scheduler: every pending run request, oldest first, now taken by 'pid'.
    Result<std::vector<ScheduleRequest>> takeRunRequests(double at, int64_t pid);
    // The scheduler, during run 'runId' of the schedule: a pending cancel
    // request for it (or for the schedule's next run), now taken; nullopt when none.
    Result<std::optional<ScheduleRequest>> takeCancelRequest(int64_t scheduleId, int64_t runId, double at, int64_t pid);
    // Records which run served taken requests, or why none did ('runId'
    // nullopt and 'error').
    Status settleRequests(const std::vector<int64_t>& requestIds, std::optional<int64_t> runId, std::string_view error);
    // After run 'runId' ended: cancel requests for it (or the schedule's
    // next run) that came too late are taken, so they never cancel a later run.
    Status expireCancelRequests(int64_t scheduleId, int64_t runId, double at, int64_t pid);
    // Withdraws a request that is still pending (true), recording 'why';
    // false when a scheduler took it first.
    Result<bool> withdrawRequest(int64_t requestId, double at, std::string_view why);
    // Deletes requests settled before 'takenBefore' (the scheduler keeps a
    // week of them for `show`-style inspection); pending ones stay.
    Status pruneRequests(double takenBefore);
    // A cheap check the service makes every fraction of a second.
    Result<bool> hasPendingRunRequests();
    Result<ScheduleRequest> request(int64_t requestId);  // NotFound naming it
    // Newest first; scheduleId nullopt = every schedule's; pendingOnly = not taken.
    Result<std::vector<ScheduleRequest>> requests(std::optional<int64_t> scheduleId, bool pendingOnly, int limit = 100);

private:
    explicit ScheduleStore(std::unique_ptr<catalog::Database> database);

    std::string m_path;
    // The SQLite file the catalog shares (engine-internal; never named here).
    std::unique_ptr<catalog::Database> m_database;
};

}  // namespace ckpt

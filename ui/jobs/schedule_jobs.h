#pragma once
// The Schedules tab's and the retention preview's engine calls, as plain
// functions for QtConcurrent::run on jobPool(): plan a directory's retention
// (ckpt/retention.h) and apply a plan; read the schedule store, validate,
// save and remove schedules, run one now and cancel a run (ckpt/schedule_store.h,
// ckpt/schedule_client.h). Each call opens the store itself: a store object is
// for one thread. Errors are the engine's text, shown verbatim. Results are
// snapshots the GUI thread only reads.

#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>

#include "ckpt/retention.h"
#include "ckpt/schedule.h"
#include "ckpt/schedule_store.h"
#include "ckpt/scheduler.h"
#include "jobs/job_control.h"

namespace ckpt::ui {

struct RetentionPreviewRequest {
    QString directory;
    RetentionPolicy policy;
    // Whose checkpoints may be deleted. Empty: the owner recorded on the
    // directory's newest checkpoint that has one (the run writing there).
    QString owner;
    bool adoptForeign = false;
    double now = 0;  // wall seconds since the epoch
};

struct RetentionPreviewResult {
    std::shared_ptr<const RetentionPlan> plan;  // null on failure
    QString owner;                              // the owner the plan was made for
    QStringList owners;                         // every owner recorded in the directory
    QString error;
};
RetentionPreviewResult planRetentionPreview(const RetentionPreviewRequest& request);

struct RetentionApplyResult {
    QStringList deleted;  // prefixes, in the order they went
    quint64 bytesFreed = 0;
    QString error;  // the engine's failure (it stops at the first)
};
RetentionApplyResult applyRetentionPlan(const std::shared_ptr<const RetentionPlan>& plan);

// The store path the explorer uses unless told otherwise (the engine's
// default); empty with the engine's reason in 'error' when it has none.
QString defaultScheduleStorePath(QString* error);

struct ScheduleEntry {
    Schedule schedule;
    std::vector<ScheduleRun> runs;  // newest first, at most kRunsPerSchedule
    ScheduleDue due;                // at the time the store was read
};
// Runs kept per schedule in a snapshot: the log and the sparkline.
constexpr int kRunsPerSchedule = 100;

struct ScheduleStoreSnapshot {
    QString storePath;
    std::vector<ScheduleEntry> entries;  // by name
    double readAt = 0;                   // wall seconds
    bool missing = false;                // no store file yet: no schedules
    QString error;
};
// Reads every schedule and its recent runs. A store file that does not
// exist yet is an empty snapshot ('missing'), not an error, and is not created.
ScheduleStoreSnapshot readScheduleStore(const QString& storePath, double now);

// validateSchedule's verdict: empty when valid (it reads the file system).
QString validateScheduleText(const Schedule& schedule);

// Adds (schedule.id == 0) or replaces the schedule; creates the store and
// its directory when missing. Empty on success, else the engine's error.
QString saveSchedule(const QString& storePath, const Schedule& schedule);
QString removeSchedule(const QString& storePath, const QString& name);

struct RunNowResult {
    std::optional<ScheduleRun> run;     // as recorded, when the scheduler ran it
    std::optional<int64_t> servicePid;  // the scheduler service that ran it, when one held the store
    QString error;                      // the scheduler could not start or the store failed
};
// Runs the schedule now with the job's progress and cancellation
// (ckpt/schedule_client.h): in this process when no scheduler service holds
// the store, else queued for the service and followed in the store until it
// ends, 'queuedPid' set to the service's pid once queued. Either way a
// cancelled run is recorded `interrupted`.
RunNowResult runScheduleNow(const QString& storePath, const QString& name, const std::shared_ptr<JobControl>& job,
                            const std::shared_ptr<std::atomic<int64_t>>& queuedPid);

struct CancelRunResult {
    std::optional<int64_t> runId;  // the running run asked to stop
    int withdrawn = 0;             // queued run-now requests withdrawn
    QString error;
};
// Asks whichever process runs the schedule (the service, another explorer,
// `ckpt schedule run-now`) to cancel its run: ckpt::cancelScheduleRun.
CancelRunResult cancelScheduleRunIn(const QString& storePath, const QString& name);

}  // namespace ckpt::ui

#include "jobs/schedule_jobs.h"

#include <QFileInfo>

#include <set>

#include "ckpt/schedule_client.h"

namespace ckpt::ui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

Result<RetentionPlan> planFor(const RetentionPreviewRequest& request, const QString& owner) {
    RetentionContext context;
    context.now = request.now;
    context.owner = owner.toStdString();
    context.adoptForeign = request.adoptForeign;
    return planDirectoryRetention(request.directory.toStdString(), request.policy, context);
}

}  // namespace

RetentionPreviewResult planRetentionPreview(const RetentionPreviewRequest& request) {
    RetentionPreviewResult out;
    out.owner = request.owner;
    auto plan = planFor(request, request.owner);
    if (!plan.ok()) {
        out.error = qs(plan.status().toString());
        return out;
    }
    std::set<std::string> owners;
    for (const RetentionDecision& d : plan->decisions)
        if (!d.candidate.owner.empty()) owners.insert(d.candidate.owner);
    for (const std::string& o : owners) out.owners << qs(o);
    if (request.owner.isEmpty()) {
        // Decisions run oldest first: the newest owned checkpoint names the
        // run writing into the directory now, the one a user means to tidy.
        for (auto it = plan->decisions.rbegin(); it != plan->decisions.rend(); ++it) {
            if (it->candidate.owner.empty()) continue;
            out.owner = qs(it->candidate.owner);
            plan = planFor(request, out.owner);
            if (!plan.ok()) {
                out.error = qs(plan.status().toString());
                return out;
            }
            break;
        }
    }
    out.plan = std::make_shared<const RetentionPlan>(std::move(*plan));
    return out;
}

RetentionApplyResult applyRetentionPlan(const std::shared_ptr<const RetentionPlan>& plan) {
    RetentionApplyResult out;
    auto report = applyRetention(*plan);
    if (!report.ok()) {
        out.error = qs(report.status().toString());
        return out;
    }
    for (const std::string& prefix : report->deleted) out.deleted << qs(prefix);
    out.bytesFreed = report->bytesFreed;
    return out;
}

QString defaultScheduleStorePath(QString* error) {
    auto path = ScheduleStore::defaultPath();
    if (!path.ok()) {
        if (error) *error = qs(path.status().toString());
        return {};
    }
    return qs(*path);
}

ScheduleStoreSnapshot readScheduleStore(const QString& storePath, double now) {
    ScheduleStoreSnapshot out;
    out.storePath = storePath;
    out.readAt = now;
    // Opening creates the file; a view that only looks must not.
    if (!QFileInfo::exists(storePath)) {
        out.missing = true;
        return out;
    }
    auto store = ScheduleStore::open(storePath.toStdString());
    if (!store.ok()) {
        out.error = qs(store.status().toString());
        return out;
    }
    auto schedules = (*store)->schedules();
    if (!schedules.ok()) {
        out.error = qs(schedules.status().toString());
        return out;
    }
    for (Schedule& schedule : *schedules) {
        ScheduleEntry entry;
        auto runs = (*store)->runs(schedule.id, kRunsPerSchedule);
        if (!runs.ok()) {
            out.error = qs(runs.status().toString());
            return out;
        }
        entry.runs = std::move(*runs);
        const std::optional<ScheduleRun> last =
            entry.runs.empty() ? std::nullopt : std::optional<ScheduleRun>(entry.runs.front());
        entry.due = scheduleDue(schedule, last, now);
        entry.schedule = std::move(schedule);
        out.entries.push_back(std::move(entry));
    }
    return out;
}

QString validateScheduleText(const Schedule& schedule) {
    const Status status = validateSchedule(schedule);
    return status.isOk() ? QString() : qs(status.message());
}

QString saveSchedule(const QString& storePath, const Schedule& schedule) {
    auto store = ScheduleStore::open(storePath.toStdString(), {.createDirectory = true});
    if (!store.ok()) return qs(store.status().toString());
    if (schedule.id == 0) {
        auto id = (*store)->addSchedule(schedule);
        return id.ok() ? QString() : qs(id.status().toString());
    }
    const Status status = (*store)->updateSchedule(schedule);
    return status.isOk() ? QString() : qs(status.toString());
}

QString removeSchedule(const QString& storePath, const QString& name) {
    auto store = ScheduleStore::open(storePath.toStdString());
    if (!store.ok()) return qs(store.status().toString());
    const Status status = (*store)->removeSchedule(name.toStdString());
    return status.isOk() ? QString() : qs(status.toString());
}

RunNowResult runScheduleNow(const QString& storePath, const QString& name, const std::shared_ptr<JobControl>& job,
                            const std::shared_ptr<std::atomic<int64_t>>& queuedPid) {
    RunNowResult out;
    RunNowOptions options;
    options.cancel = &job->token();
    options.progress = JobControl::sinkFor(job);
    options.queued = [queuedPid](int64_t pid, int64_t) { queuedPid->store(pid); };
    auto outcome = runOrQueueSchedule(storePath.toStdString(), name.toStdString(), options);
    if (!outcome.ok()) {
        out.error = qs(outcome.status().toString());
        return out;
    }
    out.run = std::move(outcome->run);
    out.servicePid = outcome->servicePid;
    return out;
}

CancelRunResult cancelScheduleRunIn(const QString& storePath, const QString& name) {
    CancelRunResult out;
    auto request = cancelScheduleRun(storePath.toStdString(), name.toStdString());
    if (!request.ok()) {
        out.error = qs(request.status().toString());
        return out;
    }
    out.runId = request->runId;
    out.withdrawn = request->withdrawn;
    return out;
}

}  // namespace ckpt::ui

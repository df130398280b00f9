// The schedule store: see ckpt/schedule_store.h. The file, its checks and
// its migrations are the catalog's database (catalog/database.h).

#include "ckpt/schedule_store.h"

#include <sqlite3.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "catalog/database.h"
#include "schedule/store_sql.h"
#include "platform/clock.h"

namespace ckpt {
static_assert(ScheduleStore::kSchemaVersion == catalog::kSchemaVersion);
using schedule::exec;
using schedule::Statement;
namespace {

constexpr const char* kScheduleColumns =
    "id, name, source_kind, source_path, destination, triggers, retention, max_shard_bytes, shard_count, async, enabled, "
    "demo_steps, created_at";
}  // namespace

namespace schedule {

const char* const kRunColumns =
    "r.id, r.schedule_id, s.name, r.trigger, r.started_at, r.ended_at, r.result, r.bytes, r.checkpoint, r.error, r.note, "
    "r.pid, r.source_checkpoint, r.source_fingerprint, r.progress_done, r.progress_total, r.progress_phase";

Result<ScheduleRun> runFromRow(const Statement& row, const std::string& path) {
    ScheduleRun r;
    r.id = row.integer(0);
    r.scheduleId = row.integer(1);
    r.scheduleName = row.text(2);
    const auto trigger = runTriggerFromName(row.text(3));
    const auto result = runResultFromName(row.text(6));
    if (!trigger || !result) return dataLoss(path + ": run " + std::to_string(r.id) + " has an unknown trigger or result");
    r.trigger = *trigger;
    r.startedAt = row.real(4);
    if (!row.isNull(5)) r.endedAt = row.real(5);
    r.result = *result;
    r.bytes = static_cast<uint64_t>(row.integer(7));
    r.checkpoint = row.text(8);
    r.error = row.text(9);
    r.note = row.text(10);
    r.pid = row.integer(11);
    r.sourceCheckpoint = row.text(12);
    r.sourceFingerprint = row.text(13);
    r.progressDone = row.integer(14);
    r.progressTotal = row.integer(15);
    r.progressPhase = row.text(16);
    return r;
}

}  // namespace schedule

std::string_view runResultName(RunResult result) {
    switch (result) {
    case RunResult::Running: return "running";
    case RunResult::Ok: return "ok";
    case RunResult::Failed: return "failed";
    case RunResult::Interrupted: return "interrupted";
    case RunResult::Skipped: return "skipped";
    }
    return "failed";
}

std::optional<RunResult> runResultFromName(std::string_view name) {
    for (RunResult r : {RunResult::Running, RunResult::Ok, RunResult::Failed, RunResult::Interrupted, RunResult::Skipped})
        if (runResultName(r) == name) return r;
    return std::nullopt;
}

std::string_view runTriggerName(RunTrigger trigger) {
    switch (trigger) {
    case RunTrigger::Due: return "due";
    case RunTrigger::CatchUp: return "catch-up";
    case RunTrigger::RunNow: return "run-now";
    }
    return "due";
}

std::optional<RunTrigger> runTriggerFromName(std::string_view name) {
    for (RunTrigger t : {RunTrigger::Due, RunTrigger::CatchUp, RunTrigger::RunNow})
        if (runTriggerName(t) == name) return t;
    return std::nullopt;
}

Result<std::string> ScheduleStore::defaultPath() { return catalog::Database::defaultPath(); }

Result<std::unique_ptr<ScheduleStore>> ScheduleStore::open(std::string_view path, const ScheduleStoreOptions& options) {
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Database> database,
                          catalog::Database::open(path, {.createDirectory = options.createDirectory,
                                                         .busyTimeoutMs = options.busyTimeoutMs,
                                                         .role = "schedule store"}));
    return std::unique_ptr<ScheduleStore>(new ScheduleStore(std::move(database)));
}

ScheduleStore::ScheduleStore(std::unique_ptr<catalog::Database> database)
    : m_path(database->path()), m_database(std::move(database)) {}

ScheduleStore::~ScheduleStore() = default;

namespace {

Result<Schedule> scheduleFromRow(const Statement& row, const std::string& path) {
    Schedule s;
    s.id = row.integer(0);
    s.name = row.text(1);
    const std::string where = path + " schedule \"" + s.name + "\"";
    const auto kind = scheduleSourceFromName(row.text(2));
    if (!kind) return dataLoss(where + ": unknown source kind \"" + row.text(2) + "\"");
    s.source = *kind;
    s.sourcePath = row.text(3);
    s.destination = row.text(4);
    auto triggers = parseSaveTriggers(row.text(5), where + " triggers");
    if (!triggers) return dataLoss(triggers.status().message());
    s.triggers = std::move(*triggers);
    auto retention = parseRetentionPolicy(row.text(6), where + " retention");
    if (!retention) return dataLoss(retention.status().message());
    s.retention = std::move(*retention);
    if (!row.isNull(7)) s.sharding.maxShardBytes = row.integer(7);
    if (!row.isNull(8)) s.sharding.shardCount = static_cast<int>(row.integer(8));
    s.async = row.integer(9) != 0;
    s.enabled = row.integer(10) != 0;
    s.demoSteps = row.integer(11);
    s.createdAt = row.real(12);
    return s;
}

// Binds a schedule's columns 1..12 (name .. created_at) in kScheduleColumns order after id.
void bindSchedule(Statement& st, const Schedule& s, double createdAt) {
    st.bind(1, s.name)
        .bind(2, scheduleSourceName(s.source))
        .bind(3, s.sourcePath)
        .bind(4, s.destination)
        .bind(5, saveTriggersToJson(s.triggers))
        .bind(6, retentionPolicyToJson(s.retention));
    if (s.sharding.maxShardBytes) st.bind(7, *s.sharding.maxShardBytes);
    else st.bindNull(7);
    if (s.sharding.shardCount) st.bind(8, static_cast<int64_t>(*s.sharding.shardCount));
    else st.bindNull(8);
    st.bind(9, int64_t{s.async}).bind(10, int64_t{s.enabled}).bind(11, s.demoSteps).bind(12, createdAt);
}

}  // namespace

Result<int64_t> ScheduleStore::addSchedule(const Schedule& schedule) {
    CKPT_RETURN_IF_ERROR(validateScheduleName(schedule.name));
    CKPT_ASSIGN_OR_RETURN(
        sqlite3_stmt * raw,
        m_database->prepare(
            "INSERT INTO schedules (name, source_kind, source_path, destination, triggers, retention, max_shard_bytes, "
            "shard_count, async, enabled, demo_steps, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"));
    Statement st(m_database->handle(), raw, m_path);
    bindSchedule(st, schedule, schedule.createdAt > 0 ? schedule.createdAt : platform::unixSeconds());
    const Status status = st.run();
    if (status.code() == StatusCode::AlreadyExists)
        return Status(StatusCode::AlreadyExists, "a schedule named \"" + schedule.name + "\" already exists in " + m_path);
    CKPT_RETURN_IF_ERROR(status);
    return sqlite3_last_insert_rowid(m_database->handle());
}

Status ScheduleStore::updateSchedule(const Schedule& schedule) {
    CKPT_RETURN_IF_ERROR(validateScheduleName(schedule.name));
    CKPT_ASSIGN_OR_RETURN(
        sqlite3_stmt * raw,
        m_database->prepare("UPDATE schedules SET name = ?1, source_kind = ?2, source_path = ?3, destination = ?4, "
                            "triggers = ?5, retention = ?6, max_shard_bytes = ?7, shard_count = ?8, async = ?9, "
                            "enabled = ?10, demo_steps = ?11, created_at = ?12 WHERE id = ?13"));
    Statement st(m_database->handle(), raw, m_path);
    CKPT_ASSIGN_OR_RETURN(Schedule existing, scheduleById(schedule.id));
    bindSchedule(st, schedule, existing.createdAt);
    st.bind(13, schedule.id);
    Status status = st.run();
    if (status.code() == StatusCode::AlreadyExists)
        return Status(StatusCode::AlreadyExists, "a schedule named \"" + schedule.name + "\" already exists in " + m_path);
    return status;
}

Result<int64_t> ScheduleStore::upsertSchedule(const Schedule& schedule) {
    CKPT_RETURN_IF_ERROR(exec(m_database->handle(), m_path, "BEGIN IMMEDIATE"));
    // Never a Result made from an OK status (status.h): decided in one place.
    Result<int64_t> id = [&]() -> Result<int64_t> {
        auto existing = this->schedule(schedule.name);
        if (existing.ok()) {
            Schedule updated = schedule;
            updated.id = existing->id;
            CKPT_RETURN_IF_ERROR(updateSchedule(updated));
            return existing->id;
        }
        if (existing.status().code() == StatusCode::NotFound) return addSchedule(schedule);
        return existing.status();
    }();
    if (!id.ok()) {
        (void)exec(m_database->handle(), m_path, "ROLLBACK");
        return id.status();
    }
    CKPT_RETURN_IF_ERROR(exec(m_database->handle(), m_path, "COMMIT"));
    return id;
}

Status ScheduleStore::removeSchedule(std::string_view name) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare("DELETE FROM schedules WHERE name = ?1"));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, name);
    CKPT_RETURN_IF_ERROR(st.run());
    if (sqlite3_changes(m_database->handle()) == 0)
        return notFound("no schedule named \"" + std::string(name) + "\" in " + m_path);
    return okStatus();
}

Result<std::vector<Schedule>> ScheduleStore::schedules() {
    static const std::string sql = std::string("SELECT ") + kScheduleColumns + " FROM schedules ORDER BY name";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare(sql.c_str()));
    Statement st(m_database->handle(), raw, m_path);
    return schedule::collectRows<Schedule>(st, m_path, scheduleFromRow);
}

Result<Schedule> ScheduleStore::schedule(std::string_view name) {
    static const std::string sql = std::string("SELECT ") + kScheduleColumns + " FROM schedules WHERE name = ?1";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare(sql.c_str()));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, name);
    CKPT_ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) return notFound("no schedule named \"" + std::string(name) + "\" in " + m_path);
    return scheduleFromRow(st, m_path);
}

Result<Schedule> ScheduleStore::scheduleById(int64_t id) {
    static const std::string sql = std::string("SELECT ") + kScheduleColumns + " FROM schedules WHERE id = ?1";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare(sql.c_str()));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, id);
    CKPT_ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) return notFound("no schedule with id " + std::to_string(id) + " in " + m_path);
    return scheduleFromRow(st, m_path);
}

Result<int64_t> ScheduleStore::beginRun(int64_t scheduleId, RunTrigger trigger, double startedAt, int64_t pid) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw,
                          m_database->prepare("INSERT INTO schedule_runs (schedule_id, trigger, started_at, result, pid) "
                                              "VALUES (?1, ?2, ?3, 'running', ?4)"));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, scheduleId).bind(2, runTriggerName(trigger)).bind(3, startedAt).bind(4, pid);
    const Status status = st.run();
    if (status.code() == StatusCode::AlreadyExists)  // the foreign key: no such schedule
        return notFound("no schedule with id " + std::to_string(scheduleId) + " in " + m_path);
    CKPT_RETURN_IF_ERROR(status);
    return sqlite3_last_insert_rowid(m_database->handle());
}

Status ScheduleStore::finishRun(int64_t runId, const RunOutcome& outcome) {
    if (outcome.result == RunResult::Running) return invalidArgument("a finished run cannot be recorded as running");
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw,
                          m_database->prepare("UPDATE schedule_runs SET ended_at = ?1, result = ?2, bytes = ?3, checkpoint = ?4, "
                                              "error = ?5, note = ?6, source_checkpoint = ?7, source_fingerprint = ?8 "
                                              "WHERE id = ?9 AND result = 'running'"));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, outcome.endedAt)
        .bind(2, runResultName(outcome.result))
        .bind(3, static_cast<int64_t>(outcome.bytes))
        .bind(4, outcome.checkpoint)
        .bind(5, outcome.error)
        .bind(6, outcome.note)
        .bind(7, outcome.sourceCheckpoint)
        .bind(8, outcome.sourceFingerprint)
        .bind(9, runId);
    CKPT_RETURN_IF_ERROR(st.run());
    if (sqlite3_changes(m_database->handle()) == 0)
        return failedPrecondition("run " + std::to_string(runId) + " in " + m_path +
                                  " is not running (already ended or removed)");
    return okStatus();
}

Result<std::vector<ScheduleRun>> ScheduleStore::runs(std::optional<int64_t> scheduleId, int limit) {
    static const std::string sql = std::string("SELECT ") + schedule::kRunColumns +
                                   " FROM schedule_runs r JOIN schedules s ON s.id = r.schedule_id"
                                   " WHERE ?1 IS NULL OR r.schedule_id = ?1 ORDER BY r.started_at DESC, r.id DESC LIMIT ?2";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare(sql.c_str()));
    Statement st(m_database->handle(), raw, m_path);
    if (scheduleId) st.bind(1, *scheduleId);
    else st.bindNull(1);
    st.bind(2, static_cast<int64_t>(limit < 0 ? 0 : limit));
    return schedule::collectRows<ScheduleRun>(st, m_path, schedule::runFromRow);
}

Result<std::optional<ScheduleRun>> ScheduleStore::lastRun(int64_t scheduleId) {
    CKPT_ASSIGN_OR_RETURN(auto list, runs(scheduleId, 1));
    if (list.empty()) return std::optional<ScheduleRun>{};
    return std::optional<ScheduleRun>{std::move(list.front())};
}

Result<std::vector<ScheduleRun>> ScheduleStore::runningRuns() {
    static const std::string sql = std::string("SELECT ") + schedule::kRunColumns +
                                   " FROM schedule_runs r JOIN schedules s ON s.id = r.schedule_id"
                                   " WHERE r.result = 'running' ORDER BY r.id";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare(sql.c_str()));
    Statement st(m_database->handle(), raw, m_path);
    return schedule::collectRows<ScheduleRun>(st, m_path, schedule::runFromRow);
}

Result<std::optional<ScheduleRun>> ScheduleStore::lastRunWithSource(int64_t scheduleId, std::string_view sourceFingerprint) {
    static const std::string sql = std::string("SELECT ") + schedule::kRunColumns +
                                   " FROM schedule_runs r JOIN schedules s ON s.id = r.schedule_id"
                                   " WHERE r.schedule_id = ?1 AND r.result = 'ok' AND r.source_fingerprint = ?2"
                                   " ORDER BY r.started_at DESC, r.id DESC LIMIT 1";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare(sql.c_str()));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, scheduleId).bind(2, sourceFingerprint);
    CKPT_ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) return std::optional<ScheduleRun>{};
    CKPT_ASSIGN_OR_RETURN(ScheduleRun r, schedule::runFromRow(st, m_path));
    return std::optional<ScheduleRun>{std::move(r)};
}

}  // namespace ckpt

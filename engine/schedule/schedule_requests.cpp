// The schedule store's requests and live progress: see ckpt/schedule_store.h.
// Every read-modify-write here is one IMMEDIATE transaction, so a request
// is taken by one scheduler exactly once and a cancel never races a
// withdrawal: SQLite serialises the writers of all processes.

#include <sqlite3.h>

#include "ckpt/schedule_store.h"
#include "catalog/database.h"
#include "schedule/store_sql.h"

namespace ckpt {
using schedule::inTransaction;
using schedule::Statement;
namespace {

constexpr const char* kRequestColumns =
    "q.id, q.schedule_id, s.name, q.kind, q.requested_at, q.pid, q.run_id, q.taken_at, q.taken_by, q.error";

Result<ScheduleRequest> requestFromRow(const Statement& row, const std::string& path) {
    ScheduleRequest q;
    q.id = row.integer(0);
    q.scheduleId = row.integer(1);
    q.scheduleName = row.text(2);
    const std::string kind = row.text(3);
    if (kind == "run") q.kind = RequestKind::Run;
    else if (kind == "cancel") q.kind = RequestKind::Cancel;
    else return dataLoss(path + ": request " + std::to_string(q.id) + " has an unknown kind \"" + kind + "\"");
    q.requestedAt = row.real(4);
    q.pid = row.integer(5);
    if (!row.isNull(6)) q.runId = row.integer(6);
    if (!row.isNull(7)) q.takenAt = row.real(7);
    q.takenBy = row.integer(8);
    q.error = row.text(9);
    return q;
}

Result<std::vector<ScheduleRequest>> collect(Statement& st, const std::string& path) {
    return schedule::collectRows<ScheduleRequest>(st, path, requestFromRow);
}
}  // namespace

std::string_view requestKindName(RequestKind kind) { return kind == RequestKind::Run ? "run" : "cancel"; }

Result<ScheduleRun> ScheduleStore::run(int64_t runId) {
    static const std::string sql = std::string("SELECT ") + schedule::kRunColumns +
                                   " FROM schedule_runs r JOIN schedules s ON s.id = r.schedule_id WHERE r.id = ?1";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare(sql.c_str()));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, runId);
    CKPT_ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) return notFound("no run " + std::to_string(runId) + " in " + m_path);
    return schedule::runFromRow(st, m_path);
}

Status ScheduleStore::setRunProgress(int64_t runId, int64_t done, int64_t total, std::string_view phase) {
    CKPT_ASSIGN_OR_RETURN(
        sqlite3_stmt * raw,
        m_database->prepare("UPDATE schedule_runs SET progress_done = ?1, progress_total = ?2, progress_phase = ?3 "
                            "WHERE id = ?4 AND result = 'running'"));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, done).bind(2, total).bind(3, phase).bind(4, runId);
    return st.run();
}

Result<int64_t> ScheduleStore::requestRun(int64_t scheduleId, double at, int64_t pid) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw,
                          m_database->prepare("INSERT INTO schedule_requests (schedule_id, kind, requested_at, pid) "
                                              "VALUES (?1, 'run', ?2, ?3)"));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, scheduleId).bind(2, at).bind(3, pid);
    const Status status = st.run();
    if (status.code() == StatusCode::AlreadyExists)  // the foreign key: no such schedule
        return notFound("no schedule with id " + std::to_string(scheduleId) + " in " + m_path);
    CKPT_RETURN_IF_ERROR(status);
    return sqlite3_last_insert_rowid(m_database->handle());
}

Result<CancelRequest> ScheduleStore::requestCancel(int64_t scheduleId, double at, int64_t pid) {
    return inTransaction(m_database->handle(), m_path, [&]() -> Result<CancelRequest> {
        CKPT_ASSIGN_OR_RETURN(Schedule schedule, scheduleById(scheduleId));
        CancelRequest out;
        {
            CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw,
                                  m_database->prepare("UPDATE schedule_requests SET taken_at = ?1, taken_by = ?2, "
                                                      "error = 'cancelled before it started' "
                                                      "WHERE schedule_id = ?3 AND kind = 'run' AND taken_at IS NULL"));
            Statement st(m_database->handle(), raw, m_path);
            st.bind(1, at).bind(2, pid).bind(3, scheduleId);
            CKPT_RETURN_IF_ERROR(st.run());
            out.withdrawn = sqlite3_changes(m_database->handle());
        }
        {
            CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw,
                                  m_database->prepare("SELECT id FROM schedule_runs WHERE schedule_id = ?1 AND "
                                                      "result = 'running' ORDER BY id DESC LIMIT 1"));
            Statement st(m_database->handle(), raw, m_path);
            st.bind(1, scheduleId);
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (row) out.runId = st.integer(0);
        }
        bool starting = false;  // a run request a scheduler took and is about to begin
        if (!out.runId) {
            CKPT_ASSIGN_OR_RETURN(
                sqlite3_stmt * raw,
                m_database->prepare("SELECT count(*) FROM schedule_requests WHERE schedule_id = ?1 AND kind = 'run' "
                                    "AND taken_at IS NOT NULL AND run_id IS NULL AND error = ''"));
            Statement st(m_database->handle(), raw, m_path);
            st.bind(1, scheduleId);
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            starting = row && st.integer(0) > 0;
        }
        if (out.runId || starting) {
            CKPT_ASSIGN_OR_RETURN(
                sqlite3_stmt * raw,
                m_database->prepare("INSERT INTO schedule_requests (schedule_id, kind, requested_at, pid, run_id) "
                                    "VALUES (?1, 'cancel', ?2, ?3, ?4)"));
            Statement st(m_database->handle(), raw, m_path);
            st.bind(1, scheduleId).bind(2, at).bind(3, pid);
            if (out.runId) st.bind(4, *out.runId);
            else st.bindNull(4);
            CKPT_RETURN_IF_ERROR(st.run());
            out.requestId = sqlite3_last_insert_rowid(m_database->handle());
        }
        if (!out.requestId && out.withdrawn == 0)
            return failedPrecondition("schedule \"" + schedule.name + "\" has no run in progress or queued in " + m_path);
        return out;
    });
}

Result<std::vector<ScheduleRequest>> ScheduleStore::takeRunRequests(double at, int64_t pid) {
    return inTransaction(m_database->handle(), m_path, [&]() -> Result<std::vector<ScheduleRequest>> {
        static const std::string sql = std::string("SELECT ") + kRequestColumns +
                                       " FROM schedule_requests q JOIN schedules s ON s.id = q.schedule_id"
                                       " WHERE q.kind = 'run' AND q.taken_at IS NULL ORDER BY q.id";
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * select, m_database->prepare(sql.c_str()));
        std::vector<ScheduleRequest> taken;
        {
            Statement st(m_database->handle(), select, m_path);
            CKPT_ASSIGN_OR_RETURN(taken, collect(st, m_path));
        }
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * update,
                              m_database->prepare("UPDATE schedule_requests SET taken_at = ?1, taken_by = ?2 WHERE id = ?3"));
        for (ScheduleRequest& q : taken) {
            Statement st(m_database->handle(), update, m_path);
            st.bind(1, at).bind(2, pid).bind(3, q.id);
            CKPT_RETURN_IF_ERROR(st.run());
            q.takenAt = at;
            q.takenBy = pid;
        }
        return taken;
    });
}

Result<std::optional<ScheduleRequest>> ScheduleStore::takeCancelRequest(int64_t scheduleId, int64_t runId, double at,
                                                                        int64_t pid) {
    return inTransaction(m_database->handle(), m_path, [&]() -> Result<std::optional<ScheduleRequest>> {
        static const std::string sql = std::string("SELECT ") + kRequestColumns +
                                       " FROM schedule_requests q JOIN schedules s ON s.id = q.schedule_id"
                                       " WHERE q.kind = 'cancel' AND q.taken_at IS NULL AND q.schedule_id = ?1"
                                       " AND (q.run_id IS NULL OR q.run_id = ?2) ORDER BY q.id LIMIT 1";
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * select, m_database->prepare(sql.c_str()));
        std::optional<ScheduleRequest> found;
        {
            Statement st(m_database->handle(), select, m_path);
            st.bind(1, scheduleId).bind(2, runId);
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) return found;
            CKPT_ASSIGN_OR_RETURN(found, requestFromRow(st, m_path));
        }
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * update,
            m_database->prepare("UPDATE schedule_requests SET taken_at = ?1, taken_by = ?2, run_id = ?3 WHERE id = ?4"));
        Statement st(m_database->handle(), update, m_path);
        st.bind(1, at).bind(2, pid).bind(3, runId).bind(4, found->id);
        CKPT_RETURN_IF_ERROR(st.run());
        found->takenAt = at;
        found->takenBy = pid;
        found->runId = runId;
        return found;
    });
}

Status ScheduleStore::settleRequests(const std::vector<int64_t>& requestIds, std::optional<int64_t> runId,
                                     std::string_view error) {
    auto settled = inTransaction(m_database->handle(), m_path, [&]() -> Result<bool> {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw,
                              m_database->prepare("UPDATE schedule_requests SET run_id = ?1, error = ?2 WHERE id = ?3"));
        for (int64_t id : requestIds) {
            Statement st(m_database->handle(), raw, m_path);
            if (runId) st.bind(1, *runId);
            else st.bindNull(1);
            st.bind(2, error).bind(3, id);
            CKPT_RETURN_IF_ERROR(st.run());
        }
        return true;
    });
    return settled.ok() ? okStatus() : settled.status();
}

Status ScheduleStore::expireCancelRequests(int64_t scheduleId, int64_t runId, double at, int64_t pid) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw,
                          m_database->prepare("UPDATE schedule_requests SET taken_at = ?1, taken_by = ?2, "
                                              "error = 'the run had ended' WHERE kind = 'cancel' AND taken_at IS NULL "
                                              "AND schedule_id = ?3 AND (run_id IS NULL OR run_id = ?4)"));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, at).bind(2, pid).bind(3, scheduleId).bind(4, runId);
    return st.run();
}

Result<bool> ScheduleStore::withdrawRequest(int64_t requestId, double at, std::string_view why) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare("UPDATE schedule_requests SET taken_at = ?1, error = ?2 "
                                                                  "WHERE id = ?3 AND taken_at IS NULL"));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, at).bind(2, why).bind(3, requestId);
    CKPT_RETURN_IF_ERROR(st.run());
    return sqlite3_changes(m_database->handle()) > 0;
}

Status ScheduleStore::pruneRequests(double takenBefore) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw,
                          m_database->prepare("DELETE FROM schedule_requests WHERE taken_at IS NOT NULL AND taken_at < ?1"));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, takenBefore);
    return st.run();
}

Result<bool> ScheduleStore::hasPendingRunRequests() {
    CKPT_ASSIGN_OR_RETURN(
        sqlite3_stmt * raw,
        m_database->prepare("SELECT EXISTS (SELECT 1 FROM schedule_requests WHERE taken_at IS NULL AND kind = 'run')"));
    Statement st(m_database->handle(), raw, m_path);
    CKPT_ASSIGN_OR_RETURN(bool row, st.step());
    return row && st.integer(0) != 0;
}

Result<ScheduleRequest> ScheduleStore::request(int64_t requestId) {
    static const std::string sql = std::string("SELECT ") + kRequestColumns +
                                   " FROM schedule_requests q JOIN schedules s ON s.id = q.schedule_id WHERE q.id = ?1";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare(sql.c_str()));
    Statement st(m_database->handle(), raw, m_path);
    st.bind(1, requestId);
    CKPT_ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) return notFound("no request " + std::to_string(requestId) + " in " + m_path + " (was its schedule removed?)");
    return requestFromRow(st, m_path);
}

Result<std::vector<ScheduleRequest>> ScheduleStore::requests(std::optional<int64_t> scheduleId, bool pendingOnly, int limit) {
    static const std::string sql = std::string("SELECT ") + kRequestColumns +
                                   " FROM schedule_requests q JOIN schedules s ON s.id = q.schedule_id"
                                   " WHERE (?1 IS NULL OR q.schedule_id = ?1) AND (?2 = 0 OR q.taken_at IS NULL)"
                                   " ORDER BY q.id DESC LIMIT ?3";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * raw, m_database->prepare(sql.c_str()));
    Statement st(m_database->handle(), raw, m_path);
    if (scheduleId) st.bind(1, *scheduleId);
    else st.bindNull(1);
    st.bind(2, int64_t{pendingOnly}).bind(3, static_cast<int64_t>(limit < 0 ? 0 : limit));
    return collect(st, m_path);
}

}  // namespace ckpt

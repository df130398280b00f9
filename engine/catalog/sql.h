#pragma once
// SQLite results as Status, a cached prepared statement reset when it goes
// out of scope, and a transaction helper: what the catalog and the schedule
// store share (both live in one database file, catalog/database.h).
// Engine-internal.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt::sql {

inline Status sqliteStatus(sqlite3* db, int rc, const std::string& path, std::string_view what) {
    const std::string message = path + ": " + std::string(what) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return dataLoss(message + " (the file is damaged or not a ckpt-explorer database; it was not changed)");
    case SQLITE_FULL: return Status(StatusCode::ResourceExhausted, message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return failedPrecondition(message + " (another process kept the database locked)");
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
    case SQLITE_AUTH: return Status(StatusCode::PermissionDenied, message);
    case SQLITE_CONSTRAINT: return Status(StatusCode::AlreadyExists, message);
    default: return internalError(message);
    }
}

// One prepared statement, reset and cleared on destruction so a cached
// statement is ready for the next use.
class Statement {
public:
    Statement(sqlite3* db, sqlite3_stmt* stmt, const std::string& path) : m_db(db), m_stmt(stmt), m_path(path) {}
    ~Statement() {
        sqlite3_reset(m_stmt);
        sqlite3_clear_bindings(m_stmt);
    }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int i, int64_t v) {
        sqlite3_bind_int64(m_stmt, i, v);
        return *this;
    }
    Statement& bind(int i, double v) {
        sqlite3_bind_double(m_stmt, i, v);
        return *this;
    }
    Statement& bind(int i, std::string_view v) {
        sqlite3_bind_text(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    // Text the caller keeps alive and unchanged until the statement is
    // reset (this object's end): not copied.
    Statement& bindStatic(int i, std::string_view v) {
        sqlite3_bind_text(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
        return *this;
    }
    Statement& bindNull(int i) {
        sqlite3_bind_null(m_stmt, i);
        return *this;
    }
    // True with a row, false when done.
    Result<bool> step() {
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        return sqliteStatus(m_db, rc, m_path, "query failed");
    }
    Status run() {
        auto r = step();
        return r.ok() ? okStatus() : r.status();
    }
    int64_t integer(int col) const { return sqlite3_column_int64(m_stmt, col); }
    double real(int col) const { return sqlite3_column_double(m_stmt, col); }
    bool isNull(int col) const { return sqlite3_column_type(m_stmt, col) == SQLITE_NULL; }
    std::string text(int col) const {
        const auto* p = sqlite3_column_text(m_stmt, col);
        return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(m_stmt, col)))
                 : std::string();
    }

private:
    sqlite3* m_db;
    sqlite3_stmt* m_stmt;
    const std::string& m_path;
};

inline Status exec(sqlite3* db, const std::string& path, const char* sql) {
    char* error = nullptr;
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
    if (error) sqlite3_free(error);
    if (rc != SQLITE_OK) return sqliteStatus(db, rc, path, "cannot run \"" + std::string(sql).substr(0, 40) + "\"");
    return okStatus();
}

// Every row 'st' yields, each read back by decode(row, path) -> Result<T>.
template <typename T, typename Decode>
Result<std::vector<T>> collectRows(Statement& st, const std::string& path, Decode decode) {
    std::vector<T> out;
    while (true) {
        CKPT_ASSIGN_OR_RETURN(bool row, st.step());
        if (!row) break;
        CKPT_ASSIGN_OR_RETURN(T item, decode(st, path));
        out.push_back(std::move(item));
    }
    return out;
}

// BEGIN IMMEDIATE .. COMMIT around 'body'; ROLLBACK when it fails.
template <typename Body>
auto inTransaction(sqlite3* db, const std::string& path, Body&& body) -> decltype(body()) {
    CKPT_RETURN_IF_ERROR(exec(db, path, "BEGIN IMMEDIATE"));
    auto result = body();
    if (!result.ok()) {
        (void)exec(db, path, "ROLLBACK");
        return result;
    }
    if (Status st = exec(db, path, "COMMIT"); !st.isOk()) {
        (void)exec(db, path, "ROLLBACK");
        return st;
    }
    return result;
}

}  // namespace ckpt::sql

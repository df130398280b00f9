// The database file: see catalog/database.h. Nothing that writes (WAL mode,
// migrations) runs until the header, the schema version and the tables
// show the file is ours and not newer, so a refused file keeps every byte.

#include "catalog/database.h"

#include <sqlite3.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "catalog/sql.h"
#include "storage/dispatch.h"
#include "platform/file.h"

namespace ckpt::catalog {
using sql::exec;
using sql::sqliteStatus;
namespace {

// "SQLite format 3\0": the first 16 bytes of every SQLite database file.
constexpr char kSqliteMagic[] = "SQLite format 3";
constexpr size_t kSqliteMagicSize = 16;
constexpr const char* kLegacyScheduleStore = "schedules.db";
constexpr const char* kDefaultName = "catalog.db";

// Switching a new database to WAL takes an exclusive lock, and SQLite
// answers SQLITE_BUSY at once, without the busy handler, while another
// process is opening the same new file (tst_catalog_concurrency's children
// met it under load): retried here until the busy timeout.
Status enableWal(sqlite3* db, const std::string& path, int busyTimeoutMs) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busyTimeoutMs);
    for (int attempt = 0;; ++attempt) {
        const int rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
        if (rc == SQLITE_OK) return okStatus();
        if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline)
            return sqliteStatus(db, rc, path, "cannot run \"PRAGMA journal_mode = WAL\"");
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(50, 1 << std::min(attempt, 6))));
    }
}

Result<int64_t> queryInt(sqlite3* db, const std::string& path, const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
    if (rc != SQLITE_OK) return sqliteStatus(db, rc, path, "cannot read the database");
    rc = sqlite3_step(stmt);
    const int64_t value = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    sqlite3_finalize(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sqliteStatus(db, rc, path, "cannot read the database");
    return value;
}

// Refuses a file that is not a SQLite database before SQLite touches it.
// The header is read through SQLite's own VFS, never a plain descriptor:
// closing any descriptor of the file drops every POSIX lock this process
// holds on it, and a connection already open here (the scheduler's second
// connection, the explorer's reads beside a run) would lose its WAL read
// lock, letting another process's close delete the WAL under it. SQLite's
// VFS defers such a close while its locks are held.
Status checkHeader(const std::string& path, std::string_view role) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return okStatus();  // created by open
    if (!S_ISREG(st.st_mode)) return invalidArgument(std::string(role) + " " + path + " is not a regular file");
    if (st.st_size == 0) return okStatus();  // SQLite treats an empty file as an empty database
    sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
    std::vector<char> full(static_cast<size_t>(vfs->mxPathname) + 1);
    int rc = vfs->xFullPathname(vfs, path.c_str(), vfs->mxPathname + 1, full.data());
    if (rc != SQLITE_OK) return sqliteStatus(nullptr, rc, path, "cannot resolve the path");
    std::unique_ptr<char[]> storage(new char[static_cast<size_t>(vfs->szOsFile)]());
    auto* file = reinterpret_cast<sqlite3_file*>(storage.get());
    int flags = 0;
    rc = vfs->xOpen(vfs, full.data(), file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &flags);
    if (rc != SQLITE_OK) return sqliteStatus(nullptr, rc, path, "cannot open the " + std::string(role));
    char header[kSqliteMagicSize] = {};
    rc = file->pMethods->xRead(file, header, static_cast<int>(sizeof header), 0);
    file->pMethods->xClose(file);
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ)
        return sqliteStatus(nullptr, rc, path, "cannot read the " + std::string(role));
    if (rc == SQLITE_IOERR_SHORT_READ || std::memcmp(header, kSqliteMagic, kSqliteMagicSize) != 0)
        return dataLoss(std::string(role) + " " + path + " is not a SQLite database; it was not changed");
    return okStatus();
}

// The tables each version must have: a file claiming a version without
// them is damaged or another program's, and is left alone.
Status checkTables(sqlite3* db, const std::string& path, int64_t version, std::string_view role) {
    struct Expect {
        int since;
        const char* sql;
        int count;
        const char* names;
    };
    static constexpr Expect kExpected[] = {
        {1, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('schedules', 'schedule_runs')", 2,
         "schedules and schedule_runs"},
        {3,
         "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('catalog_roots', "
         "'catalog_checkpoints', 'catalog_keys', 'catalog_tensors')",
         4, "catalog_roots, catalog_checkpoints, catalog_keys and catalog_tensors"},
    };
    for (const Expect& e : kExpected) {
        if (version < e.since) continue;
        CKPT_ASSIGN_OR_RETURN(int64_t found, queryInt(db, path, e.sql));
        if (found != e.count)
            return dataLoss(std::string(role) + " " + path + " has schema version " + std::to_string(version) +
                            " but not its tables " + e.names + "; it was not changed");
    }
    return okStatus();
}

// A catalog.db that does not exist yet starts as a copy of the schedule
// store that the catalog adopted; the copy is made by SQLite's backup into
// a temporary file renamed into place, so a crash leaves no half catalog.
Status adoptLegacyStore(const std::string& path) {
    if (platform::baseName(path) != kDefaultName || storage::exists(path)) return okStatus();
    const std::string legacy = platform::joinPath(platform::dirName(path), kLegacyScheduleStore);
    if (!storage::exists(legacy)) return okStatus();
    CKPT_RETURN_IF_ERROR(checkHeader(legacy, "schedule store"));
    const std::string partial = path + ".adopting";
    CKPT_RETURN_IF_ERROR(storage::remove(partial));
    sqlite3* from = nullptr;
    sqlite3* to = nullptr;
    int rc = sqlite3_open_v2(legacy.c_str(), &from, SQLITE_OPEN_READONLY, nullptr);
    if (rc == SQLITE_OK) rc = sqlite3_open_v2(partial.c_str(), &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(from, 5000);
        sqlite3_backup* backup = sqlite3_backup_init(to, "main", from, "main");
        rc = backup ? sqlite3_backup_step(backup, -1) : sqlite3_errcode(to);
        if (backup) sqlite3_backup_finish(backup);
        if (rc == SQLITE_DONE) rc = SQLITE_OK;
    }
    Status st = rc == SQLITE_OK ? okStatus() : sqliteStatus(to ? to : from, rc, legacy, "cannot copy the schedule store");
    sqlite3_close_v2(from);
    sqlite3_close_v2(to);
    // The backup's commit synced the copy (rollback journal, synchronous FULL).
    if (st.isOk()) st = storage::rename(partial, path);
    if (st.isOk()) st = storage::syncDirectory(platform::dirName(path));
    if (!st.isOk()) (void)storage::remove(partial);
    return st;
}

}  // namespace

Result<std::string> Database::defaultPath() {
    const char* xdg = std::getenv("XDG_DATA_HOME");
    // The XDG spec: a relative XDG_DATA_HOME is invalid and is ignored.
    if (xdg && xdg[0] == '/') return platform::joinPath(platform::joinPath(xdg, "ckpt-explorer"), kDefaultName);
    const char* home = std::getenv("HOME");
    if (home && home[0] == '/') return platform::joinPath(std::string(home) + "/.local/share/ckpt-explorer", kDefaultName);
    return failedPrecondition(
        "no place for the catalog database: neither XDG_DATA_HOME nor HOME is set (name a file with --catalog or --store)");
}

Result<std::unique_ptr<Database>> Database::open(std::string_view pathView, const DatabaseOptions& options) {
    const std::string path(pathView);
    const std::string role(options.role);
    if (path.empty()) return invalidArgument("the " + role + " path is empty");
    // SQLite opens local files only: a location of a store is refused with
    // the storage layer's words.
    CKPT_RETURN_IF_ERROR(storage::checkLocation(path));
    if (!storage::capabilitiesFor(path).localPaths)
        return invalidArgument("the " + role + " " + path + " must be a local file (SQLite opens local files only)");
    const std::string dir = platform::dirName(path);
    if (!dir.empty() && !storage::isDirectory(dir)) {
        if (!options.createDirectory || storage::exists(dir))
            return notFound("cannot open " + role + " " + path + ": directory " + dir + " does not exist");
        CKPT_RETURN_IF_ERROR(storage::createDirectories(dir));
    }
    CKPT_RETURN_IF_ERROR(adoptLegacyStore(path));
    CKPT_RETURN_IF_ERROR(checkHeader(path, role));

    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    std::unique_ptr<Database> database(new Database(path, raw));
    if (rc != SQLITE_OK) return sqliteStatus(raw, rc, path, "cannot open the " + role);
    sqlite3* db = database->m_db;
    sqlite3_busy_timeout(db, options.busyTimeoutMs);
    sqlite3_extended_result_codes(db, 1);

    // Read-only checks first: nothing below writes until the file is known
    // to be ours and not newer.
    // Both from one read transaction: a catalog that another process is
    // creating at this moment must not be seen half made (its tables, but
    // not yet its version), which would read as another program's file.
    CKPT_RETURN_IF_ERROR(exec(db, path, "BEGIN"));
    Result<int64_t> versionRead = queryInt(db, path, "PRAGMA user_version");
    Result<int64_t> tablesRead = versionRead.ok() ? queryInt(db, path, "SELECT count(*) FROM sqlite_master") : versionRead;
    CKPT_RETURN_IF_ERROR(exec(db, path, "COMMIT"));
    CKPT_ASSIGN_OR_RETURN(const int64_t version, std::move(versionRead));
    CKPT_ASSIGN_OR_RETURN(const int64_t tables, std::move(tablesRead));
    if (version > kSchemaVersion)
        return failedPrecondition(role + " " + path + " has schema version " + std::to_string(version) +
                                  ", newer than this ckpt understands (" + std::to_string(kSchemaVersion) +
                                  "); it was written by a newer ckpt-explorer and was not changed");
    if (version < 0) return dataLoss(role + " " + path + " has an invalid schema version " + std::to_string(version));
    if (version == 0 && tables > 0)
        return failedPrecondition(role + " " + path +
                                  " is a SQLite database of another program (it has tables but no schema version); "
                                  "it was not changed");
    CKPT_RETURN_IF_ERROR(checkTables(db, path, version, role));

    CKPT_RETURN_IF_ERROR(enableWal(db, path, options.busyTimeoutMs));
    CKPT_RETURN_IF_ERROR(exec(db, path, "PRAGMA synchronous = FULL"));
    CKPT_RETURN_IF_ERROR(exec(db, path, "PRAGMA foreign_keys = ON"));
    if (version < kSchemaVersion) {
        CKPT_RETURN_IF_ERROR(exec(db, path, "BEGIN IMMEDIATE"));
        // Another process may have migrated while this one waited for the lock.
        auto current = queryInt(db, path, "PRAGMA user_version");
        Status st = current.ok() ? okStatus() : current.status();
        for (int64_t v = current.ok() ? *current : kSchemaVersion; st.isOk() && v < kSchemaVersion; ++v)
            st = exec(db, path, migrationFrom(static_cast<int>(v)));
        if (st.isOk()) st = exec(db, path, ("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
        if (st.isOk()) st = exec(db, path, "COMMIT");
        if (!st.isOk()) {
            (void)exec(db, path, "ROLLBACK");
            return st;
        }
    }
    return database;
}

Database::~Database() {
    for (auto& [sql, stmt] : m_statements) sqlite3_finalize(stmt);
    sqlite3_close_v2(m_db);
}

Result<sqlite3_stmt*> Database::prepare(const char* sql) {
    if (auto it = m_statements.find(sql); it != m_statements.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(m_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return sqliteStatus(m_db, rc, m_path, "cannot prepare a query");
    m_statements.emplace(sql, stmt);
    return stmt;
}

}  // namespace ckpt::catalog

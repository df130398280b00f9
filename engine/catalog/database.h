#pragma once
// The one SQLite file per user behind the catalog (catalog.h) and the
// schedule store (schedule_store.h): opening it, refusing files that are
// not ours or are newer, migrating older ones forward, and caching prepared
// statements. Engine-internal.
//
// Schema versions (PRAGMA user_version), each one migration of schema.cpp:
//   1  schedules, schedule_runs
//   2  schedule_requests, the runs' progress columns
//   3  the catalog: roots, checkpoints, keys (+ FTS5), tensors, results, restores
//   4  the checkpoints' state-file problem
//   5  the catalog's word index (FTS5 over words, built a scan batch at a time) and its word list
//   6  the index's generation (a rescan's cheap "unchanged")
//   7  the word index without per-key column sizes (rebuilt)

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ckpt::catalog {

inline constexpr int kSchemaVersion = 7;

struct DatabaseOptions {
    bool createDirectory = false;  // create a missing parent directory
    int busyTimeoutMs = 5000;
    // What the file is to the caller, for messages: "catalog", "schedule store".
    std::string_view role = "catalog";
};

class Database {
public:
    // $XDG_DATA_HOME/ckpt-explorer/catalog.db, else ~/.local/share/...;
    // FailedPrecondition when neither variable is set.
    static Result<std::string> defaultPath();

    // Refuses, leaving every byte as it was: a file that is not a SQLite
    // database or is damaged (DataLoss), a newer schema or another
    // program's database (FailedPrecondition), a missing directory unless
    // createDirectory (NotFound). A catalog.db that does not exist yet
    // starts as a copy of a schedules.db beside it (the store's name
    // before the catalog adopted it).
    static Result<std::unique_ptr<Database>> open(std::string_view path, const DatabaseOptions& options);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }

    // Prepared once per connection, keyed by the (static) SQL text.
    Result<sqlite3_stmt*> prepare(const char* sql);

private:
    Database(std::string path, sqlite3* db) : m_path(std::move(path)), m_db(db) {}
    std::string m_path;
    sqlite3* m_db;
    std::map<const char*, sqlite3_stmt*> m_statements;
};

// The CREATE statements of version v+1, applied to a file at version v.
const char* migrationFrom(int version);

}  // namespace ckpt::catalog

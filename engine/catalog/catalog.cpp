// The catalog's roots, rows and restore history: see ckpt/catalog.h. Scans
// are in catalog_scan.cpp, search in catalog_search.cpp.

#include "ckpt/catalog.h"

#include <sqlite3.h>

#include <algorithm>

#include "catalog/catalog_rows.h"
#include "ckpt/bundle_naming.h"
#include "ckpt/match_report.h"
#include "ckpt/verify.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt {
using sql::collectRows;
using sql::Statement;

namespace catalog {

const char* const kCheckpointColumns =
    "c.id, c.root_id, c.directory, c.prefix, c.name, c.step, c.modified, c.bytes, c.shards, c.tensors, c.objects, "
    "c.in_state_file, c.is_latest, c.missing, c.error, c.verified_at, c.verify_problems, c.verify_message, c.scanned_at, "
    "c.state_problem";

CatalogCheckpoint checkpointFromRow(const Statement& row) {
    CatalogCheckpoint c;
    c.id = row.integer(0);
    c.rootId = row.integer(1);
    c.directory = row.text(2);
    c.prefix = row.text(3);
    c.name = row.text(4);
    if (!row.isNull(5)) c.step = row.integer(5);
    c.modified = row.real(6);
    c.bytes = static_cast<uint64_t>(row.integer(7));
    c.shards = static_cast<int32_t>(row.integer(8));
    c.tensors = row.integer(9);
    c.objects = row.integer(10);
    c.inStateFile = row.integer(11) != 0;
    c.isLatest = row.integer(12) != 0;
    c.missing = row.integer(13) != 0;
    c.error = row.text(14);
    if (!row.isNull(15)) c.verifiedAt = row.real(15);
    c.verifyProblems = row.integer(16);
    c.verifyMessage = row.text(17);
    c.scannedAt = row.real(18);
    c.stateProblem = row.text(19);
    return c;
}

std::string normalizeDirectory(std::string_view directory) { return storage::normalizeLocation(directory); }

IndexStamp statIndex(const std::string& indexPath) {
    IndexStamp s;
    auto info = storage::stat(indexPath);
    if (!info.ok() || !*info) return s;
    s.size = static_cast<int64_t>((*info)->size);
    s.mtimeNs = (*info)->modifiedNs;
    s.generation = (*info)->generation.token();
    return s;
}

bool isWithin(std::string_view path, std::string_view dir) { return path == dir || platform::isInsideDirectory(path, dir); }

}  // namespace catalog

std::string_view catalogHealthName(CatalogHealth health) {
    switch (health) {
    case CatalogHealth::Missing: return "missing";
    case CatalogHealth::Unreadable: return "unreadable";
    case CatalogHealth::Damaged: return "damaged";
    case CatalogHealth::Healthy: return "healthy";
    case CatalogHealth::Unverified: return "unverified";
    }
    return "unverified";
}

CatalogHealth CatalogCheckpoint::health() const {
    if (missing) return CatalogHealth::Missing;
    if (!error.empty()) return CatalogHealth::Unreadable;
    if ((verifiedAt && verifyProblems > 0) || !stateProblem.empty()) return CatalogHealth::Damaged;
    if (verifiedAt) return CatalogHealth::Healthy;
    return CatalogHealth::Unverified;
}

std::string CatalogCheckpoint::problem() const {
    if (verifiedAt && verifyProblems > 0) return verifyMessage;
    return stateProblem;
}

Result<std::string> Catalog::defaultPath() { return catalog::Database::defaultPath(); }

Result<std::unique_ptr<Catalog>> Catalog::open(std::string_view path, const CatalogOptions& options) {
    CKPT_ASSIGN_OR_RETURN(
        std::unique_ptr<catalog::Database> db,
        catalog::Database::open(
            path, {.createDirectory = options.createDirectory, .busyTimeoutMs = options.busyTimeoutMs, .role = "catalog"}));
    return std::unique_ptr<Catalog>(new Catalog(std::move(db)));
}

Catalog::Catalog(std::unique_ptr<catalog::Database> db) : m_db(std::move(db)) {}
Catalog::~Catalog() = default;
const std::string& Catalog::path() const { return m_db->path(); }

namespace {

constexpr const char* kRootsSql =
    "SELECT r.id, r.path, r.added_at, r.last_scan_at, r.missing, r.error, "
    "(SELECT count(*) FROM catalog_checkpoints c WHERE c.root_id = r.id AND c.missing = 0) "
    "FROM catalog_roots r ORDER BY r.path";

Result<CatalogRoot> rootFromRow(const Statement& row, const std::string&) {
    CatalogRoot r;
    r.id = row.integer(0);
    r.path = row.text(1);
    r.addedAt = row.real(2);
    if (!row.isNull(3)) r.lastScanAt = row.real(3);
    r.missing = row.integer(4) != 0;
    r.error = row.text(5);
    r.checkpoints = row.integer(6);
    return r;
}

}  // namespace

Result<std::vector<CatalogRoot>> Catalog::roots() {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db->prepare(kRootsSql));
    Statement st(m_db->handle(), stmt, m_db->path());
    return collectRows<CatalogRoot>(st, m_db->path(), rootFromRow);
}

Result<CatalogRoot> Catalog::addRoot(std::string_view directory) {
    CKPT_RETURN_IF_ERROR(storage::checkLocation(directory));
    const std::string dir = catalog::normalizeDirectory(directory);
    if (!storage::isDirectory(dir)) return notFound("cannot add " + std::string(directory) + " to the catalog: not a directory");
    auto added = catalog::writeTransaction(*m_db, [&]() -> Result<bool> {
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * ins,
            m_db->prepare("INSERT INTO catalog_roots (path, added_at) VALUES (?1, ?2) ON CONFLICT (path) DO NOTHING"));
        Statement insert(m_db->handle(), ins, m_db->path());
        CKPT_RETURN_IF_ERROR(insert.bind(1, dir).bind(2, platform::unixSeconds()).run());
        // Checkpoints recorded under a shallower root now belong to this
        // one: each checkpoint belongs to the deepest root above it.
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * move,
            m_db->prepare("UPDATE catalog_checkpoints SET root_id = (SELECT id FROM catalog_roots WHERE path = ?1) "
                          "WHERE (directory = ?1 OR substr(directory, 1, length(?1) + 1) = ?1 || '/') AND root_id IN "
                          "(SELECT id FROM catalog_roots WHERE length(path) < length(?1))"));
        Statement reassign(m_db->handle(), move, m_db->path());
        CKPT_RETURN_IF_ERROR(reassign.bind(1, dir).run());
        return true;
    });
    if (!added.ok()) return added.status();
    CKPT_ASSIGN_OR_RETURN(std::vector<CatalogRoot> all, roots());
    for (CatalogRoot& r : all)
        if (r.path == dir) return std::move(r);
    return internalError(m_db->path() + ": root " + dir + " vanished after it was added");
}

Status Catalog::forgetRoot(std::string_view directory) {
    CKPT_RETURN_IF_ERROR(storage::checkLocation(directory));
    const std::string dir = catalog::normalizeDirectory(directory);
    auto forgotten = catalog::writeTransaction(*m_db, [&]() -> Result<int> {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * del, m_db->prepare("DELETE FROM catalog_roots WHERE path = ?1"));
        Statement remove(m_db->handle(), del, m_db->path());
        CKPT_RETURN_IF_ERROR(remove.bind(1, dir).run());
        const int removed = sqlite3_changes(m_db->handle());
        if (removed == 0) return notFound("the catalog has no root " + dir);
        // Keys no checkpoint holds any more leave the search index too.
        CKPT_RETURN_IF_ERROR(sql::exec(m_db->handle(), m_db->path(),
                                       "DELETE FROM catalog_keys WHERE NOT EXISTS "
                                       "(SELECT 1 FROM catalog_tensors t WHERE t.key_id = catalog_keys.id)"));
        return removed;
    });
    return forgotten.ok() ? okStatus() : forgotten.status();
}

Result<std::vector<CatalogCheckpoint>> Catalog::checkpoints(std::string_view directory) {
    static const std::string sql = std::string("SELECT ") + catalog::kCheckpointColumns +
                                   " FROM catalog_checkpoints c WHERE ?1 = '' OR c.directory = ?1 OR "
                                   "substr(c.directory, 1, length(?1) + 1) = ?1 || '/' "
                                   "ORDER BY c.directory, c.step IS NULL, c.step, c.name";
    const std::string dir = directory.empty() ? std::string() : catalog::normalizeDirectory(directory);
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db->prepare(sql.c_str()));
    Statement st(m_db->handle(), stmt, m_db->path());
    st.bind(1, dir);
    return collectRows<CatalogCheckpoint>(
        st, m_db->path(),
        [](const Statement& row, const std::string&) -> Result<CatalogCheckpoint> { return catalog::checkpointFromRow(row); });
}

Result<CatalogCheckpoint> Catalog::checkpoint(std::string_view prefix) {
    static const std::string sql =
        std::string("SELECT ") + catalog::kCheckpointColumns + " FROM catalog_checkpoints c WHERE c.prefix = ?1";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db->prepare(sql.c_str()));
    Statement st(m_db->handle(), stmt, m_db->path());
    st.bind(1, prefix);
    CKPT_ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) return notFound("the catalog has no checkpoint " + std::string(prefix));
    return catalog::checkpointFromRow(st);
}

Result<std::vector<CatalogTensor>> Catalog::tensors(int64_t checkpointId) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db->prepare("SELECT k.key, k.object_path, t.dtype, t.shape, t.bytes, t.crc32c "
                                                             "FROM catalog_tensors t JOIN catalog_keys k ON k.id = t.key_id "
                                                             "WHERE t.checkpoint_id = ?1 ORDER BY k.key"));
    Statement st(m_db->handle(), stmt, m_db->path());
    st.bind(1, checkpointId);
    return collectRows<CatalogTensor>(st, m_db->path(), [](const Statement& row, const std::string&) -> Result<CatalogTensor> {
        CatalogTensor t;
        t.key = row.text(0);
        t.objectPath = row.text(1);
        t.dtype = row.text(2);
        t.shape = row.text(3);
        t.bytes = static_cast<uint64_t>(row.integer(4));
        t.crc32c = static_cast<uint32_t>(row.integer(5));
        return t;
    });
}

Result<bool> Catalog::recordVerification(const VerifyReport& report) {
    const catalog::IndexStamp now = catalog::statIndex(indexFileName(report.prefix));
    return catalog::writeTransaction(*m_db, [&]() -> Result<bool> {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                              m_db->prepare("UPDATE catalog_checkpoints SET verified_at = ?2, verify_problems = ?3, "
                                            "verify_message = ?4 WHERE prefix = ?1 AND missing = 0 AND error = '' AND "
                                            "index_size = ?5 AND index_mtime_ns = ?6"));
        Statement st(m_db->handle(), stmt, m_db->path());
        st.bind(1, report.prefix)
            .bind(2, platform::unixSeconds())
            .bind(3, static_cast<int64_t>(report.problems.size()))
            .bind(4, report.problems.empty() ? std::string() : report.problems.front().message)
            .bind(5, now.size)
            .bind(6, now.mtimeNs);
        CKPT_RETURN_IF_ERROR(st.run());
        return sqlite3_changes(m_db->handle()) > 0;
    });
}

Result<bool> Catalog::recordWrite(std::string_view prefix, const VerifyReport* verified) {
    const std::string dir = catalog::normalizeDirectory(platform::dirName(prefix).empty() ? "." : platform::dirName(prefix));
    CKPT_ASSIGN_OR_RETURN(const std::vector<CatalogRoot> all, roots());
    const bool held = std::any_of(all.begin(), all.end(), [&](const CatalogRoot& r) { return catalog::isWithin(dir, r.path); });
    if (!held) return false;
    CatalogScanOptions options;
    options.roots = {dir};
    options.onlyNamed = true;
    CKPT_RETURN_IF_ERROR(scan(options).status());
    if (verified) {
        VerifyReport report = *verified;
        report.prefix = platform::joinPath(dir, platform::baseName(prefix));
        CKPT_RETURN_IF_ERROR(recordVerification(report).status());
    }
    return true;
}

Result<int64_t> Catalog::recordRestore(const RestoreRecord& record) {
    return catalog::writeTransaction(*m_db, [&]() -> Result<int64_t> {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                              m_db->prepare("INSERT INTO catalog_restores (at, source, target, mapping, verdict, "
                                            "output, ok, tool) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
        Statement st(m_db->handle(), stmt, m_db->path());
        st.bind(1, record.at > 0 ? record.at : platform::unixSeconds())
            .bind(2, record.source)
            .bind(3, record.target)
            .bind(4, record.mapping)
            .bind(5, record.verdict)
            .bind(6, record.output)
            .bind(7, int64_t{record.ok})
            .bind(8, record.tool);
        CKPT_RETURN_IF_ERROR(st.run());
        return static_cast<int64_t>(sqlite3_last_insert_rowid(m_db->handle()));
    });
}

Result<std::vector<RestoreRecord>> Catalog::restores(int limit) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db->prepare("SELECT id, at, source, target, mapping, verdict, output, ok, tool "
                                                             "FROM catalog_restores ORDER BY at DESC, id DESC LIMIT ?1"));
    Statement st(m_db->handle(), stmt, m_db->path());
    st.bind(1, int64_t{limit});
    return collectRows<RestoreRecord>(st, m_db->path(), [](const Statement& row, const std::string&) -> Result<RestoreRecord> {
        RestoreRecord r;
        r.id = row.integer(0);
        r.at = row.real(1);
        r.source = row.text(2);
        r.target = row.text(3);
        r.mapping = row.text(4);
        r.verdict = row.text(5);
        r.output = row.text(6);
        r.ok = row.integer(7) != 0;
        r.tool = row.text(8);
        return r;
    });
}

RestoreRecord restoreRecordFor(const MatchReport& report, std::string_view target, std::string_view assignmentMap,
                               std::string_view output, bool ok, std::string_view tool) {
    RestoreRecord r;
    r.at = platform::unixSeconds();
    r.source = report.checkpointPrefix;
    r.target = std::string(target);
    r.mapping = report.style + ", " + std::to_string(report.matchedNodes) + " matched";
    if (report.unresolvedNodes) r.mapping += ", " + std::to_string(report.unresolvedNodes) + " unresolved";
    if (report.unboundObjects) r.mapping += ", " + std::to_string(report.unboundObjects) + " unbound";
    if (report.mismatches) r.mapping += ", " + std::to_string(report.mismatches) + " mismatched";
    if (!assignmentMap.empty()) r.mapping += ", map " + std::string(assignmentMap);
    for (const AssertionVerdict& v : report.verdicts) {
        if (!r.verdict.empty()) r.verdict += ", ";
        r.verdict += std::string(assertionName(v.assertion)) + (v.passed ? " passed" : " failed");
    }
    r.output = std::string(output);
    r.ok = ok;
    r.tool = std::string(tool);
    return r;
}

Status recordRestore(const std::string& catalogPath, const RestoreRecord& record) {
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<Catalog> catalog, Catalog::open(catalogPath, {.createDirectory = true}));
    auto id = catalog->recordRestore(record);
    return id.ok() ? okStatus() : id.status();
}

}  // namespace ckpt

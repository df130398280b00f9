// Catalog::scan: see ckpt/catalog.h. Three phases per directory: list it
// (no lock), read what changed in parallel (no lock), then write each batch
// in one short IMMEDIATE transaction, so other processes wait for inserts,
// never for reading.

#include <dirent.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "catalog/catalog_rows.h"
#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/object_graph.h"
#include "ckpt/verify.h"
#include "platform/crc32c.h"
#include "platform/file.h"
#include "platform/parallel.h"

namespace ckpt {
using catalog::Database;
using catalog::IndexStamp;
using catalog::statIndex;
using sql::Statement;
namespace {

// A batch is written in one transaction; its rows are held in memory
// until then, so it is bounded by checkpoints and by index bytes (an index
// entry takes at least ~16 bytes, so 2 MiB of indexes hold at most ~130,000
// tensor rows).
constexpr size_t kBatchCheckpoints = 64;
constexpr int64_t kBatchIndexBytes = 2 << 20;

struct TensorRow {
    std::string key;
    std::string objectPath;
    std::string dtype;
    std::string shape;
    int64_t bytes = 0;
    uint32_t crc = 0;
};

// What the database holds for one checkpoint before this scan.
struct KnownRow {
    int64_t id = 0;
    IndexStamp stamp;
    int64_t bytes = 0;
    bool missing = false;
    bool verified = false;
};

struct Scanned {
    CheckpointListEntry entry;
    IndexStamp stamp;
    const KnownRow* known = nullptr;
    bool changed = true;
    std::string error;
    int64_t objects = 0;
    std::vector<TensorRow> tensors;
    bool verified = false;
    int64_t problems = 0;
    std::string verifyMessage;
};

// crc32c of the whole .index, read in bounded chunks.
uint32_t indexCrc(const std::string& indexPath) {
    auto file = platform::RandomAccessFile::open(indexPath);
    if (!file.ok()) return 0;
    constexpr size_t kChunk = 1 << 20;
    std::vector<uint8_t> buffer(std::min<uint64_t>(kChunk, (*file)->size()));
    uint32_t crc = 0;
    for (uint64_t off = 0; off < (*file)->size();) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, (*file)->size() - off));
        if (!(*file)->readExact(off, n, buffer.data()).isOk()) return 0;
        crc = platform::crc32cExtend(crc, buffer.data(), n);
        off += n;
    }
    return crc;
}

// Every directory at or below 'dir' holding a .index, depth first in name
// order. Other roots below are theirs to scan; hidden directories and
// directories already seen (symlink loops) are skipped.
void walk(const std::string& dir, int depth, int maxDepth, const std::set<std::string>& otherRoots,
          std::set<std::pair<dev_t, ino_t>>& seen, std::vector<std::string>& out, std::vector<std::string>& errors) {
    struct stat self {};
    if (::stat(dir.c_str(), &self) != 0 || !seen.insert({self.st_dev, self.st_ino}).second) return;
    DIR* d = ::opendir(dir.c_str());
    if (!d) {
        errors.push_back(dir + ": " + platform::errnoText(errno));
        return;
    }
    bool holdsCheckpoints = false;
    std::vector<std::string> subdirs;
    while (const dirent* e = ::readdir(d)) {
        const std::string_view name = e->d_name;
        if (name == "." || name == "..") continue;
        if (name.size() > kIndexSuffix.size() && name.ends_with(kIndexSuffix)) holdsCheckpoints = true;
        if (name.front() == '.') continue;
        bool isDir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) isDir = platform::isDirectory(platform::joinPath(dir, name));
        if (isDir) subdirs.emplace_back(name);
    }
    ::closedir(d);
    if (holdsCheckpoints) out.push_back(dir);
    if (depth >= maxDepth) return;
    std::sort(subdirs.begin(), subdirs.end());
    for (const std::string& name : subdirs) {
        const std::string child = platform::joinPath(dir, name);
        if (!otherRoots.count(child)) walk(child, depth + 1, maxDepth, otherRoots, seen, out, errors);
    }
}

// Object paths by checkpoint key, from the object graph.
std::unordered_map<std::string, std::string> objectPaths(const ObjectGraph& graph) {
    std::unordered_map<std::string, std::string> paths;
    for (const ObjectNode& node : graph.nodes())
        for (const ObjectAttribute& a : node.attributes) paths.emplace(a.checkpointKey, graph.displayName(node.id));
    return paths;
}

void readCheckpoint(Scanned& s) {
    auto opened = Checkpoint::open(s.entry.prefix);
    if (!opened.ok()) {
        s.error = opened.status().message();
        return;
    }
    const Checkpoint& ckpt = **opened;
    std::unordered_map<std::string, std::string> paths;
    if (const ObjectGraph* graph = ckpt.objectGraph()) {
        s.objects = graph->size();
        paths = objectPaths(*graph);
    }
    s.tensors.reserve(ckpt.bundle().tensors().size());
    for (const TensorInfo& info : ckpt.bundle().tensors()) {
        TensorRow row;
        row.key = info.key;
        if (auto it = paths.find(info.key); it != paths.end()) row.objectPath = it->second;
        row.dtype = std::string(dataTypeShortName(info.dtype));
        row.shape = info.shape.toString();
        row.bytes = info.storedBytes();
        row.crc = info.isPartitioned() ? 0 : platform::crc32cUnmask(info.region.maskedCrc32c);
        s.tensors.push_back(std::move(row));
    }
}

void verifyCheckpoint(Scanned& s, const CancellationToken* cancel) {
    auto report = verifyBundle(s.entry.prefix, {.threads = 1, .progress = {}, .cancel = cancel});
    if (!report.ok()) return;  // cancelled: left unverified
    s.verified = true;
    s.problems = static_cast<int64_t>(report->problems.size());
    if (!report->problems.empty()) s.verifyMessage = report->problems.front().message;
}

// The scan's connection-side work: existing rows, batch writes, key ids.
class Writer {
public:
    Writer(Database& db, CatalogScanSummary& summary) : m_db(db), m_summary(summary) {}

    Result<std::map<std::string, KnownRow>> known(const std::string& dir) {
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * stmt,
            m_db.prepare("SELECT prefix, id, index_size, index_mtime_ns, index_crc, bytes, missing, verified_at IS NOT NULL "
                         "FROM catalog_checkpoints WHERE directory = ?1"));
        Statement st(m_db.handle(), stmt, m_db.path());
        st.bind(1, dir);
        std::map<std::string, KnownRow> rows;
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            KnownRow k;
            k.id = st.integer(1);
            k.stamp = {st.integer(2), st.integer(3), static_cast<uint32_t>(st.integer(4))};
            k.bytes = st.integer(5);
            k.missing = st.integer(6) != 0;
            k.verified = st.integer(7) != 0;
            rows.emplace(st.text(0), k);
        }
        return rows;
    }

    // One transaction: the batch's rows, then the directory's vanished
    // checkpoints when 'vanished' is given (the directory's last batch).
    Status write(int64_t rootId, const std::string& dir, std::vector<Scanned>& batch, const std::vector<std::string>* vanished) {
        const double now = platform::unixSeconds();
        auto done = catalog::writeTransaction(m_db, [&]() -> Result<int64_t> {
            m_keyIds.clear();  // another process may have removed keys since
            int64_t rows = 0;
            for (Scanned& s : batch) {
                CKPT_ASSIGN_OR_RETURN(int64_t written, writeOne(rootId, dir, s, now));
                rows += written;
            }
            if (vanished)
                for (const std::string& prefix : *vanished) CKPT_RETURN_IF_ERROR(markMissing(prefix));
            return rows;
        });
        if (!done.ok()) return done.status();
        m_summary.tensorRows += *done;
        return okStatus();
    }

    Status markDirectoriesMissing(int64_t rootId, const std::set<std::string>& present) {
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * stmt,
            m_db.prepare("SELECT DISTINCT directory FROM catalog_checkpoints WHERE root_id = ?1 AND missing = 0"));
        std::vector<std::string> gone;
        {
            Statement st(m_db.handle(), stmt, m_db.path());
            st.bind(1, rootId);
            while (true) {
                CKPT_ASSIGN_OR_RETURN(bool row, st.step());
                if (!row) break;
                if (!present.count(st.text(0))) gone.push_back(st.text(0));
            }
        }
        if (gone.empty()) return okStatus();
        auto marked = catalog::writeTransaction(m_db, [&]() -> Result<int64_t> {
            CKPT_ASSIGN_OR_RETURN(
                sqlite3_stmt * upd,
                m_db.prepare("UPDATE catalog_checkpoints SET missing = 1 WHERE directory = ?1 AND root_id = ?2 AND missing = 0"));
            int64_t n = 0;
            for (const std::string& dir : gone) {
                Statement st(m_db.handle(), upd, m_db.path());
                CKPT_RETURN_IF_ERROR(st.bind(1, dir).bind(2, rootId).run());
                n += sqlite3_changes(m_db.handle());
            }
            return n;
        });
        if (!marked.ok()) return marked.status();
        m_summary.missing += *marked;
        return okStatus();
    }

    Status finishRoot(int64_t rootId, bool missing, const std::string& error) {
        auto done = catalog::writeTransaction(m_db, [&]() -> Result<int64_t> {
            CKPT_ASSIGN_OR_RETURN(
                sqlite3_stmt * stmt,
                m_db.prepare("UPDATE catalog_roots SET last_scan_at = ?2, missing = ?3, error = ?4 WHERE id = ?1"));
            Statement st(m_db.handle(), stmt, m_db.path());
            CKPT_RETURN_IF_ERROR(
                st.bind(1, rootId).bind(2, platform::unixSeconds()).bind(3, int64_t{missing}).bind(4, error).run());
            if (!missing) return int64_t{0};
            CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * upd,
                                  m_db.prepare("UPDATE catalog_checkpoints SET missing = 1 WHERE root_id = ?1 AND missing = 0"));
            Statement mark(m_db.handle(), upd, m_db.path());
            CKPT_RETURN_IF_ERROR(mark.bind(1, rootId).run());
            return int64_t{sqlite3_changes(m_db.handle())};
        });
        if (!done.ok()) return done.status();
        m_summary.missing += *done;
        return okStatus();
    }

private:
    Result<int64_t> writeOne(int64_t rootId, const std::string& dir, Scanned& s, double now) {
        const CheckpointListEntry& e = s.entry;
        if (!s.changed) {
            // Unchanged files; the state file's view, the step and a new
            // verification may still differ. Nothing is written when none does.
            CKPT_ASSIGN_OR_RETURN(
                sqlite3_stmt * stmt,
                m_db.prepare(
                    "UPDATE catalog_checkpoints SET in_state_file = ?2, is_latest = ?3, step = ?4, modified = ?5, "
                    "verified_at = CASE WHEN ?6 THEN ?7 ELSE verified_at END, "
                    "verify_problems = CASE WHEN ?6 THEN ?8 ELSE verify_problems END, "
                    "verify_message = CASE WHEN ?6 THEN ?9 ELSE verify_message END WHERE id = ?1 AND (?6 OR in_state_file "
                    "IS NOT ?2 OR is_latest IS NOT ?3 OR step IS NOT ?4 OR modified IS NOT ?5)"));
            Statement st(m_db.handle(), stmt, m_db.path());
            st.bind(1, s.known->id).bind(2, int64_t{e.inStateFile}).bind(3, int64_t{e.isLatest});
            if (e.step.step) st.bind(4, *e.step.step);
            else st.bindNull(4);
            st.bind(5, e.modified).bind(6, int64_t{s.verified}).bind(7, now).bind(8, s.problems).bind(9, s.verifyMessage);
            CKPT_RETURN_IF_ERROR(st.run());
            return int64_t{0};
        }
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * up,
            m_db.prepare(
                "INSERT INTO catalog_checkpoints (root_id, directory, prefix, name, step, modified, bytes, shards, tensors, "
                "objects, in_state_file, is_latest, index_size, index_mtime_ns, index_crc, missing, error, verified_at, "
                "verify_problems, verify_message, scanned_at) VALUES "
                "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 0, ?16, ?17, ?18, ?19, ?20) "
                "ON CONFLICT (prefix) DO UPDATE SET root_id = excluded.root_id, directory = excluded.directory, "
                "name = excluded.name, step = excluded.step, modified = excluded.modified, bytes = excluded.bytes, "
                "shards = excluded.shards, tensors = excluded.tensors, objects = excluded.objects, "
                "in_state_file = excluded.in_state_file, is_latest = excluded.is_latest, index_size = excluded.index_size, "
                "index_mtime_ns = excluded.index_mtime_ns, index_crc = excluded.index_crc, missing = 0, "
                "error = excluded.error, verified_at = excluded.verified_at, verify_problems = excluded.verify_problems, "
                "verify_message = excluded.verify_message, scanned_at = excluded.scanned_at RETURNING id"));
        int64_t id = 0;
        {
            Statement st(m_db.handle(), up, m_db.path());
            st.bind(1, rootId).bind(2, dir).bind(3, e.prefix).bind(4, e.name);
            if (e.step.step) st.bind(5, *e.step.step);
            else st.bindNull(5);
            st.bind(6, e.modified)
                .bind(7, static_cast<int64_t>(e.bytes))
                .bind(8, int64_t{e.shards})
                .bind(9, static_cast<int64_t>(s.tensors.size()))
                .bind(10, s.objects)
                .bind(11, int64_t{e.inStateFile})
                .bind(12, int64_t{e.isLatest})
                .bind(13, s.stamp.size)
                .bind(14, s.stamp.mtimeNs)
                .bind(15, int64_t{s.stamp.crc})
                .bind(16, s.error);
            if (s.verified) st.bind(17, now);
            else st.bindNull(17);
            st.bind(18, s.problems).bind(19, s.verifyMessage).bind(20, now);
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) return internalError(m_db.path() + ": no id for checkpoint " + e.prefix);
            id = st.integer(0);
        }
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * del, m_db.prepare("DELETE FROM catalog_tensors WHERE checkpoint_id = ?1"));
        {
            Statement st(m_db.handle(), del, m_db.path());
            CKPT_RETURN_IF_ERROR(st.bind(1, id).run());
        }
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * ins,
            m_db.prepare("INSERT OR REPLACE INTO catalog_tensors (checkpoint_id, key_id, dtype, shape, bytes, crc32c) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
        for (const TensorRow& t : s.tensors) {
            CKPT_ASSIGN_OR_RETURN(int64_t keyId, keyIdFor(t));
            Statement st(m_db.handle(), ins, m_db.path());
            CKPT_RETURN_IF_ERROR(
                st.bind(1, id).bind(2, keyId).bind(3, t.dtype).bind(4, t.shape).bind(5, t.bytes).bind(6, int64_t{t.crc}).run());
        }
        return static_cast<int64_t>(s.tensors.size());
    }

    Result<int64_t> keyIdFor(const TensorRow& t) {
        std::string lookup = t.key;
        lookup.push_back('\0');
        lookup += t.objectPath;
        if (auto it = m_keyIds.find(lookup); it != m_keyIds.end()) return it->second;
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * ins,
            m_db.prepare(
                "INSERT INTO catalog_keys (key, object_path) VALUES (?1, ?2) ON CONFLICT (key, object_path) DO NOTHING"));
        {
            Statement st(m_db.handle(), ins, m_db.path());
            CKPT_RETURN_IF_ERROR(st.bind(1, t.key).bind(2, t.objectPath).run());
        }
        int64_t id = 0;
        if (sqlite3_changes(m_db.handle()) > 0) {
            id = sqlite3_last_insert_rowid(m_db.handle());
        } else {
            CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * sel,
                                  m_db.prepare("SELECT id FROM catalog_keys WHERE key = ?1 AND object_path = ?2"));
            Statement st(m_db.handle(), sel, m_db.path());
            CKPT_ASSIGN_OR_RETURN(bool row, st.bind(1, t.key).bind(2, t.objectPath).step());
            if (!row) return internalError(m_db.path() + ": key " + t.key + " has no id");
            id = st.integer(0);
        }
        m_keyIds.emplace(std::move(lookup), id);
        return id;
    }

    Status markMissing(const std::string& prefix) {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                              m_db.prepare("UPDATE catalog_checkpoints SET missing = 1 WHERE prefix = ?1 AND missing = 0"));
        Statement st(m_db.handle(), stmt, m_db.path());
        CKPT_RETURN_IF_ERROR(st.bind(1, prefix).run());
        m_summary.missing += sqlite3_changes(m_db.handle());
        return okStatus();
    }

    Database& m_db;
    CatalogScanSummary& m_summary;
    std::unordered_map<std::string, int64_t> m_keyIds;
};

struct DirectoryWork {
    int64_t rootId = 0;
    std::string dir;
    CheckpointListing listing;
};

bool cancelled(const CatalogScanOptions& options) { return options.cancel && options.cancel->isCancelled(); }

Status cancelledStatus() { return Status(StatusCode::Cancelled, "catalog scan cancelled"); }

}  // namespace

Result<CatalogScanSummary> Catalog::scan(const CatalogScanOptions& options) {
    const double started = platform::unixSeconds();
    CatalogScanSummary summary;
    CKPT_ASSIGN_OR_RETURN(std::vector<CatalogRoot> all, roots());
    std::vector<std::string> wanted;
    for (const std::string& r : options.roots) wanted.push_back(catalog::normalizeDirectory(r));
    std::set<std::string> rootPaths;
    for (const CatalogRoot& r : all) rootPaths.insert(r.path);
    for (const std::string& w : wanted) {
        const bool covered =
            std::any_of(all.begin(), all.end(), [&](const CatalogRoot& r) { return catalog::isWithin(w, r.path); });
        if (!covered) return notFound("the catalog has no root holding " + w + " (add it first)");
    }
    Writer writer(*m_db, summary);

    // Phase 1: walk and list every directory, so progress has a total.
    std::vector<DirectoryWork> work;
    for (const CatalogRoot& root : all) {
        std::vector<std::string> starts;
        for (const std::string& w : wanted) {
            if (catalog::isWithin(w, root.path)) {
                // The deepest root holding 'w' scans it.
                bool deeper = false;
                for (const CatalogRoot& other : all)
                    deeper |= other.path.size() > root.path.size() && catalog::isWithin(other.path, root.path) &&
                              catalog::isWithin(w, other.path);
                if (!deeper) starts.push_back(w);
            }
        }
        if (!wanted.empty() && starts.empty()) continue;
        // Naming the root itself scans all of it, as no names do.
        const bool wholeRoot = wanted.empty() || std::find(starts.begin(), starts.end(), root.path) != starts.end();
        if (wholeRoot) starts = {root.path};
        if (!platform::isDirectory(root.path)) {
            CKPT_RETURN_IF_ERROR(writer.finishRoot(root.id, true, ""));
            summary.errors.push_back(root.path + ": not a directory any more (its checkpoints are marked missing)");
            continue;
        }
        std::set<std::string> otherRoots;
        for (const std::string& p : rootPaths)
            if (p != root.path && catalog::isWithin(p, root.path)) otherRoots.insert(p);
        std::vector<std::string> dirs;
        std::vector<std::string> errors;
        std::set<std::pair<dev_t, ino_t>> seen;
        for (const std::string& start : starts) {
            const int depth =
                static_cast<int>(std::count(start.begin() + static_cast<std::ptrdiff_t>(root.path.size()), start.end(), '/'));
            walk(start, depth, options.maxDepth, otherRoots, seen, dirs, errors);
        }
        for (const std::string& e : errors) summary.errors.push_back(e);
        if (wholeRoot) {
            CKPT_RETURN_IF_ERROR(writer.markDirectoriesMissing(root.id, std::set<std::string>(dirs.begin(), dirs.end())));
            CKPT_RETURN_IF_ERROR(writer.finishRoot(root.id, false, errors.empty() ? "" : errors.front()));
        }
        for (std::string& dir : dirs) {
            if (cancelled(options)) return cancelledStatus();
            auto listing = listCheckpoints(dir, {.countTensors = false});
            if (!listing.ok()) {
                summary.errors.push_back(listing.status().message());
                continue;
            }
            work.push_back({root.id, std::move(dir), std::move(*listing)});
        }
    }
    int64_t total = 0;
    for (const DirectoryWork& w : work) total += static_cast<int64_t>(w.listing.checkpoints.size());
    summary.directories = static_cast<int64_t>(work.size());

    // Phases 2 and 3 per directory: read what changed, write it in batches.
    const size_t threads = platform::hardwareThreads();
    int64_t done = 0;
    for (DirectoryWork& w : work) {
        CKPT_ASSIGN_OR_RETURN(auto known, writer.known(w.dir));
        std::vector<std::string> vanished;
        std::set<std::string> present;
        for (const CheckpointListEntry& e : w.listing.checkpoints) present.insert(e.prefix);
        for (const auto& [prefix, row] : known)
            if (!row.missing && !present.count(prefix)) vanished.push_back(prefix);

        auto& entries = w.listing.checkpoints;
        for (size_t first = 0; first < entries.size() || (first == 0 && !vanished.empty());) {
            if (cancelled(options)) return cancelledStatus();
            std::vector<Scanned> batch;
            size_t last = first;
            int64_t indexBytes = 0;
            for (; last < entries.size() && batch.size() < kBatchCheckpoints && indexBytes < kBatchIndexBytes; ++last) {
                Scanned s;
                s.entry = entries[last];
                s.stamp = statIndex(indexFileName(s.entry.prefix));
                if (auto it = known.find(s.entry.prefix); it != known.end()) s.known = &it->second;
                indexBytes += std::max<int64_t>(s.stamp.size, 0);
                batch.push_back(std::move(s));
            }
            CKPT_RETURN_IF_ERROR(platform::forEachItem(batch.size(), threads, [&](size_t, size_t i) {
                Scanned& s = batch[i];
                s.stamp.crc = indexCrc(indexFileName(s.entry.prefix));
                const KnownRow* k = s.known;
                s.changed = !k || k->missing || k->stamp.size != s.stamp.size || k->stamp.mtimeNs != s.stamp.mtimeNs ||
                            k->stamp.crc != s.stamp.crc || k->bytes != static_cast<int64_t>(s.entry.bytes);
                if (s.changed) readCheckpoint(s);
                const bool needsVerify = options.verify && s.error.empty() && (s.changed || !k->verified);
                if (needsVerify && !cancelled(options)) verifyCheckpoint(s, options.cancel);
            }));
            if (cancelled(options)) return cancelledStatus();
            for (const Scanned& s : batch) {
                if (!s.changed) ++summary.unchanged;
                else if (s.known) ++summary.updated;
                else ++summary.added;
                if (!s.error.empty()) ++summary.unreadable;
                if (s.verified) ++summary.verified;
                if (s.verified && s.problems > 0) ++summary.damaged;
            }
            const bool lastBatch = last >= entries.size();
            CKPT_RETURN_IF_ERROR(writer.write(w.rootId, w.dir, batch, lastBatch ? &vanished : nullptr));
            summary.checkpoints += static_cast<int64_t>(batch.size());
            done += static_cast<int64_t>(batch.size());
            if (options.progress) options.progress(done, total, "directory " + w.dir);
            first = last;
            if (lastBatch) break;
        }
    }
    summary.seconds = platform::unixSeconds() - started;
    return summary;
}

}  // namespace ckpt

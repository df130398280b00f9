// Catalog::scan: see ckpt/catalog.h. Three phases: list every directory
// (no lock), read what changed in parallel (no lock), and write each batch
// in one short IMMEDIATE transaction, so other processes wait for inserts,
// never for reading; the next batch is read while this one is written
// (catalog/scan_batches.h).

#include <sqlite3.h>

#include <algorithm>
#include <set>

#include "catalog/catalog_rows.h"
#include "catalog/scan_batches.h"
#include "catalog/scan_writer.h"
#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_state.h"
#include "platform/cancellation_scope.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "storage/dispatch.h"

namespace ckpt {
using catalog::DirectoryWork;
using catalog::Scanned;
using catalog::ScanWriter;
namespace {

// Skipped paths listed by name in a summary; the rest are only counted.
constexpr size_t kListedSkips = 100;

void noteSkip(CatalogScanSummary& summary, const std::string& path, const std::string& why) {
    ++summary.skippedCount;
    if (summary.skipped.size() < kListedSkips) summary.skipped.push_back(path + ": " + why);
}

// The walk of one root: every directory at or below its starts holding a
// .index, depth first in name order, without recursion. It stays inside
// the root (issue #29, finding 5): a symlink is followed only when it
// resolves inside the root's own resolved path (or the options allow
// others), each directory is walked once (symlink loops, a second link to
// the same place), and depth and the entries read are bounded. What it
// leaves out is noted in the summary. Other roots below are theirs to scan;
// hidden directories are skipped.
class RootWalk {
public:
    RootWalk(const std::string& root, const std::set<std::string>& otherRoots, const CatalogScanOptions& options,
             CatalogScanSummary& summary)
        : m_localPaths(storage::capabilitiesFor(root).localPaths),
          m_rootReal(m_localPaths ? platform::canonicalPath(root) : root), m_otherRoots(otherRoots), m_options(options),
          m_summary(summary) {}

    void walk(const std::string& start, int startDepth) {
        std::vector<std::pair<std::string, int>> todo{{start, startDepth}};
        while (!todo.empty() && !m_truncated) {
            auto [dir, depth] = std::move(todo.back());
            todo.pop_back();
            std::vector<std::string> subdirs = visit(dir, depth);
            for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) todo.emplace_back(std::move(*it), depth + 1);
        }
    }

    // True once the entry limit stopped the walk: what it did not reach is
    // unknown, so nothing may be marked missing for it.
    bool truncated() const { return m_truncated; }
    std::vector<std::string>& directories() { return m_dirs; }
    const std::vector<std::string>& errors() const { return m_errors; }

    // A file of a listed checkpoint that resolves outside the root (a
    // symlink to elsewhere) keeps the checkpoint out of the scan.
    bool insideRoot(const std::string& path) const {
        if (m_options.followOutsideLinks || !m_localPaths) return true;  // stores have no symlinks
        const std::string real = platform::canonicalPath(path);
        return real == m_rootReal || platform::isInsideDirectory(real, m_rootReal);
    }

private:
    // Lists one directory; returns the subdirectories to walk next.
    std::vector<std::string> visit(const std::string& dir, int depth) {
        if (!storage::isDirectory(dir)) return {};
        // A directory is the same one whichever symlinks lead to it.
        if (!m_seen.insert(m_localPaths ? platform::canonicalPath(dir) : dir).second) {
            noteSkip(m_summary, dir, "already walked through another path (a symlink loop or a second link)");
            return {};
        }
        bool holdsCheckpoints = false;
        std::vector<std::string> subdirs;
        const Status listed = storage::list(dir, {}, [&](const storage::ListEntry& e) {
            if (++m_entries > m_options.maxEntries) {
                m_truncated = true;
                noteSkip(m_summary, dir,
                         "the walk stopped here after " + std::to_string(m_options.maxEntries) +
                             " directory entries (the entry limit); directories not reached keep what the catalog knew");
                return false;
            }
            if (e.name.size() > kIndexSuffix.size() && e.name.ends_with(kIndexSuffix)) holdsCheckpoints = true;
            if (e.name.front() == '.') return true;
            if (e.kind == storage::ObjectKind::Symlink) {
                const std::string child = platform::joinPath(dir, e.name);
                if (!storage::isDirectory(child)) return true;  // a file link: the listing's to judge
                if (!insideRoot(child)) {
                    noteSkip(m_summary, child,
                             "a symbolic link to " + platform::canonicalPath(child) + ", outside the root (not followed)");
                    return true;
                }
                subdirs.push_back(e.name);
            } else if (e.kind == storage::ObjectKind::Directory) {
                subdirs.push_back(e.name);
            }
            return true;
        });
        if (!listed.isOk()) {
            m_errors.push_back(listed.message());
            return {};
        }
        if (holdsCheckpoints) m_dirs.push_back(dir);
        if (m_truncated) return {};
        std::sort(subdirs.begin(), subdirs.end());
        std::vector<std::string> next;
        for (const std::string& name : subdirs) {
            std::string child = platform::joinPath(dir, name);
            if (!m_otherRoots.count(child)) next.push_back(std::move(child));
        }
        if (depth >= m_options.maxDepth && !next.empty()) {
            noteSkip(m_summary, dir,
                     std::to_string(next.size()) + " subdirectories below the depth limit of " +
                         std::to_string(m_options.maxDepth) + " levels (not walked)");
            return {};
        }
        return next;
    }

    bool m_localPaths;
    std::string m_rootReal;
    const std::set<std::string>& m_otherRoots;
    const CatalogScanOptions& m_options;
    CatalogScanSummary& m_summary;
    std::set<std::string> m_seen;  // directories walked, by resolved path
    std::vector<std::string> m_dirs;
    std::vector<std::string> m_errors;
    int64_t m_entries = 0;
    bool m_truncated = false;
};

// A state file that cannot be parsed, or that names checkpoints whose index is gone.
std::string stateFileProblem(const std::string& dir, const CheckpointListing& listing) {
    if (!listing.stateFileError.isOk()) return listing.stateFileError.message();
    auto state = readCheckpointState(dir);
    if (!state.ok()) return state.status().message();
    if (!*state) return {};
    const std::vector<std::string> gone = stateEntriesWithoutIndex(dir, **state);
    if (gone.empty()) return {};
    std::string names;
    for (size_t i = 0; i < gone.size() && i < 5; ++i) names += (i ? ", " : "") + gone[i];
    if (gone.size() > 5) names += " and " + std::to_string(gone.size() - 5) + " more";
    return "the state file names " + names + (gone.size() == 1 ? ", which has no index" : ", which have no index");
}

bool cancelled(const CatalogScanOptions& options) { return options.cancel && options.cancel->isCancelled(); }

Status cancelledStatus() { return Status(StatusCode::Cancelled, "catalog scan cancelled"); }

}  // namespace

Result<CatalogScanSummary> Catalog::scan(const CatalogScanOptions& options) {
    const platform::CancellationScope scope(options.cancel);  // stops object-store transfers in flight
    const double started = platform::unixSeconds();
    CatalogScanSummary summary;
    CKPT_ASSIGN_OR_RETURN(std::vector<CatalogRoot> all, roots());
    std::vector<std::string> wanted;
    for (const std::string& r : options.roots) {
        CKPT_RETURN_IF_ERROR(storage::checkLocation(r));
        wanted.push_back(catalog::normalizeDirectory(r));
    }
    std::set<std::string> rootPaths;
    for (const CatalogRoot& r : all) rootPaths.insert(r.path);
    for (const std::string& w : wanted) {
        const bool covered =
            std::any_of(all.begin(), all.end(), [&](const CatalogRoot& r) { return catalog::isWithin(w, r.path); });
        if (!covered) return notFound("the catalog has no root holding " + w + " (add it first)");
    }
    ScanWriter writer(*m_db, summary);

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
        const bool wholeRoot =
            !options.onlyNamed && (wanted.empty() || std::find(starts.begin(), starts.end(), root.path) != starts.end());
        if (wholeRoot) starts = {root.path};
        if (!storage::isDirectory(root.path)) {
            CKPT_RETURN_IF_ERROR(writer.finishRoot(root.id, true, ""));
            summary.errors.push_back(root.path + ": not a directory any more (its checkpoints are marked missing)");
            continue;
        }
        std::set<std::string> otherRoots;
        for (const std::string& p : rootPaths)
            if (p != root.path && catalog::isWithin(p, root.path)) otherRoots.insert(p);
        RootWalk walk(root.path, otherRoots, options, summary);
        for (const std::string& start : starts) {
            if (options.onlyNamed) {
                if (storage::isDirectory(start)) walk.directories().push_back(start);
                continue;
            }
            const int depth =
                static_cast<int>(std::count(start.begin() + static_cast<std::ptrdiff_t>(root.path.size()), start.end(), '/'));
            walk.walk(start, depth);
        }
        const std::vector<std::string>& errors = walk.errors();
        for (const std::string& e : errors) summary.errors.push_back(e);
        std::vector<std::string>& dirs = walk.directories();
        if (wholeRoot && !walk.truncated()) {
            CKPT_RETURN_IF_ERROR(writer.markDirectoriesMissing(root.id, std::set<std::string>(dirs.begin(), dirs.end())));
            CKPT_RETURN_IF_ERROR(writer.finishRoot(root.id, false, errors.empty() ? "" : errors.front()));
        }
        for (std::string& dir : dirs) {
            if (cancelled(options)) return cancelledStatus();
            // Undescribed: a checkpoint known unchanged is never read (below).
            auto listing = listCheckpoints(dir, {.countTensors = false, .describe = false});
            if (!listing.ok()) {
                summary.errors.push_back(listing.status().message());
                continue;
            }
            std::erase_if(listing->checkpoints, [&](const CheckpointListEntry& e) {
                std::vector<std::string> files{indexFileName(e.prefix)};
                for (const CheckpointDataFile& d : e.dataFiles) files.push_back(dataFileName(e.prefix, d.shardId, d.numShards));
                for (const std::string& f : files) {
                    if (storage::exists(f) && !walk.insideRoot(f)) {
                        noteSkip(summary, e.prefix,
                                 platform::baseName(f) + " is a symbolic link to " + platform::canonicalPath(f) +
                                     ", outside the root (not read)");
                        return true;
                    }
                }
                return false;
            });
            std::string stateProblem = stateFileProblem(dir, *listing);
            work.push_back({root.id, std::move(dir), std::move(*listing), std::move(stateProblem)});
        }
    }
    int64_t total = 0;
    for (const DirectoryWork& w : work) total += static_cast<int64_t>(w.listing.checkpoints.size());
    summary.directories = static_cast<int64_t>(work.size());

    // Phases 2 and 3: read what changed, a batch at a time, and write it;
    // the next batch is read while this one is written. Worker 0 of the
    // fork-join is this thread, the only one that touches the database.
    catalog::ScanBatches batches(work, writer, options);
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<catalog::ScanBatch> batch, batches.plan());
    if (batch) CKPT_RETURN_IF_ERROR(batches.read(*batch));
    int64_t done = 0;
    while (batch) {
        if (cancelled(options)) return cancelledStatus();
        for (const Scanned& s : batch->rows) {
            if (!s.changed) ++summary.unchanged;
            else if (s.known) ++summary.updated;
            else ++summary.added;
            if (!s.error.empty()) ++summary.unreadable;
            if (s.verified) ++summary.verified;
            if (s.verified && s.problems > 0) ++summary.damaged;
        }
        batches.release(batch->directory);
        CKPT_ASSIGN_OR_RETURN(std::unique_ptr<catalog::ScanBatch> next, batches.plan());
        Status written, read;
        CKPT_RETURN_IF_ERROR(platform::runWorkers(next ? 2 : 1, [&](size_t worker) {
            if (worker == 1) {
                read = batches.read(*next);
                return;
            }
            const DirectoryWork& w = work[batch->directory];
            written = writer.write(w.rootId, w.dir, batch->rows, batch->vanished);
            if (!written.isOk()) return;
            summary.checkpoints += static_cast<int64_t>(batch->rows.size());
            done += static_cast<int64_t>(batch->rows.size());
            if (options.progress) options.progress(done, total, "directory " + w.dir);
        }));
        CKPT_RETURN_IF_ERROR(written);
        CKPT_RETURN_IF_ERROR(read);
        batch = std::move(next);
    }
    summary.seconds = platform::unixSeconds() - started;
    return summary;
}

}  // namespace ckpt

// Catalog::scan: see ckpt/catalog.h. Three phases per directory: list it
// (no lock), read what changed in parallel (no lock), then write each batch
// in one short IMMEDIATE transaction, so other processes wait for inserts,
// never for reading.

#include <sqlite3.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "catalog/catalog_rows.h"
#include "catalog/scan_writer.h"
#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/object_graph.h"
#include "ckpt/verify.h"
#include "platform/crc32c.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "storage/dispatch.h"

namespace ckpt {
using catalog::KnownRow;
using catalog::Scanned;
using catalog::ScanWriter;
using catalog::statIndex;
using catalog::TensorRow;
namespace {

// A batch is written in one transaction; its rows are held in memory
// until then, so it is bounded by checkpoints and by index bytes (an index
// entry takes at least ~16 bytes, so 2 MiB of indexes hold at most ~130,000
// tensor rows).
constexpr size_t kBatchCheckpoints = 64;
constexpr int64_t kBatchIndexBytes = 2 << 20;

// An unreadable index stamps 0: it reads as changed until it can be read.
uint32_t indexCrc(const std::string& indexPath) {
    auto file = storage::openRandomAccess(indexPath);
    if (!file.ok()) return 0;
    auto crc = storage::fileCrc32c(**file);
    return crc.ok() ? *crc : 0;
}

// Every directory at or below 'dir' holding a .index, depth first in name
// order. Other roots below are theirs to scan; hidden directories and
// directories already seen (symlink loops) are skipped.
void walk(const std::string& dir, int depth, int maxDepth, const std::set<std::string>& otherRoots, std::set<std::string>& seen,
          std::vector<std::string>& out, std::vector<std::string>& errors) {
    // A directory is the same one whichever symlinks lead to it.
    const std::string identity = storage::capabilitiesFor(dir).localPaths ? platform::canonicalPath(dir) : dir;
    if (!storage::isDirectory(dir) || !seen.insert(identity).second) return;
    bool holdsCheckpoints = false;
    std::vector<std::string> subdirs;
    storage::ListOptions options;
    options.followSymlinks = true;
    const Status listed = storage::list(dir, options, [&](const storage::ListEntry& e) {
        if (e.name.size() > kIndexSuffix.size() && e.name.ends_with(kIndexSuffix)) holdsCheckpoints = true;
        if (e.name.front() != '.' && e.kind == storage::ObjectKind::Directory) subdirs.push_back(e.name);
        return true;
    });
    if (!listed.isOk()) {
        errors.push_back(listed.message());
        return;
    }
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
        const bool wholeRoot = wanted.empty() || std::find(starts.begin(), starts.end(), root.path) != starts.end();
        if (wholeRoot) starts = {root.path};
        if (!storage::isDirectory(root.path)) {
            CKPT_RETURN_IF_ERROR(writer.finishRoot(root.id, true, ""));
            summary.errors.push_back(root.path + ": not a directory any more (its checkpoints are marked missing)");
            continue;
        }
        std::set<std::string> otherRoots;
        for (const std::string& p : rootPaths)
            if (p != root.path && catalog::isWithin(p, root.path)) otherRoots.insert(p);
        std::vector<std::string> dirs;
        std::vector<std::string> errors;
        std::set<std::string> seen;
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

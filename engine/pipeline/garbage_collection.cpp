// Garbage collection of interrupted operations: see ckpt/garbage_collection.h
// and the liveness rule in pipeline/temp_files.h.

#include "ckpt/garbage_collection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_step.h"
#include "pipeline/save_claim.h"
#include "pipeline/staged_checkpoint.h"
#include "pipeline/temp_files.h"
#include "platform/clock.h"
#include "platform/file.h"
#include "storage/directory_lock.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

using pipeline::Liveness;
using pipeline::TempKind;
using pipeline::TempName;

// A leftover's size and newest change, walked without following symlinks
// and bounded: a directory of a million files is not a save's leftover.
struct Extent {
    uint64_t bytes = 0;
    double modified = 0;
};
constexpr int kMaxDepth = 4;
constexpr int64_t kMaxEntries = 100000;

// A directory's entries (one level; symlinks as themselves).
Result<std::vector<storage::ListEntry>> entriesOf(const std::string& dir) {
    std::vector<storage::ListEntry> entries;
    CKPT_RETURN_IF_ERROR(storage::list(dir, {}, [&](const storage::ListEntry& e) {
        entries.push_back(e);
        return true;
    }));
    return entries;
}

double seconds(int64_t ns) { return static_cast<double>(ns) * 1e-9; }

void measure(const std::string& path, int depth, Extent& out, int64_t& budget) {
    if (--budget < 0) return;
    auto info = storage::stat(path, /*follow=*/false);
    if (!info.ok() || !*info) return;
    out.modified = std::max(out.modified, seconds((*info)->modifiedNs));
    if ((*info)->kind == storage::ObjectKind::File) out.bytes += (*info)->size;
    if ((*info)->kind != storage::ObjectKind::Directory || depth >= kMaxDepth) return;
    auto entries = entriesOf(path);
    if (!entries.ok()) return;
    for (const storage::ListEntry& e : *entries) measure(platform::joinPath(path, e.name), depth + 1, out, budget);
}

Extent extentOf(const std::string& path) {
    Extent e;
    int64_t budget = kMaxEntries;
    measure(path, 0, e, budget);
    return e;
}

std::string durationText(double seconds) {
    char text[32];
    if (seconds < 120) std::snprintf(text, sizeof text, "%.0f s", std::max(0.0, seconds));
    else if (seconds < 2 * 3600) std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
    else if (seconds < 2 * 86400) std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
    else std::snprintf(text, sizeof text, "%.1f d", seconds / 86400);
    return text;
}

// Decides from the owner (or, without one, the age) whether it may go.
void judge(GarbageItem& item, const TempName* name, const GarbageOptions& options, double now) {
    const Liveness liveness = name ? pipeline::ownerLiveness(*name, item.path) : Liveness::Unknown;
    if (liveness == Liveness::Running) {
        item.reason = "pid " + std::to_string(*name->pid) + " is still running";
        return;
    }
    if (liveness == Liveness::Gone) {
        item.removable = true;
        item.reason = "written by pid " + std::to_string(*name->pid) + ", which has ended";
        return;
    }
    const double age = now - item.modified;
    const std::string whose =
        name && name->pid ? "written by pid " + std::to_string(*name->pid) + " of another boot or machine" : "no writer recorded";
    if (age >= options.graceSeconds) {
        item.removable = true;
        item.reason = whose + "; unchanged for " + durationText(age);
    } else {
        item.reason =
            whose + "; modified " + durationText(age) + " ago, kept until unchanged for " + durationText(options.graceSeconds);
    }
}

GarbageKind kindOf(TempKind kind) {
    switch (kind) {
    case TempKind::AtomicFile: return GarbageKind::TempFile;
    case TempKind::SaveTemp: return GarbageKind::SaveTemp;
    case TempKind::Staging: return GarbageKind::StagedCheckpoint;
    case TempKind::IndexTemp: return GarbageKind::IndexTemp;
    case TempKind::PartsArea: return GarbageKind::WriterParts;
    }
    return GarbageKind::TempFile;
}

// Only shard bundles ("part-...") inside: a directory holding anything
// else is not a save's, whatever its name.
bool holdsOnlyShards(const std::string& dir) {
    auto entries = entriesOf(dir);
    if (!entries.ok()) return false;
    return std::all_of(entries->begin(), entries->end(), [](const storage::ListEntry& e) { return e.name.starts_with("part-"); });
}

struct ScanScope {
    std::string_view onlyTarget;  // empty: every name
    bool orphans = true;          // index-less data files and metadata too
};

// The temporaries (and, in scope, orphans) of 'dir', judged.
Result<std::vector<GarbageItem>> scan(const std::string& dir, const GarbageOptions& options, const ScanScope& scope) {
    CKPT_ASSIGN_OR_RETURN(std::vector<storage::ListEntry> entries, entriesOf(dir));
    std::sort(entries.begin(), entries.end(),
              [](const storage::ListEntry& a, const storage::ListEntry& b) { return a.name < b.name; });
    const double now = options.now > 0 ? options.now : platform::unixSeconds();
    std::vector<GarbageItem> items;
    std::set<std::string> completing;  // names a verified staged replacement will complete
    for (const storage::ListEntry& entry : entries) {
        const std::string& n = entry.name;
        const auto temp = pipeline::parseTempName(n);
        if (!temp || (!scope.onlyTarget.empty() && temp->target != scope.onlyTarget)) continue;
        const std::string path = platform::joinPath(dir, n);
        // Symlinks (and devices, FIFOs) are never ours.
        const bool isDir = entry.kind == storage::ObjectKind::Directory;
        const bool wantsDir =
            temp->kind == TempKind::SaveTemp || temp->kind == TempKind::Staging || temp->kind == TempKind::PartsArea;
        if (isDir != wantsDir || (!isDir && entry.kind != storage::ObjectKind::File)) continue;
        GarbageItem item;
        item.path = path;
        item.kind = kindOf(temp->kind);
        item.target = temp->target;
        const Extent extent = extentOf(path);
        item.bytes = extent.bytes;
        item.modified = extent.modified;
        if (temp->kind == TempKind::SaveTemp && !holdsOnlyShards(path)) {
            item.reason = "holds files that are not a save's shards; left alone";
            items.push_back(std::move(item));
            continue;
        }
        judge(item, &*temp, options, now);
        if (temp->kind == TempKind::PartsArea && !item.removable &&
            storage::exists(indexFileName(platform::joinPath(dir, temp->target)))) {
            // Committed: every writer finished before the merge; the merger
            // did not get to remove its area.
            item.removable = true;
            item.reason = "the parts of " + temp->target + ", which is committed";
        }
        if (temp->kind == TempKind::Staging && pipeline::stagingCommitted(path)) {
            item.completes = true;
            item.reason += item.removable ? "; verified, so collecting it completes the replacement of " + temp->target
                                          : "; verified, its swap into place is under way";
            completing.insert(temp->target);
        }
        items.push_back(std::move(item));
    }
    if (!scope.orphans) return items;

    // Claims of saves on storage without rename: a stale one is garbage; a
    // live one keeps the data files of its save from being judged orphans.
    std::set<std::string> underWay;
    for (const storage::ListEntry& entry : entries) {
        const std::string& n = entry.name;
        if (entry.kind != storage::ObjectKind::File || !n.ends_with(pipeline::kSaveClaimSuffix)) continue;
        GarbageItem item;
        item.path = platform::joinPath(dir, n);
        item.kind = GarbageKind::SaveClaim;
        item.target = n.substr(0, n.size() - pipeline::kSaveClaimSuffix.size());
        item.bytes = entry.size;
        item.modified = seconds(entry.modifiedNs);
        auto bytes = storage::readObject(item.path, pipeline::kMaxClaimBytes);
        if (!bytes.ok()) continue;  // released meanwhile
        const pipeline::ClaimHolder holder = pipeline::judgeClaim(bytes->bytes, item.path);
        item.removable = holder.stale;
        item.reason = "held by " + holder.description + (holder.stale ? "; stale: " + holder.why : "; its save is under way");
        if (!holder.stale) underWay.insert(item.target);
        items.push_back(std::move(item));
    }

    // Data files and metadata without their index (an interrupted save or
    // deletion), and data files of another shard count than their index's.
    std::map<std::string, std::optional<int32_t>> shardsOf;  // prefix name -> its index's count (nullopt: no index)
    auto indexShards = [&](const std::string& name) -> std::optional<int32_t> {
        auto it = shardsOf.find(name);
        if (it != shardsOf.end()) return it->second;
        std::optional<int32_t> shards;
        const std::string prefix = platform::joinPath(dir, name);
        if (storage::exists(indexFileName(prefix))) {
            BundleHeader header;
            // An unreadable index still claims its files: -1 matches no count, so nothing is judged by it.
            shards = readCheckpointStep(prefix, &header).ok() ? header.numShards : -1;
        }
        return shardsOf.emplace(name, shards).first->second;
    };
    for (const storage::ListEntry& entry : entries) {
        const std::string& n = entry.name;
        std::string owner;
        std::string why;
        if (const auto data = parseDataFileName(n)) {
            owner = data->prefix;
            const auto shards = indexShards(owner);
            if (!shards) why = "a data file of " + owner + ", which has no index";
            else if (*shards >= 0 && *shards != data->numShards)
                why = "a data file of another shard count than " + owner + ".index names (" + std::to_string(*shards) + ")";
            else continue;
        } else if (n.size() > kCheckpointMetadataSuffix.size() && n.ends_with(kCheckpointMetadataSuffix)) {
            owner = n.substr(0, n.size() - kCheckpointMetadataSuffix.size());
            if (indexShards(owner)) continue;
            why = "the metadata of " + owner + ", which has no index";
        } else {
            continue;
        }
        if (completing.count(owner) || underWay.count(owner) || !isPlainCheckpointName(owner)) continue;
        const std::string path = platform::joinPath(dir, n);
        if (entry.kind != storage::ObjectKind::File) continue;
        GarbageItem item;
        item.path = path;
        item.kind = GarbageKind::OrphanData;
        item.target = owner;
        item.bytes = entry.size;
        item.modified = seconds(entry.modifiedNs);
        judge(item, nullptr, options, now);
        item.reason = why + "; " + item.reason;
        items.push_back(std::move(item));
    }
    std::sort(items.begin(), items.end(), [](const GarbageItem& a, const GarbageItem& b) { return a.path < b.path; });
    return items;
}

// Multipart uploads under 'dir' never completed (stores only; a local
// directory has none), judged by age: an upload records no owner.
Result<std::vector<GarbageItem>> pendingUploads(const std::string& dir, const GarbageOptions& options) {
    const double now = options.now > 0 ? options.now : platform::unixSeconds();
    std::vector<GarbageItem> items;
    CKPT_RETURN_IF_ERROR(storage::listPendingWrites(dir, [&](const storage::PendingWrite& w) {
        GarbageItem item;
        item.path = w.location;
        item.kind = GarbageKind::PendingUpload;
        item.target = platform::baseName(w.location);
        item.uploadId = w.id;
        item.modified = seconds(w.startedNs);
        const double age = now - item.modified;
        if (w.startedNs == 0) {
            item.reason = "an upload never completed; the store does not say when it began, so it is kept";
        } else if (age >= options.graceSeconds) {
            item.removable = true;
            item.reason = "an upload never completed, begun " + durationText(age) + " ago";
        } else {
            item.reason = "an upload begun " + durationText(age) + " ago, perhaps still running; kept until " +
                          durationText(options.graceSeconds) + " old";
        }
        items.push_back(std::move(item));
        return true;
    }));
    return items;
}

// Whether a removal really removed: a store that answered "deleted" may
// still list the entry (an empty folder), and then it is not reported gone.
Status goneAfterRemoval(const std::string& path) {
    CKPT_ASSIGN_OR_RETURN(const std::optional<storage::ObjectInfo> info, storage::stat(path, /*follow=*/false));
    if (info) return failedPrecondition(path + " is still there after its removal");
    // A store's empty folder is not seen by stat(): look for it in its parent's listing.
    bool listed = false;
    CKPT_RETURN_IF_ERROR(
        storage::list(platform::dirName(path), {.namePrefix = platform::baseName(path)}, [&](const storage::ListEntry& e) {
            listed = listed || e.name == platform::baseName(path);
            return !listed;
        }));
    if (listed) return failedPrecondition(path + " is still listed after its removal");
    return okStatus();
}

// Removes one removable item; false when it was kept after all (an orphan
// whose index appeared since the scan, a claim a writer took over).
Result<bool> removeItem(const std::string& dir, const GarbageItem& item) {
    switch (item.kind) {
    case GarbageKind::StagedCheckpoint: CKPT_RETURN_IF_ERROR(pipeline::settleStaging(item.path, dir, item.target)); return true;
    case GarbageKind::SaveTemp:
    case GarbageKind::WriterParts: CKPT_RETURN_IF_ERROR(storage::removeAll(item.path)); break;
    case GarbageKind::TempFile:
    case GarbageKind::IndexTemp: CKPT_RETURN_IF_ERROR(storage::remove(item.path)); break;
    case GarbageKind::PendingUpload: CKPT_RETURN_IF_ERROR(storage::abortPendingWrite({item.path, item.uploadId, 0})); return true;
    case GarbageKind::SaveClaim: {
        // Only the stale claim that was judged: a taker may have replaced it since.
        auto bytes = storage::readObject(item.path, pipeline::kMaxClaimBytes);
        if (!bytes.ok()) {
            if (bytes.status().code() != StatusCode::NotFound) return bytes.status();
            return true;  // released meanwhile: gone all the same
        }
        if (!pipeline::judgeClaim(bytes->bytes, item.path).stale) return false;
        CKPT_RETURN_IF_ERROR(storage::remove(item.path));
        break;
    }
    case GarbageKind::OrphanData: {
        CKPT_ASSIGN_OR_RETURN(auto lock, storage::DirectoryLock::acquire(dir));
        // A save or swap may have committed the index since the scan.
        const std::string prefix = platform::joinPath(dir, item.target);
        const auto data = parseDataFileName(platform::baseName(item.path));
        if (storage::exists(indexFileName(prefix))) {
            BundleHeader header;
            if (!data || !readCheckpointStep(prefix, &header).ok() || header.numShards == data->numShards) return false;
        }
        CKPT_RETURN_IF_ERROR(storage::remove(item.path));
        break;
    }
    }
    CKPT_RETURN_IF_ERROR(goneAfterRemoval(item.path));
    return true;
}

// Applies one removable item to the report: counted only when it is gone.
void applyItem(const std::string& dir, GarbageItem& item, GarbageReport& report) {
    auto removed = removeItem(dir, item);
    if (!removed.ok()) {
        report.errors.push_back(item.path + ": " + removed.status().toString());
        return;
    }
    if (!*removed) {
        item.reason += item.kind == GarbageKind::SaveClaim ? "; kept: a writer took the claim over since the scan"
                                                           : "; kept: its index was written since the scan";
        return;
    }
    item.removed = true;
    ++report.removed;
    report.removedBytes += item.bytes;
}

}  // namespace

std::string_view garbageKindName(GarbageKind kind) {
    switch (kind) {
    case GarbageKind::StagedCheckpoint: return "staged checkpoint";
    case GarbageKind::SaveTemp: return "save shards";
    case GarbageKind::TempFile: return "temporary file";
    case GarbageKind::IndexTemp: return "temporary index";
    case GarbageKind::OrphanData: return "orphaned file";
    case GarbageKind::SaveClaim: return "save claim";
    case GarbageKind::PendingUpload: return "open upload";
    case GarbageKind::WriterParts: return "writers' parts";
    }
    return "temporary file";
}

Result<GarbageReport> collectGarbage(std::string_view dirView, const GarbageOptions& options) {
    const std::string dir = dirView.empty() ? std::string(".") : std::string(dirView);
    CKPT_RETURN_IF_ERROR(storage::checkLocation(dir));
    // On a store a prefix with nothing under it is an empty directory (a
    // killed first save may have left only an open upload there).
    if (!storage::isDirectory(dir) && (storage::capabilitiesFor(dir).directories || storage::exists(dir))) {
        if (!storage::exists(dir)) return notFound("no directory " + dir);
        return invalidArgument(dir + " is not a directory");
    }
    GarbageReport report;
    report.dir = dir;
    std::vector<GarbageItem> settled;
    if (options.apply) {
        // Staged replacements first: finishing one puts data files in place
        // that would otherwise look orphaned.
        CKPT_ASSIGN_OR_RETURN(std::vector<GarbageItem> staged, scan(dir, options, {{}, false}));
        for (GarbageItem& item : staged) {
            if (item.kind != GarbageKind::StagedCheckpoint || !item.removable) continue;
            applyItem(dir, item, report);
            settled.push_back(std::move(item));
        }
    }
    CKPT_ASSIGN_OR_RETURN(std::vector<GarbageItem> items, scan(dir, options, {}));
    CKPT_ASSIGN_OR_RETURN(std::vector<GarbageItem> uploads, pendingUploads(dir, options));
    for (GarbageItem& upload : uploads) items.push_back(std::move(upload));
    for (GarbageItem& item : items) {
        // A staged replacement the first pass could not settle is reported once.
        if (options.apply && item.kind == GarbageKind::StagedCheckpoint && item.removable) continue;
        if (options.apply && item.removable) applyItem(dir, item, report);
        report.items.push_back(std::move(item));
    }
    for (GarbageItem& item : settled) report.items.push_back(std::move(item));
    std::sort(report.items.begin(), report.items.end(),
              [](const GarbageItem& a, const GarbageItem& b) { return a.path < b.path; });
    for (const GarbageItem& item : report.items)
        if (item.removable) report.removableBytes += item.bytes;
    if (report.removed > 0) {
        if (Status s = storage::syncDirectory(dir); !s.isOk()) report.errors.push_back(s.toString());
    }
    return report;
}

namespace pipeline {

void collectGarbageFor(const std::string& dir, std::string_view name) {
    GarbageOptions options;
    auto items = scan(dir, options, {name, false});
    if (!items.ok()) return;
    for (const GarbageItem& item : *items)
        if (item.removable) (void)removeItem(dir, item);
}

}  // namespace pipeline
}  // namespace ckpt

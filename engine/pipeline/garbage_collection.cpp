// Garbage collection of interrupted operations: see ckpt/garbage_collection.h
// and the liveness rule in pipeline/temp_files.h.

#include "ckpt/garbage_collection.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_step.h"
#include "pipeline/directory_lock.h"
#include "pipeline/staged_checkpoint.h"
#include "pipeline/temp_files.h"
#include "pipeline/writable_file.h"
#include "platform/clock.h"
#include "platform/file.h"

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

void measure(const std::string& path, int depth, Extent& out, int64_t& budget) {
    struct stat st {};
    if (--budget < 0 || ::lstat(path.c_str(), &st) != 0) return;
    out.modified = std::max(out.modified, static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9);
    if (S_ISREG(st.st_mode)) out.bytes += static_cast<uint64_t>(st.st_size);
    if (!S_ISDIR(st.st_mode) || depth >= kMaxDepth) return;
    auto names = platform::listDirectory(path);
    if (!names.ok()) return;
    for (const std::string& n : *names) measure(platform::joinPath(path, n), depth + 1, out, budget);
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
    }
    return GarbageKind::TempFile;
}

// Only shard bundles ("part-...") inside: a directory holding anything
// else is not a save's, whatever its name.
bool holdsOnlyShards(const std::string& dir) {
    auto names = platform::listDirectory(dir);
    if (!names.ok()) return false;
    return std::all_of(names->begin(), names->end(), [](const std::string& n) { return n.starts_with("part-"); });
}

struct ScanScope {
    std::string_view onlyTarget;  // empty: every name
    bool orphans = true;          // index-less data files and metadata too
};

// The temporaries (and, in scope, orphans) of 'dir', judged.
Result<std::vector<GarbageItem>> scan(const std::string& dir, const GarbageOptions& options, const ScanScope& scope) {
    CKPT_ASSIGN_OR_RETURN(std::vector<std::string> names, platform::listDirectory(dir));
    std::sort(names.begin(), names.end());
    const double now = options.now > 0 ? options.now : platform::unixSeconds();
    std::vector<GarbageItem> items;
    std::set<std::string> completing;  // names a verified staged replacement will complete
    for (const std::string& n : names) {
        const auto temp = pipeline::parseTempName(n);
        if (!temp || (!scope.onlyTarget.empty() && temp->target != scope.onlyTarget)) continue;
        const std::string path = platform::joinPath(dir, n);
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;  // symlinks are never ours
        const bool isDir = S_ISDIR(st.st_mode);
        const bool wantsDir = temp->kind == TempKind::SaveTemp || temp->kind == TempKind::Staging;
        if (isDir != wantsDir || (!isDir && !S_ISREG(st.st_mode))) continue;
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
        if (temp->kind == TempKind::Staging && pipeline::stagingCommitted(path)) {
            item.completes = true;
            item.reason += item.removable ? "; verified, so collecting it completes the replacement of " + temp->target
                                          : "; verified, its swap into place is under way";
            completing.insert(temp->target);
        }
        items.push_back(std::move(item));
    }
    if (!scope.orphans) return items;

    // Data files and metadata without their index (an interrupted save or
    // deletion), and data files of another shard count than their index's.
    std::map<std::string, std::optional<int32_t>> shardsOf;  // prefix name -> its index's count (nullopt: no index)
    auto indexShards = [&](const std::string& name) -> std::optional<int32_t> {
        auto it = shardsOf.find(name);
        if (it != shardsOf.end()) return it->second;
        std::optional<int32_t> shards;
        const std::string prefix = platform::joinPath(dir, name);
        if (platform::entryExists(indexFileName(prefix))) {
            BundleHeader header;
            // An unreadable index still claims its files: -1 matches no count, so nothing is judged by it.
            shards = readCheckpointStep(prefix, &header).ok() ? header.numShards : -1;
        }
        return shardsOf.emplace(name, shards).first->second;
    };
    for (const std::string& n : names) {
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
        if (completing.count(owner) || !isPlainCheckpointName(owner)) continue;
        const std::string path = platform::joinPath(dir, n);
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        GarbageItem item;
        item.path = path;
        item.kind = GarbageKind::OrphanData;
        item.target = owner;
        item.bytes = static_cast<uint64_t>(st.st_size);
        item.modified = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9;
        judge(item, nullptr, options, now);
        item.reason = why + "; " + item.reason;
        items.push_back(std::move(item));
    }
    std::sort(items.begin(), items.end(), [](const GarbageItem& a, const GarbageItem& b) { return a.path < b.path; });
    return items;
}

// Removes one removable item; an orphan only while its index is still absent.
Status removeItem(const std::string& dir, const GarbageItem& item) {
    switch (item.kind) {
    case GarbageKind::StagedCheckpoint: return pipeline::settleStaging(item.path, dir, item.target);
    case GarbageKind::SaveTemp: return pipeline::removeTree(item.path);
    case GarbageKind::TempFile:
    case GarbageKind::IndexTemp: return pipeline::removeFile(item.path);
    case GarbageKind::OrphanData: {
        CKPT_ASSIGN_OR_RETURN(auto lock, pipeline::DirectoryLock::acquire(dir));
        // A save or swap may have committed the index since the scan.
        const std::string prefix = platform::joinPath(dir, item.target);
        const auto data = parseDataFileName(platform::baseName(item.path));
        if (platform::entryExists(indexFileName(prefix))) {
            BundleHeader header;
            if (!data || !readCheckpointStep(prefix, &header).ok() || header.numShards == data->numShards) return okStatus();
        }
        return pipeline::removeFile(item.path);
    }
    }
    return okStatus();
}

}  // namespace

std::string_view garbageKindName(GarbageKind kind) {
    switch (kind) {
    case GarbageKind::StagedCheckpoint: return "staged checkpoint";
    case GarbageKind::SaveTemp: return "save shards";
    case GarbageKind::TempFile: return "temporary file";
    case GarbageKind::IndexTemp: return "temporary index";
    case GarbageKind::OrphanData: return "orphaned file";
    }
    return "temporary file";
}

Result<GarbageReport> collectGarbage(std::string_view dirView, const GarbageOptions& options) {
    const std::string dir = dirView.empty() ? std::string(".") : std::string(dirView);
    if (!platform::isDirectory(dir)) {
        if (!platform::pathExists(dir)) return notFound("no directory " + dir);
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
            if (Status s = removeItem(dir, item); s.isOk()) {
                ++report.removed;
                report.removedBytes += item.bytes;
            } else {
                report.errors.push_back(item.path + ": " + s.toString());
            }
            settled.push_back(std::move(item));
        }
    }
    CKPT_ASSIGN_OR_RETURN(std::vector<GarbageItem> items, scan(dir, options, {}));
    for (const GarbageItem& item : items) {
        // A staged replacement the first pass could not settle is reported once.
        if (options.apply && item.kind == GarbageKind::StagedCheckpoint && item.removable) continue;
        if (options.apply && item.removable) {
            if (Status s = removeItem(dir, item); s.isOk()) {
                ++report.removed;
                report.removedBytes += item.bytes;
            } else {
                report.errors.push_back(item.path + ": " + s.toString());
            }
        }
        report.items.push_back(item);
    }
    for (GarbageItem& item : settled) report.items.push_back(std::move(item));
    std::sort(report.items.begin(), report.items.end(),
              [](const GarbageItem& a, const GarbageItem& b) { return a.path < b.path; });
    for (const GarbageItem& item : report.items)
        if (item.removable) report.removableBytes += item.bytes;
    if (report.removed > 0) {
        if (Status s = pipeline::fsyncDirectory(dir); !s.isOk()) report.errors.push_back(s.toString());
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

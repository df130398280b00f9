// Gathering retention candidates from a directory and carrying out a plan:
// see ckpt/retention.h. Nothing here decides what to keep (retention_plan.cpp);
// this file only reads what is there and deletes exactly what a plan names.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/retention.h"
#include "pipeline/state_commit.h"
#include "storage/directory_lock.h"
#include "storage/dispatch.h"
#include "platform/file.h"
#include "platform/parallel.h"

namespace ckpt {
namespace {

// Every entry of 'dir' by name; 'symlinks' (when given) receives the ones
// that are symbolic links.
Result<std::vector<std::string>> directoryEntries(const std::string& dir, std::vector<std::string>* symlinks = nullptr) {
    std::vector<std::string> names;
    CKPT_RETURN_IF_ERROR(storage::list(dir, {}, [&](const storage::ListEntry& e) {
        names.push_back(e.name);
        if (symlinks && e.kind == storage::ObjectKind::Symlink) symlinks->push_back(e.name);
        return true;
    }));
    return names;
}

std::string normalised(const std::string& path) { return platform::lexicallyNormal(path); }

// Whether a symlink at 'path' resolves to somewhere inside 'realDir' (a
// dangling link resolves nowhere, so it leaves).
bool staysInside(const std::string& path, const std::string& realDir) {
    if (!storage::exists(path)) return false;
    return platform::isInsideDirectory(platform::canonicalPath(path), realDir);
}

bool hasDotDot(std::string_view path) {
    while (!path.empty()) {
        const auto slash = path.find('/');
        if (path.substr(0, slash) == "..") return true;
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return false;
}

// The checkpoint name a directory entry belongs to, if any.
std::optional<std::string> checkpointOf(const std::string& entry) {
    if (entry.size() > kIndexSuffix.size() && entry.ends_with(kIndexSuffix))
        return entry.substr(0, entry.size() - kIndexSuffix.size());
    if (const auto data = parseDataFileName(entry)) return data->prefix;
    if (entry.size() > kCheckpointMetadataSuffix.size() && entry.ends_with(kCheckpointMetadataSuffix))
        return entry.substr(0, entry.size() - kCheckpointMetadataSuffix.size());
    return std::nullopt;
}

// name -> why it is unsafe: one of its files is a symlink that leads out
// of the directory (deleting follows nothing, but the planner must not
// judge a checkpoint by files elsewhere, nor report their bytes as freed).
std::map<std::string, std::string> symlinksLeaving(const std::string& dir, const std::vector<std::string>& symlinks) {
    std::map<std::string, std::string> out;
    if (symlinks.empty()) return out;
    const std::string realDir = platform::canonicalPath(dir);
    for (const std::string& link : symlinks) {
        const auto name = checkpointOf(link);
        if (!name || staysInside(platform::joinPath(dir, link), realDir)) continue;
        out.emplace(*name, link + " is a symlink that leads out of the directory");
    }
    return out;
}

std::string missingText(int32_t missing) {
    return std::to_string(missing) + (missing == 1 ? " data file missing" : " data files missing");
}

RetentionCandidate candidateOf(CheckpointListEntry& e) {
    RetentionCandidate c;
    c.prefix = e.prefix;
    c.name = e.name;
    c.step = e.step.step;
    c.time = e.modified;
    c.bytes = e.bytes;
    if (e.metadata) {
        CheckpointMetadata& m = *e.metadata;
        c.hasMetadata = true;
        if (m.step) c.step = m.step;
        if (m.savedAt > 0) c.time = m.savedAt;
        c.metrics = std::move(m.metrics);
        c.tags = std::move(m.tags);
        c.owner = std::move(m.owner);
    } else if (!e.metadataError.isOk()) {
        c.unsafe = "damaged metadata: " + e.metadataError.message();
    }
    if (!e.error.isOk()) {
        c.complete = false;
        c.problem = "index unreadable: " + e.error.message();
    } else if (e.missingShards > 0) {
        c.complete = false;
        c.problem = missingText(e.missingShards);
    }
    c.isStateLatest = e.isLatest;
    return c;
}

// The .index as it is now: size and mtime, or nullopt when it is gone or
// no longer a regular file.
std::optional<std::pair<uint64_t, double>> indexStamp(const std::string& prefix) {
    auto info = storage::stat(indexFileName(prefix), /*follow=*/false);
    if (!info.ok() || !*info || (*info)->kind != storage::ObjectKind::File) return std::nullopt;
    return std::pair{(*info)->size, static_cast<double>((*info)->modifiedNs) * 1e-9};
}

// The data files of 'name' among 'entries': any shard count, so data files
// left by an earlier save under the same prefix go with it.
std::vector<std::string> dataFilesOf(std::string_view name, const std::vector<std::string>& entries) {
    std::vector<std::string> out;
    for (const std::string& e : entries) {
        if (!e.starts_with(name)) continue;
        const auto data = parseDataFileName(e);
        if (data && data->prefix == name) out.push_back(e);
    }
    return out;
}

// Checkpoints deleted at once on an object store.
constexpr size_t kParallelRemoteDeletions = 16;

// Index first: a half-deleted checkpoint is then simply absent, never a
// checkpoint with missing shards. unlink() removes a symlink, not its target.
Status deleteFiles(const std::string& dir, std::string_view name, const std::vector<std::string>& dataFiles) {
    CKPT_RETURN_IF_ERROR(storage::remove(platform::joinPath(dir, indexFileName(name))));
    for (const std::string& f : dataFiles) CKPT_RETURN_IF_ERROR(storage::remove(platform::joinPath(dir, f)));
    return storage::remove(platform::joinPath(dir, checkpointMetadataFileName(name)));
}

// Before deleting (the caller holds the directory's lock): the state file
// without the checkpoints about to be deleted, nor any that are already
// gone, its model_checkpoint_path still naming one that exists. So it is
// true at every instant of the deletions that follow, and a state file
// that lied before (an interrupted run, a hand deletion) is repaired by the
// next apply. Entries it names outside the directory are only dropped when
// they are gone: not ours to judge otherwise.
// What to write over 'state' (nullopt: leave it).
std::optional<CheckpointState> rewrittenState(const std::string& dir, const std::optional<CheckpointState>& state,
                                              const std::set<std::string>& doomedPrefixes, const RetentionPlan& plan) {
    if (!state) return std::nullopt;
    auto doomed = [&](const std::string& p) { return doomedPrefixes.count(normalised(resolveStatePath(dir, p))) > 0; };
    const auto exists = [&](const std::string& p) {
        return !doomed(p) && storage::exists(indexFileName(resolveStatePath(dir, p)));
    };
    CheckpointState next = *state;
    next.allModelCheckpointPaths.clear();
    next.allModelCheckpointTimestamps.clear();
    const bool timestamps = state->allModelCheckpointTimestamps.size() == state->allModelCheckpointPaths.size();
    for (size_t i = 0; i < state->allModelCheckpointPaths.size(); ++i) {
        if (doomed(state->allModelCheckpointPaths[i])) continue;
        next.allModelCheckpointPaths.push_back(state->allModelCheckpointPaths[i]);
        if (timestamps) next.allModelCheckpointTimestamps.push_back(state->allModelCheckpointTimestamps[i]);
    }
    if (!timestamps) next.allModelCheckpointTimestamps = state->allModelCheckpointTimestamps;
    if (!exists(state->modelCheckpointPath)) {
        // The planner never deletes the state file's latest; this is a state
        // file rewritten between planning and deleting, or one that named a
        // checkpoint already gone. Point it at the newest checkpoint still here.
        next.modelCheckpointPath.clear();
        for (auto it = next.allModelCheckpointPaths.rbegin(); it != next.allModelCheckpointPaths.rend(); ++it) {
            if (exists(*it)) {
                next.modelCheckpointPath = *it;
                break;
            }
        }
        for (auto it = plan.decisions.rbegin(); next.modelCheckpointPath.empty() && it != plan.decisions.rend(); ++it) {
            if (it->verdict != RetentionVerdict::Delete && it->candidate.complete && exists(it->candidate.prefix))
                next.modelCheckpointPath = it->candidate.name;
        }
        if (!next.modelCheckpointPath.empty() &&
            std::find(next.allModelCheckpointPaths.begin(), next.allModelCheckpointPaths.end(), next.modelCheckpointPath) ==
                next.allModelCheckpointPaths.end()) {
            next.allModelCheckpointPaths.push_back(next.modelCheckpointPath);
            if (timestamps) next.allModelCheckpointTimestamps.push_back(0);
        }
    }
    // Like TensorFlow's manager after a sweep: counting resumes from the last preserved checkpoint.
    if (plan.lastPreservedTimestamp) next.lastPreservedTimestamp = *plan.lastPreservedTimestamp;
    if (next.allModelCheckpointPaths == state->allModelCheckpointPaths &&
        next.modelCheckpointPath == state->modelCheckpointPath && next.lastPreservedTimestamp == state->lastPreservedTimestamp &&
        stateEntriesWithoutIndex(dir, next).empty())
        return std::nullopt;
    return next;
}

// A compare-and-swap: a state file that another writer changed meanwhile
// is read and judged again.
Status rewriteState(const std::string& dir, const std::set<std::string>& doomedPrefixes, const RetentionPlan& plan) {
    return pipeline::updateCheckpointStateLocked(
        dir, [&](const std::optional<CheckpointState>& state) { return rewrittenState(dir, state, doomedPrefixes, plan); });
}

}  // namespace

Result<std::vector<RetentionCandidate>> retentionCandidates(std::string_view dirView) {
    const std::string dir(dirView);
    CKPT_ASSIGN_OR_RETURN(CheckpointListing listing, listCheckpoints(dir, {.countTensors = false}));
    std::vector<std::string> symlinks;
    CKPT_RETURN_IF_ERROR(directoryEntries(dir, &symlinks).status());
    const std::map<std::string, std::string> leaving = symlinksLeaving(dir, symlinks);

    // A checkpoint the state file names through ".." is named from outside
    // the directory: rewriting that entry could point anywhere, so hands off.
    std::map<std::string, std::string> namedByDotDot;     // normalised prefix -> path as written
    std::map<std::string, std::optional<double>> listed;  // normalised prefix -> its state-file timestamp
    if (listing.stateFileError.isOk()) {
        auto state = readCheckpointState(dir);
        if (state.ok() && *state) {
            const CheckpointState& st = **state;
            for (size_t i = 0; i < st.allModelCheckpointPaths.size(); ++i) {
                std::optional<double> at;
                if (i < st.allModelCheckpointTimestamps.size()) at = st.allModelCheckpointTimestamps[i];
                listed[normalised(resolveStatePath(dir, st.allModelCheckpointPaths[i]))] = at;
            }
            std::vector<std::string> paths = st.allModelCheckpointPaths;
            paths.push_back(st.modelCheckpointPath);
            for (const std::string& p : paths)
                if (hasDotDot(p)) namedByDotDot.emplace(normalised(resolveStatePath(dir, p)), p);
        }
    }

    std::vector<RetentionCandidate> out;
    out.reserve(listing.checkpoints.size());
    for (CheckpointListEntry& e : listing.checkpoints) {
        RetentionCandidate c = candidateOf(e);
        if (const auto stamp = indexStamp(c.prefix)) std::tie(c.indexBytes, c.indexModified) = *stamp;
        if (const auto it = listed.find(normalised(c.prefix)); it != listed.end()) {
            c.inStateFile = true;
            c.stateTimestamp = it->second;
        }
        if (!isPlainCheckpointName(c.name)) {
            c.unsafe = "\"" + c.name + "\" is not a plain name inside the directory";
        } else if (const auto it = leaving.find(c.name); it != leaving.end()) {
            c.unsafe = it->second;
        } else if (const auto dd = namedByDotDot.find(normalised(c.prefix)); dd != namedByDotDot.end()) {
            c.unsafe = "the state file names it by a path with \"..\": " + dd->second;
        } else if (!listing.stateFileError.isOk()) {
            // Which checkpoint is the latest is unknown: delete nothing.
            c.unsafe = "the state file cannot be read: " + listing.stateFileError.message();
        }
        out.push_back(std::move(c));
    }
    return out;
}

Result<RetentionPlan> planDirectoryRetention(std::string_view dir, const RetentionPolicy& policy,
                                             const RetentionContext& context) {
    CKPT_RETURN_IF_ERROR(validateRetentionPolicy(policy));
    CKPT_ASSIGN_OR_RETURN(std::vector<RetentionCandidate> candidates, retentionCandidates(dir));
    RetentionContext withState = context;
    withState.lastPreservedTimestamp.reset();
    if (auto state = readCheckpointState(std::string(dir)); state.ok() && *state)
        withState.lastPreservedTimestamp = (*state)->lastPreservedTimestamp;
    RetentionPlan plan = planRetention(std::move(candidates), policy, withState);
    plan.dir = std::string(dir);
    return plan;
}

Result<RetentionApplyReport> applyRetention(const RetentionPlan& plan) {
    if (plan.dir.empty()) return invalidArgument("a retention plan over a list of checkpoints names no directory to delete in");
    CKPT_ASSIGN_OR_RETURN(const std::vector<std::string> entries, directoryEntries(plan.dir));
    RetentionApplyReport report;
    // What may still be deleted, re-checked against the disk.
    std::vector<const RetentionCandidate*> doomed;
    std::set<std::string> doomedPrefixes;
    for (const RetentionDecision& d : plan.decisions) {
        if (d.verdict != RetentionVerdict::Delete) continue;
        const RetentionCandidate& c = d.candidate;
        if (!isPlainCheckpointName(c.name) || normalised(c.prefix) != normalised(platform::joinPath(plan.dir, c.name))) {
            report.skipped.push_back(c.name + ": not directly inside " + plan.dir);
            continue;
        }
        const auto stamp = indexStamp(c.prefix);
        if (!stamp) {
            report.skipped.push_back(c.name + ": its index is gone or no longer a regular file");
            continue;
        }
        if (stamp->first != c.indexBytes || stamp->second != c.indexModified) {
            report.skipped.push_back(c.name + ": changed since planning");
            continue;
        }
        doomed.push_back(&c);
        doomedPrefixes.insert(normalised(c.prefix));
    }
    // The state file stops naming them before anything is deleted, and no
    // other engine writer rewrites it until they are gone.
    CKPT_ASSIGN_OR_RETURN(auto lock, storage::DirectoryLock::acquire(plan.dir));
    CKPT_RETURN_IF_ERROR(rewriteState(plan.dir, doomedPrefixes, plan));
    // Each checkpoint index first; on an object store several checkpoints at
    // once (a request's latency, not the disk, is what each deletion costs).
    std::vector<Status> results(doomed.size());
    const size_t workers = storage::locationScheme(plan.dir).empty() ? 1 : kParallelRemoteDeletions;
    Status failure = platform::forEachItem(doomed.size(), workers, [&](size_t, size_t i) {
        results[i] = deleteFiles(plan.dir, doomed[i]->name, dataFilesOf(doomed[i]->name, entries));
    });
    for (size_t i = 0; i < doomed.size(); ++i) {
        if (!results[i].isOk()) {
            if (failure.isOk()) failure = results[i];
            continue;
        }
        report.deleted.push_back(doomed[i]->prefix);
        report.bytesFreed += doomed[i]->bytes;
    }
    if (!report.deleted.empty()) {
        Status synced = storage::syncDirectory(plan.dir);
        if (failure.isOk()) failure = synced;
    }
    if (!failure.isOk()) return failure;
    return report;
}

Status deleteCheckpointFiles(std::string_view dirView, std::string_view name) {
    const std::string dir(dirView);
    if (!isPlainCheckpointName(name))
        return invalidArgument("refusing to delete checkpoint \"" + std::string(name) + "\" of " + dir +
                               ": not a plain name inside the directory");
    CKPT_ASSIGN_OR_RETURN(const std::vector<std::string> entries, directoryEntries(dir));
    CKPT_RETURN_IF_ERROR(deleteFiles(dir, name, dataFilesOf(name, entries)));
    return storage::syncDirectory(dir);
}

}  // namespace ckpt

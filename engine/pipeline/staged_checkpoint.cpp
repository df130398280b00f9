// Staged checkpoints and their swap: see staged_checkpoint.h. Every step
// below is idempotent, so a swap interrupted anywhere after COMMIT is
// finished by running the same steps again (settleStaging).

#include "pipeline/staged_checkpoint.h"

#include "pipeline/save_claim.h"

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_step.h"
#include "pipeline/save_claim.h"
#include "pipeline/temp_files.h"
#include "platform/file.h"
#include "storage/directory_lock.h"
#include "storage/dispatch.h"

namespace ckpt::pipeline {
namespace {

// Written (durably) once the staged checkpoint verified: from then on the
// swap only goes forward.
constexpr const char* kCommitMark = "COMMIT";

// Whether a directory entry is at 'path' (a dangling symlink included).
bool entryAt(const std::string& path) {
    auto info = storage::stat(path, /*follow=*/false);
    return info.ok() && info->has_value();
}

// The names directly inside 'dir'.
Result<std::vector<std::string>> namesIn(const std::string& dir) {
    std::vector<std::string> names;
    CKPT_RETURN_IF_ERROR(storage::list(dir, {}, [&](const storage::ListEntry& e) {
        names.push_back(e.name);
        return true;
    }));
    return names;
}

// The shard count an index's header names; an error when it cannot be read.
Result<int32_t> shardCount(const std::string& prefix) {
    BundleHeader header;
    CKPT_RETURN_IF_ERROR(readCheckpointStep(prefix, &header).status());
    return header.numShards;
}

// Data files of checkpoint 'name' in 'dir' whose shard count is not 'keep'.
Status removeOtherShardCounts(const std::string& dir, const std::string& name, int32_t keep) {
    CKPT_ASSIGN_OR_RETURN(const std::vector<std::string> entries, namesIn(dir));
    bool removed = false;
    for (const std::string& e : entries) {
        const auto data = parseDataFileName(e);
        if (!data || data->prefix != name || data->numShards == keep) continue;
        CKPT_RETURN_IF_ERROR(storage::remove(platform::joinPath(dir, e)));
        removed = true;
    }
    return removed ? storage::syncDirectory(dir) : okStatus();
}

// The swap, from wherever an earlier attempt stopped; the caller holds
// the directory's lock and COMMIT exists.
Status finishSwap(const std::string& staging, const std::string& dir, const std::string& name) {
    const std::string stagedPrefix = platform::joinPath(staging, name);
    const std::string finalPrefix = platform::joinPath(dir, name);
    int32_t shards = 0;
    if (entryAt(indexFileName(stagedPrefix))) {
        CKPT_ASSIGN_OR_RETURN(shards, shardCount(stagedPrefix));
        if (entryAt(indexFileName(finalPrefix))) {
            // The old index would name the new data files once they take
            // its files' names: it goes first (the destination is then
            // briefly absent, never a mix). Another shard count keeps it
            // valid until the new index replaces it.
            auto old = shardCount(finalPrefix);
            if (!old.ok() || *old == shards) {
                CKPT_RETURN_IF_ERROR(storage::remove(indexFileName(finalPrefix)));
                CKPT_RETURN_IF_ERROR(storage::syncDirectory(dir));
            }
        }
        CKPT_ASSIGN_OR_RETURN(const std::vector<std::string> staged, namesIn(staging));
        for (const std::string& e : staged) {
            const auto data = parseDataFileName(e);
            if (data && data->prefix == name)
                CKPT_RETURN_IF_ERROR(storage::rename(platform::joinPath(staging, e), platform::joinPath(dir, e)));
        }
        // Metadata there is the old checkpoint's, or one a killed save left
        // without its index: either way it does not describe the new one.
        const std::string metadata = checkpointMetadataFileName(name);
        if (entryAt(platform::joinPath(staging, metadata)))
            CKPT_RETURN_IF_ERROR(storage::rename(platform::joinPath(staging, metadata), platform::joinPath(dir, metadata)));
        else CKPT_RETURN_IF_ERROR(storage::remove(platform::joinPath(dir, metadata)));
        CKPT_RETURN_IF_ERROR(storage::syncDirectory(dir));
        CKPT_RETURN_IF_ERROR(storage::rename(indexFileName(stagedPrefix), indexFileName(finalPrefix)));  // the commit point
        CKPT_RETURN_IF_ERROR(storage::syncDirectory(dir));
    } else if (entryAt(indexFileName(finalPrefix))) {
        CKPT_ASSIGN_OR_RETURN(shards, shardCount(finalPrefix));
    } else {
        return okStatus();  // committed earlier and since deleted: nothing to tidy
    }
    return removeOtherShardCounts(dir, name, shards);
}

}  // namespace

StagedCheckpoint::StagedCheckpoint(std::string prefix, std::string staging)
    : m_prefix(std::move(prefix)), m_staging(std::move(staging)),
      m_stagingPrefix(platform::joinPath(m_staging, platform::baseName(m_prefix))) {}

Result<std::unique_ptr<StagedCheckpoint>> StagedCheckpoint::begin(const std::string& prefix, bool overwrite) {
    const std::string name = platform::baseName(prefix);
    if (!isPlainCheckpointName(name)) return invalidArgument("invalid checkpoint prefix \"" + prefix + "\"");
    const std::string dir = platform::dirName(prefix);
    CKPT_RETURN_IF_ERROR(storage::createDirectories(dir));
    if (!storage::capabilitiesFor(prefix).rename) {
        // Nothing moves on a store without rename (an object store): a new
        // checkpoint is written at its final name, where the save pipeline's
        // commit order (data objects, then the index, created only if
        // absent) keeps readers from a partial one. A replacement could not
        // be swapped in once verified, so it is refused.
        CKPT_ASSIGN_OR_RETURN(auto claim, SaveClaim::acquireForNew(prefix));
        std::unique_ptr<StagedCheckpoint> inPlace(new StagedCheckpoint(prefix, ""));
        inPlace->m_stagingPrefix = prefix;
        inPlace->m_claim = std::move(claim);
        return inPlace;
    }
    // What writers of this destination left when they died.
    const bool before = entryAt(indexFileName(prefix));
    collectGarbageFor(dir.empty() ? "." : dir, name);
    // Settling may have finished a replacement a killed writer left: the
    // checkpoint now there was not there when the caller checked.
    if (!before && !overwrite && entryAt(indexFileName(prefix)))
        return Status{StatusCode::AlreadyExists, "a checkpoint exists at " + prefix +
                                                     " (an interrupted replacement was completed first); it is "
                                                     "replaced only with overwrite"};
    const std::string staging = platform::joinPath(dir, "." + tempName(name, kStagingMarker));
    registerStaging(staging);
    std::unique_ptr<StagedCheckpoint> staged(new StagedCheckpoint(prefix, staging));
    if (Status made = storage::createDirectories(staging); !made.isOk()) {
        staged->m_done = true;
        unregisterStaging(staging);
        (void)storage::removeAll(staging);
        return made;
    }
    return staged;
}

StagedCheckpoint::~StagedCheckpoint() {
    if (m_staging.empty()) {
        // Written in place and never committed: the index goes first, so no
        // reader is left with an index whose data is going.
        if (!m_done) {
            (void)storage::remove(indexFileName(m_prefix));
            const std::string dir = platform::dirName(m_prefix);
            const std::string name = platform::baseName(m_prefix);
            if (auto names = namesIn(dir.empty() ? "." : dir); names.ok())
                for (const std::string& e : *names)
                    if (auto data = parseDataFileName(e);
                        (data && data->prefix == name) || e == platform::baseName(checkpointMetadataFileName(m_prefix)))
                        (void)storage::remove(platform::joinPath(dir, e));
        }
        return;
    }
    if (!m_done && !stagingCommitted(m_staging)) (void)storage::removeAll(m_staging);
    unregisterStaging(m_staging);
}

Status StagedCheckpoint::commit() {
    if (m_staging.empty()) {  // written in place: it is where it belongs
        m_done = true;
        if (m_claim) (void)m_claim->release();
        return okStatus();
    }
    const std::string dir = platform::dirName(m_prefix);
    const std::string name = platform::baseName(m_prefix);
    CKPT_ASSIGN_OR_RETURN(auto lock, storage::DirectoryLock::acquire(dir.empty() ? "." : dir));
    m_replaced = entryAt(indexFileName(m_prefix));
    CKPT_RETURN_IF_ERROR(storage::writeObject(platform::joinPath(m_staging, kCommitMark), "verified\n").status());
    // From here on the swap only goes forward: a failure leaves the staging
    // directory (unregistered by the destructor) for the next write or gc.
    CKPT_RETURN_IF_ERROR(finishSwap(m_staging, dir.empty() ? "." : dir, name));
    m_done = true;
    (void)storage::removeAll(m_staging);
    return okStatus();
}

bool stagingCommitted(const std::string& stagingDir) { return entryAt(platform::joinPath(stagingDir, kCommitMark)); }

Status settleStaging(const std::string& stagingDir, const std::string& dir, const std::string& name) {
    CKPT_ASSIGN_OR_RETURN(auto lock, storage::DirectoryLock::acquire(dir));
    if (stagingCommitted(stagingDir)) CKPT_RETURN_IF_ERROR(finishSwap(stagingDir, dir, name));
    return storage::removeAll(stagingDir);
}

}  // namespace ckpt::pipeline

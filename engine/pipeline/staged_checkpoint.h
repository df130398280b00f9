#pragma once
// A checkpoint written beside its destination and moved into place only
// once the caller has verified it, so that readers never see an
// unverified result, a failure or a kill at any instant leaves the old
// checkpoint intact or a state the next write of that destination and
// `ckpt gc` complete, and an old index never pairs with new data
// (docs/reliability.md, "Replacing a checkpoint"). Every engine writer
// whose destination the user names writes through it: surgery, reshard,
// restore --out, import, scheduled archives. Engine-internal.
//   auto staged = StagedCheckpoint::begin("/runs/exp1/ckpt-5");
//   writeTensors((*staged)->stagingPrefix(), tensors, options);
//   verifyBundle((*staged)->stagingPrefix());         // and any other check
//   CKPT_RETURN_IF_ERROR((*staged)->commit());        // now at /runs/exp1/ckpt-5
//
// The staging directory, "<dir>/.<name>.staging-<owner token>-<n>/", holds
// <name>.index and its data files under their final base names (so
// verification problems name the files they will have), and optionally
// <name>.info.json, moved in with them. commit() marks it verified (a
// COMMIT file), then, holding the directory's lock: removes the old index
// if the new data files take the old ones' names (the same shard count),
// renames the data files and the metadata in, renames the index in (the
// commit point, atomic over an old index), and removes the old data files
// of another shard count. Once COMMIT exists the swap is only ever rolled
// forward; before, the staging directory is simply removed.
//
// On storage without rename (an object store) there is no staging: a new
// checkpoint is written at its final name under a claim on the prefix
// (pipeline/save_claim.h: a second writer of the destination is refused
// before it touches anything), the index, created only if absent, is the
// commit point, an uncommitted one is removed index first, and replacing
// an existing one is refused.

#include <memory>
#include <string>

#include "ckpt/status.h"

namespace ckpt::pipeline {

class SaveClaim;

class StagedCheckpoint {
public:
    // 'prefix' is where the checkpoint ends up (its directory is created).
    // What writers that died left for the same destination is settled
    // first (settleStaging); if that completed an interrupted replacement,
    // the checkpoint it put there is AlreadyExists unless 'overwrite'.
    static Result<std::unique_ptr<StagedCheckpoint>> begin(const std::string& prefix, bool overwrite);
    // Not committed: the staging directory is removed (a failed commit
    // leaves it for the next write or `ckpt gc` to finish).
    ~StagedCheckpoint();
    StagedCheckpoint(const StagedCheckpoint&) = delete;
    StagedCheckpoint& operator=(const StagedCheckpoint&) = delete;

    const std::string& prefix() const { return m_prefix; }
    const std::string& stagingDirectory() const { return m_staging; }
    // Write (and verify) here.
    const std::string& stagingPrefix() const { return m_stagingPrefix; }
    // Whether a checkpoint was at the destination when the swap began.
    bool replaced() const { return m_replaced; }

    // The staged checkpoint, verified by the caller, moved into place.
    Status commit();

private:
    StagedCheckpoint(std::string prefix, std::string staging);
    std::string m_prefix;
    std::string m_staging;
    std::string m_stagingPrefix;
    bool m_done = false;
    bool m_replaced = false;
    std::unique_ptr<SaveClaim> m_claim;  // written in place: held until committed or removed
};

// What a staging directory whose writer is gone leaves: finished when it
// was marked verified (the swap rolled forward), else removed. 'dir' is
// the destination's directory, 'name' the checkpoint's base name.
Status settleStaging(const std::string& stagingDir, const std::string& dir, const std::string& name);

// Whether a staging directory holds the COMMIT mark (gc says "complete" for it).
bool stagingCommitted(const std::string& stagingDir);

}  // namespace ckpt::pipeline

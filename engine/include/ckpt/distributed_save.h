#pragma once
// One TensorFlow checkpoint saved by N processes (docs/semantics.md, "Saves
// by N writers"): rank i of world N writes its share of the tensors, and a
// merger (rank 0, or anyone later) commits them, with the store (or the
// shared directory) as the only coordinator. Every byte goes through
// storage/dispatch.h, so a local or shared directory and s3:// or gs://
// behave alike.
//
// Beside the checkpoint <dir>/<name>, one save uses the parts area
// <dir>/.<name>.parts-<save id>/:
//   plan             which rank stores which tensor (parts_plan.h): rank 0
//                    creates it (create-only); every other rank compares its
//                    own with it before writing anything
//   part-0000i.index rank i's partial index: a single-shard bundle index
//                    whose data file is the checkpoint's own
//                    <dir>/<name>.data-0000i-of-0000N, written at its final name
//   done-0000i       rank i's data and index are durable (create-only)
//   abort-0000i      rank i failed, with the reason ("abort-merger": the merger)
// The merger waits for N done markers (polling with backoff, cancellable,
// bounded by a timeout), stops at the first abort marker naming its rank and
// reason, merges the partial indexes in rank order exactly as TensorFlow's
// MergeV2Checkpoints does, writes <dir>/<name>.index create-only (the commit
// point: TensorFlow readers see the checkpoint whole or not at all), records
// it in the `checkpoint` state file (commitCheckpointState) and removes the
// parts area. A crash at any point leaves data files without an index and a
// parts area, never an index without its data.
//
// A save id names one attempt: every rank of it passes the same one, and a
// failed attempt is retried under a new id (its abort marker stays, so a
// straggler of it fails at once). Run one attempt of a checkpoint at a time
// (as launchers do: a job's tasks restart together); a checkpoint that is
// already committed is never written again.
//   CKPT_ASSIGN_OR_RETURN(WriterRank me, writerRankFromEnvironment(std::nullopt));
//   PartSaveOptions part; part.saveId = "step-200-" + runId;
//   CKPT_RETURN_IF_ERROR(writeCheckpointPart(prefix, me, std::move(tensors), part).status());
//   PartsCommitOptions commit; commit.saveId = part.saveId;
//   if (me.rank == 0) CKPT_RETURN_IF_ERROR(commitCheckpointParts(prefix, me.world, commit).status());

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/save.h"
#include "ckpt/status.h"
#include "ckpt/writer_rank.h"

namespace ckpt {

// InvalidArgument unless 'saveId' is 1 to 64 of [A-Za-z0-9._-], not
// starting with '.': it becomes part of a directory or key name.
Status checkSaveId(const std::string& saveId);
// <dir>/.<name>.parts-<saveId>
std::string partsAreaOf(const std::string& prefix, const std::string& saveId);

struct PartSaveOptions {
    std::string saveId;  // the same for every rank of one save
    // How long a rank other than 0 waits for rank 0's plan.
    std::chrono::milliseconds planTimeout{std::chrono::minutes(5)};
    const CancellationToken* cancel = nullptr;  // polled while waiting and between tensors
};

struct PartStats {
    std::string prefix;
    std::string dataFile;  // <prefix>.data-0000i-of-0000N
    WriterRank writer;
    int64_t tensors = 0;
    uint64_t dataBytes = 0;
    std::string planDigest;  // sha256 of the plan, hex
    double seconds = 0;
};

// Rank 'writer.rank' of 'writer.world' writes its share of 'tensors' (every
// rank passes the same tensors, in any order; it writes those the plan
// gives it, in the order given): the data file at its final name, its
// partial index, then its done marker. Refused before anything is written:
// a checkpoint already at 'prefix' (AlreadyExists), an aborted save, a plan
// that differs from rank 0's. Any failure after the plan is checked writes
// this rank's abort marker with the reason (best effort) and returns it.
Result<PartStats> writeCheckpointPart(const std::string& prefix, const WriterRank& writer, std::vector<SaveTensor> tensors,
                                      const PartSaveOptions& options);

// Writes rank 'rank''s abort marker (create-only; a marker already there
// stays): a caller whose own work failed before it could save tells the
// merger at once instead of letting it time out. The reason is cut to 2 KiB.
Status abortCheckpointParts(const std::string& prefix, const std::string& saveId, int rank, const std::string& reason);

struct PartsCommitOptions {
    std::string saveId;
    // How long to wait for every rank's done marker.
    std::chrono::milliseconds timeout{std::chrono::minutes(10)};
    const CancellationToken* cancel = nullptr;
    // Record the checkpoint in <dir>/checkpoint as the latest.
    bool updateState = true;
    // (ranks done, world, "waiting") while waiting, then (world, world, "committing").
    ProgressSink progress;
};

struct PartsCommit {
    std::string prefix;
    int world = 0;
    int64_t tensors = 0;
    double waitSeconds = 0;  // until the last done marker was seen
    double seconds = 0;
};

// The merger (see above). A timeout is FailedPrecondition naming the
// ranks whose done markers are missing; an abort marker is
// FailedPrecondition naming its rank and reason; the token, Cancelled; a merge error
// (duplicate keys, a partial index that is not its rank's) is DataLoss or
// InvalidArgument naming the file; a checkpoint already committed at
// 'prefix' is AlreadyExists. Every failure but AlreadyExists leaves an
// abort marker "abort-merger" with the reason, so the save's ranks and a
// retry under the same id stop at once; nothing is committed.
Result<PartsCommit> commitCheckpointParts(const std::string& prefix, int world, const PartsCommitOptions& options);

}  // namespace ckpt

#pragma once
// Re-writes an existing checkpoint of any origin through the save pipeline
// with another sharding: every tensor's values are kept (partitioned tensors
// are reassembled, then sharded again by the policy), the object graph is
// copied unchanged, and the result is verified beside the destination
// before it is moved into place (ckpt/destination.h: never onto the source,
// onto an existing checkpoint only with 'overwrite').
// Safe to call from any thread.
//   ReshardOptions o;
//   o.save.policy = std::make_shared<FixedShardCountPolicy>(4);
//   auto stats = reshardCheckpoint("/runs/a/ckpt-3", "/runs/b/ckpt-3", o);

#include <optional>
#include <string>

#include "ckpt/checkpoint_metadata.h"
#include "ckpt/save.h"
#include "ckpt/status.h"

namespace ckpt {

struct ReshardOptions {
    SaveOptions save{};
    bool overwrite = false;  // replace a checkpoint already at the destination
    // Written beside the copy and moved into place with it (a scheduled
    // archive's owner, step and metrics).
    std::optional<CheckpointMetadata> metadata{};
};

Result<SaveStats> reshardCheckpoint(const std::string& source, const std::string& dstPrefix, const ReshardOptions& options);

// The same without overwrite or metadata.
Result<SaveStats> reshardCheckpoint(const std::string& source, const std::string& dstPrefix, const SaveOptions& options);

}  // namespace ckpt

#pragma once
// Re-writes an existing checkpoint of any origin through the save pipeline
// with another sharding: every tensor's values are kept (partitioned tensors
// are reassembled, then sharded again by the policy), the object graph is
// copied unchanged, and the result is verified before returning.
// Safe to call from any thread; 'dst' must not be the source prefix.
//   SaveOptions o; o.policy = std::make_shared<FixedShardCountPolicy>(4);
//   auto stats = reshardCheckpoint("/runs/a/ckpt-3", "/runs/b/ckpt-3", o);

#include <string>

#include "ckpt/save.h"
#include "ckpt/status.h"

namespace ckpt {

Result<SaveStats> reshardCheckpoint(const std::string& source, const std::string& dstPrefix, const SaveOptions& options);

}  // namespace ckpt

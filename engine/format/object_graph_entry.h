#pragma once
// The object graph a bundle stores under kObjectGraphKey (docs/format.md, "Key naming in object-based checkpoints"):
// the checks and messages Checkpoint::open and verifyBundle share, so that
// `ckpt inspect`, `ckpt verify` and the explorer word a damaged graph alike.

#include <string>

#include "ckpt/bundle_reader.h"
#include "ckpt/object_graph.h"
#include "ckpt/status.h"

namespace ckpt::format {

// DataLoss naming the index file unless 'info' is a scalar DT_STRING.
Status checkObjectGraphEntry(const BundleReader& bundle, const TensorInfo& info);

// Decodes the graph's serialized bytes (the value read from 'info'); errors
// name the data file that holds them.
Result<ObjectGraph> parseObjectGraphEntry(const BundleReader& bundle, const TensorInfo& info, const std::string& bytes);

}  // namespace ckpt::format

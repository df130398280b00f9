#pragma once
// Merging shard bundles into one checkpoint (docs/format.md, "Merge"):
// the save pipeline's last step. Engine-internal.

#include <string>
#include <vector>

#include "ckpt/status.h"

namespace ckpt::pipeline {

// Merges the single-file shard bundles 'inputs' (in shard order) into
// <prefix>.index + <prefix>.data-NNNNN-of-NNNNN. 'inputData' names each
// input's data file where it is not the input's own (written in place at
// its final name, on storage without rename); empty otherwise.
Status mergeShards(const std::vector<std::string>& inputs, const std::vector<std::string>& inputData, const std::string& prefix);

}  // namespace ckpt::pipeline

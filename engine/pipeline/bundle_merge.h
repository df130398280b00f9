#pragma once
// Merging shard bundles into one checkpoint (docs/format.md, "Merge"): the
// save pipeline's last step, and the commit of a save by N writers
// (ckpt/distributed_save.h). Engine-internal.

#include <map>
#include <string>
#include <vector>

#include "ckpt/status.h"
#include "tensor_bundle.pb.h"

namespace ckpt::pipeline {

// The entries of several bundles merged as TensorFlow's MergeV2Checkpoints
// merges them: inputs in the given order, each new data file numbered in
// order of first appearance, slices of one key appended in input order,
// a key stored whole twice refused. Key order is the index's byte order.
struct MergedIndex {
    std::map<std::string, tensorflow::BundleEntryProto> entries;  // shard ids already renumbered
    std::vector<std::string> dataFiles;                           // the inputs' data files, by new shard id
};

// Reads the indexes of the single-file bundles 'inputs' and merges their
// entries. 'inputData' names each input's data file where it is not the
// input's own (written in place at its final name); empty otherwise. A
// bundle without entries still counts one data file.
Result<MergedIndex> mergeIndexEntries(const std::vector<std::string>& inputs, const std::vector<std::string>& inputData);

// Writes <prefix>.index for 'index' (num_shards = its data files), created
// only if absent: the commit point. Locally a temp name renamed without
// replacing, then the directory synced; on a store a create-only PUT.
// AlreadyExists when an index is there.
Status writeMergedIndex(const std::string& prefix, const MergedIndex& index);

// Merges the single-file shard bundles 'inputs' (in shard order) into
// <prefix>.index + <prefix>.data-NNNNN-of-NNNNN, replacing a checkpoint at
// 'prefix'. 'inputData' as for mergeIndexEntries.
Status mergeShards(const std::vector<std::string>& inputs, const std::vector<std::string>& inputData, const std::string& prefix);

}  // namespace ckpt::pipeline

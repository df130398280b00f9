#pragma once
// The parts of diffCheckpoints that both of its paths share: the one that
// holds both checkpoints whole (checkpoint_diff.cpp) and the one that
// streams two name-based indexes by key (diff_by_key.cpp). Pairing rules,
// the data-file checks and how rows are collapsed, counted and ordered
// live here once.

#include <string>
#include <string_view>
#include <vector>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_diff.h"
#include "compare/renames.h"
#include "compare/value_pairs.h"
#include "storage/files.h"

namespace ckpt::compare {

// Values of one dtype and shape are compared; others are TypeChanged.
bool sameType(const TensorInfo& a, const TensorInfo& b);

// The entry of a pair (to be compared: Unchanged until then; TypeChanged)
// or of a value on one side only (Deleted, Added).
WorkingEntry pairOf(const ComparableValue* a, const ComparableValue* b);

// Every data file of 'bundle' present, by shard id; then, per tensor, its
// regions inside their file: a side missing a shard is an error even where
// the checksum shortcut would not read it.
using ShardFiles = std::vector<const storage::RandomAccessFile*>;
Result<ShardFiles> openShardFiles(const BundleReader& bundle);
Status checkTensorData(const ShardFiles& shards, const TensorInfo& tensor);

// "A (runs/x/ckpt-1)": what errors of one side start with.
std::string sideLabel(char side, std::string_view path);

// From paired and renamed entries to the diff's rows: collapses subtrees,
// counts every row, keeps the changed ones (all with keepUnchanged) and
// puts them in tree order in diff.entries. 'work' is in the order of the
// sides' values: A's in A's order, then B's unpaired ones in B's order (a
// tie in tree order keeps that order); WorkingEntry::pair indexes 'pairs'.
Status assembleRows(std::vector<WorkingEntry>& work, const ComparedSides& sides, std::vector<ValuePair>& pairs,
                    const DiffOptions& options, CheckpointDiff& diff);

}  // namespace ckpt::compare

#pragma once
// `ckpt diff` of two name-based checkpoints without holding either whole.
// Both indexes list their keys sorted, so a merge join of the two index
// streams (format/index_stream.h, one decoding worker per side) pairs them
// in step. Per value it keeps only what the diff reports: pairs equal by
// checksum (or by value) are counted, not kept; pairs of one type are
// compared in bounded batches; values on one side only are held for the
// renames and collapsed subtrees (compare/renames.h), which count an
// object's values by reading the indexes again. Rows, counts, order and
// errors are those of the path that opens both sides whole: the pairing and
// row rules are shared (compare/diff_assembly.h). Object-based checkpoints
// (paired by object path through the graph) and mixed pairs are not
// streamed: their values are named by the graph, not in key order.

#include <optional>
#include <string_view>

#include "ckpt/checkpoint_diff.h"

namespace ckpt::compare {

// The diff of 'pathA' and 'pathB' (anything Checkpoint::open accepts) when
// both are name-based checkpoints; nullopt when either is not, or cannot
// even be resolved: the caller then opens both whole (and words the error).
// The checkA/checkB index checks are filled as the whole path fills them.
std::optional<Result<CheckpointDiff>> diffByKey(std::string_view pathA, std::string_view pathB, const DiffOptions& options);

}  // namespace ckpt::compare

#pragma once
// Which writer of a save by N processes stores which tensor
// (ckpt/distributed_save.h): computed by every writer from the keys and
// byte sizes alone, so all compute the same; rank 0 stores its text
// create-only and the others compare theirs with it. Engine-internal.

#include <string>
#include <vector>

#include "ckpt/save.h"
#include "ckpt/status.h"

namespace ckpt::pipeline {

struct PartsPlan {
    int world = 1;
    std::vector<int> rankOf;  // per tensor, in the order given
    std::string text;         // what rank 0 stores (bounded by kMaxPlanBytes)
    std::string digest;       // sha256 of 'text', hex
};

// Largest plan text a writer reads back (about 100 bytes a tensor).
inline constexpr size_t kMaxPlanBytes = 64u << 20;

// Greedy by size: tensors (slices count one each) in decreasing bytes,
// ties by key then slice, each to the rank with the fewest bytes so far
// (then the fewest tensors, then the lowest rank). Every rank gets at
// least one tensor: fewer tensors than writers is InvalidArgument, as a
// writer without tensors would leave a data file no index names.
Result<PartsPlan> planParts(const std::vector<SaveTensor>& tensors, int world);

// OK when 'stored' (rank 0's text) is 'mine'; else InvalidArgument naming
// both ranks, both digests and the first line that differs.
Status checkSamePlan(const PartsPlan& mine, int myRank, const std::string& stored, const std::string& where);

}  // namespace ckpt::pipeline

#pragma once
// Every variable across N checkpoints: its norm, how far it moved since the
// previous checkpoint, its statistics and NaN/Inf counts, step by step, plus
// a run summary. `ckpt history` prints it; the explorer charts it.
//   HistoryOptions opt; opt.includes = {"*dense*"};
//   auto h = computeHistory({"runs/exp1"}, opt);   // a directory: its checkpoints in step order
//   for (const VariableHistory& v : h->variables) plot(v.points);
//
// Number tensors are read once each, a window at a time, their checksum,
// statistics and change from the previous checkpoint computed in the same
// pass (a few MiB per worker whatever the tensor sizes); strings and
// partitioned values are held one pair at a time per worker, no more
// workers than fit the memory budget. A value whose stored crc32c and size
// equal the previous checkpoint's is "unchanged" and is not read again.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/dtype.h"
#include "ckpt/status.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

struct HistoryOptions {
    std::vector<std::string> includes;  // globs on paths and keys (--keys); empty: all
    std::vector<std::string> excludes;
    bool weightsOnly = false;
    int threads = 0;  // 0: every core (bounded by the memory budget)
    // Held values: 0 means 2 x the largest + 128 MiB; streamed ones use at
    // most 64 MiB of mapped windows per thread, less within a smaller budget.
    int64_t memoryBudgetBytes = 0;
    const CancellationToken* cancel = nullptr;
    ProgressSink progress;  // bytes read / total, phase "history"
};

struct HistoryCheckpoint {
    std::string prefix;
    std::string name;             // "ckpt-3"
    std::optional<int64_t> step;  // stored training step, else the number
};

// One variable in one checkpoint.
struct HistoryPoint {
    bool present = false;    // the checkpoint has this value (same dtype and shape)
    bool unchanged = false;  // same stored crc32c and size as the previous checkpoint
    bool numeric = false;    // stats below are meaningful (not strings)
    int64_t count = 0;
    double norm = 0;  // L2 over finite values
    // |x - previous| / |previous| over pairs both finite; NaN for the first
    // point, after an absent one, or when the previous norm is 0.
    double relChange = 0;
    double mean = 0, std = 0, min = 0, max = 0;  // finite values; NaN when none
    int64_t nans = 0, infs = 0;
};

struct VariableHistory {
    std::string path;  // object path, or the key for name-based checkpoints
    std::string key;
    DataType dtype = DataType::Invalid;
    TensorShape shape;
    std::vector<HistoryPoint> points;   // one per checkpoint
    double totalRelChange = 0;          // sum of the finite relChange
    std::optional<int> firstNonFinite;  // checkpoint index where a NaN or Inf first appears
};

// Over floating-point (and complex) variables: counters such as the step
// or the optimizer's iteration count are not weights.
struct HistorySummary {
    std::vector<double> globalNorm;       // per checkpoint: sqrt of the sum of squared norms
    std::vector<double> globalRelChange;  // per checkpoint: |all - previous| / |previous|
    // Floating-point variables by totalRelChange, largest first (indices into variables).
    std::vector<int32_t> movedMost;
    std::optional<int> firstNonFinite;  // earliest checkpoint with a NaN or Inf anywhere
    std::string firstNonFiniteVariable;
};

struct CheckpointHistory {
    std::vector<HistoryCheckpoint> checkpoints;
    std::vector<VariableHistory> variables;  // by path
    HistorySummary summary;
    int64_t bytesRead = 0;
    // Checkpoints of the directory left out because their index cannot be
    // read: "<prefix>: <why>".
    std::vector<std::string> skipped;
};

// 'paths': one directory (its checkpoints in training-step order, as `ckpt
// list` sorts them) or two or more checkpoints in the order given. Fewer
// than two checkpoints is InvalidArgument with a message saying so.
Result<CheckpointHistory> computeHistory(const std::vector<std::string>& paths, const HistoryOptions& options = {});

}  // namespace ckpt

#pragma once
// The compare view's engine calls, as plain functions for QtConcurrent::run
// on jobPool(): diff two checkpoints (ckpt/checkpoint_diff.h) and build the
// merged tree, read one pair's values, and draw them on one colour scale or
// one histogram range. Errors are the engine's text, shown verbatim.

#include <QString>

#include <memory>
#include <optional>

#include "ckpt/preview.h"
#include "ckpt/tensor.h"
#include "jobs/job_control.h"
#include "jobs/preview_jobs.h"
#include "models/compare_snapshot.h"

namespace ckpt::ui {

struct CompareResult {
    std::shared_ptr<const CompareSnapshot> snapshot;  // null on failure or cancel
    QString error;
    bool cancelled = false;
};
// Opens both checkpoints, diffs them with progress and cancellation through
// 'job', and builds the merged tree with unchanged rows included.
// With a catalog path, pairs compared before come from its results cache
// (catalog_cache.h) and new ones are kept there.
CompareResult compareCheckpoints(const QString& pathA, const QString& pathB, const QString& catalogPath,
                                 const std::shared_ptr<JobControl>& job);

// One compared pair's values. A side that lacks the value (added, deleted)
// has none; |A−B| exists when both sides share dtype and shape.
struct PairValues {
    std::shared_ptr<const Tensor> a, b, absDiff;
    QString error;      // reading a side failed
    QString diffError;  // absoluteDifference refused the pair (e.g. strings)
};
PairValues readPairValues(const std::shared_ptr<const CompareSnapshot>& snapshot, int32_t node);

struct PairHeatmaps {
    HeatmapResult a, b, diff;
    std::optional<std::pair<double, double>> sharedRange;  // A's and B's common scale
};
// A and B are pooled with 'request' first, then drawn again over the union
// of their ranges, so equal colours mean equal values. |A−B| has its own
// (sequential) scale. When the two shapes differ, 'request' applies to
// neither side's axes: each is drawn with the engine's default slice.
PairHeatmaps renderPairHeatmaps(const PairValues& values, const HeatmapRequest& request);

struct PairHistograms {
    std::optional<Histogram> a, b;  // same bins over the same range
    QString error;
};
// Both over the finite [min, max] of A and B together.
PairHistograms computePairHistograms(const PairValues& values, int bins);

}  // namespace ckpt::ui

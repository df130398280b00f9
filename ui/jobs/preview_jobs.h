#pragma once
// The engine's preview calls (statistics, histogram, heatmap) as plain
// functions for QtConcurrent::run on jobPool(). Each takes the inspector's
// shared, immutable Tensor, so a job outlives a selection change safely, and
// turns a failed Status into its text, shown verbatim. Statistics and
// histograms go through the catalog's results cache (ckpt/catalog_cache.h)
// when a catalog is in use: the job opens it itself (one Catalog per thread).

#include <QImage>
#include <QString>

#include <memory>
#include <optional>

#include "ckpt/preview.h"
#include "ckpt/tensor.h"
#include "models/checkpoint_snapshot.h"

namespace ckpt::ui {

// Where the values came from, for the cache: the stored tensor's identity
// (crc32c, dtype, shape) keys it. Without a catalog path or tensor the
// figures are computed from the values every time.
struct PreviewSource {
    std::shared_ptr<const CheckpointSnapshot> snapshot;  // keeps 'info' alive
    const TensorInfo* info = nullptr;
    QString catalogPath;
};

struct StatsResult {
    std::optional<TensorStats> stats;  // empty on failure
    QString error;
    bool fromCache = false;  // found in the catalog's results cache
};
StatsResult computeTensorStats(const std::shared_ptr<const Tensor>& tensor, const PreviewSource& source = {});

struct HistogramResult {
    std::optional<Histogram> histogram;
    QString error;
    bool fromCache = false;
};
HistogramResult computeTensorHistogram(const std::shared_ptr<const Tensor>& tensor, int bins, const PreviewSource& source = {});

struct HeatmapResult {
    std::optional<Heatmap> heatmap;
    QImage image;     // the heatmap's RGBA pixels, built off the GUI thread too
    QImage colorbar;  // the colormap used, low to high, for the legend
    QString error;
};
HeatmapResult renderTensorHeatmap(const std::shared_ptr<const Tensor>& tensor, const HeatmapRequest& request);

}  // namespace ckpt::ui

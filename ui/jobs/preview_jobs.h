#pragma once
// The engine's preview calls (statistics, histogram, heatmap) as plain
// functions for QtConcurrent::run on jobPool(). Each takes the inspector's
// shared, immutable Tensor, so a job outlives a selection change safely, and
// turns a failed Status into its text, shown verbatim.

#include <QImage>
#include <QString>

#include <memory>
#include <optional>

#include "ckpt/preview.h"
#include "ckpt/tensor.h"

namespace ckpt::ui {

struct StatsResult {
    std::optional<TensorStats> stats;  // empty on failure
    QString error;
};
StatsResult computeTensorStats(const std::shared_ptr<const Tensor>& tensor);

struct HistogramResult {
    std::optional<Histogram> histogram;
    QString error;
};
HistogramResult computeTensorHistogram(const std::shared_ptr<const Tensor>& tensor, int bins);

struct HeatmapResult {
    std::optional<Heatmap> heatmap;
    QImage image;     // the heatmap's RGBA pixels, built off the GUI thread too
    QImage colorbar;  // the colormap used, low to high, for the legend
    QString error;
};
HeatmapResult renderTensorHeatmap(const std::shared_ptr<const Tensor>& tensor, const HeatmapRequest& request);

}  // namespace ckpt::ui

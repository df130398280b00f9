#include "jobs/preview_jobs.h"

#include <cstring>

#include "ckpt/catalog_cache.h"
#include "jobs/catalog_jobs.h"

namespace ckpt::ui {
namespace {

QString errorText(const Status& status) { return QString::fromStdString(status.toString()); }

QImage toImage(const Heatmap& h) {
    QImage image(h.width, h.height, QImage::Format_RGBA8888);
    // Row by row: QImage pads scan lines to 4 bytes; RGBA rows already are,
    // but copying per line does not rely on it.
    for (int y = 0; y < h.height; ++y)
        std::memcpy(image.scanLine(y), h.rgba.data() + static_cast<size_t>(y) * static_cast<size_t>(h.width) * 4,
                    static_cast<size_t>(h.width) * 4);
    return image;
}

// The colormap itself, drawn by the engine from a -1 ... 1 ramp, so the
// legend matches the heatmap's colours exactly.
QImage colormapRamp(const std::string& colormap) {
    constexpr int kSteps = 256;
    Tensor ramp;
    ramp.dtype = DataType::Double;
    ramp.shape.dims = {1, kSteps};
    ramp.bytes.resize(kSteps * sizeof(double));
    for (int i = 0; i < kSteps; ++i) {
        const double v = -1.0 + 2.0 * i / (kSteps - 1);
        std::memcpy(ramp.bytes.data() + static_cast<size_t>(i) * sizeof(double), &v, sizeof v);
    }
    HeatmapRequest request;
    request.colormap = colormap;
    request.maxWidth = kSteps;
    auto h = renderHeatmap(TensorView::of(ramp), request);
    return h ? toImage(*h) : QImage();
}

// The catalog for a cached preview, or null: no catalog in use, a tensor
// without a single stored crc (partitioned), or a catalog that cannot be
// opened. The cache is an accelerator; without it the figure is computed.
std::unique_ptr<Catalog> cacheFor(const PreviewSource& source) {
    if (!source.snapshot || !source.info || !tensorIdentity(*source.info)) return nullptr;
    return sideCatalog(source.catalogPath);
}

}  // namespace

StatsResult computeTensorStats(const std::shared_ptr<const Tensor>& tensor, const PreviewSource& source) {
    StatsResult out;
    if (auto catalog = cacheFor(source)) {
        auto cached = cachedStats(catalog.get(), source.snapshot->checkpoint->bundle(), *source.info);
        if (cached.ok()) {
            out.stats = std::move(cached->value);
            out.fromCache = cached->fromCache;
            return out;
        }
    }
    // No cache, or it failed: the values at hand, as without a catalog.
    auto stats = computeStats(TensorView::of(*tensor));
    if (stats) out.stats = std::move(stats).value();
    else out.error = errorText(stats.status());
    return out;
}

HistogramResult computeTensorHistogram(const std::shared_ptr<const Tensor>& tensor, int bins, const PreviewSource& source) {
    HistogramResult out;
    HistogramRequest request;
    request.bins = bins;
    if (auto catalog = cacheFor(source)) {
        auto cached = cachedHistogram(catalog.get(), source.snapshot->checkpoint->bundle(), *source.info, request);
        if (cached.ok()) {
            out.histogram = std::move(cached->value);
            out.fromCache = cached->fromCache;
            return out;
        }
    }
    auto histogram = computeHistogram(TensorView::of(*tensor), request);
    if (histogram) out.histogram = std::move(histogram).value();
    else out.error = errorText(histogram.status());
    return out;
}

HeatmapResult renderTensorHeatmap(const std::shared_ptr<const Tensor>& tensor, const HeatmapRequest& request) {
    HeatmapResult out;
    auto heatmap = renderHeatmap(TensorView::of(*tensor), request);
    if (!heatmap) {
        out.error = errorText(heatmap.status());
        return out;
    }
    out.heatmap = std::move(heatmap).value();
    out.image = toImage(*out.heatmap);
    out.colorbar = colormapRamp(out.heatmap->colormap);
    return out;
}

}  // namespace ckpt::ui

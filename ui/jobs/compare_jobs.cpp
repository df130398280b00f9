#include "jobs/compare_jobs.h"

#include <algorithm>
#include <cmath>

#include "ckpt/catalog_cache.h"
#include "ckpt/tensor_diff.h"
#include "jobs/catalog_jobs.h"
#include "jobs/checkpoint_jobs.h"
#include "jobs/shared_tensor.h"
#include "models/diff_filter.h"

namespace ckpt::ui {
namespace {

QString errorText(const Status& status) { return QString::fromStdString(status.toString()); }

// Reads one side's value by its key; null when that side lacks it.
std::shared_ptr<const Tensor> readSide(const std::shared_ptr<const Checkpoint>& checkpoint, const std::optional<DiffSide>& side,
                                       const char* which, QString* error) {
    if (!side || side->key.empty()) return nullptr;
    const TensorInfo* info = checkpoint->bundle().find(side->key);
    if (!info) {
        *error = QStringLiteral("%1: NotFound: no tensor \"%2\" in %3")
                     .arg(QLatin1String(which), QString::fromStdString(side->key), QString::fromStdString(checkpoint->prefix()));
        return nullptr;
    }
    if (!isDecodable(info->dtype)) return nullptr;
    TensorResult r = readTensor(checkpoint, info);
    if (!r.tensor) *error = QStringLiteral("%1: %2").arg(QLatin1String(which), r.error);
    return r.tensor;
}

}  // namespace

CompareResult compareCheckpoints(const QString& pathA, const QString& pathB, const QString& catalogPath,
                                 const std::shared_ptr<JobControl>& job) {
    CompareResult out;
    auto pair = openCheckpointPair(pathA.toStdString(), pathB.toStdString());
    if (!pair) {
        out.error = errorText(pair.status());
        return out;
    }
    DiffOptions options;
    options.cancel = &job->token();
    options.progress = JobControl::sinkFor(job);
    const std::unique_ptr<Catalog> catalog = sideCatalog(catalogPath);
    std::optional<CatalogDiffCache> figures;
    if (catalog) options.figures = &figures.emplace(*catalog);
    auto diff = diffCheckpoints(*pair->a, *pair->b, options);
    if (!diff) {
        out.cancelled = diff.status().code() == StatusCode::Cancelled;
        if (!out.cancelled) out.error = errorText(diff.status());
        return out;
    }
    auto snapshot = std::make_shared<CompareSnapshot>();
    snapshot->a = std::move(pair->a);
    snapshot->b = std::move(pair->b);
    snapshot->diff = std::move(*diff);
    snapshot->tree = buildDiffTree(snapshot->diff, {.includeUnchanged = true});
    snapshot->changedOnly = computeDiffVisibleSet(*snapshot, {false, QString(), false});
    out.snapshot = std::move(snapshot);
    return out;
}

PairValues readPairValues(const std::shared_ptr<const CompareSnapshot>& snapshot, int32_t node) {
    PairValues out;
    const DiffEntry* e = snapshot->entry(node);
    if (!e || e->role == DiffRole::Object) return out;
    out.a = readSide(snapshot->a, e->a, "A", &out.error);
    if (!out.error.isEmpty()) return out;
    out.b = readSide(snapshot->b, e->b, "B", &out.error);
    if (!out.error.isEmpty() || !out.a || !out.b) return out;
    if (out.a->dtype != out.b->dtype || !(out.a->shape == out.b->shape)) return out;
    auto diff = absoluteDifference(TensorView::of(*out.a), TensorView::of(*out.b));
    if (diff) out.absDiff = shareTensor(std::move(*diff));
    else out.diffError = errorText(diff.status());
    return out;
}

PairHeatmaps renderPairHeatmaps(const PairValues& values, const HeatmapRequest& request) {
    PairHeatmaps out;
    const bool sameShape = values.a && values.b && values.a->shape == values.b->shape;
    HeatmapRequest sides = request;
    if (!sameShape && values.a && values.b) {
        sides.axes.reset();
        sides.fixedIndices.clear();
    }
    if (values.a) out.a = renderTensorHeatmap(values.a, sides);
    if (values.b) out.b = renderTensorHeatmap(values.b, sides);
    if (out.a.heatmap && out.b.heatmap) {
        const double lo = std::min(out.a.heatmap->lo, out.b.heatmap->lo);
        const double hi = std::max(out.a.heatmap->hi, out.b.heatmap->hi);
        if (std::isfinite(lo) && std::isfinite(hi) && lo < hi) {
            sides.lo = lo;
            sides.hi = hi;
            out.a = renderTensorHeatmap(values.a, sides);
            out.b = renderTensorHeatmap(values.b, sides);
            // As drawn: a diverging map centres the union on zero.
            if (out.a.heatmap) out.sharedRange = std::make_pair(out.a.heatmap->lo, out.a.heatmap->hi);
        }
    }
    if (values.absDiff) {
        HeatmapRequest diff = request;
        diff.colormap = "magma";  // non-negative: a sequential map, dark where nothing moved
        out.diff = renderTensorHeatmap(values.absDiff, diff);
    }
    return out;
}

PairHistograms computePairHistograms(const PairValues& values, int bins) {
    PairHistograms out;
    HistogramRequest request;
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& t : {values.a, values.b}) {
        if (!t) continue;
        auto stats = computeStats(TensorView::of(*t));
        if (!stats) {
            out.error = errorText(stats.status());
            return out;
        }
        if (stats->finiteCount > 0) {
            lo = std::min(lo, stats->min);
            hi = std::max(hi, stats->max);
        }
    }
    request.bins = bins;
    if (lo <= hi) {
        request.lo = lo;
        request.hi = hi;
    }
    if (values.a) {
        auto h = computeHistogram(TensorView::of(*values.a), request);
        if (!h) {
            out.error = errorText(h.status());
            return out;
        }
        out.a = std::move(*h);
    }
    if (values.b) {
        auto h = computeHistogram(TensorView::of(*values.b), request);
        if (!h) {
            out.error = errorText(h.status());
            return out;
        }
        out.b = std::move(*h);
    }
    return out;
}

}  // namespace ckpt::ui

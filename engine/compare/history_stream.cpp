// streamTensors: see compare/history_stream.h.

#include "compare/history_stream.h"

#include <algorithm>

#include "ckpt/tensor_diff.h"
#include "compare/pair_kernel.h"
#include "format/bundle_reader_access.h"
#include "format/region_read.h"
#include "format/region_scan.h"
#include "preview/preview_backend.h"

namespace ckpt::compare {
namespace {

// Small enough that two windows stay in L2 between tensors; a whole number
// of tiles (preview), of pair blocks and of 16 MiB diff parts for every
// element size, so the figures split exactly as the whole-tensor passes do.
constexpr uint64_t kWindowBytes = 256u << 10;
static_assert(format::kStreamChunkBytes % kWindowBytes == 0 && format::kRegionPartBytes % kWindowBytes == 0);

}  // namespace

bool canStream(const TensorInfo& info) {
    if (info.isPartitioned() || !isFixedSize(info.dtype) || !isDecodable(info.dtype) || info.region.size <= 0) return false;
    if (!preview::elementKindOf(info.dtype).ok()) return false;
    const auto n = info.shape.numElements();
    return n && *n * static_cast<int64_t>(dataTypeSize(info.dtype)) == info.region.size;
}

Status streamTensors(std::span<const StreamedTensor> tensors, const CancellationToken* cancel,
                     const std::function<void(int64_t)>& progress, std::vector<StreamedFigures>& figures) {
    figures.assign(tensors.size(), {});
    if (tensors.empty()) return okStatus();
    const TensorInfo& first = *tensors.front().info;
    CKPT_ASSIGN_OR_RETURN(const preview::ElementKind kind, preview::elementKindOf(first.dtype));
    const auto elementSize = static_cast<uint64_t>(preview::elementSize(kind));
    const auto size = static_cast<uint64_t>(first.region.size);
    const ResolvedTolerance tolerance = toleranceFor(first.dtype, {});

    const size_t n = tensors.size();
    std::vector<format::RegionStream> streams(n);
    std::vector<preview::StatsStream> stats;
    std::vector<PairPartial> whole(n), part(n);
    std::vector<std::span<const uint8_t>> windows(n);
    stats.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const StreamedTensor& t = tensors[i];
        if (!canStream(*t.info) || t.info->dtype != first.dtype || t.info->region.size != first.region.size ||
            t.previous >= static_cast<int>(i))
            return invalidArgument("tensors streamed together need one fixed-size dtype and size, previous ones first");
        auto file = format::shardFile(t.checkpoint->bundle(), t.info->region.shardId);
        if (!file.ok()) return file.status().withContext(t.checkpoint->prefix());
        auto stream = format::RegionStream::open({*file, t.info->key, t.info->region, nullptr, {}}, t.figures);
        if (!stream.ok()) return stream.status().withContext(t.checkpoint->prefix());
        streams[i] = std::move(*stream);
        stats.emplace_back(kind);
    }
    // Diff parts fold in order, as diffTensors folds them.
    auto foldPart = [&](size_t i, bool firstPart) {
        if (firstPart) whole[i] = std::move(part[i]);
        else mergePartials(whole[i], std::move(part[i]), 0);
        part[i] = {};
    };
    for (uint64_t offset = 0; offset < size; offset += kWindowBytes) {
        if (cancel && cancel->isCancelled()) return cancelled("history cancelled");
        const uint64_t length = std::min(kWindowBytes, size - offset);
        const bool newPart = offset > 0 && offset % format::kRegionPartBytes == 0;
        for (size_t i = 0; i < n; ++i) {
            const StreamedTensor& t = tensors[i];
            auto window = streams[i].next(length);
            if (!window.ok()) return window.status().withContext(t.checkpoint->prefix());
            windows[i] = *window;
            if (!t.figures) continue;
            const auto count = static_cast<int64_t>(length / elementSize);
            stats[i].add(windows[i].data(), count);
            if (t.previous >= 0) {
                if (newPart) foldPart(i, offset == format::kRegionPartBytes);
                const PairRun run{kind, windows[static_cast<size_t>(t.previous)].data(), windows[i].data(),
                                  static_cast<int64_t>(offset / elementSize), count};
                accumulateSums(run, tolerance, part[i]);
            }
            if (progress) progress(static_cast<int64_t>(length));
        }
    }
    const auto elements = static_cast<int64_t>(size / elementSize);
    for (size_t i = 0; i < n; ++i) {
        const StreamedTensor& t = tensors[i];
        if (Status s = streams[i].finish(); !s.isOk()) return s.withContext(t.checkpoint->prefix());
        if (!t.figures) continue;
        StreamedFigures& f = figures[i];
        f.stats.count = elements;
        f.stats.complexMagnitude = isComplex(first.dtype);
        f.stats.computedOn.device = "cpu";
        preview::fillStats(stats[i].merged(), stats[i].extremes(), f.stats);
        if (t.previous < 0) continue;
        foldPart(i, size <= format::kRegionPartBytes);
        const TensorDiff d = finishDiff(std::move(whole[i]), tolerance, false);
        f.compared = true;
        f.normPrevious = d.normA;
        f.relChange = d.relL2;
    }
    return okStatus();
}

}  // namespace ckpt::compare

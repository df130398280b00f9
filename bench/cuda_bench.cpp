// runCudaBench: see cuda_bench.h.

#include "cuda_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "preview/cuda/cuda_backend.h"
#include "preview/cuda/cuda_check.h"
#include "preview/cuda/preview_kernels.h"

namespace ckpt::preview::cuda {
namespace {

// Best time in seconds of 'reps' runs of fn on 'stream', timed with events.
template <typename Fn>
Result<double> timeOnDevice(int reps, cudaStream_t stream, Fn&& fn) {
    Event start, stop;
    CKPT_RETURN_IF_ERROR(start.create(true));
    CKPT_RETURN_IF_ERROR(stop.create(true));
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        CKPT_CUDA_RETURN_IF_ERROR(cudaEventRecord(start.get(), stream));
        CKPT_CUDA_RETURN_IF_ERROR(fn());
        CKPT_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop.get(), stream));
        CKPT_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(stop.get()));
        float ms = 0;
        CKPT_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start.get(), stop.get()));
        best = std::min(best, ms / 1e3);
    }
    return best;
}

}  // namespace

Result<CudaBenchReport> runCudaBench(int64_t bytes, int reps) {
    CKPT_ASSIGN_OR_RETURN(auto backend, CudaBackend::create());
    CudaBenchReport rep;
    rep.device = backend->deviceName();
    const int64_t n = bytes / 4;
    rep.bytes = static_cast<double>(n) * 4;
    int clockKHz = 0, busBits = 0;
    if (cudaDeviceGetAttribute(&clockKHz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
        cudaDeviceGetAttribute(&busBits, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess) {
        rep.peakGBs = 2.0 * clockKHz * 1e3 * (busBits / 8.0) / 1e9;
    }
    (void)cudaGetLastError();

    std::vector<float> host(static_cast<size_t>(n));
    std::mt19937 rng(7);
    std::normal_distribution<float> d(0.1f, 1.0f);
    for (float& x : host) x = d(rng);
    PinnedBuffer pinned;
    CKPT_RETURN_IF_ERROR(pinned.allocate(static_cast<size_t>(rep.bytes)));
    std::memcpy(pinned.get(), host.data(), static_cast<size_t>(rep.bytes));

    DeviceBuffer d_data, d_copy, d_tiles, d_ext, d_counts, d_edges, d_sum;
    CKPT_RETURN_IF_ERROR(d_data.allocate(static_cast<size_t>(rep.bytes)));
    CKPT_RETURN_IF_ERROR(d_copy.allocate(static_cast<size_t>(rep.bytes)));
    CKPT_RETURN_IF_ERROR(d_tiles.allocate(static_cast<size_t>(tileCount(n)) * sizeof(TilePartial)));
    CKPT_RETURN_IF_ERROR(d_ext.allocate(kStatsBlocks * sizeof(BlockExtremes)));
    CKPT_RETURN_IF_ERROR(d_counts.allocate((64 + 3) * sizeof(unsigned long long)));
    CKPT_RETURN_IF_ERROR(d_sum.allocate(sizeof(double)));
    Stream stream;
    CKPT_RETURN_IF_ERROR(stream.create());
    cudaStream_t s = stream.get();

    CKPT_ASSIGN_OR_RETURN(double h2d, timeOnDevice(reps, s, [&] {
                              return cudaMemcpyAsync(d_data.get(), pinned.get(), static_cast<size_t>(rep.bytes),
                                                     cudaMemcpyHostToDevice, s);
                          }));
    rep.h2dPinnedGBs = rep.bytes / h2d / 1e9;
    CKPT_ASSIGN_OR_RETURN(double d2d, timeOnDevice(reps, s, [&] {
                              return cudaMemcpyAsync(d_copy.get(), d_data.get(), static_cast<size_t>(rep.bytes),
                                                     cudaMemcpyDeviceToDevice, s);
                          }));
    rep.d2dCopyGBs = 2 * rep.bytes / d2d / 1e9;
    CKPT_ASSIGN_OR_RETURN(double sum,
                          timeOnDevice(reps, s, [&] { return launchSumFloats(d_data.get<float>(), n, d_sum.get<double>(), s); }));
    rep.sumKernelGBs = rep.bytes / sum / 1e9;
    CKPT_CUDA_RETURN_IF_ERROR(launchResetExtremes(d_ext.get<BlockExtremes>(), s));
    CKPT_ASSIGN_OR_RETURN(double stats, timeOnDevice(reps, s, [&] {
                              return launchStats(ElementKind::F32, d_data.get(), n, d_tiles.get<TilePartial>(),
                                                 d_ext.get<BlockExtremes>(), s);
                          }));
    rep.statsKernelGBs = rep.bytes / stats / 1e9;
    const HistogramSpec spec = makeHistogramSpec(-5.0, 5.0, 64);
    CKPT_RETURN_IF_ERROR(d_edges.allocate(spec.edges.size() * sizeof(double)));
    CKPT_CUDA_RETURN_IF_ERROR(cudaMemcpy(d_edges.get(), spec.edges.data(), d_edges.bytes(), cudaMemcpyHostToDevice));
    CKPT_ASSIGN_OR_RETURN(double hist, timeOnDevice(reps, s, [&] {
                              return launchHistogram(ElementKind::F32, d_data.get(), n, spec.lo, spec.hi, spec.width,
                                                     d_edges.get<double>(), spec.bins, d_counts.get<unsigned long long>(), s);
                          }));
    rep.histogramKernelGBs = rep.bytes / hist / 1e9;

    using Clock = std::chrono::steady_clock;
    std::vector<TilePartial> tiles, cpuTiles;
    Extremes ex, cpuEx;
    double bestPinned = 1e30, bestPageable = 1e30;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        CKPT_RETURN_IF_ERROR(backend->stats({ElementKind::F32, pinned.get<unsigned char>(), n}, tiles, ex));
        auto t1 = Clock::now();
        CKPT_RETURN_IF_ERROR(
            backend->stats({ElementKind::F32, reinterpret_cast<const unsigned char*>(host.data()), n}, tiles, ex));
        auto t2 = Clock::now();
        bestPinned = std::min(bestPinned, std::chrono::duration<double>(t1 - t0).count());
        bestPageable = std::min(bestPageable, std::chrono::duration<double>(t2 - t1).count());
    }
    rep.endToEndPinnedGBs = rep.bytes / bestPinned / 1e9;
    rep.endToEndPageableGBs = rep.bytes / bestPageable / 1e9;
    auto cpu = makeCpuBackend(0);
    CKPT_RETURN_IF_ERROR(cpu->stats({ElementKind::F32, reinterpret_cast<const unsigned char*>(host.data()), n}, cpuTiles, cpuEx));
    rep.extremesEqualCpu = ex.min == cpuEx.min && ex.max == cpuEx.max && ex.finite == cpuEx.finite && ex.zeros == cpuEx.zeros &&
                           tiles.size() == cpuTiles.size();
    // Means are compared on the scale of the tile's spread: a mean near
    // zero has no meaningful relative error.
    for (size_t t = 0; rep.extremesEqualCpu && t < tiles.size(); ++t) {
        const TilePartial& g = tiles[t];
        const TilePartial& c = cpuTiles[t];
        const double spread = std::sqrt(c.m2 / static_cast<double>(std::max<int64_t>(c.n, 1)));
        const double meanScale = std::max(std::fabs(c.mean), spread);
        if (meanScale > 0) rep.maxRelativeDiffToCpu = std::max(rep.maxRelativeDiffToCpu, std::fabs(g.mean - c.mean) / meanScale);
        if (c.m2 > 0) rep.maxRelativeDiffToCpu = std::max(rep.maxRelativeDiffToCpu, std::fabs(g.m2 - c.m2) / c.m2);
    }
    return rep;
}

}  // namespace ckpt::preview::cuda

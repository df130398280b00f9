// CUDA kernels for the preview passes. The stats kernel follows the tile
// layout and reduction tree of preview_element.h exactly (built with
// -fmad=false), so its partials are bit-identical to CpuBackend's generic
// tiles (its float32 fast path differs in the last bits, see cpu_f32.cpp).

#include "preview/cuda/preview_kernels.h"

#include <cmath>

namespace ckpt::preview::cuda {
namespace {

constexpr int kWarps = kTileLanes / kWarp;

__device__ __forceinline__ double warpSum(double v) {
    for (int off = kWarp / 2; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

// The tile's reduction tree over the block; the result is valid in every
// thread. 'shared' (kWarps + 1 doubles) may be reused once another
// reduction with its own buffer has run in between: that one's barriers
// order the reads of this one's total before the next writes to it.
__device__ double blockTreeSum(double v, double* shared) {
    v = warpSum(v);
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    if (warp == 0) {
        double w = lane < kWarps ? shared[lane] : 0.0;
        for (int off = kWarps / 2; off > 0; off >>= 1) w += __shfl_down_sync(0xffffffffu, w, off);
        if (lane == 0) shared[kWarps] = w;
    }
    __syncthreads();
    return shared[kWarps];
}

// A tile's finite values are counted exactly in any order, so the count
// rides on integer warp reductions instead of a tree of its own.
__device__ unsigned blockCount(unsigned c, unsigned* shared) {
    c = __reduce_add_sync(0xffffffffu, c);
    if (threadIdx.x % kWarp == 0) shared[threadIdx.x / kWarp] = c;
    return c;  // shared is read after the next barrier
}

template <ElementKind K>
constexpr int64_t kElementBytes =
    K == ElementKind::C128                                                                                ? 16
    : (K == ElementKind::F64 || K == ElementKind::I64 || K == ElementKind::U64 || K == ElementKind::C64)  ? 8
    : (K == ElementKind::F32 || K == ElementKind::I32 || K == ElementKind::U32)                           ? 4
    : (K == ElementKind::F16 || K == ElementKind::BF16 || K == ElementKind::I16 || K == ElementKind::U16) ? 2
                                                                                                          : 1;

struct LaneCounts {
    double min = INFINITY, max = -INFINITY;
    unsigned zeros = 0, nans = 0, posInfs = 0, negInfs = 0;
};

// A lane's items of one tile ('rest' elements of it exist; kFull: all of
// them, so no bounds check and 32-bit offsets): the sum of its finite
// values in item order, their count, and the order-free counts.
template <ElementKind K, bool kFull>
__device__ __forceinline__ double laneSum(const unsigned char* tile, int rest, unsigned& finite, LaneCounts& lc) {
    double s = 0;
#pragma unroll
    for (int j = 0; j < kTileItems; ++j) {
        const int e = j * kTileLanes + static_cast<int>(threadIdx.x);
        const bool in = kFull || e < rest;
        const double x = in ? loadElement<K>(tile, e) : 0.0;
        const bool fin = in && isFiniteValue(x);
        s += fin ? x : 0.0;
        finite += fin ? 1u : 0u;
        lc.min = (fin && x < lc.min) ? x : lc.min;
        lc.max = (fin && x > lc.max) ? x : lc.max;
        lc.zeros += (in && x == 0.0) ? 1u : 0u;
        lc.nans += (in && x != x) ? 1u : 0u;
        lc.posInfs += (in && x == INFINITY) ? 1u : 0u;
        lc.negInfs += (in && x == -INFINITY) ? 1u : 0u;
    }
    return s;
}

// The squared deviations of the lane's finite items from 'mean', in order.
template <ElementKind K, bool kFull>
__device__ __forceinline__ double laneSquares(const unsigned char* tile, int rest, double mean) {
    double q = 0;
#pragma unroll
    for (int j = 0; j < kTileItems; ++j) {
        const int e = j * kTileLanes + static_cast<int>(threadIdx.x);
        const double x = (kFull || e < rest) ? loadElement<K>(tile, e) : NAN;
        const double d = isFiniteValue(x) ? x - mean : 0.0;
        q += d * d;
    }
    return q;
}

// Two passes per tile, as CpuBackend's generic tile: the sum of the finite
// values in the tile's tree order, then the squared deviations from the
// tile's mean in the same order. The second pass reloads the tile (it is
// in L1 by then) rather than keeping 16 doubles a thread in registers.
// Whole tiles skip the bounds checks (all but the last of a chunk).
template <ElementKind K>
__global__ void __launch_bounds__(kTileLanes, 4)
    statsKernel(const unsigned char* data, int64_t count, TilePartial* tiles, BlockExtremes* extremes) {
    __shared__ double sumShared[kWarps + 1], m2Shared[kWarps + 1];
    __shared__ unsigned countShared[kWarps];
    const int64_t ntiles = (count + kTileElements - 1) / kTileElements;
    LaneCounts lc;
    // A thread sees count / 2^18 elements of a launch and a block count / 2^10:
    // 32 bits overflow only past 2^42 elements in one chunk.
    unsigned finite = 0;
    for (int64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const int64_t first = t * kTileElements;
        const unsigned char* tile = data + first * kElementBytes<K>;
        const bool full = count - first >= kTileElements;
        const int rest = full ? static_cast<int>(kTileElements) : static_cast<int>(count - first);
        unsigned c = 0;
        const double s = full ? laneSum<K, true>(tile, rest, c, lc) : laneSum<K, false>(tile, rest, c, lc);
        finite += c;
        blockCount(c, countShared);
        const double sum = blockTreeSum(s, sumShared);  // its barriers publish countShared too
        unsigned n = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) n += countShared[w];
        const double mean = n > 0 ? sum / static_cast<double>(n) : 0.0;
        const double q = full ? laneSquares<K, true>(tile, rest, mean) : laneSquares<K, false>(tile, rest, mean);
        const double m2 = blockTreeSum(q, m2Shared);  // also orders this tile's countShared reads before the next writes
        if (threadIdx.x == 0) tiles[t] = TilePartial{mean, m2, static_cast<int64_t>(n)};
    }
    const double mn = lc.min, mx = lc.max;
    const unsigned zeros = lc.zeros, nans = lc.nans, pinf = lc.posInfs, ninf = lc.negInfs;
    // Block totals: order-free (min/max/integer sums), any tree will do.
    __shared__ double smin[kTileLanes], smax[kTileLanes];
    __shared__ unsigned scount[5][kTileLanes];
    smin[threadIdx.x] = mn;
    smax[threadIdx.x] = mx;
    scount[0][threadIdx.x] = finite;
    scount[1][threadIdx.x] = zeros;
    scount[2][threadIdx.x] = nans;
    scount[3][threadIdx.x] = pinf;
    scount[4][threadIdx.x] = ninf;
    __syncthreads();
    for (int s = kTileLanes / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            smin[threadIdx.x] = fmin(smin[threadIdx.x], smin[threadIdx.x + s]);
            smax[threadIdx.x] = fmax(smax[threadIdx.x], smax[threadIdx.x + s]);
            for (int k = 0; k < 5; ++k) scount[k][threadIdx.x] += scount[k][threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        BlockExtremes& b = extremes[blockIdx.x];
        b.finite += scount[0][0];
        b.zeros += scount[1][0];
        b.nans += scount[2][0];
        b.posInfs += scount[3][0];
        b.negInfs += scount[4][0];
        b.min = fmin(b.min, smin[0]);
        b.max = fmax(b.max, smax[0]);
    }
}

__global__ void resetExtremesKernel(BlockExtremes* extremes) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < kStatsBlocks) extremes[i] = BlockExtremes{0, 0, 0, 0, 0, INFINITY, -INFINITY};
}

template <ElementKind K>
__global__ void histogramKernel(const unsigned char* data, int64_t count, double lo, double hi, double width,
                                const double* __restrict__ edges, int bins, unsigned long long* counts) {
    extern __shared__ unsigned int hist[];  // bins + 3
    for (int b = threadIdx.x; b < bins + 3; b += blockDim.x) hist[b] = 0;
    __syncthreads();
    const int64_t stride = int64_t{gridDim.x} * blockDim.x;
    for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
        const double x = loadElement<K>(data, i);
        int slot;
        if (x >= lo && x <= hi) slot = histogramBin(x, lo, width, edges, bins);
        else if (x < lo) slot = bins;
        else if (x > hi) slot = bins + 1;
        else slot = bins + 2;
        atomicAdd(&hist[slot], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < bins + 3; b += blockDim.x) {
        if (hist[b]) atomicAdd(&counts[b], static_cast<unsigned long long>(hist[b]));
    }
}

__global__ void sumFloatsKernel(const float* __restrict__ data, int64_t count, double* out) {
    double s = 0;
    const int64_t stride = int64_t{gridDim.x} * blockDim.x * 4;
    const int64_t n4 = count / 4;
    const float4* d4 = reinterpret_cast<const float4*>(data);
    for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n4; i += stride / 4) {
        const float4 v = d4[i];
        s += static_cast<double>(v.x) + v.y + v.z + v.w;
    }
    s = warpSum(s);
    if (threadIdx.x % kWarp == 0) atomicAdd(out, s);
}

// C++17 (CMake 3.25 cannot ask nvcc for C++20): Fn is a class template
// with a static run(args...) per kind.
template <template <ElementKind> class Fn, typename... Args>
cudaError_t withKind(ElementKind kind, Args... args) {
    switch (kind) {
    case ElementKind::F32: return Fn<ElementKind::F32>::run(args...);
    case ElementKind::F64: return Fn<ElementKind::F64>::run(args...);
    case ElementKind::F16: return Fn<ElementKind::F16>::run(args...);
    case ElementKind::BF16: return Fn<ElementKind::BF16>::run(args...);
    case ElementKind::I8: return Fn<ElementKind::I8>::run(args...);
    case ElementKind::I16: return Fn<ElementKind::I16>::run(args...);
    case ElementKind::I32: return Fn<ElementKind::I32>::run(args...);
    case ElementKind::I64: return Fn<ElementKind::I64>::run(args...);
    case ElementKind::U8: return Fn<ElementKind::U8>::run(args...);
    case ElementKind::U16: return Fn<ElementKind::U16>::run(args...);
    case ElementKind::U32: return Fn<ElementKind::U32>::run(args...);
    case ElementKind::U64: return Fn<ElementKind::U64>::run(args...);
    case ElementKind::Bool: return Fn<ElementKind::Bool>::run(args...);
    case ElementKind::C64: return Fn<ElementKind::C64>::run(args...);
    case ElementKind::C128: return Fn<ElementKind::C128>::run(args...);
    }
    return cudaErrorInvalidValue;
}

template <ElementKind K>
struct StatsLaunch {
    static cudaError_t run(const void* d_data, int64_t count, TilePartial* d_tiles, BlockExtremes* d_extremes,
                           cudaStream_t stream) {
        statsKernel<K>
            <<<kStatsBlocks, kTileLanes, 0, stream>>>(static_cast<const unsigned char*>(d_data), count, d_tiles, d_extremes);
        return cudaGetLastError();
    }
};

template <ElementKind K>
struct HistogramLaunch {
    static cudaError_t run(const void* d_data, int64_t count, double lo, double hi, double width, const double* d_edges, int bins,
                           unsigned long long* d_counts, cudaStream_t stream) {
        const int threads = 512;
        const int64_t wanted = (count + threads - 1) / threads;
        const int blocks = static_cast<int>(wanted < 2048 ? wanted : 2048);
        const size_t shared = (static_cast<size_t>(bins) + 3) * sizeof(unsigned int);
        histogramKernel<K><<<blocks, threads, shared, stream>>>(static_cast<const unsigned char*>(d_data), count, lo, hi, width,
                                                                d_edges, bins, d_counts);
        return cudaGetLastError();
    }
};

}  // namespace

cudaError_t launchResetExtremes(BlockExtremes* d_extremes, cudaStream_t stream) {
    resetExtremesKernel<<<(kStatsBlocks + 255) / 256, 256, 0, stream>>>(d_extremes);
    return cudaGetLastError();
}

cudaError_t launchStats(ElementKind kind, const void* d_data, int64_t count, TilePartial* d_tiles, BlockExtremes* d_extremes,
                        cudaStream_t stream) {
    if (count == 0) return cudaSuccess;
    return withKind<StatsLaunch>(kind, d_data, count, d_tiles, d_extremes, stream);
}

cudaError_t launchHistogram(ElementKind kind, const void* d_data, int64_t count, double lo, double hi, double width,
                            const double* d_edges, int bins, unsigned long long* d_counts, cudaStream_t stream) {
    if (count == 0) return cudaSuccess;
    return withKind<HistogramLaunch>(kind, d_data, count, lo, hi, width, d_edges, bins, d_counts, stream);
}

cudaError_t launchSumFloats(const float* d_data, int64_t count, double* d_out, cudaStream_t stream) {
    sumFloatsKernel<<<2048, 256, 0, stream>>>(d_data, count, d_out);
    return cudaGetLastError();
}

}  // namespace ckpt::preview::cuda

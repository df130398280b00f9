#pragma once
// Launchers for the preview kernels (preview_kernels.cu). All work on one
// chunk of elements already in device memory, asynchronously on 'stream'.

#include <cuda_runtime.h>

#include <cstdint>

#include "preview/preview_element.h"

namespace ckpt::preview::cuda {

// Per-block running totals; merged on the host (exact, order-free).
struct BlockExtremes {
    long long finite, zeros, nans, posInfs, negInfs;
    double min, max;  // +inf / -inf when no finite value yet
};

inline constexpr int kStatsBlocks = 1024;  // blocks of kTileLanes threads, grid-stride over tiles

// Resets kStatsBlocks records of 'extremes'.
cudaError_t launchResetExtremes(BlockExtremes* d_extremes, cudaStream_t stream);

// Tiles of d_data[0, count) (count a multiple of kTileElements except for
// the tensor's last chunk): d_tiles[t] for each tile t of the chunk, and
// folds the chunk into d_extremes[block].
cudaError_t launchStats(ElementKind kind, const void* d_data, int64_t count, TilePartial* d_tiles, BlockExtremes* d_extremes,
                        cudaStream_t stream);

// Adds the chunk's bin counts into d_counts[bins + 3] (bins, then below,
// above, nan). d_edges holds bins + 1 edges.
cudaError_t launchHistogram(ElementKind kind, const void* d_data, int64_t count, double lo, double hi, double width,
                            const double* d_edges, int bins, unsigned long long* d_counts, cudaStream_t stream);

// Plain read-only sum of 'count' floats into *d_out (a bandwidth yardstick).
cudaError_t launchSumFloats(const float* d_data, int64_t count, double* d_out, cudaStream_t stream);

}  // namespace ckpt::preview::cuda

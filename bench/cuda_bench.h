#pragma once
// Figures for bench/bench_preview_cuda (issue 5): kernel throughput on data
// already on the device against the device's memory bandwidth, and the
// end-to-end preview from host memory against pinned H2D bandwidth.
// No CUDA types here; it lives with the benchmark, outside the engine.

#include <cstdint>
#include <string>

#include "ckpt/status.h"

namespace ckpt::preview::cuda {

struct CudaBenchReport {
    std::string device;
    double bytes = 0;
    double peakGBs = 0;              // 2 x memory clock x bus width (attributes)
    double d2dCopyGBs = 0;           // cudaMemcpy device->device, read + write bytes
    double sumKernelGBs = 0;         // plain float sum kernel
    double statsKernelGBs = 0;       // preview stats kernel, data on device
    double histogramKernelGBs = 0;   // preview histogram kernel (64 bins), data on device
    double h2dPinnedGBs = 0;         // cudaMemcpy from pinned host memory
    double endToEndPinnedGBs = 0;    // CudaBackend::stats from a pinned host buffer
    double endToEndPageableGBs = 0;  // CudaBackend::stats from ordinary host memory
    // Stats of this buffer against CpuBackend: min/max/counts must be equal,
    // tile means and M2 within 1e-9 relative (CPU float32 tiles are one-pass).
    bool extremesEqualCpu = false;
    double maxRelativeDiffToCpu = 0;
};

// float32 buffer of 'bytes'; best of 'reps' for each figure.
Result<CudaBenchReport> runCudaBench(int64_t bytes, int reps);

}  // namespace ckpt::preview::cuda

#pragma once
// Where PreviewDevice::Auto runs a pass: the device a model of both paths,
// from rates measured on real machines (docs/benchmarks.md), says
// finishes first. Never "the GPU when there is one": a CUDA context costs a
// few tenths of a second to start and every byte crosses PCIe, while the
// CPU path streams at a few GB/s per core, so small tensors, or a machine
// with many cores, stay on the CPU.

#include <cstddef>
#include <cstdint>
#include <string>

namespace ckpt::preview {

// The rates are explained in docs/benchmarks.md, "GPU, 2026-11-27: no
// device, what was done without one" (an H200 host with 16 cores, and this
// project's 2-core machine).
struct DeviceModel {
    // CPU statistics of float32: 63.2 GB/s on 16 threads, 9.4 GB/s on 2.
    double cpuBytesPerSecondPerThread = 4.0e9;
    // ckpt stats of a 512 MiB tensor took 0.85-0.92 s with --device cuda
    // against 0.48-0.65 s on the CPU; less the copy, about 0.3 s is the
    // driver and context start.
    double cudaStartSeconds = 0.30;
    // CudaBackend::stats from pageable host memory (staging and copy
    // included), 1 GiB: 8.0 GB/s.
    double cudaBytesPerSecond = 8.0e9;
};

struct DeviceEstimate {
    double cpuSeconds = 0;
    double cudaSeconds = 0;
    bool cuda = false;
    std::string summary;  // "cpu ~0.012 s on 2 threads, cuda ~0.31 s (0.30 s to start)"
};

// One pass over 'bytes' of elements; cudaStarted: this process has a
// usable CUDA context already, so the start costs nothing.
DeviceEstimate estimateDevices(int64_t bytes, size_t cpuThreads, bool cudaStarted, const DeviceModel& model = {});

}  // namespace ckpt::preview

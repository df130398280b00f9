// Host glue of the CUDA preview backend: device detection, the chunked
// copy/compute pipeline, and collecting partials for preview.cpp.

#include "preview/cuda/cuda_backend.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "platform/parallel.h"
#include "preview/cuda/cuda_check.h"
#include "preview/cuda/preview_kernels.h"

namespace ckpt::preview {

Result<std::unique_ptr<PreviewBackend>> makeCudaBackend(size_t chunkBytes) {
    auto backend = cuda::CudaBackend::create();
    if (!backend) return backend.status();
    if (chunkBytes > 0) (*backend)->setChunkBytes(chunkBytes);
    return std::unique_ptr<PreviewBackend>(std::move(*backend));
}

namespace {
std::atomic<bool> g_contextStarted{false};
}  // namespace

bool cudaContextStarted() { return g_contextStarted.load(); }

std::string cudaRuntimeDescription() {
    // Versions are encoded as 1000 * major + 10 * minor.
    const auto text = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    int runtime = 0;
    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) return "unavailable";
    int driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) return text(runtime) + " (no CUDA driver)";
    return text(runtime) + " (driver " + text(driver) + ")";
}

namespace cuda {
namespace {

constexpr int kSlots = 3;

bool isPinned(const void* p) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeHost;
}

// memcpy spread over a few threads: one core cannot keep up with PCIe.
Status parallelMemcpy(void* dst, const void* src, size_t bytes) {
    const size_t kMinPerThread = size_t{4} << 20;
    const size_t threads = std::clamp<size_t>(bytes / kMinPerThread, 1, std::min<size_t>(8, platform::hardwareThreads()));
    return platform::forEachRange(static_cast<int64_t>(bytes), threads, [&](size_t, int64_t b, int64_t e) {
        std::memcpy(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b, static_cast<size_t>(e - b));
    });
}

}  // namespace

Result<std::unique_ptr<CudaBackend>> CudaBackend::create() {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        if (err == cudaErrorNoDevice) return failedPrecondition("no CUDA device");
        if (err == cudaErrorInsufficientDriver) return failedPrecondition("no CUDA driver (or one older than the runtime)");
        return failedPrecondition(std::string("CUDA unavailable: ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                                  ")");
    }
    if (count == 0) return failedPrecondition("no CUDA device");
    cudaDeviceProp prop{};
    if (const cudaError_t e = cudaGetDeviceProperties(&prop, 0); e != cudaSuccess) {
        (void)cudaGetLastError();
        return failedPrecondition(std::string("CUDA device 0 unusable: ") + cudaGetErrorName(e));
    }
    if (prop.major < 8) {
        return failedPrecondition(std::string("CUDA device ") + prop.name + " has compute capability " +
                                  std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                                  "; the kernels are built for 8.0 and newer");
    }
    if (const cudaError_t e = cudaSetDevice(0); e != cudaSuccess) {
        (void)cudaGetLastError();
        return failedPrecondition(std::string("CUDA device 0 unusable: ") + cudaGetErrorName(e));
    }
    g_contextStarted = true;
    std::unique_ptr<CudaBackend> b(new CudaBackend);
    b->m_device = 0;
    b->m_deviceName = prop.name;
    return b;
}

Status CudaBackend::streamChunks(const ElementBuffer& in,
                                 const std::function<Status(const void*, int64_t, int64_t, int, void*)>& launch, int& slotsUsed) {
    CKPT_CUDA_RETURN_IF_ERROR(cudaSetDevice(m_device));
    const int64_t esize = elementSize(in.kind);
    const int64_t chunkElems =
        std::max<int64_t>(kTileElements, static_cast<int64_t>(m_chunkBytes) / esize / kTileElements * kTileElements);
    const int64_t nchunks = std::max<int64_t>(1, (in.count + chunkElems - 1) / chunkElems);
    const int slots = static_cast<int>(std::min<int64_t>(kSlots, nchunks));
    slotsUsed = slots;
    const int64_t slotElems = std::min(chunkElems, std::max<int64_t>(in.count, 1));
    const bool pinnedSource = isPinned(in.data);

    DeviceBuffer d_chunk[kSlots];
    PinnedBuffer h_stage[kSlots];
    Stream streams[kSlots];
    Event copied[kSlots];
    for (int k = 0; k < slots; ++k) {
        CKPT_RETURN_IF_ERROR(d_chunk[k].allocate(static_cast<size_t>(slotElems * esize)));
        if (!pinnedSource) CKPT_RETURN_IF_ERROR(h_stage[k].allocate(static_cast<size_t>(slotElems * esize)));
        CKPT_RETURN_IF_ERROR(streams[k].create());
        CKPT_RETURN_IF_ERROR(copied[k].create());
    }
    for (int64_t i = 0; i < nchunks && in.count > 0; ++i) {
        const int k = static_cast<int>(i % slots);
        const int64_t first = i * chunkElems;
        const int64_t n = std::min(chunkElems, in.count - first);
        const size_t bytes = static_cast<size_t>(n * esize);
        const unsigned char* src = in.data + first * esize;
        if (!pinnedSource) {
            // The staging slot is free once its previous chunk reached the device.
            if (i >= slots) CKPT_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(copied[k].get()));
            CKPT_RETURN_IF_ERROR(parallelMemcpy(h_stage[k].get(), src, bytes));
            src = h_stage[k].get<unsigned char>();
        }
        CKPT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d_chunk[k].get(), src, bytes, cudaMemcpyHostToDevice, streams[k].get()));
        CKPT_CUDA_RETURN_IF_ERROR(cudaEventRecord(copied[k].get(), streams[k].get()));
        CKPT_RETURN_IF_ERROR(launch(d_chunk[k].get(), first, n, k, streams[k].get()));
    }
    for (int k = 0; k < slots; ++k) CKPT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(streams[k].get()));
    return okStatus();
}

Status CudaBackend::stats(const ElementBuffer& in, std::vector<TilePartial>& tiles, Extremes& extremes) {
    CKPT_CUDA_RETURN_IF_ERROR(cudaSetDevice(m_device));
    const int64_t ntiles = tileCount(in.count);
    DeviceBuffer d_tiles, d_extremes;
    CKPT_RETURN_IF_ERROR(d_tiles.allocate(static_cast<size_t>(ntiles) * sizeof(TilePartial)));
    CKPT_RETURN_IF_ERROR(d_extremes.allocate(size_t{kSlots} * kStatsBlocks * sizeof(BlockExtremes)));
    for (int k = 0; k < kSlots; ++k) {
        CKPT_CUDA_RETURN_IF_ERROR(launchResetExtremes(d_extremes.get<BlockExtremes>() + k * kStatsBlocks, nullptr));
    }
    CKPT_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
    int slots = 0;
    CKPT_RETURN_IF_ERROR(streamChunks(
        in,
        [&](const void* d_chunk, int64_t first, int64_t n, int slot, void* stream) -> Status {
            CKPT_CUDA_RETURN_IF_ERROR(launchStats(in.kind, d_chunk, n, d_tiles.get<TilePartial>() + first / kTileElements,
                                                  d_extremes.get<BlockExtremes>() + slot * kStatsBlocks,
                                                  static_cast<cudaStream_t>(stream)));
            return okStatus();
        },
        slots));
    tiles.resize(static_cast<size_t>(ntiles));
    if (ntiles > 0) {
        CKPT_CUDA_RETURN_IF_ERROR(
            cudaMemcpy(tiles.data(), d_tiles.get(), tiles.size() * sizeof(TilePartial), cudaMemcpyDeviceToHost));
    }
    std::vector<BlockExtremes> blocks(size_t{kSlots} * kStatsBlocks);
    CKPT_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(blocks.data(), d_extremes.get(), blocks.size() * sizeof(BlockExtremes), cudaMemcpyDeviceToHost));
    extremes = Extremes{};
    for (const BlockExtremes& b : blocks) {
        Extremes e;
        e.finite = b.finite;
        e.zeros = b.zeros;
        e.nans = b.nans;
        e.posInfs = b.posInfs;
        e.negInfs = b.negInfs;
        e.min = b.min;
        e.max = b.max;
        mergeExtremes(extremes, e);
    }
    return okStatus();
}

Status CudaBackend::histogram(const ElementBuffer& in, const HistogramSpec& spec, HistogramCounts& out) {
    CKPT_CUDA_RETURN_IF_ERROR(cudaSetDevice(m_device));
    const size_t slotsOut = static_cast<size_t>(spec.bins) + 3;  // bins, below, above, nan
    DeviceBuffer d_counts, d_edges;
    CKPT_RETURN_IF_ERROR(d_counts.allocate(slotsOut * sizeof(unsigned long long)));
    CKPT_RETURN_IF_ERROR(d_edges.allocate(spec.edges.size() * sizeof(double)));
    CKPT_CUDA_RETURN_IF_ERROR(cudaMemset(d_counts.get(), 0, d_counts.bytes()));
    CKPT_CUDA_RETURN_IF_ERROR(cudaMemcpy(d_edges.get(), spec.edges.data(), d_edges.bytes(), cudaMemcpyHostToDevice));
    int slots = 0;
    CKPT_RETURN_IF_ERROR(streamChunks(
        in,
        [&](const void* d_chunk, int64_t, int64_t n, int, void* stream) -> Status {
            CKPT_CUDA_RETURN_IF_ERROR(launchHistogram(in.kind, d_chunk, n, spec.lo, spec.hi, spec.width, d_edges.get<double>(),
                                                      spec.bins, d_counts.get<unsigned long long>(),
                                                      static_cast<cudaStream_t>(stream)));
            return okStatus();
        },
        slots));
    std::vector<unsigned long long> counts(slotsOut);
    CKPT_CUDA_RETURN_IF_ERROR(cudaMemcpy(counts.data(), d_counts.get(), d_counts.bytes(), cudaMemcpyDeviceToHost));
    out.counts.assign(counts.begin(), counts.begin() + spec.bins);
    out.below = static_cast<int64_t>(counts[static_cast<size_t>(spec.bins)]);
    out.above = static_cast<int64_t>(counts[static_cast<size_t>(spec.bins) + 1]);
    out.nans = static_cast<int64_t>(counts[static_cast<size_t>(spec.bins) + 2]);
    return okStatus();
}

}  // namespace cuda
}  // namespace ckpt::preview

#pragma once
// The CUDA preview backend: copies host elements to the device in chunks
// through pinned staging buffers (three slots, one stream each, so the copy
// of one chunk overlaps the kernels of the previous one and the host's
// staging memcpy of the next), then runs the kernels of preview_kernels.cu.
// Device memory in use is bounded by 3 x chunk size whatever the tensor's
// size. Sources that are already pinned are copied from directly.
// Created by makeCudaBackend(); used by one thread at a time.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "preview/preview_backend.h"

namespace ckpt::preview::cuda {

class CudaBackend final : public PreviewBackend {
public:
    // FailedPrecondition with the reason when no device is usable.
    static Result<std::unique_ptr<CudaBackend>> create();

    std::string name() const override { return "cuda"; }
    std::string deviceName() const override { return m_deviceName; }
    Status stats(const ElementBuffer& in, std::vector<TilePartial>& tiles, Extremes& extremes) override;
    Status histogram(const ElementBuffer& in, const HistogramSpec& spec, HistogramCounts& out) override;

    // Bytes per chunk (rounded to whole tiles); tests shrink it to force streaming.
    void setChunkBytes(size_t bytes) { m_chunkBytes = bytes; }

private:
    CudaBackend() = default;
    // Calls launch(d_chunk, firstElement, elements, stream) for each chunk.
    Status streamChunks(const ElementBuffer& in,
                        const std::function<Status(const void*, int64_t, int64_t, int slot, void* stream)>& launch,
                        int& slotsUsed);

    int m_device = 0;
    std::string m_deviceName;
    size_t m_chunkBytes = size_t{64} << 20;
};

}  // namespace ckpt::preview::cuda

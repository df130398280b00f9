#pragma once
// CUDA error plumbing and RAII owners for the CUDA preview backend. Only
// files in preview/cuda/ include this (it pulls in cuda_runtime.h).

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "ckpt/status.h"

namespace ckpt::preview::cuda {

// "cudaErrorMemoryAllocation (out of memory) in cudaMalloc of 67108864 bytes".
inline Status cudaStatus(cudaError_t err, const char* what) {
    return Status(err == cudaErrorMemoryAllocation ? StatusCode::ResourceExhausted : StatusCode::Internal,
                  std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ") in " + what);
}

}  // namespace ckpt::preview::cuda

// Turns a failed CUDA call into a Status returned from the enclosing function.
#define CKPT_CUDA_RETURN_IF_ERROR(expr)                                      \
    do {                                                                     \
        const cudaError_t ckpt_cuda_err_ = (expr);                           \
        if (ckpt_cuda_err_ != cudaSuccess) {                                 \
            (void)cudaGetLastError(); /* clear sticky-free errors */         \
            return ::ckpt::preview::cuda::cudaStatus(ckpt_cuda_err_, #expr); \
        }                                                                    \
    } while (0)

namespace ckpt::preview::cuda {

// Owns one CUDA allocation; 'Memory' says which allocator (device or pinned host).
template <typename Memory>
class CudaBuffer {
public:
    CudaBuffer() = default;
    ~CudaBuffer() { reset(); }
    CudaBuffer(const CudaBuffer&) = delete;
    CudaBuffer& operator=(const CudaBuffer&) = delete;
    CudaBuffer(CudaBuffer&& o) noexcept : m_ptr(std::exchange(o.m_ptr, nullptr)), m_bytes(std::exchange(o.m_bytes, 0)) {}
    CudaBuffer& operator=(CudaBuffer&& o) noexcept {
        if (this != &o) {
            reset();
            m_ptr = std::exchange(o.m_ptr, nullptr);
            m_bytes = std::exchange(o.m_bytes, 0);
        }
        return *this;
    }

    [[nodiscard]] Status allocate(size_t bytes) {
        reset();
        CKPT_CUDA_RETURN_IF_ERROR(Memory::allocate(&m_ptr, bytes == 0 ? 1 : bytes));
        m_bytes = bytes;
        return okStatus();
    }
    void reset() {
        if (m_ptr) Memory::release(m_ptr);
        m_ptr = nullptr;
        m_bytes = 0;
    }
    template <typename T = void>
    T* get() const {
        return static_cast<T*>(m_ptr);
    }
    size_t bytes() const { return m_bytes; }

private:
    void* m_ptr = nullptr;
    size_t m_bytes = 0;
};

struct DeviceMemory {
    static cudaError_t allocate(void** ptr, size_t bytes) { return cudaMalloc(ptr, bytes); }
    static void release(void* ptr) { cudaFree(ptr); }
};

struct PinnedHostMemory {
    static cudaError_t allocate(void** ptr, size_t bytes) { return cudaMallocHost(ptr, bytes); }
    static void release(void* ptr) { cudaFreeHost(ptr); }
};

using DeviceBuffer = CudaBuffer<DeviceMemory>;
using PinnedBuffer = CudaBuffer<PinnedHostMemory>;

class Stream {
public:
    Stream() = default;
    ~Stream() {
        if (m_stream) cudaStreamDestroy(m_stream);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    [[nodiscard]] Status create() {
        CKPT_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
        return okStatus();
    }
    cudaStream_t get() const { return m_stream; }

private:
    cudaStream_t m_stream = nullptr;
};

class Event {
public:
    Event() = default;
    ~Event() {
        if (m_event) cudaEventDestroy(m_event);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    [[nodiscard]] Status create(bool timing = false) {
        CKPT_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&m_event, timing ? cudaEventDefault : cudaEventDisableTiming));
        return okStatus();
    }
    cudaEvent_t get() const { return m_event; }

private:
    cudaEvent_t m_event = nullptr;
};

}  // namespace ckpt::preview::cuda

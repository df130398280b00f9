#pragma once
// CRC-32C (Castagnoli) and TensorFlow/LevelDB's masking, docs/format.md, "CRC-32C".
// Uses the SSE4.2 crc32 instruction when the CPU has it (checked once at
// start-up), a slicing-by-8 table otherwise. Thread-safe, no state.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ckpt::platform {

// CRC of (bytes that produced 'crc') followed by data[0, n).
uint32_t crc32cExtend(uint32_t crc, const void* data, size_t n);
inline uint32_t crc32c(const void* data, size_t n) { return crc32cExtend(0, data, n); }
inline uint32_t crc32c(std::string_view s) { return crc32c(s.data(), s.size()); }

// crc32c(A||B) from crc32c(A), crc32c(B) and |B|, so parts of one region can
// be checksummed on different threads. O(log |B|).
uint32_t crc32cCombine(uint32_t crcA, uint32_t crcB, uint64_t lengthB);

// Masking keeps CRCs of data that embeds CRCs well distributed.
constexpr uint32_t kCrcMaskDelta = 0xa282ead8u;
constexpr uint32_t crc32cMask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kCrcMaskDelta; }
constexpr uint32_t crc32cUnmask(uint32_t masked) {
    const uint32_t rot = masked - kCrcMaskDelta;
    return (rot >> 17) | (rot << 15);
}

// True when the hardware path is in use (for benchmarks and --verbose).
bool crc32cIsHardwareAccelerated();

}  // namespace ckpt::platform

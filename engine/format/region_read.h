#pragma once
// One pass over a stored region's bytes, shared by verify (checksum only)
// and restore (checksum and copy into the variable). Large regions are split
// into parts that threads process independently; the parts' CRCs are joined
// with crc32cCombine, so one huge tensor still keeps every core busy.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "ckpt/status.h"
#include "storage/files.h"

namespace ckpt::format {

// Unit of parallel work and of mapping (mapped pages count as RSS).
constexpr uint64_t kRegionPartBytes = 16u << 20;

struct RegionPart {
    uint64_t begin = 0;  // offset inside the region
    uint64_t length = 0;
};

// [0, size) in parts of at most kRegionPartBytes; one empty part for size 0.
std::vector<RegionPart> splitRegion(uint64_t size);
// splitRegion(size).size() and splitRegion(size)[k], without the vector
// (scans of 1,000,000 small regions need no allocation per region).
inline uint64_t regionPartCount(uint64_t size) { return size == 0 ? 1 : (size + kRegionPartBytes - 1) / kRegionPartBytes; }
inline RegionPart regionPart(uint64_t size, uint64_t k) {
    const uint64_t begin = k * kRegionPartBytes;
    return {begin, size > begin ? std::min(kRegionPartBytes, size - begin) : 0};
}

// Below this a region is read with one pread (or in a window shared with
// its neighbours) rather than mapped: a mapping costs an fstat, an mmap, a
// madvise and a munmap (and the fadvise before it), which for a tiny tensor
// is most of the time it takes (100,000 of 64 bytes: ~2.8 s of system time
// in verify); a copy of at most this much costs a few microseconds.
inline constexpr uint64_t kMapMinBytes = 64u << 10;

// Reads file bytes [offset, offset + length) once: returns their (unmasked)
// crc32c and, when 'out' is not null, copies them to out[0, length).
// Without 'out' page-cache pages are mapped and checksummed in place
// (pread's copy out of the page cache alone costs about as much as `cat`),
// falling back to pread through 'scratch'. With 'out' pread writes straight
// into it in small chunks, each checksummed while still in cache. A small
// region (under 64 KiB) is one pread either way: mapping it costs more.
Result<uint32_t> readRegionPart(const storage::RandomAccessFile& file, uint64_t offset, uint64_t length, uint8_t* out,
                                std::vector<uint8_t>& scratch);

// crc32c of a whole region from its parts' CRCs, in order.
uint32_t combinePartCrcs(std::span<const RegionPart> parts, std::span<const uint32_t> crcs);

}  // namespace ckpt::format

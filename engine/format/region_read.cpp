#include "format/region_read.h"

#include <algorithm>

#include "platform/crc32c.h"
#include "storage/dispatch.h"

namespace ckpt::format {
namespace {

constexpr size_t kPreadChunkBytes = 4u << 20;   // pread unit when a part cannot be mapped
constexpr size_t kCopyChunkBytes = 256u << 10;  // checksum then copy while it is in L2

}  // namespace

std::vector<RegionPart> splitRegion(uint64_t size) {
    std::vector<RegionPart> parts(regionPartCount(size));
    for (uint64_t k = 0; k < parts.size(); ++k) parts[k] = regionPart(size, k);
    return parts;
}

Result<uint32_t> readRegionPart(const storage::RandomAccessFile& file, uint64_t offset, uint64_t length, uint8_t* out,
                                std::vector<uint8_t>& scratch) {
    uint32_t crc = 0;
    if (length == 0) return crc;
    if (length < kMapMinBytes) {
        const auto n = static_cast<size_t>(length);
        uint8_t* dst = out;
        if (!dst) {
            scratch.resize(std::max(scratch.size(), n));
            dst = scratch.data();
        }
        CKPT_RETURN_IF_ERROR(file.read(offset, n, dst));
        return platform::crc32cExtend(0, dst, n);
    }
    file.adviseSequential(offset, length);
    // Checksum only: map and read in place. With a destination the copy is
    // needed anyway, and pread's kernel copy measured no slower than a copy
    // out of a mapping (which adds page faults and munmap), so pread goes
    // straight into 'out' in L2-sized chunks, each checksummed while cached.
    if (!out) {
        if (auto view = file.map(offset, static_cast<size_t>(length)))
            return platform::crc32cExtend(0, view->data(), view->size());
    }
    for (uint64_t done = 0; done < length;) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(out ? kCopyChunkBytes : kPreadChunkBytes, length - done));
        uint8_t* dst = out ? out + done : nullptr;
        if (!dst) {
            scratch.resize(std::max(scratch.size(), n));
            dst = scratch.data();
        }
        CKPT_RETURN_IF_ERROR(file.read(offset + done, n, dst));
        crc = platform::crc32cExtend(crc, dst, n);
        done += n;
    }
    return crc;
}

uint32_t combinePartCrcs(std::span<const RegionPart> parts, std::span<const uint32_t> crcs) {
    uint32_t crc = 0;
    for (size_t i = 0; i < parts.size() && i < crcs.size(); ++i)
        crc = i == 0 ? crcs[i] : platform::crc32cCombine(crc, crcs[i], parts[i].length);
    return crc;
}

}  // namespace ckpt::format

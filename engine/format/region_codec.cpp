// The region codec of format/region_codec.h: TensorFlow's checksum of a
// stored region (the bytes, or for strings the varint lengths, their
// checksum and the bytes) and the decoding of string regions, every
// length bounded by the bytes present.

#include "format/region_codec.h"

#include <cstdio>
#include <cstring>

#include "ckpt/tensor.h"
#include "platform/crc32c.h"
#include "platform/varint.h"

namespace ckpt {
namespace {

std::string hex32(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

}  // namespace

Result<uint32_t> regionChecksum(std::span<const uint8_t> bytes, DataType dtype, int64_t numElements, std::string_view what) {
    using platform::crc32cExtend;
    if (dtype == DataType::String && !bytes.empty()) {
        // docs/format.md, "String tensors": fixed-width lengths, then the masked length checksum as stored, then the bytes.
        const uint8_t* p = bytes.data();
        const uint8_t* end = p + bytes.size();
        uint32_t crc = 0;
        uint64_t total = 0;
        for (int64_t i = 0; i < numElements; ++i) {
            uint64_t len = 0;
            if (!platform::decodeVarint64(p, end, len))
                return dataLoss(std::string(what) + ": string length " + std::to_string(i) + " is unreadable");
            if (len <= 0xffffffffu) {
                const uint32_t l32 = static_cast<uint32_t>(len);
                crc = crc32cExtend(crc, &l32, 4);
            } else {
                crc = crc32cExtend(crc, &len, 8);
            }
            if (__builtin_add_overflow(total, len, &total))
                return dataLoss(std::string(what) + ": string lengths add up to more than 2^64 bytes");
        }
        if (end - p < 4) return dataLoss(std::string(what) + ": string tensor ends before its length checksum");
        uint32_t storedLenCrc = 0;
        std::memcpy(&storedLenCrc, p, 4);
        if (platform::crc32cUnmask(storedLenCrc) != crc)
            return dataLoss(std::string(what) + ": the length checksum does not match (stored " + hex32(storedLenCrc) +
                            ", computed " + hex32(platform::crc32cMask(crc)) + ")");
        crc = crc32cExtend(crc, p, 4);
        p += 4;
        if (static_cast<uint64_t>(end - p) != total)
            return dataLoss(std::string(what) + ": string bytes (" + std::to_string(end - p) +
                            ") do not match the lengths' sum (" + std::to_string(total) + ")");
        crc = crc32cExtend(crc, p, static_cast<size_t>(end - p));
        return platform::crc32cMask(crc);
    }
    if (dtype == DataType::Variant && !bytes.empty()) {
        // docs/format.md, "Variant tensors": running crc over (uint64 length, bytes, stored element checksum).
        const uint8_t* p = bytes.data();
        const uint8_t* end = p + bytes.size();
        uint32_t crc = 0;
        for (int64_t i = 0; i < numElements; ++i) {
            uint64_t len = 0;
            if (!platform::decodeVarint64(p, end, len) || len > static_cast<uint64_t>(end - p) ||
                end - p - static_cast<int64_t>(len) < 4)
                return dataLoss(std::string(what) + ": variant element " + std::to_string(i) + " is truncated");
            crc = crc32cExtend(crc, &len, 8);
            crc = crc32cExtend(crc, p, static_cast<size_t>(len));
            p += len;
            uint32_t elemCrc = 0;
            std::memcpy(&elemCrc, p, 4);
            if (platform::crc32cUnmask(elemCrc) != crc)
                return dataLoss(std::string(what) + ": variant element " + std::to_string(i) + " checksum mismatch");
            crc = crc32cExtend(crc, p, 4);
            p += 4;
        }
        return platform::crc32cMask(crc);
    }
    return platform::crc32cMask(platform::crc32c(bytes.data(), bytes.size()));
}

Status verifyRegionChecksum(std::span<const uint8_t> bytes, uint32_t maskedCrc, DataType dtype, int64_t numElements,
                            std::string_view what) {
    CKPT_ASSIGN_OR_RETURN(const uint32_t computed, regionChecksum(bytes, dtype, numElements, what));
    if (computed != maskedCrc)
        return dataLoss("checksum mismatch for " + std::string(what) + " (stored " + hex32(maskedCrc) + ", computed " +
                        hex32(computed) + ")");
    return okStatus();
}

Result<std::vector<std::string>> decodeStringRegion(std::span<const uint8_t> bytes, int64_t numElements, std::string_view what) {
    std::vector<std::string> out(static_cast<size_t>(numElements));
    if (bytes.empty()) return out;  // TF leaves elements empty for a zero-size region
    const uint8_t* p = bytes.data();
    const uint8_t* end = p + bytes.size();
    std::vector<uint64_t> lengths(static_cast<size_t>(numElements));
    for (auto& len : lengths)
        if (!platform::decodeVarint64(p, end, len)) return dataLoss(std::string(what) + ": string lengths are unreadable");
    if (end - p < 4) return dataLoss(std::string(what) + ": string tensor is truncated");
    p += 4;
    for (size_t i = 0; i < out.size(); ++i) {
        if (lengths[i] > static_cast<uint64_t>(end - p)) return dataLoss(std::string(what) + ": string tensor is truncated");
        out[i].assign(reinterpret_cast<const char*>(p), static_cast<size_t>(lengths[i]));
        p += lengths[i];
    }
    return out;
}

std::vector<uint8_t> encodeTensorRegion(const Tensor& value) {
    if (value.dtype != DataType::String) return value.bytes;
    // docs/format.md, "String tensors": varint lengths, masked crc of the fixed-width lengths, then the bytes.
    std::vector<uint8_t> out;
    uint32_t crc = 0;
    size_t total = 0;
    for (const std::string& s : value.strings) {
        platform::appendVarint64(out, s.size());
        if (s.size() <= 0xffffffffu) {
            const uint32_t l32 = static_cast<uint32_t>(s.size());
            crc = platform::crc32cExtend(crc, &l32, 4);
        } else {
            const uint64_t l64 = s.size();
            crc = platform::crc32cExtend(crc, &l64, 8);
        }
        total += s.size();
    }
    const uint32_t masked = platform::crc32cMask(crc);
    uint8_t le[4];
    std::memcpy(le, &masked, 4);
    out.insert(out.end(), le, le + 4);
    out.reserve(out.size() + total);
    for (const std::string& s : value.strings) out.insert(out.end(), s.begin(), s.end());
    return out;
}

}  // namespace ckpt

#pragma once
// LEB128 varints as LevelDB and TensorFlow's string tensors write them: 7
// bits per byte, low bits first, the high bit set on every byte but the
// last. One decoder for the index table's block handles and the string
// tensors' lengths (docs/format.md, "String tensors").

#include <cstdint>
#include <vector>

namespace ckpt::platform {

// Decodes one varint of at most 64 bits from [p, end) and advances p past
// it; false (p somewhere inside) when the bytes end first or the varint is
// longer than ten bytes.
inline bool decodeVarint64(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
    v = 0;
    for (int shift = 0; shift <= 63 && p < end; shift += 7) {
        const uint8_t b = *p++;
        v |= uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80)) return true;
    }
    return false;
}

inline void appendVarint64(std::vector<uint8_t>& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<uint8_t>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}

}  // namespace ckpt::platform

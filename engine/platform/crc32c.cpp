#include "platform/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace ckpt::platform {
namespace {

constexpr uint32_t kPolyReflected = 0x82f63b78u;

// tables[k][b]: CRC contribution of byte b followed by k zero bytes.
using SliceTables = std::array<std::array<uint32_t, 256>, 8>;

constexpr SliceTables makeTables() {
    SliceTables t{};
    for (uint32_t b = 0; b < 256; ++b) {
        uint32_t crc = b;
        for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1u) ? kPolyReflected : 0u);
        t[0][b] = crc;
    }
    for (uint32_t b = 0; b < 256; ++b)
        for (int k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xffu];
    return t;
}

constexpr SliceTables kTables = makeTables();

uint32_t extendPortable(uint32_t crc, const uint8_t* p, size_t n) {
    uint32_t c = ~crc;
    while (n >= 8) {
        uint64_t word;
        std::memcpy(&word, p, 8);  // little-endian hosts only, like the rest of the engine
        const uint32_t lo = static_cast<uint32_t>(word) ^ c;
        const uint32_t hi = static_cast<uint32_t>(word >> 32);
        c = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^ kTables[4][lo >> 24] ^
            kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^ kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xffu];
    return ~c;
}

uint32_t gf2MultiplyMod(uint32_t a, uint32_t b) {
    // Multiplies two polynomials modulo the reflected CRC-32C polynomial.
    uint32_t product = 0;
    for (int i = 0; i < 32; ++i) {
        if (a & 0x80000000u) product ^= b;
        a <<= 1;
        b = (b >> 1) ^ ((b & 1u) ? kPolyReflected : 0u);
    }
    return product;
}

// x^(8*n) mod P in reflected form: shifting a CRC over n zero bytes.
uint32_t zeroBytesOperator(size_t n) {
    uint32_t result = 0x80000000u;  // x^0
    uint32_t square = 0x00800000u;  // x^8: one zero byte
    while (n) {
        if (n & 1) result = gf2MultiplyMod(result, square);
        square = gf2MultiplyMod(square, square);
        n >>= 1;
    }
    return result;
}

#if defined(__x86_64__)
// Three independent crc32 streams hide the instruction's 3-cycle latency;
// the partial CRCs are joined by multiplying with x^(8*kStripe) mod P,
// computed once.
constexpr size_t kStripe = 8192;  // bytes per stream in one round

const uint32_t kStripeShift = zeroBytesOperator(kStripe);

__attribute__((target("sse4.2"))) uint64_t crcWords(uint64_t c, const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        c = _mm_crc32_u64(c, w);
    }
    return c;
}

__attribute__((target("sse4.2"))) uint32_t extendSse42(uint32_t crc, const uint8_t* p, size_t n) {
    uint64_t c0 = ~crc;
    while (n >= 3 * kStripe) {
        // Streams 1 and 2 start from a zero register: by linearity, the CRC
        // register after A||B is shift(reg after A, |B|) ^ (B's zero-start register).
        uint64_t c1 = 0, c2 = 0;
        for (size_t i = 0; i < kStripe; i += 8) {
            uint64_t w0, w1, w2;
            std::memcpy(&w0, p + i, 8);
            std::memcpy(&w1, p + kStripe + i, 8);
            std::memcpy(&w2, p + 2 * kStripe + i, 8);
            c0 = _mm_crc32_u64(c0, w0);
            c1 = _mm_crc32_u64(c1, w1);
            c2 = _mm_crc32_u64(c2, w2);
        }
        c0 = gf2MultiplyMod(static_cast<uint32_t>(c0), kStripeShift) ^ static_cast<uint32_t>(c1);
        c0 = gf2MultiplyMod(static_cast<uint32_t>(c0), kStripeShift) ^ static_cast<uint32_t>(c2);
        p += 3 * kStripe;
        n -= 3 * kStripe;
    }
    const size_t words = n & ~size_t{7};
    c0 = crcWords(c0, p, words);
    p += words;
    n -= words;
    uint32_t c = static_cast<uint32_t>(c0);
    while (n--) c = _mm_crc32_u8(c, *p++);
    return ~c;
}

bool cpuHasSse42() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}
const bool kUseSse42 = cpuHasSse42();
#else
const bool kUseSse42 = false;
#endif

}  // namespace

uint32_t crc32cExtend(uint32_t crc, const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
#if defined(__x86_64__)
    if (kUseSse42) return extendSse42(crc, p, n);
#endif
    return extendPortable(crc, p, n);
}

uint32_t crc32cCombine(uint32_t crcA, uint32_t crcB, uint64_t lengthB) {
    // The register inversions cancel out: crc(A||B) = crcA * x^(8*|B|) + crcB.
    return gf2MultiplyMod(crcA, zeroBytesOperator(static_cast<size_t>(lengthB))) ^ crcB;
}

bool crc32cIsHardwareAccelerated() { return kUseSse42; }

}  // namespace ckpt::platform

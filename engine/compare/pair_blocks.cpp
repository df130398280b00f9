#include "compare/pair_blocks.h"

#include <cmath>
#include <cstring>

namespace ckpt::compare {
namespace {

using preview::ElementKind;

template <ElementKind K>
[[gnu::always_inline]] inline double load(const unsigned char* base, int64_t i) {
    if constexpr (K == ElementKind::F32) {
        float v;
        std::memcpy(&v, base + 4 * i, 4);
        return static_cast<double>(v);
    } else if constexpr (K == ElementKind::F64) {
        double v;
        std::memcpy(&v, base + 8 * i, 8);
        return v;
    } else {
        uint16_t h;
        std::memcpy(&h, base + 2 * i, 2);
        const uint32_t bits = static_cast<uint32_t>(h) << 16;
        float v;
        std::memcpy(&v, &bits, 4);
        return static_cast<double>(v);
    }
}

// Lane l sees elements l, l + kLanes, l + 2*kLanes, ...: no lane depends on
// another, so the loop vectorizes without reassociating any sum.
template <ElementKind K>
[[gnu::always_inline]] inline void sumLanes(const unsigned char* a, const unsigned char* b, int64_t count, double atol,
                                            double rtol, double relBar, BlockFigures& f) {
    for (int l = 0; l < kLanes; ++l) {
        f.sumAbs[l] = f.sumSqDiff[l] = f.sumSqA[l] = f.sumSqB[l] = f.dot[l] = 0;
        f.maxAbs[l] = -1;
        f.mismatches[l] = f.relCandidates[l] = 0;
    }
    for (int64_t i = 0; i < count; i += kLanes) {
        for (int l = 0; l < kLanes; ++l) {
            const double x = load<K>(a, i + l), y = load<K>(b, i + l);
            const double d = x - y;
            const double ad = std::fabs(d), ab = std::fabs(y);
            f.sumAbs[l] += ad;
            f.sumSqDiff[l] += d * d;
            f.sumSqA[l] += x * x;
            f.sumSqB[l] += y * y;
            f.dot[l] += x * y;
            f.maxAbs[l] = ad > f.maxAbs[l] ? ad : f.maxAbs[l];
            f.mismatches[l] += ad > atol + rtol * ab ? 1.0 : 0.0;
            f.relCandidates[l] += ad > relBar * ab ? 1.0 : 0.0;
        }
    }
}

// sumLanes without the figures a change does not need.
// Eight lanes as one vector (GCC's vector extension: one zmm under the
// AVX-512 clone, two ymm under AVX2, four xmm otherwise), each lane the
// same IEEE operations in the same order as the scalar loops above.
using Lanes8 = double __attribute__((vector_size(64)));
using Bits8 = int64_t __attribute__((vector_size(64)));
using Floats8 = float __attribute__((vector_size(32)));
using Halves8 = uint16_t __attribute__((vector_size(16)));
using Words8 = uint32_t __attribute__((vector_size(32)));
static_assert(kLanes == 8);

// (Results through references: a vector returned by value would change
// the ABI between the clones, which GCC warns about.)
template <ElementKind K>
[[gnu::always_inline]] inline void load8(const unsigned char* base, int64_t i, Lanes8& out) {
    if constexpr (K == ElementKind::F32) {
        Floats8 v;
        std::memcpy(&v, base + 4 * i, sizeof v);
        out = __builtin_convertvector(v, Lanes8);
    } else if constexpr (K == ElementKind::F64) {
        std::memcpy(&out, base + 8 * i, sizeof out);
    } else {
        Halves8 h;
        std::memcpy(&h, base + 2 * i, sizeof h);
        const Words8 bits = __builtin_convertvector(h, Words8) << 16;
        Floats8 f;
        std::memcpy(&f, &bits, sizeof f);
        out = __builtin_convertvector(f, Lanes8);
    }
}

// |v| lane by lane, as std::fabs: the sign bit cleared.
[[gnu::always_inline]] inline void addAbs8(const Lanes8& v, Lanes8& sum) {
    Bits8 bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits &= INT64_MAX;
    Lanes8 magnitude;
    std::memcpy(&magnitude, &bits, sizeof magnitude);
    sum += magnitude;
}

// kBlocks whole blocks side by side: each block's lanes are summed exactly
// as alone, and the blocks' independent chains hide the adds' latency.
template <ElementKind K, int kBlocks>
[[gnu::always_inline]] inline void changeLanes(const unsigned char* a, const unsigned char* b, int64_t count, ChangeFigures* f) {
    Lanes8 sumAbs[kBlocks], sumSqDiff[kBlocks], sumSqA[kBlocks], sumSqB[kBlocks];
    for (int j = 0; j < kBlocks; ++j) sumAbs[j] = sumSqDiff[j] = sumSqA[j] = sumSqB[j] = Lanes8{};
    for (int64_t i = 0; i < count; i += kLanes) {
#pragma GCC unroll 4
        for (int j = 0; j < kBlocks; ++j) {
            Lanes8 x, y;
            load8<K>(a, j * kBlockElements + i, x);
            load8<K>(b, j * kBlockElements + i, y);
            const Lanes8 d = x - y;
            addAbs8(d, sumAbs[j]);
            sumSqDiff[j] += d * d;
            sumSqA[j] += x * x;
            sumSqB[j] += y * y;
        }
    }
    for (int j = 0; j < kBlocks; ++j) {
        std::memcpy(f[j].sumAbs, &sumAbs[j], sizeof sumAbs[j]);
        std::memcpy(f[j].sumSqDiff, &sumSqDiff[j], sizeof sumSqDiff[j]);
        std::memcpy(f[j].sumSqA, &sumSqA[j], sizeof sumSqA[j]);
        std::memcpy(f[j].sumSqB, &sumSqB[j], sizeof sumSqB[j]);
    }
}

#if defined(__x86_64__) && !defined(__clang__)
#define CKPT_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CKPT_SIMD_CLONES
#endif

CKPT_SIMD_CLONES void sumF32(const unsigned char* a, const unsigned char* b, int64_t count, double atol, double rtol,
                             double relBar, BlockFigures& f) {
    sumLanes<ElementKind::F32>(a, b, count, atol, rtol, relBar, f);
}
CKPT_SIMD_CLONES void sumF64(const unsigned char* a, const unsigned char* b, int64_t count, double atol, double rtol,
                             double relBar, BlockFigures& f) {
    sumLanes<ElementKind::F64>(a, b, count, atol, rtol, relBar, f);
}
CKPT_SIMD_CLONES void sumBF16(const unsigned char* a, const unsigned char* b, int64_t count, double atol, double rtol,
                              double relBar, BlockFigures& f) {
    sumLanes<ElementKind::BF16>(a, b, count, atol, rtol, relBar, f);
}

template <ElementKind K>
[[gnu::always_inline]] inline void changeBlocks(const unsigned char* a, const unsigned char* b, int64_t count, int blocks,
                                                ChangeFigures* f) {
    if (blocks == kChangeBlocks) changeLanes<K, kChangeBlocks>(a, b, kBlockElements, f);
    else changeLanes<K, 1>(a, b, count, f);
}
CKPT_SIMD_CLONES void changeF32(const unsigned char* a, const unsigned char* b, int64_t count, int blocks, ChangeFigures* f) {
    changeBlocks<ElementKind::F32>(a, b, count, blocks, f);
}
CKPT_SIMD_CLONES void changeF64(const unsigned char* a, const unsigned char* b, int64_t count, int blocks, ChangeFigures* f) {
    changeBlocks<ElementKind::F64>(a, b, count, blocks, f);
}
CKPT_SIMD_CLONES void changeBF16(const unsigned char* a, const unsigned char* b, int64_t count, int blocks, ChangeFigures* f) {
    changeBlocks<ElementKind::BF16>(a, b, count, blocks, f);
}

// BlockFigures::allFinite's test, in its order.
bool lanesFinite(const double* sumAbs, const double* sumSqA, const double* sumSqB) {
    double total = 0;
    for (int l = 0; l < kLanes; ++l) total += sumAbs[l] + sumSqA[l] + sumSqB[l];
    return std::isfinite(total);
}

}  // namespace

bool ChangeFigures::allFinite() const { return lanesFinite(sumAbs, sumSqA, sumSqB); }

void sumChangeBlocks(ElementKind kind, const unsigned char* a, const unsigned char* b, int64_t count, int blocks,
                     ChangeFigures* out) {
    switch (kind) {
    case ElementKind::F32: return changeF32(a, b, count, blocks, out);
    case ElementKind::F64: return changeF64(a, b, count, blocks, out);
    case ElementKind::BF16: return changeBF16(a, b, count, blocks, out);
    default: return;
    }
}

bool BlockFigures::allFinite() const { return lanesFinite(sumAbs, sumSqA, sumSqB); }

void sumBlock(ElementKind kind, const unsigned char* a, const unsigned char* b, int64_t count, double atol, double rtol,
              double relBar, BlockFigures& out) {
    switch (kind) {
    case ElementKind::F32: return sumF32(a, b, count, atol, rtol, relBar, out);
    case ElementKind::F64: return sumF64(a, b, count, atol, rtol, relBar, out);
    case ElementKind::BF16: return sumBF16(a, b, count, atol, rtol, relBar, out);
    default: return;
    }
}

}  // namespace ckpt::compare

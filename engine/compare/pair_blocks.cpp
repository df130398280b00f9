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

}  // namespace

bool BlockFigures::allFinite() const {
    double total = 0;
    for (int l = 0; l < kLanes; ++l) total += sumAbs[l] + sumSqA[l] + sumSqB[l];
    return std::isfinite(total);
}

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

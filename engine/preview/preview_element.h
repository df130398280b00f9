#pragma once
// Element decoding and the per-tile arithmetic that the CPU and CUDA
// backends share, so that both produce bit-identical partials (the CPU's
// float32 fast path, cpu_f32.cpp, trades the bits for one pass; it stays
// far inside the 1e-9 relative that mean and std are held to). Compiled by
// g++ and nvcc alike: CKPT_HD marks functions usable on host and device.
//
// A tile is kTileElements consecutive elements seen as kTileLanes lanes of
// kTileItems items: element (j * kTileLanes + lane) of the tile is lane
// 'lane''s j-th item (coalesced on the GPU, vectorizable on the CPU). Lane
// sums are added in item order, lanes are combined by treeReduce's fixed
// tree, and the per-tile (count, mean, M2) partials are merged in tile order
// with Chan's formula (mergeTiles). Every step is a plain IEEE double
// operation (nvcc builds this with -fmad=false), so the order fixes the bits.

#include <cstdint>
#include <cmath>
#include <cstring>

#if defined(__CUDACC__)
#define CKPT_HD __host__ __device__ __forceinline__
#else
#define CKPT_HD inline
#endif

namespace ckpt::preview {

inline constexpr int kTileLanes = 256;  // one CUDA block
inline constexpr int kTileItems = 16;   // items per lane
inline constexpr int64_t kTileElements = int64_t{kTileLanes} * kTileItems;
inline constexpr int kWarp = 32;

// The kinds of element the kernels decode; strings become Int64 lengths.
enum class ElementKind : int {
    F32,
    F64,
    F16,
    BF16,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
    C64,
    C128,
};

CKPT_HD double bitsToDouble(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}
CKPT_HD float bitsToFloat(uint32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

// IEEE binary16 -> double, exact (every half is a double).
CKPT_HD double halfToDouble(uint16_t h) {
    const uint64_t sign = static_cast<uint64_t>(h >> 15) << 63;
    const uint32_t exp = (h >> 10) & 0x1f;
    const uint32_t man = h & 0x3ff;
    if (exp == 0) {
        // Zero or subnormal: man * 2^-24, exact in double.
        const double v = static_cast<double>(man) * 5.9604644775390625e-08;
        return sign ? -v : v;
    }
    if (exp == 31) return bitsToDouble(sign | (uint64_t{0x7ff} << 52) | (static_cast<uint64_t>(man) << 42));
    return bitsToDouble(sign | (static_cast<uint64_t>(exp - 15 + 1023) << 52) | (static_cast<uint64_t>(man) << 42));
}

CKPT_HD double bfloat16ToDouble(uint16_t b) { return static_cast<double>(bitsToFloat(static_cast<uint32_t>(b) << 16)); }

// Element i of an array of T that may start at any byte: a bundle's data
// file packs tensors back to back, so a float tensor after a half one is
// only 2-byte aligned. memcpy is the defined way to load it; compilers emit
// the same single load. On the device the buffers are cudaMalloc'd and
// chunks start at whole tiles, so elements are naturally aligned there, and
// a typed load keeps nvcc from splitting it into byte loads.
template <typename T>
CKPT_HD T loadAt(const unsigned char* base, int64_t i) {
#if defined(__CUDA_ARCH__)
    return reinterpret_cast<const T*>(base)[i];
#else
    T v;
    memcpy(&v, base + i * static_cast<int64_t>(sizeof(T)), sizeof v);
    return v;
#endif
}

template <typename T>
struct ComplexOf {
    T re, im;
};

// How an element of each kind is stored (a value of that type; only its
// type is used).
template <ElementKind K>
constexpr auto storedSample() {
    if constexpr (K == ElementKind::F32) return float{};
    else if constexpr (K == ElementKind::F64) return double{};
    else if constexpr (K == ElementKind::F16 || K == ElementKind::BF16 || K == ElementKind::U16) return uint16_t{};
    else if constexpr (K == ElementKind::I8) return int8_t{};
    else if constexpr (K == ElementKind::I16) return int16_t{};
    else if constexpr (K == ElementKind::I32) return int32_t{};
    else if constexpr (K == ElementKind::I64) return int64_t{};
    else if constexpr (K == ElementKind::U8 || K == ElementKind::Bool) return uint8_t{};
    else if constexpr (K == ElementKind::U32) return uint32_t{};
    else if constexpr (K == ElementKind::U64) return uint64_t{};
    else if constexpr (K == ElementKind::C64) return ComplexOf<float>{};
    else return ComplexOf<double>{};
}
template <ElementKind K>
using StoredType = decltype(storedSample<K>());

// A stored element as the double the previews use (complex: the magnitude).
template <ElementKind K>
CKPT_HD double valueOf(StoredType<K> v) {
    if constexpr (K == ElementKind::F16) return halfToDouble(v);
    else if constexpr (K == ElementKind::BF16) return bfloat16ToDouble(v);
    else if constexpr (K == ElementKind::Bool) return v != 0 ? 1.0 : 0.0;
    else if constexpr (K == ElementKind::C64 || K == ElementKind::C128) {
        const double re = v.re, im = v.im;
        return sqrt(re * re + im * im);
    } else return static_cast<double>(v);
}

// Element i of a buffer of 'kind' as the double the previews use.
template <ElementKind K>
CKPT_HD double loadElement(const unsigned char* base, int64_t i) {
    return valueOf<K>(loadAt<StoredType<K>>(base, i));
}

CKPT_HD int64_t elementSize(ElementKind kind) {
    switch (kind) {
    case ElementKind::F32:
    case ElementKind::I32:
    case ElementKind::U32: return 4;
    case ElementKind::F64:
    case ElementKind::I64:
    case ElementKind::U64:
    case ElementKind::C64: return 8;
    case ElementKind::F16:
    case ElementKind::BF16:
    case ElementKind::I16:
    case ElementKind::U16: return 2;
    case ElementKind::C128: return 16;
    default: return 1;
    }
}

CKPT_HD bool isFiniteValue(double x) { return x - x == 0.0; }

// (count, mean, M2) of one tile's finite values.
struct TilePartial {
    double mean;
    double m2;
    int64_t n;
};

// Order-independent totals (exact: integer counts, min and max).
struct Extremes {
    int64_t finite = 0, zeros = 0, nans = 0, posInfs = 0, negInfs = 0;
    double min = 0, max = 0;  // valid when finite > 0
};

// Chan et al.: folds b into a.
CKPT_HD void mergePartial(TilePartial& a, const TilePartial& b) {
    if (b.n == 0) return;
    if (a.n == 0) {
        a = b;
        return;
    }
    const double na = static_cast<double>(a.n), nb = static_cast<double>(b.n);
    const double n = na + nb;
    const double delta = b.mean - a.mean;
    a.mean = a.mean + delta * (nb / n);
    a.m2 = a.m2 + b.m2 + delta * delta * (na * nb / n);
    a.n = a.n + b.n;
}

// numpy.histogram's bin for a value known to lie in [edges[0], edges[bins]]
// (numpy/lib/_histograms_impl.py: ((x - lo) / (hi - lo)) * bins, truncated,
// then corrected against the edges).
CKPT_HD int histogramBin(double x, double lo, double width, const double* edges, int bins) {
    int64_t idx = static_cast<int64_t>(((x - lo) / width) * static_cast<double>(bins));
    if (idx >= bins) idx = bins - 1;
    if (idx < 0) idx = 0;
    if (x < edges[idx]) --idx;
    else if (idx != bins - 1 && x >= edges[idx + 1]) ++idx;
    return static_cast<int>(idx);
}

}  // namespace ckpt::preview

#if !defined(__CUDACC__)
namespace ckpt::preview {
// The CUDA block's reduction order, on the host: shuffle-down within each
// warp (offsets 16..1), then over the warp totals (offsets 4, 2, 1).
// Destroys 'lanes'.
inline double treeReduce(double* lanes) {
    double warps[kTileLanes / kWarp];
    for (int w = 0; w < kTileLanes / kWarp; ++w) {
        double* p = lanes + w * kWarp;
        for (int s = kWarp / 2; s > 0; s >>= 1)
            for (int l = 0; l < s; ++l) p[l] += p[l + s];
        warps[w] = p[0];
    }
    for (int s = kTileLanes / kWarp / 2; s > 0; s >>= 1)
        for (int l = 0; l < s; ++l) warps[l] += warps[l + s];
    return warps[0];
}

// Calls fn.template operator()<K>() for the runtime kind.
template <typename Fn>
void dispatchKind(ElementKind kind, Fn&& fn) {
    switch (kind) {
    case ElementKind::F32: fn.template operator()<ElementKind::F32>(); break;
    case ElementKind::F64: fn.template operator()<ElementKind::F64>(); break;
    case ElementKind::F16: fn.template operator()<ElementKind::F16>(); break;
    case ElementKind::BF16: fn.template operator()<ElementKind::BF16>(); break;
    case ElementKind::I8: fn.template operator()<ElementKind::I8>(); break;
    case ElementKind::I16: fn.template operator()<ElementKind::I16>(); break;
    case ElementKind::I32: fn.template operator()<ElementKind::I32>(); break;
    case ElementKind::I64: fn.template operator()<ElementKind::I64>(); break;
    case ElementKind::U8: fn.template operator()<ElementKind::U8>(); break;
    case ElementKind::U16: fn.template operator()<ElementKind::U16>(); break;
    case ElementKind::U32: fn.template operator()<ElementKind::U32>(); break;
    case ElementKind::U64: fn.template operator()<ElementKind::U64>(); break;
    case ElementKind::Bool: fn.template operator()<ElementKind::Bool>(); break;
    case ElementKind::C64: fn.template operator()<ElementKind::C64>(); break;
    case ElementKind::C128: fn.template operator()<ElementKind::C128>(); break;
    }
}
}  // namespace ckpt::preview
#endif

// float32 fast paths of the CPU backend. Each has a portable version and,
// on x86-64, an AVX2 one picked at run time; both keep the generic loops'
// addition order per lane, and the build does not contract a*b+c
// (-ffp-contract=off, no FMA target), so every path gives the same bits as
// the CUDA kernels.

#include "preview/cpu_f32.h"

#include <algorithm>
#include <cmath>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CKPT_X86_AVX2 1
#endif

namespace ckpt::preview {
namespace {

constexpr int kBanks = 8;  // histogram counter banks: a run of one bin does not serialize on one counter


// ---------------------------------------------------------------- statistics

// Lane l of a tile is elements l, l + kTileLanes, ...; its sum runs in that
// order, as in the generic tileStats and the CUDA kernel. A NaN or Inf
// makes its lane's sum non-finite, and 16 finite floats cannot overflow a
// double, so the lane sums double as the finiteness check.
bool fastTileF32Portable(const float* p, TilePartial& out, FastTotals& totals) {
    alignas(64) double s[kTileLanes] = {};
    float mn = p[0], mx = p[0];
    int64_t zeros = 0;
    for (int j = 0; j < kTileItems; ++j) {
        for (int l = 0; l < kTileLanes; ++l) {
            const float x = p[j * kTileLanes + l];
            s[l] += static_cast<double>(x);
            mn = x < mn ? x : mn;
            mx = x > mx ? x : mx;
            zeros += x == 0.0f ? 1 : 0;
        }
    }
    for (double v : s)
        if (!isFiniteValue(v)) return false;
    const double mean = treeReduce(s) / static_cast<double>(kTileElements);
    alignas(64) double q[kTileLanes] = {};
    for (int j = 0; j < kTileItems; ++j) {
        for (int l = 0; l < kTileLanes; ++l) {
            const double d = static_cast<double>(p[j * kTileLanes + l]) - mean;
            q[l] += d * d;
        }
    }
    out = {mean, treeReduce(q), kTileElements};
    totals.mn = std::min(totals.mn, mn);
    totals.mx = std::max(totals.mx, mx);
    totals.zeros += zeros;
    ++totals.tiles;
    return true;
}

#if defined(CKPT_X86_AVX2)
// treeReduce with vector adds: every level adds the same pairs in the same
// order, so the result is bit-identical.
__attribute__((target("avx2"))) double treeReduceAvx2(double* lanes) {
    alignas(32) double warps[kTileLanes / kWarp];
    for (int w = 0; w < kTileLanes / kWarp; ++w) {
        double* p = lanes + w * kWarp;
        for (int s = kWarp / 2; s >= 4; s >>= 1)
            for (int l = 0; l < s; l += 4)
                _mm256_storeu_pd(p + l, _mm256_add_pd(_mm256_loadu_pd(p + l), _mm256_loadu_pd(p + l + s)));
        _mm_storeu_pd(p, _mm_add_pd(_mm_loadu_pd(p), _mm_loadu_pd(p + 2)));
        warps[w] = p[0] + p[1];
    }
    _mm256_store_pd(warps, _mm256_add_pd(_mm256_load_pd(warps), _mm256_load_pd(warps + 4)));
    _mm_store_pd(warps, _mm_add_pd(_mm_load_pd(warps), _mm_load_pd(warps + 2)));
    return warps[0] + warps[1];
}
static_assert(kTileLanes / kWarp == 8, "treeReduceAvx2 reduces eight warps");

// Extremes first, in memory order, so the hardware prefetcher streams the
// tile into L1; then 16 lanes at a time, each lane's 16 items summed in
// registers (a lane walks the tile in 1 KiB strides, and lane sums kept in
// memory would cost a store per element). The two lane loops are spelled
// out: a shared helper filling an array of four vectors ran 1.6x slower
// (GCC 12 keeps the array in memory).
__attribute__((target("avx2"))) bool fastTileF32Avx2(const float* p, TilePartial& out, FastTotals& totals) {
    const __m256 zero = _mm256_setzero_ps();
    __m256 mnA = _mm256_loadu_ps(p), mnB = mnA, mxA = mnA, mxB = mnA;
    __m256i zA = _mm256_setzero_si256(), zB = zA;
    for (int64_t i = 0; i < kTileElements; i += 16) {
        const __m256 a = _mm256_loadu_ps(p + i), b = _mm256_loadu_ps(p + i + 8);
        mnA = _mm256_min_ps(a, mnA);
        mnB = _mm256_min_ps(b, mnB);
        mxA = _mm256_max_ps(a, mxA);
        mxB = _mm256_max_ps(b, mxB);
        zA = _mm256_sub_epi32(zA, _mm256_castps_si256(_mm256_cmp_ps(a, zero, _CMP_EQ_OQ)));
        zB = _mm256_sub_epi32(zB, _mm256_castps_si256(_mm256_cmp_ps(b, zero, _CMP_EQ_OQ)));
    }
    alignas(32) double s[kTileLanes];
    for (int l = 0; l < kTileLanes; l += 16) {
        __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
        for (int j = 0; j < kTileItems; ++j) {
            const float* q = p + j * kTileLanes + l;
            const __m256 a = _mm256_loadu_ps(q), b = _mm256_loadu_ps(q + 8);
            s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(a)));
            s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)));
            s2 = _mm256_add_pd(s2, _mm256_cvtps_pd(_mm256_castps256_ps128(b)));
            s3 = _mm256_add_pd(s3, _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)));
        }
        _mm256_store_pd(s + l, s0);
        _mm256_store_pd(s + l + 4, s1);
        _mm256_store_pd(s + l + 8, s2);
        _mm256_store_pd(s + l + 12, s3);
    }
    __m256d bad = _mm256_setzero_pd();
    for (int l = 0; l < kTileLanes; l += 4) {
        const __m256d v = _mm256_load_pd(s + l);
        bad = _mm256_or_pd(bad, _mm256_cmp_pd(_mm256_sub_pd(v, v), _mm256_setzero_pd(), _CMP_NEQ_UQ));
    }
    if (_mm256_movemask_pd(bad) != 0) return false;

    const double mean = treeReduceAvx2(s) / static_cast<double>(kTileElements);
    const __m256d vmean = _mm256_set1_pd(mean);
    alignas(32) double q[kTileLanes];
    for (int l = 0; l < kTileLanes; l += 16) {
        __m256d q0 = _mm256_setzero_pd(), q1 = q0, q2 = q0, q3 = q0;
        for (int j = 0; j < kTileItems; ++j) {
            const float* r = p + j * kTileLanes + l;
            const __m256 a = _mm256_loadu_ps(r), b = _mm256_loadu_ps(r + 8);
            const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), vmean);
            const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), vmean);
            const __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(b)), vmean);
            const __m256d d3 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)), vmean);
            q0 = _mm256_add_pd(q0, _mm256_mul_pd(d0, d0));
            q1 = _mm256_add_pd(q1, _mm256_mul_pd(d1, d1));
            q2 = _mm256_add_pd(q2, _mm256_mul_pd(d2, d2));
            q3 = _mm256_add_pd(q3, _mm256_mul_pd(d3, d3));
        }
        _mm256_store_pd(q + l, q0);
        _mm256_store_pd(q + l + 4, q1);
        _mm256_store_pd(q + l + 8, q2);
        _mm256_store_pd(q + l + 12, q3);
    }
    out = {mean, treeReduceAvx2(q), kTileElements};

    alignas(32) float lo[8], hi[8];
    alignas(32) int32_t z[8];
    _mm256_store_ps(lo, _mm256_min_ps(mnA, mnB));
    _mm256_store_ps(hi, _mm256_max_ps(mxA, mxB));
    _mm256_store_si256(reinterpret_cast<__m256i*>(z), _mm256_add_epi32(zA, zB));
    for (int k = 0; k < 8; ++k) {
        totals.mn = std::min(totals.mn, lo[k]);
        totals.mx = std::max(totals.mx, hi[k]);
        totals.zeros += z[k];
    }
    ++totals.tiles;
    return true;
}
#endif

// ----------------------------------------------------------------- histogram

// The exact rule for one value: its numpy bin, else the below / above / NaN
// counters at bins, bins + 1, bins + 2 of bank h.
inline void countExact(double x, const HistogramSpec& spec, int64_t* h) {
    if (x >= spec.lo && x <= spec.hi) ++h[histogramBin(x, spec.lo, spec.width, spec.edges.data(), spec.bins)];
    else if (x < spec.lo) ++h[spec.bins];
    else if (x > spec.hi) ++h[spec.bins + 1];
    else ++h[spec.bins + 2];
}

// The 'margin' of the shortcut bin, or 1 (never take it) when the edges are
// too coarse next to a bin. Shortcut: f = (x - lo) * (bins / width) differs
// from numpy's ((x - lo) / width) * bins by far less than 'margin' bins,
// and when the edges are accurate to well under a bin an f at least
// 'margin' away from a whole number falls in bin trunc(f) under numpy's
// rule too, with no edge correction. Values near an edge take the exact
// rule.
double shortcutMargin(const HistogramSpec& spec) {
    const double big = std::max(std::fabs(spec.lo), std::fabs(spec.hi));
    const double ulpsInBins = big * std::numeric_limits<double>::epsilon() / (spec.width / spec.bins);
    constexpr double kMargin = 1e-6;
    return ulpsInBins < kMargin / 64 ? kMargin : 1.0;
}

void histogramPortable(const float* p, int64_t n, const HistogramSpec& spec, double margin, int64_t* banks) {
    const double scale = spec.bins / spec.width;
    const int stride = spec.bins + 3;
    for (int64_t i = 0; i < n; ++i) {
        const double x = p[i];
        int64_t* h = banks + (i % kBanks) * stride;
        if (x >= spec.lo && x <= spec.hi) {
            const double f = (x - spec.lo) * scale;
            const int32_t t = static_cast<int32_t>(f);
            const double frac = f - t;
            if (frac >= margin && frac <= 1.0 - margin && t < spec.bins) {
                ++h[t];
                continue;
            }
        }
        countExact(x, spec, h);
    }
}

#if defined(CKPT_X86_AVX2)
// Counts eight values whose shortcut bins are in idx; lanes whose bit in
// 'mask' is clear take the exact rule. Lane k counts into bank k.
inline void addEightLanes(int mask, const int32_t* idx, const float* x, const HistogramSpec& spec, int64_t* banks) {
    const int stride = spec.bins + 3;
    for (int k = 0; k < 8; ++k) {
        int64_t* h = banks + k * stride;
        if (mask & (1 << k)) ++h[idx[k]];
        else countExact(static_cast<double>(x[k]), spec, h);
    }
}

// The shortcut in double lanes, for ranges where the float version below
// cannot bound its rounding (huge or tiny lo, hi, scale).
__attribute__((target("avx2"))) void histogramAvx2Double(const float* p, int64_t n, const HistogramSpec& spec,
                                                         double margin, int64_t* banks) {
    const __m256d vlo = _mm256_set1_pd(spec.lo), vhi = _mm256_set1_pd(spec.hi);
    const __m256d vscale = _mm256_set1_pd(spec.bins / spec.width);
    const __m256d vmargin = _mm256_set1_pd(margin), vupper = _mm256_set1_pd(1.0 - margin);
    const __m256d vbins = _mm256_set1_pd(static_cast<double>(spec.bins));
    alignas(32) int32_t idx[8];
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 xf = _mm256_loadu_ps(p + i);
        int mask = 0;
        for (int half = 0; half < 2; ++half) {
            const __m256d x = _mm256_cvtps_pd(half == 0 ? _mm256_castps256_ps128(xf) : _mm256_extractf128_ps(xf, 1));
            const __m256d f = _mm256_mul_pd(_mm256_sub_pd(x, vlo), vscale);
            const __m128i t = _mm256_cvttpd_epi32(f);
            const __m256d frac = _mm256_sub_pd(f, _mm256_cvtepi32_pd(t));
            __m256d ok = _mm256_and_pd(_mm256_cmp_pd(x, vlo, _CMP_GE_OQ), _mm256_cmp_pd(x, vhi, _CMP_LE_OQ));
            ok = _mm256_and_pd(ok, _mm256_cmp_pd(frac, vmargin, _CMP_GE_OQ));
            ok = _mm256_and_pd(ok, _mm256_cmp_pd(frac, vupper, _CMP_LE_OQ));
            ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_cvtepi32_pd(t), vbins, _CMP_LT_OQ));
            mask |= _mm256_movemask_pd(ok) << (4 * half);
            _mm_store_si128(reinterpret_cast<__m128i*>(idx + 4 * half), t);
        }
        addEightLanes(mask, idx, p + i, spec, banks);
    }
    for (; i < n; ++i) countExact(static_cast<double>(p[i]), spec, banks + (i % kBanks) * (spec.bins + 3));
}

// The shortcut in float lanes, eight values per vector. g = (x - loF) *
// scaleF is off from the exact f = (x - lo) * bins / width by at most 'err'
// bins (rounding of lo, scale, the subtraction and the product, each under
// 2^-24 relative); the margin adds that error on both sides, so an x whose
// fraction of g passes falls in bin trunc(g) under numpy's rule.
// No range test is needed: for x < lo, g < err, so trunc(g) <= 0 and
// frac(g) < margin; for x > hi, g > bins - err, so trunc(g) >= bins or
// frac(g) > 1 - margin; NaN, Inf and g beyond int32 give frac(g) NaN,
// infinite or far outside [margin, 1 - margin]. Such lanes take the exact
// rule, which also files them under below / above / NaN.
struct FloatPlan {
    bool usable = false;
    float loF = 0, scaleF = 0, margin = 1, upper = 0;
};

FloatPlan floatPlan(const HistogramSpec& spec, double margin) {
    FloatPlan fp;
    constexpr double kFloatLimit = 1e30;  // keep lo, hi, scale and g far from float overflow
    const double scale = spec.bins / spec.width;
    if (margin >= 1.0 || !(std::fabs(spec.lo) < kFloatLimit) || !(std::fabs(spec.hi) < kFloatLimit) ||
        !(scale < kFloatLimit) || !(scale * std::fabs(spec.lo) < kFloatLimit) || !(scale > 1e-30)) {
        return fp;
    }
    const double err = (4.0 * std::fabs(spec.lo) * scale + 4.0 * spec.bins + 4.0) * 0x1p-23;
    const double m = margin + 2.0 * err;
    if (m > 0.01) return fp;
    fp.loF = static_cast<float>(spec.lo);
    fp.scaleF = static_cast<float>(scale);
    fp.margin = static_cast<float>(m);
    fp.upper = static_cast<float>(1.0 - m);
    fp.usable = true;
    return fp;
}

// Up to kPairBins bins, lanes 2k and 2k + 1 share one counter, indexed
// bin(2k) * bins + bin(2k + 1): the memory increments that bound this loop
// are halved, and the pair table (16 KiB at 64 bins, one bank so it stays
// in L1) is folded into per-bin counts at the end.
constexpr int kPairBins = 64;

__attribute__((target("avx2"))) void histogramAvx2Float(const float* p, int64_t n, const HistogramSpec& spec,
                                                        const FloatPlan& fp, int64_t* banks) {
    const int bins = spec.bins;
    const int stride = bins + 3;
    const bool pairs = bins <= kPairBins;
    const int64_t cells = int64_t{bins} * bins;
    std::vector<uint32_t> pairTable(pairs ? static_cast<size_t>(cells) : 0);
    uint32_t* pt = pairTable.data();
    // A step adds at most 4 to a pair counter: fold long before a uint32
    // could wrap.
    constexpr int64_t kFoldSteps = int64_t{1} << 29;
    int64_t stepsSinceFold = 0;
    const auto fold = [&] {
        for (int a = 0; a < bins; ++a) {
            for (int b = 0; b < bins; ++b) {
                uint32_t& c = pt[a * bins + b];
                banks[a] += c;
                banks[stride + b] += c;
                c = 0;
            }
        }
    };

    const __m256 vlo = _mm256_set1_ps(fp.loF), vscale = _mm256_set1_ps(fp.scaleF);
    const __m256 vmargin = _mm256_set1_ps(fp.margin), vupper = _mm256_set1_ps(fp.upper);
    const __m256i vbins = _mm256_set1_epi32(bins);
    const __m256i vbins64 = _mm256_set1_epi64x(bins);
    // Lane k's counter for bin t is banks[k * stride + t].
    const __m256i bankBase = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(stride));
    alignas(32) int32_t idx[8];
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 x = _mm256_loadu_ps(p + i);
        const __m256 g = _mm256_mul_ps(_mm256_sub_ps(x, vlo), vscale);
        const __m256i t = _mm256_cvttps_epi32(g);
        const __m256 frac = _mm256_sub_ps(g, _mm256_cvtepi32_ps(t));  // exact: t <= g < 2t or t == 0
        __m256 ok = _mm256_and_ps(_mm256_cmp_ps(frac, vmargin, _CMP_GE_OQ), _mm256_cmp_ps(frac, vupper, _CMP_LE_OQ));
        ok = _mm256_and_ps(ok, _mm256_castsi256_ps(_mm256_cmpgt_epi32(vbins, t)));
        const int mask = _mm256_movemask_ps(ok);
        if (mask != 0xff) {
            _mm256_store_si256(reinterpret_cast<__m256i*>(idx), t);
            addEightLanes(mask, idx, p + i, spec, banks);
            continue;
        }
        // Counter indices leave the vector two at a time through general
        // registers: a vector store read back as scalars stalls on store
        // forwarding.
        if (pairs) {
            // Every t is in [0, bins) here, so the unsigned 32x32 multiply
            // of the even lanes is exact.
            const __m256i at = _mm256_add_epi64(_mm256_mul_epu32(t, vbins64), _mm256_srli_epi64(t, 32));
            const __m128i lo = _mm256_castsi256_si128(at), hi = _mm256_extracti128_si256(at, 1);
            ++pt[_mm_cvtsi128_si64(lo)];
            ++pt[_mm_extract_epi64(lo, 1)];
            ++pt[_mm_cvtsi128_si64(hi)];
            ++pt[_mm_extract_epi64(hi, 1)];
            if (++stepsSinceFold == kFoldSteps) {
                fold();
                stepsSinceFold = 0;
            }
            continue;
        }
        const __m256i at = _mm256_add_epi32(t, bankBase);
        const __m128i lo = _mm256_castsi256_si128(at), hi = _mm256_extracti128_si256(at, 1);
        const uint64_t a = static_cast<uint64_t>(_mm_cvtsi128_si64(lo));
        const uint64_t b = static_cast<uint64_t>(_mm_extract_epi64(lo, 1));
        const uint64_t c = static_cast<uint64_t>(_mm_cvtsi128_si64(hi));
        const uint64_t d = static_cast<uint64_t>(_mm_extract_epi64(hi, 1));
        ++banks[static_cast<uint32_t>(a)];
        ++banks[a >> 32];
        ++banks[static_cast<uint32_t>(b)];
        ++banks[b >> 32];
        ++banks[static_cast<uint32_t>(c)];
        ++banks[c >> 32];
        ++banks[static_cast<uint32_t>(d)];
        ++banks[d >> 32];
    }
    if (pairs) fold();
    for (; i < n; ++i) countExact(static_cast<double>(p[i]), spec, banks + (i % kBanks) * stride);
}
#endif

} // namespace

bool cpuSupports(CpuIsa isa) {
    switch (isa) {
    case CpuIsa::Portable: return true;
#if defined(CKPT_X86_AVX2)
    case CpuIsa::Avx2: return __builtin_cpu_supports("avx2");
#else
    default: return false;
#endif
    }
    return false;
}

CpuIsa bestCpuIsa() {
    static const CpuIsa best = cpuSupports(CpuIsa::Avx2) ? CpuIsa::Avx2 : CpuIsa::Portable;
    return best;
}

bool fastTileF32(const float* tile, TilePartial& out, FastTotals& totals, CpuIsa isa) {
#if defined(CKPT_X86_AVX2)
    if (isa == CpuIsa::Avx2) return fastTileF32Avx2(tile, out, totals);
#endif
    return fastTileF32Portable(tile, out, totals);
}

void histogramF32(const float* p, int64_t n, const HistogramSpec& spec, HistogramCounts& out, CpuIsa isa) {
    const size_t stride = static_cast<size_t>(spec.bins) + 3;
    std::vector<int64_t> banks(stride * kBanks, 0);
    const double margin = shortcutMargin(spec);
#if defined(CKPT_X86_AVX2)
    if (isa != CpuIsa::Portable) {
        if (const FloatPlan fp = floatPlan(spec, margin); fp.usable) histogramAvx2Float(p, n, spec, fp, banks.data());
        else histogramAvx2Double(p, n, spec, margin, banks.data());
    } else
#endif
    {
        histogramPortable(p, n, spec, margin, banks.data());
    }
    std::vector<int64_t> sum(stride, 0);
    for (size_t k = 0; k < kBanks; ++k)
        for (size_t b = 0; b < stride; ++b) sum[b] += banks[k * stride + b];
    out.counts.assign(sum.begin(), sum.begin() + spec.bins);
    out.below = sum[stride - 3];
    out.above = sum[stride - 2];
    out.nans = sum[stride - 1];
}

} // namespace ckpt::preview

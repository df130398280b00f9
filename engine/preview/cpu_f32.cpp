// float32 fast paths of the CPU backend. Each has a portable version and,
// on x86-64, an AVX2 one picked at run time; the build does not contract
// a*b+c (-ffp-contract=off, no FMA target) and both versions add in the
// same order, so every ISA gives the same bits. Histogram counts equal the
// generic loops' and the CUDA kernels'; tile statistics use shifted sums
// (below), which agree with the generic two-pass tile to far better than
// the 1e-9 relative that mean and std are held to, but not to the bit.

#include "preview/cpu_f32.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CKPT_X86_AVX2 1
#endif

namespace ckpt::preview {
namespace {

// p[i], for float arrays that may start at any byte (a bundle packs tensors
// back to back): memcpy is the defined unaligned load, and one instruction.
inline float floatAt(const float* p, int64_t i) {
    float v;
    std::memcpy(&v, reinterpret_cast<const unsigned char*>(p) + i * static_cast<int64_t>(sizeof v), sizeof v);
    return v;
}

constexpr int kBanks = 8;  // histogram counter banks: a run of one bin does not serialize on one counter

// ---------------------------------------------------------------- statistics
//
// One pass over the tile in memory order: extremes and zeros, and the sums
// S of d = x - k and Q of d * d in 16 double accumulators (element i feeds
// accumulator i % 16), reduced in a fixed order. Then mean = k + S / n and
// M2 = Q - S * S / n: one walk and one conversion per value, where the
// generic tile converts twice and needs the mean before its second walk.
//
// The shift k keeps M2 from being the small difference of two large sums:
// M2 = Q - S * S / n loses about log2(Q / M2) bits. k is the tile's first
// value, so Q = M2 + n (mean - k)^2 <= (n + 1) M2: at most 12 bits, about
// 1e-10 relative if every addition rounds the same way, inside the 1e-9
// that mean and std are held to. A tile that loses more than 10 bits (its
// first value an outlier) is summed again around its own mean, which brings
// it to ~1e-15; should that fail too, or the tile hold a NaN or Inf, the
// caller takes the two-pass tile.

constexpr int kAccumulators = 16;
constexpr double kMaxCancellation = 1024.0;  // Q / M2 accepted

struct ShiftedSums {
    double s[kAccumulators];
    double q[kAccumulators];
};

// The 16 accumulators in the order the AVX2 registers hold and add them:
// four vectors of four, added pairwise, then their four lanes pairwise.
double reduceAccumulators(const double* a) {
    double u[4];
    for (int k = 0; k < 4; ++k) u[k] = (a[k] + a[4 + k]) + (a[8 + k] + a[12 + k]);
    return (u[0] + u[1]) + (u[2] + u[3]);
}

struct TileExtremes {
    float mn, mx;
    int64_t zeros;
};

template <bool WithExtremes>
void shiftedSumsPortable(const float* p, double k, ShiftedSums& out, TileExtremes& ext) {
    ShiftedSums acc = {};
    float mn = floatAt(p, 0), mx = mn;
    int64_t zeros = 0;
    for (int64_t i = 0; i < kTileElements; i += kAccumulators) {
        for (int a = 0; a < kAccumulators; ++a) {
            const float x = floatAt(p, i + a);
            if constexpr (WithExtremes) {
                mn = x < mn ? x : mn;
                mx = x > mx ? x : mx;
                zeros += x == 0.0f ? 1 : 0;
            }
            const double d = static_cast<double>(x) - k;
            acc.s[a] += d;
            acc.q[a] += d * d;
        }
    }
    out = acc;
    if constexpr (WithExtremes) ext = {mn, mx, zeros};
}

#if defined(CKPT_X86_AVX2)
template <bool WithExtremes>
__attribute__((target("avx2"))) void shiftedSumsAvx2(const float* p, double k, ShiftedSums& out, TileExtremes& ext) {
    const __m256 zero = _mm256_setzero_ps();
    const __m256d vk = _mm256_set1_pd(k);
    __m256 mnA = _mm256_loadu_ps(p), mnB = mnA, mxA = mnA, mxB = mnA;
    __m256i zA = _mm256_setzero_si256(), zB = zA;
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, q0 = s0, q1 = s0, q2 = s0, q3 = s0;
    for (int64_t i = 0; i < kTileElements; i += kAccumulators) {
        const __m256 a = _mm256_loadu_ps(p + i), b = _mm256_loadu_ps(p + i + 8);
        if constexpr (WithExtremes) {
            mnA = _mm256_min_ps(a, mnA);
            mnB = _mm256_min_ps(b, mnB);
            mxA = _mm256_max_ps(a, mxA);
            mxB = _mm256_max_ps(b, mxB);
            zA = _mm256_sub_epi32(zA, _mm256_castps_si256(_mm256_cmp_ps(a, zero, _CMP_EQ_OQ)));
            zB = _mm256_sub_epi32(zB, _mm256_castps_si256(_mm256_cmp_ps(b, zero, _CMP_EQ_OQ)));
        }
        const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), vk);
        const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), vk);
        const __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(b)), vk);
        const __m256d d3 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)), vk);
        s0 = _mm256_add_pd(s0, d0);
        s1 = _mm256_add_pd(s1, d1);
        s2 = _mm256_add_pd(s2, d2);
        s3 = _mm256_add_pd(s3, d3);
        q0 = _mm256_add_pd(q0, _mm256_mul_pd(d0, d0));
        q1 = _mm256_add_pd(q1, _mm256_mul_pd(d1, d1));
        q2 = _mm256_add_pd(q2, _mm256_mul_pd(d2, d2));
        q3 = _mm256_add_pd(q3, _mm256_mul_pd(d3, d3));
    }
    _mm256_storeu_pd(out.s, s0);
    _mm256_storeu_pd(out.s + 4, s1);
    _mm256_storeu_pd(out.s + 8, s2);
    _mm256_storeu_pd(out.s + 12, s3);
    _mm256_storeu_pd(out.q, q0);
    _mm256_storeu_pd(out.q + 4, q1);
    _mm256_storeu_pd(out.q + 8, q2);
    _mm256_storeu_pd(out.q + 12, q3);
    if constexpr (WithExtremes) {
        alignas(32) float lo[8], hi[8];
        alignas(32) int32_t z[8];
        _mm256_store_ps(lo, _mm256_min_ps(mnA, mnB));
        _mm256_store_ps(hi, _mm256_max_ps(mxA, mxB));
        _mm256_store_si256(reinterpret_cast<__m256i*>(z), _mm256_add_epi32(zA, zB));
        ext = {lo[0], hi[0], 0};
        for (int j = 0; j < 8; ++j) {
            ext.mn = std::min(ext.mn, lo[j]);
            ext.mx = std::max(ext.mx, hi[j]);
            ext.zeros += z[j];
        }
    }
}
#endif

// The tile's partial from the reduced sums S, Q around k, or false when
// too many bits cancelled.
bool shiftedPartial(double k, double s, double q, TilePartial& out) {
    const double n = static_cast<double>(kTileElements);
    const double m2 = q - s * (s / n);
    if (!(m2 * kMaxCancellation >= q)) return false;
    out = {k + s / n, m2, kTileElements};
    return true;
}

template <void (*Sums)(const float*, double, ShiftedSums&, TileExtremes&),
          void (*SumsOnly)(const float*, double, ShiftedSums&, TileExtremes&)>
bool shiftedTile(const float* p, TilePartial& out, FastTotals& totals) {
    ShiftedSums sums;
    TileExtremes ext;
    const double k = floatAt(p, 0);
    Sums(p, k, sums, ext);
    const double s = reduceAccumulators(sums.s);
    if (!isFiniteValue(s)) return false;  // a NaN or Inf in the tile
    if (!shiftedPartial(k, s, reduceAccumulators(sums.q), out)) {
        const double mean = k + s / static_cast<double>(kTileElements);
        SumsOnly(p, mean, sums, ext);
        if (!shiftedPartial(mean, reduceAccumulators(sums.s), reduceAccumulators(sums.q), out)) return false;
    }
    totals.mn = std::min(totals.mn, ext.mn);
    totals.mx = std::max(totals.mx, ext.mx);
    totals.zeros += ext.zeros;
    ++totals.tiles;
    return true;
}

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
        const double x = floatAt(p, i);
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
        else countExact(static_cast<double>(floatAt(x, k)), spec, h);
    }
}

// The shortcut in double lanes, for ranges where the float version below
// cannot bound its rounding (huge or tiny lo, hi, scale).
__attribute__((target("avx2"))) void histogramAvx2Double(const float* p, int64_t n, const HistogramSpec& spec, double margin,
                                                         int64_t* banks) {
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
    for (; i < n; ++i) countExact(static_cast<double>(floatAt(p, i)), spec, banks + (i % kBanks) * (spec.bins + 3));
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
    if (margin >= 1.0 || !(std::fabs(spec.lo) < kFloatLimit) || !(std::fabs(spec.hi) < kFloatLimit) || !(scale < kFloatLimit) ||
        !(scale * std::fabs(spec.lo) < kFloatLimit) || !(scale > 1e-30)) {
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

__attribute__((target("avx2"))) void histogramAvx2Float(const float* p, int64_t n, const HistogramSpec& spec, const FloatPlan& fp,
                                                        int64_t* banks) {
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
    for (; i < n; ++i) countExact(static_cast<double>(floatAt(p, i)), spec, banks + (i % kBanks) * stride);
}
#endif

}  // namespace

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
    if (isa == CpuIsa::Avx2) return shiftedTile<shiftedSumsAvx2<true>, shiftedSumsAvx2<false>>(tile, out, totals);
#endif
    return shiftedTile<shiftedSumsPortable<true>, shiftedSumsPortable<false>>(tile, out, totals);
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

}  // namespace ckpt::preview

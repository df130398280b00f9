// CpuBackend: the reference implementation of the preview passes, spread
// over std::threads in contiguous runs of tiles. Inner loops run over the
// kTileLanes lanes of a tile so the compiler can vectorize them; the lane
// and tile order is the one preview_element.h fixes for both backends.

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "preview/preview_backend.h"

namespace ckpt::preview {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

constexpr bool mayBeNonFinite(ElementKind k) {
    return k == ElementKind::F32 || k == ElementKind::F64 || k == ElementKind::F16 || k == ElementKind::BF16 ||
           k == ElementKind::C64 || k == ElementKind::C128;
}

// Per-thread lane accumulators for the order-independent totals.
struct Lanes {
    alignas(64) double mn[kTileLanes];
    alignas(64) double mx[kTileLanes];
    alignas(64) double zeros[kTileLanes];
    alignas(64) double nans[kTileLanes];
    alignas(64) double posInfs[kTileLanes];
    alignas(64) double negInfs[kTileLanes];
    alignas(64) double finite[kTileLanes];
    Lanes() {
        std::fill(std::begin(mn), std::end(mn), kInf);
        std::fill(std::begin(mx), std::end(mx), -kInf);
        for (double* a : {zeros, nans, posInfs, negInfs, finite}) std::fill(a, a + kTileLanes, 0.0);
    }
    Extremes totals() const {
        Extremes e;
        double lo = kInf, hi = -kInf, f = 0, z = 0, n = 0, p = 0, m = 0;
        for (int l = 0; l < kTileLanes; ++l) {
            lo = std::min(lo, mn[l]);
            hi = std::max(hi, mx[l]);
            f += finite[l]; z += zeros[l]; n += nans[l]; p += posInfs[l]; m += negInfs[l];
        }
        e.finite = static_cast<int64_t>(f);
        e.zeros = static_cast<int64_t>(z);
        e.nans = static_cast<int64_t>(n);
        e.posInfs = static_cast<int64_t>(p);
        e.negInfs = static_cast<int64_t>(m);
        e.min = lo;
        e.max = hi;
        return e;
    }
};

// One tile: 'valid' elements from 'base' + first (valid == kTileElements
// when Full). Lane counts stay below 2^53, so double counters are exact
// (a thread flushes them every kFlushTiles tiles).
template <ElementKind K, bool Full>
TilePartial tileStats(const unsigned char* base, int64_t first, int64_t valid, Lanes& L) {
    alignas(64) double s[kTileLanes] = {};
    alignas(64) double c[kTileLanes] = {};
    for (int j = 0; j < kTileItems; ++j) {
        for (int l = 0; l < kTileLanes; ++l) {
            const int64_t e = int64_t{j} * kTileLanes + l;
            const bool in = Full || e < valid;
            const double x = in ? loadElement<K>(base, first + e) : 0.0;
            const bool fin = mayBeNonFinite(K) ? (in && isFiniteValue(x)) : in;
            s[l] += fin ? x : 0.0;
            c[l] += fin ? 1.0 : 0.0;
            L.mn[l] = (fin && x < L.mn[l]) ? x : L.mn[l];
            L.mx[l] = (fin && x > L.mx[l]) ? x : L.mx[l];
            L.zeros[l] += (in && x == 0.0) ? 1.0 : 0.0;
            if constexpr (mayBeNonFinite(K)) {
                L.nans[l] += (in && x != x) ? 1.0 : 0.0;
                L.posInfs[l] += (in && x == kInf) ? 1.0 : 0.0;
                L.negInfs[l] += (in && x == -kInf) ? 1.0 : 0.0;
            }
        }
    }
    for (int l = 0; l < kTileLanes; ++l) L.finite[l] += c[l];
    const double sum = treeReduce(s);
    const double n = treeReduce(c);
    const double mean = n > 0 ? sum / n : 0.0;
    alignas(64) double q[kTileLanes] = {};
    for (int j = 0; j < kTileItems; ++j) {
        for (int l = 0; l < kTileLanes; ++l) {
            const int64_t e = int64_t{j} * kTileLanes + l;
            const bool in = Full || e < valid;
            const double x = in ? loadElement<K>(base, first + e) : 0.0;
            const bool fin = mayBeNonFinite(K) ? (in && isFiniteValue(x)) : in;
            const double d = fin ? x - mean : 0.0;
            q[l] += d * d;
        }
    }
    return {mean, treeReduce(q), static_cast<int64_t>(n)};
}


// x86-64 builds get an AVX2 clone of the hot loops, picked at load time.
// Lane-wise vectorization keeps every addition in the same order, and the
// build does not contract a*b+c (no -ffp-contract=fast), so results stay
// bit-identical with the generic path and the CUDA kernels.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CKPT_HOT __attribute__((target_clones("avx2", "default")))
#else
#define CKPT_HOT
#endif

// Per-thread totals of the float32 fast path.
struct FastTotals {
    float mn = std::numeric_limits<float>::infinity();
    float mx = -std::numeric_limits<float>::infinity();
    int64_t zeros = 0, tiles = 0;
};

// A whole float32 tile with no NaN/Inf: the same partial as
// tileStats<F32, true>, with min/max/zeros done in float. Returns false
// (and touches nothing) when the tile holds a non-finite value.
CKPT_HOT bool fastTileF32(const float* p, TilePartial& out, FastTotals& totals) {
    float probe[16] = {}, mn[16], mx[16];
    int32_t zeros[16] = {};
    for (int k = 0; k < 16; ++k) {
        mn[k] = p[k];
        mx[k] = p[k];
    }
    for (int i = 0; i < kTileElements; i += 16) {
        for (int k = 0; k < 16; ++k) {
            const float x = p[i + k];
            probe[k] += x * 0.0f;  // NaN once any x is NaN or Inf
            mn[k] = x < mn[k] ? x : mn[k];
            mx[k] = x > mx[k] ? x : mx[k];
            zeros[k] += x == 0.0f ? 1 : 0;
        }
    }
    float p0 = 0;
    for (float v : probe) p0 += v;
    if (p0 != 0.0f) return false;
    alignas(64) double s[kTileLanes] = {};
    for (int j = 0; j < kTileItems; ++j)
        for (int l = 0; l < kTileLanes; ++l) s[l] += static_cast<double>(p[j * kTileLanes + l]);
    alignas(64) double c[kTileLanes];
    std::fill(std::begin(c), std::end(c), static_cast<double>(kTileItems));
    const double sum = treeReduce(s);
    const double n = treeReduce(c);
    const double mean = sum / n;
    alignas(64) double q[kTileLanes] = {};
    for (int j = 0; j < kTileItems; ++j) {
        for (int l = 0; l < kTileLanes; ++l) {
            const double d = static_cast<double>(p[j * kTileLanes + l]) - mean;
            q[l] += d * d;
        }
    }
    out = {mean, treeReduce(q), static_cast<int64_t>(n)};
    for (int k = 0; k < 16; ++k) {
        totals.mn = std::min(totals.mn, mn[k]);
        totals.mx = std::max(totals.mx, mx[k]);
        totals.zeros += zeros[k];
    }
    ++totals.tiles;
    return true;
}

// numpy's bin rule over float32 values, four sub-histograms so runs of one
// bin do not serialize on one counter. counts4 holds 4 * (bins + 3): bins,
// then below, above, NaN.
//
// Shortcut: f = (x - lo) * (bins / width) differs from numpy's
// ((x - lo) / width) * bins by far less than 'margin' bins, and when the
// edges are accurate to well under a bin (the caller checks, see
// shortcutMargin) an f at least 'margin' away from a whole number falls in
// bin trunc(f) under numpy's rule too, with no edge correction. Values
// near an edge take numpy's exact path.
CKPT_HOT void fastHistogramF32(const float* p, int64_t n, double lo, double hi, double width, const double* edges,
                               int bins, double margin, int64_t* counts4) {
    const double scale = bins / width;
    const int stride = bins + 3;
    for (int64_t i = 0; i < n; ++i) {
        const double x = p[i];
        int64_t* h = counts4 + (i & 3) * stride;
        if (x >= lo && x <= hi) {
            const double f = (x - lo) * scale;
            const int32_t t = static_cast<int32_t>(f);
            const double frac = f - t;
            if (frac >= margin && frac <= 1.0 - margin && t < bins) {
                ++h[t];
            } else {
                ++h[histogramBin(x, lo, width, edges, bins)];
            }
        } else if (x < lo) {
            ++h[bins];
        } else if (x > hi) {
            ++h[bins + 1];
        } else {
            ++h[bins + 2];
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define CKPT_HAVE_AVX2_HISTOGRAM 1
// The exact rule for one value: its numpy bin, else the below / above / NaN
// counters at bins, bins + 1, bins + 2.
inline void countExact(double x, double lo, double hi, double width, const double* edges, int bins, int64_t* h) {
    if (x >= lo && x <= hi) ++h[histogramBin(x, lo, width, edges, bins)];
    else if (x < lo) ++h[bins];
    else if (x > hi) ++h[bins + 1];
    else ++h[bins + 2];
}

// Counts eight values whose shortcut bins are in idx; lanes whose bit in
// 'mask' is clear go through 'slow', the exact scalar rule. Lane k uses
// counter bank k & 3, as the scalar loop does.
template <typename Slow>
inline void addEightLanes(int mask, const int32_t* idx, const float* x, int64_t* counts4, int stride, Slow& slow) {
    if (mask == 0xff) {
        for (int k = 0; k < 8; ++k) ++counts4[(k & 3) * stride + idx[k]];
        return;
    }
    for (int k = 0; k < 8; ++k) {
        int64_t* h = counts4 + (k & 3) * stride;
        if (mask & (1 << k)) ++h[idx[k]];
        else slow(static_cast<double>(x[k]), h);
    }
}

// fastHistogramF32 with AVX2 intrinsics: eight values per step decide
// their shortcut bins together; lanes that fail the shortcut test take the
// same scalar path as fastHistogramF32, so the counts are identical.
__attribute__((target("avx2"))) void fastHistogramF32Avx2(const float* p, int64_t n, double lo, double hi,
                                                          double width, const double* edges, int bins, double margin,
                                                          int64_t* counts4) {
    const double scale = bins / width;
    const int stride = bins + 3;
    const __m256d vlo = _mm256_set1_pd(lo), vhi = _mm256_set1_pd(hi), vscale = _mm256_set1_pd(scale);
    const __m256d vmargin = _mm256_set1_pd(margin), vupper = _mm256_set1_pd(1.0 - margin);
    const __m256d vbins = _mm256_set1_pd(static_cast<double>(bins));
    alignas(32) int32_t idx[8];
    auto slow = [&](double x, int64_t* h) { countExact(x, lo, hi, width, edges, bins, h); };
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
        addEightLanes(mask, idx, p + i, counts4, stride, slow);
    }
    for (; i < n; ++i) slow(static_cast<double>(p[i]), counts4 + (i & 3) * stride);
}

// The same histogram with the shortcut computed in float, eight values per
// vector instead of four (the double path spends most of its time
// converting and comparing). g = (x - loF) * scaleF is off from the exact
// (x - lo) * bins / width by at most FloatPlan::err bins (rounding of lo,
// scale, the subtraction and the product, each under 2^-24 relative); the
// margin adds that error on both sides, so an x that passes still falls in
// bin trunc(g) under numpy's rule. Range checks use the floats just inside
// [lo, hi], which for a float x decide x >= lo and x <= hi exactly. Lanes
// that fail take the scalar double path, so counts are identical.
struct FloatPlan {
    bool usable = false;
    float loF = 0, scaleF = 0, loIn = 0, hiIn = 0, margin = 1, upper = 0;
};

FloatPlan floatPlan(const HistogramSpec& spec, double margin) {
    FloatPlan fp;
    constexpr double kFloatLimit = 1e30;  // keep lo, hi, scale and g far from float overflow
    const double scale = spec.bins / spec.width;
    if (margin >= 1.0 || !(std::fabs(spec.lo) < kFloatLimit) || !(std::fabs(spec.hi) < kFloatLimit) ||
        !(scale < kFloatLimit) || !(scale * std::fabs(spec.lo) < kFloatLimit) ||
        !(scale > 1e-30)) {
        return fp;
    }
    const double err = (4.0 * std::fabs(spec.lo) * scale + 4.0 * spec.bins + 4.0) * 0x1p-23;
    const double m = margin + 2.0 * err;
    if (m > 0.01) return fp;
    fp.loF = static_cast<float>(spec.lo);
    fp.scaleF = static_cast<float>(scale);
    fp.loIn = static_cast<float>(spec.lo);
    if (static_cast<double>(fp.loIn) < spec.lo) fp.loIn = std::nextafter(fp.loIn, std::numeric_limits<float>::infinity());
    fp.hiIn = static_cast<float>(spec.hi);
    if (static_cast<double>(fp.hiIn) > spec.hi) fp.hiIn = std::nextafter(fp.hiIn, -std::numeric_limits<float>::infinity());
    fp.margin = static_cast<float>(m);
    fp.upper = static_cast<float>(1.0 - m);
    fp.usable = fp.loIn <= fp.hiIn;
    return fp;
}

__attribute__((target("avx2"))) void fastHistogramF32Avx2Float(const float* p, int64_t n, const FloatPlan& fp,
                                                               double lo, double hi, double width,
                                                               const double* edges, int bins, int64_t* counts4) {
    const int stride = bins + 3;
    const __m256 vlo = _mm256_set1_ps(fp.loF), vscale = _mm256_set1_ps(fp.scaleF);
    const __m256 vloIn = _mm256_set1_ps(fp.loIn), vhiIn = _mm256_set1_ps(fp.hiIn);
    const __m256 vmargin = _mm256_set1_ps(fp.margin), vupper = _mm256_set1_ps(fp.upper);
    const __m256i vbins = _mm256_set1_epi32(bins);
    alignas(32) int32_t idx[8];
    auto slow = [&](double x, int64_t* h) { countExact(x, lo, hi, width, edges, bins, h); };
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 x = _mm256_loadu_ps(p + i);
        const __m256 g = _mm256_mul_ps(_mm256_sub_ps(x, vlo), vscale);
        const __m256i t = _mm256_cvttps_epi32(g);
        const __m256 frac = _mm256_sub_ps(g, _mm256_cvtepi32_ps(t));  // exact: t <= g < 2t or t == 0
        __m256 ok = _mm256_and_ps(_mm256_cmp_ps(x, vloIn, _CMP_GE_OQ), _mm256_cmp_ps(x, vhiIn, _CMP_LE_OQ));
        ok = _mm256_and_ps(ok, _mm256_cmp_ps(frac, vmargin, _CMP_GE_OQ));
        ok = _mm256_and_ps(ok, _mm256_cmp_ps(frac, vupper, _CMP_LE_OQ));
        ok = _mm256_and_ps(ok, _mm256_castsi256_ps(_mm256_cmpgt_epi32(vbins, t)));
        const int mask = _mm256_movemask_ps(ok);
        _mm256_store_si256(reinterpret_cast<__m256i*>(idx), t);
        addEightLanes(mask, idx, p + i, counts4, stride, slow);
    }
    for (; i < n; ++i) slow(static_cast<double>(p[i]), counts4 + (i & 3) * stride);
}
#endif

// The 'margin' for fastHistogramF32, or 1 (never take the shortcut) when
// the edges are too coarse next to a bin: rounding of lo/hi-sized numbers,
// in bins, must stay far below the margin.
double shortcutMargin(const HistogramSpec& spec) {
    const double big = std::max(std::fabs(spec.lo), std::fabs(spec.hi));
    const double ulpsInBins = big * std::numeric_limits<double>::epsilon() / (spec.width / spec.bins);
    constexpr double kMargin = 1e-6;
    return ulpsInBins < kMargin / 64 ? kMargin : 1.0;
}

template <ElementKind K>
void statsRange(const ElementBuffer& in, int64_t tileBegin, int64_t tileEnd, TilePartial* tiles, Extremes& out) {
    // Flush lane counters well before doubles stop counting exactly.
    constexpr int64_t kFlushTiles = int64_t{1} << 30;
    Lanes lanes;
    Extremes total;
    int64_t sinceFlush = 0;
    FastTotals fast;
    for (int64_t t = tileBegin; t < tileEnd; ++t) {
        const int64_t first = t * kTileElements;
        const int64_t valid = std::min(kTileElements, in.count - first);
        if constexpr (K == ElementKind::F32) {
            if (valid == kTileElements &&
                fastTileF32(reinterpret_cast<const float*>(in.data) + first, tiles[t], fast)) {
                continue;
            }
        }
        tiles[t] = valid == kTileElements ? tileStats<K, true>(in.data, first, valid, lanes)
                                          : tileStats<K, false>(in.data, first, valid, lanes);
        if (++sinceFlush == kFlushTiles) {
            mergeExtremes(total, lanes.totals());
            lanes = Lanes();
            sinceFlush = 0;
        }
    }
    mergeExtremes(total, lanes.totals());
    if (fast.tiles > 0) {
        Extremes f;
        f.finite = fast.tiles * kTileElements;
        f.zeros = fast.zeros;
        f.min = fast.mn;
        f.max = fast.mx;
        mergeExtremes(total, f);
    }
    out = total;
}

template <ElementKind K>
void histogramRange(const ElementBuffer& in, const HistogramSpec& spec, int64_t begin, int64_t end,
                    HistogramCounts& out) {
    out.counts.assign(static_cast<size_t>(spec.bins), 0);
    if constexpr (K == ElementKind::F32) {
        const size_t stride = static_cast<size_t>(spec.bins) + 3;
        std::vector<int64_t> counts4(stride * 4, 0);
        const float* p = reinterpret_cast<const float*>(in.data) + begin;
#if defined(CKPT_HAVE_AVX2_HISTOGRAM)
        const double margin = shortcutMargin(spec);
        const FloatPlan fp = floatPlan(spec, margin);
        if (fp.usable && __builtin_cpu_supports("avx2")) {
            fastHistogramF32Avx2Float(p, end - begin, fp, spec.lo, spec.hi, spec.width, spec.edges.data(), spec.bins,
                                      counts4.data());
        } else if (__builtin_cpu_supports("avx2")) {
            fastHistogramF32Avx2(p, end - begin, spec.lo, spec.hi, spec.width, spec.edges.data(), spec.bins,
                                 shortcutMargin(spec), counts4.data());
        } else
#endif
        {
            fastHistogramF32(p, end - begin, spec.lo, spec.hi, spec.width, spec.edges.data(), spec.bins,
                             shortcutMargin(spec), counts4.data());
        }
        std::vector<int64_t> sum(stride, 0);
        for (size_t k = 0; k < 4; ++k)
            for (size_t b = 0; b < stride; ++b) sum[b] += counts4[k * stride + b];
        std::copy(sum.begin(), sum.begin() + spec.bins, out.counts.begin());
        out.below = sum[stride - 3];
        out.above = sum[stride - 2];
        out.nans = sum[stride - 1];
        return;
    }
    int64_t* counts = out.counts.data();
    const double* edges = spec.edges.data();
    int64_t below = 0, above = 0, nans = 0;
    for (int64_t i = begin; i < end; ++i) {
        const double x = loadElement<K>(in.data, i);
        if (x >= spec.lo && x <= spec.hi) {
            ++counts[histogramBin(x, spec.lo, spec.width, edges, spec.bins)];
        } else if (x < spec.lo) {
            ++below;
        } else if (x > spec.hi) {
            ++above;
        } else {
            ++nans;
        }
    }
    out.below = below;
    out.above = above;
    out.nans = nans;
}

// Runs fn(worker, begin, end) over [0, total) split into 'workers' runs.
template <typename Fn>
void parallelFor(int workers, int64_t total, Fn&& fn) {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(workers));
    for (int w = 1; w < workers; ++w) {
        threads.emplace_back([&fn, w, workers, total] { fn(w, total * w / workers, total * (w + 1) / workers); });
    }
    fn(0, 0, total / workers);
    for (auto& t : threads) t.join();
}

class CpuBackend final : public PreviewBackend {
public:
    explicit CpuBackend(int threads)
        : m_threads(threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))) {}

    std::string name() const override { return "cpu"; }

    Status stats(const ElementBuffer& in, std::vector<TilePartial>& tiles, Extremes& extremes) override {
        const int64_t ntiles = tileCount(in.count);
        tiles.assign(static_cast<size_t>(ntiles), TilePartial{0, 0, 0});
        // Small tensors are not worth a thread.
        const int workers = static_cast<int>(std::clamp<int64_t>(ntiles / 16, 1, m_threads));
        std::vector<Extremes> parts(static_cast<size_t>(workers));
        dispatchKind(in.kind, [&]<ElementKind K>() {
            parallelFor(workers, ntiles, [&](int w, int64_t b, int64_t e) {
                statsRange<K>(in, b, e, tiles.data(), parts[static_cast<size_t>(w)]);
            });
        });
        extremes = Extremes{};
        for (const Extremes& p : parts) mergeExtremes(extremes, p);
        return Status::ok();
    }

    Status histogram(const ElementBuffer& in, const HistogramSpec& spec, HistogramCounts& out) override {
        const int workers = static_cast<int>(std::clamp<int64_t>(in.count / 65536, 1, m_threads));
        std::vector<HistogramCounts> parts(static_cast<size_t>(workers));
        dispatchKind(in.kind, [&]<ElementKind K>() {
            parallelFor(workers, in.count, [&](int w, int64_t b, int64_t e) {
                histogramRange<K>(in, spec, b, e, parts[static_cast<size_t>(w)]);
            });
        });
        out = HistogramCounts{};
        out.counts.assign(static_cast<size_t>(spec.bins), 0);
        for (const HistogramCounts& p : parts) {
            for (size_t b = 0; b < out.counts.size(); ++b) out.counts[b] += p.counts[b];
            out.below += p.below;
            out.above += p.above;
            out.nans += p.nans;
        }
        return Status::ok();
    }

private:
    int m_threads;
};

} // namespace

std::unique_ptr<PreviewBackend> makeCpuBackend(int threads) { return std::make_unique<CpuBackend>(threads); }

TilePartial mergeTiles(const std::vector<TilePartial>& tiles) {
    TilePartial acc{0, 0, 0};
    for (const TilePartial& t : tiles) mergePartial(acc, t);
    return acc;
}

void mergeExtremes(Extremes& a, const Extremes& b) {
    if (b.finite > 0) {
        a.min = a.finite > 0 ? std::min(a.min, b.min) : b.min;
        a.max = a.finite > 0 ? std::max(a.max, b.max) : b.max;
    }
    a.finite += b.finite;
    a.zeros += b.zeros;
    a.nans += b.nans;
    a.posInfs += b.posInfs;
    a.negInfs += b.negInfs;
}

HistogramSpec makeHistogramSpec(double lo, double hi, int bins) {
    HistogramSpec spec;
    spec.lo = lo;
    spec.hi = hi;
    spec.width = hi - lo;
    spec.bins = bins;
    spec.edges.resize(static_cast<size_t>(bins) + 1);
    const double step = (hi - lo) / bins;
    for (int i = 0; i <= bins; ++i) spec.edges[static_cast<size_t>(i)] = static_cast<double>(i) * step + lo;
    spec.edges.back() = hi;
    return spec;
}

} // namespace ckpt::preview

// CpuBackend: the reference implementation of the preview passes, spread
// over threads in contiguous runs of tiles (platform::forEachRange). Inner loops run over the
// kTileLanes lanes of a tile so the compiler can vectorize them; the lane
// and tile order is the one preview_element.h fixes for both backends.

#include <algorithm>
#include <cmath>
#include <limits>

#include "platform/parallel.h"
#include "preview/cpu_f32.h"
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
            f += finite[l];
            z += zeros[l];
            n += nans[l];
            p += posInfs[l];
            m += negInfs[l];
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
    // A short tile visits only the rows that hold elements: the rest would
    // add +0.0 to sums that are never -0.0 and leave their bits as they are
    // (a tensor of 16 elements costs one row, not sixteen).
    const int rows = Full ? kTileItems : static_cast<int>((valid + kTileLanes - 1) / kTileLanes);
    alignas(64) double s[kTileLanes] = {};
    alignas(64) double c[kTileLanes] = {};
    for (int j = 0; j < rows; ++j) {
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
    for (int j = 0; j < rows; ++j) {
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

// One thread's running totals over consecutive tiles; what statsRange and
// StatsStream keep between tiles.
struct RangeTotals {
    Lanes lanes;
    Extremes total;
    int64_t sinceFlush = 0;
    FastTotals fast;

    Extremes finish() const {
        Extremes out = total;
        mergeExtremes(out, lanes.totals());
        if (fast.tiles > 0) {
            Extremes f;
            f.finite = fast.tiles * kTileElements;
            f.zeros = fast.zeros;
            f.min = fast.mn;
            f.max = fast.mx;
            mergeExtremes(out, f);
        }
        return out;
    }
};

// Tiles [tileBegin, tileEnd) of 'in', each partial handed to sink(t, partial) in order.
template <ElementKind K, typename Sink>
void statsTiles(const ElementBuffer& in, int64_t tileBegin, int64_t tileEnd, RangeTotals& r, Sink&& sink) {
    // Flush lane counters well before doubles stop counting exactly.
    constexpr int64_t kFlushTiles = int64_t{1} << 30;
    for (int64_t t = tileBegin; t < tileEnd; ++t) {
        const int64_t first = t * kTileElements;
        const int64_t valid = std::min(kTileElements, in.count - first);
        TilePartial tile;
        if constexpr (K == ElementKind::F32) {
            if (valid == kTileElements && fastTileF32(reinterpret_cast<const float*>(in.data) + first, tile, r.fast)) {
                sink(t, tile);
                continue;
            }
        }
        tile = valid == kTileElements ? tileStats<K, true>(in.data, first, valid, r.lanes)
                                      : tileStats<K, false>(in.data, first, valid, r.lanes);
        sink(t, tile);
        if (++r.sinceFlush == kFlushTiles) {
            mergeExtremes(r.total, r.lanes.totals());
            r.lanes = Lanes();
            r.sinceFlush = 0;
        }
    }
}

template <ElementKind K>
void statsRange(const ElementBuffer& in, int64_t tileBegin, int64_t tileEnd, TilePartial* tiles, Extremes& out) {
    RangeTotals r;
    statsTiles<K>(in, tileBegin, tileEnd, r, [&](int64_t t, const TilePartial& p) { tiles[t] = p; });
    out = r.finish();
}

template <ElementKind K>
void histogramRange(const ElementBuffer& in, const HistogramSpec& spec, int64_t begin, int64_t end, HistogramCounts& out) {
    out.counts.assign(static_cast<size_t>(spec.bins), 0);
    if constexpr (K == ElementKind::F32) {
        histogramF32(reinterpret_cast<const float*>(in.data) + begin, end - begin, spec, out);
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

class CpuBackend final : public PreviewBackend {
public:
    explicit CpuBackend(int threads) : m_threads(static_cast<int>(platform::threadsOrDefault(threads))) {}

    std::string name() const override { return "cpu"; }

    Status stats(const ElementBuffer& in, std::vector<TilePartial>& tiles, Extremes& extremes) override {
        const int64_t ntiles = tileCount(in.count);
        tiles.assign(static_cast<size_t>(ntiles), TilePartial{0, 0, 0});
        // Small tensors are not worth a thread.
        const int workers = static_cast<int>(std::clamp<int64_t>(ntiles / 16, 1, m_threads));
        std::vector<Extremes> parts(static_cast<size_t>(workers));
        Status pool;
        dispatchKind(in.kind, [&]<ElementKind K>() {
            pool = platform::forEachRange(ntiles, static_cast<size_t>(workers), [&](size_t w, int64_t b, int64_t e) {
                statsRange<K>(in, b, e, tiles.data(), parts[w]);
            });
        });
        CKPT_RETURN_IF_ERROR(pool);
        extremes = Extremes{};
        for (const Extremes& p : parts) mergeExtremes(extremes, p);
        return okStatus();
    }

    Status histogram(const ElementBuffer& in, const HistogramSpec& spec, HistogramCounts& out) override {
        const int workers = static_cast<int>(std::clamp<int64_t>(in.count / 65536, 1, m_threads));
        std::vector<HistogramCounts> parts(static_cast<size_t>(workers));
        Status pool;
        dispatchKind(in.kind, [&]<ElementKind K>() {
            pool = platform::forEachRange(in.count, static_cast<size_t>(workers),
                                          [&](size_t w, int64_t b, int64_t e) { histogramRange<K>(in, spec, b, e, parts[w]); });
        });
        CKPT_RETURN_IF_ERROR(pool);
        out = HistogramCounts{};
        out.counts.assign(static_cast<size_t>(spec.bins), 0);
        for (const HistogramCounts& p : parts) {
            for (size_t b = 0; b < out.counts.size(); ++b) out.counts[b] += p.counts[b];
            out.below += p.below;
            out.above += p.above;
            out.nans += p.nans;
        }
        return okStatus();
    }

private:
    int m_threads;
};

}  // namespace

struct StatsStream::State {
    RangeTotals totals;
    TilePartial merged{0, 0, 0};
};

StatsStream::StatsStream(ElementKind kind) : m_kind(kind), m_state(std::make_unique<State>()) {}
StatsStream::~StatsStream() = default;
StatsStream::StatsStream(StatsStream&&) noexcept = default;
StatsStream& StatsStream::operator=(StatsStream&&) noexcept = default;

void StatsStream::add(const unsigned char* data, int64_t count) {
    const ElementBuffer in{m_kind, data, count};
    dispatchKind(m_kind, [&]<ElementKind K>() {
        statsTiles<K>(in, 0, tileCount(count), m_state->totals,
                      [&](int64_t, const TilePartial& p) { mergePartial(m_state->merged, p); });
    });
}

TilePartial StatsStream::merged() const { return m_state->merged; }
Extremes StatsStream::extremes() const { return m_state->totals.finish(); }

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

}  // namespace ckpt::preview

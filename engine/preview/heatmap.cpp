// Heatmap thumbnails: pick two axes of a tensor, fix or reduce the others,
// area-pool to at most maxWidth x maxHeight, map through a colormap. CPU
// only, in one pass over the selected elements split across threads.

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ckpt/preview.h"
#include "platform/parallel.h"
#include "preview/preview_backend.h"

namespace ckpt {
namespace {

using preview::ElementKind;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Anchor {
    double t;
    std::array<uint8_t, 3> rgb;
};

struct Colormap {
    const char* name;
    bool diverging;
    std::vector<Anchor> anchors;
};

// Anchors sampled from matplotlib's maps; linear interpolation between them.
const std::vector<Colormap>& colormaps() {
    static const std::vector<Colormap> maps = {
        {"viridis",
         false,
         {{0.0, {68, 1, 84}},
          {0.125, {71, 44, 122}},
          {0.25, {59, 81, 139}},
          {0.375, {44, 113, 142}},
          {0.5, {33, 144, 141}},
          {0.625, {39, 173, 129}},
          {0.75, {92, 200, 99}},
          {0.875, {170, 220, 50}},
          {1.0, {253, 231, 37}}}},
        {"magma",
         false,
         {{0.0, {0, 0, 4}},
          {0.125, {28, 16, 68}},
          {0.25, {79, 18, 123}},
          {0.375, {129, 37, 129}},
          {0.5, {181, 54, 122}},
          {0.625, {229, 80, 100}},
          {0.75, {251, 135, 97}},
          {0.875, {254, 194, 135}},
          {1.0, {252, 253, 191}}}},
        {"gray", false, {{0.0, {0, 0, 0}}, {1.0, {255, 255, 255}}}},
        {"coolwarm",
         true,
         {{0.0, {59, 76, 192}}, {0.25, {141, 176, 254}}, {0.5, {221, 220, 220}}, {0.75, {244, 154, 123}}, {1.0, {180, 4, 38}}}},
        {"rdbu",
         true,
         {{0.0, {103, 0, 31}}, {0.25, {214, 96, 77}}, {0.5, {247, 247, 247}}, {0.75, {67, 147, 195}}, {1.0, {5, 48, 97}}}},
    };
    return maps;
}

std::array<uint8_t, 4> colorAt(const Colormap& map, double t) {
    t = std::clamp(t, 0.0, 1.0);
    const auto& a = map.anchors;
    size_t k = 1;
    while (k + 1 < a.size() && a[k].t < t) ++k;
    const double f = (t - a[k - 1].t) / (a[k].t - a[k - 1].t);
    std::array<uint8_t, 4> out{0, 0, 0, 255};
    for (int c = 0; c < 3; ++c) {
        const double v =
            a[k - 1].rgb[static_cast<size_t>(c)] + f * (a[k].rgb[static_cast<size_t>(c)] - a[k - 1].rgb[static_cast<size_t>(c)]);
        out[static_cast<size_t>(c)] = static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
    }
    return out;
}

// Output cell of each source coordinate along one axis (area pooling).
std::vector<int32_t> poolMap(int64_t extent, int out) {
    std::vector<int32_t> m(static_cast<size_t>(extent));
    for (int64_t i = 0; i < extent; ++i) m[static_cast<size_t>(i)] = static_cast<int32_t>(i * out / extent);
    return m;
}

struct Accum {
    std::vector<double> sum;    // Mean: sum of finite values; MaxAbs: value with the largest |x|
    std::vector<double> count;  // finite values seen
};

struct Plan {
    std::vector<int64_t> dims;      // effective dims (rank >= 1)
    int rowAxis = -1, colAxis = 0;  // -1: the virtual unit row
    std::vector<int64_t> fixed;     // per axis: fixed index or -1
    int outW = 1, outH = 1;
    std::vector<int32_t> rowMap, colMap;
    std::vector<int64_t> colStart;  // first source column of each output column, plus the end
};

template <ElementKind K>
void accumulate(const unsigned char* data, const Plan& p, HeatmapReduce reduce, int64_t outerBegin, int64_t outerEnd,
                Accum& acc) {
    const int rank = static_cast<int>(p.dims.size());
    const int last = rank - 1;
    const int64_t inner = p.dims[static_cast<size_t>(last)];
    // Odometer over the outer axes (all but the last), starting at outerBegin.
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    int64_t rem = outerBegin;
    for (int d = last - 1; d >= 0; --d) {
        idx[static_cast<size_t>(d)] = rem % p.dims[static_cast<size_t>(d)];
        rem /= p.dims[static_cast<size_t>(d)];
    }
    double* sum = acc.sum.data();
    double* cnt = acc.count.data();
    for (int64_t o = outerBegin; o < outerEnd; ++o) {
        bool skip = false;
        int64_t cellBase = 0;
        for (int d = 0; d < last; ++d) {
            const int64_t i = idx[static_cast<size_t>(d)];
            if (p.fixed[static_cast<size_t>(d)] >= 0 && p.fixed[static_cast<size_t>(d)] != i) skip = true;
            if (d == p.rowAxis) cellBase += int64_t{p.rowMap[static_cast<size_t>(i)]} * p.outW;
            if (d == p.colAxis) cellBase += p.colMap[static_cast<size_t>(i)];
        }
        if (!skip) {
            const int64_t first = o * inner;
            int64_t kBegin = 0, kEnd = inner;
            if (p.fixed[static_cast<size_t>(last)] >= 0) {
                kBegin = p.fixed[static_cast<size_t>(last)];
                kEnd = kBegin + 1;
            }
            if (last == p.colAxis && reduce == HeatmapReduce::Mean && kBegin == 0) {
                // Common case: runs of consecutive columns pool into one
                // cell; sum each run in registers (four chains) instead of
                // through the cell in memory.
                for (size_t oc = 0; oc + 1 < p.colStart.size(); ++oc) {
                    const int64_t b = p.colStart[oc], e = p.colStart[oc + 1];
                    double s4[4] = {0, 0, 0, 0}, n4[4] = {0, 0, 0, 0};
                    int64_t k = b;
                    for (; k + 4 <= e; k += 4) {
                        for (int u = 0; u < 4; ++u) {
                            const double x = preview::loadElement<K>(data, first + k + u);
                            const bool fin = preview::isFiniteValue(x);
                            s4[u] += fin ? x : 0.0;
                            n4[u] += fin ? 1.0 : 0.0;
                        }
                    }
                    for (; k < e; ++k) {
                        const double x = preview::loadElement<K>(data, first + k);
                        const bool fin = preview::isFiniteValue(x);
                        s4[0] += fin ? x : 0.0;
                        n4[0] += fin ? 1.0 : 0.0;
                    }
                    sum[cellBase + static_cast<int64_t>(oc)] += (s4[0] + s4[1]) + (s4[2] + s4[3]);
                    cnt[cellBase + static_cast<int64_t>(oc)] += (n4[0] + n4[1]) + (n4[2] + n4[3]);
                }
            } else {
                const int32_t* laneMap = last == p.colAxis ? p.colMap.data() : last == p.rowAxis ? p.rowMap.data() : nullptr;
                const int64_t laneScale = last == p.colAxis ? 1 : p.outW;
                for (int64_t k = kBegin; k < kEnd; ++k) {
                    const double x = preview::loadElement<K>(data, first + k);
                    if (!preview::isFiniteValue(x)) continue;
                    const int64_t cell = cellBase + (laneMap ? laneMap[k] * laneScale : 0);
                    if (reduce == HeatmapReduce::Mean) {
                        sum[cell] += x;
                    } else if (cnt[cell] == 0 || std::fabs(x) > std::fabs(sum[cell])) {
                        sum[cell] = x;
                    }
                    cnt[cell] += 1;
                }
            }
        }
        for (int d = last - 1; d >= 0; --d) {
            if (++idx[static_cast<size_t>(d)] < p.dims[static_cast<size_t>(d)]) break;
            idx[static_cast<size_t>(d)] = 0;
        }
    }
}

}  // namespace

std::vector<std::string> heatmapColormapNames() {
    std::vector<std::string> names{"auto"};
    for (const Colormap& m : colormaps()) names.emplace_back(m.name);
    return names;
}

namespace {

// The request's size and fixed range; the colormap it names (nullptr for
// "auto": chosen once the values' range is known).
Result<const Colormap*> checkRequest(const HeatmapRequest& request) {
    if (request.maxWidth < 1 || request.maxHeight < 1) {
        return invalidArgument("heatmap size must be at least 1x1, got " + std::to_string(request.maxWidth) + "x" +
                               std::to_string(request.maxHeight));
    }
    if (request.lo.has_value() != request.hi.has_value()) {
        return invalidArgument("a fixed heatmap range needs both lo and hi");
    }
    if (request.lo && !(std::isfinite(*request.lo) && std::isfinite(*request.hi) && *request.lo < *request.hi)) {
        return invalidArgument("fixed heatmap range [" + std::to_string(*request.lo) + ", " + std::to_string(*request.hi) +
                               "] must be finite with lo < hi");
    }
    if (request.colormap == "auto") return static_cast<const Colormap*>(nullptr);
    for (const Colormap& m : colormaps()) {
        if (request.colormap == m.name) return &m;
    }
    std::string known;
    for (const std::string& n : heatmapColormapNames()) known += (known.empty() ? "" : ", ") + n;
    return invalidArgument("unknown colormap \"" + request.colormap + "\" (known: " + known + ")");
}

// Which axes become rows and columns, which indices are fixed, and how
// source rows and columns pool into output pixels.
Result<Plan> planHeatmap(const TensorView& tensor, const HeatmapRequest& request, int64_t elements) {
    const int rank = tensor.shape.rank();
    Plan p;
    p.dims = rank == 0 ? std::vector<int64_t>{1} : tensor.shape.dims;
    const int erank = static_cast<int>(p.dims.size());
    if (request.axes) {
        const auto [r, c] = *request.axes;
        for (int a : {r, c}) {
            if (a < 0 || a >= std::max(rank, 1)) {
                return invalidArgument("axis " + std::to_string(a) + " does not exist in a tensor of rank " +
                                       std::to_string(rank) + " (shape " + tensor.shape.toString() + ")");
            }
        }
        if (r == c && erank > 1) return invalidArgument("heatmap axes must differ, got " + std::to_string(r) + " twice");
        p.rowAxis = erank == 1 ? -1 : r;
        p.colAxis = erank == 1 ? 0 : c;
    } else if (erank >= 2) {
        p.rowAxis = erank - 2;
        p.colAxis = erank - 1;
    }
    p.fixed.assign(static_cast<size_t>(erank), -1);
    for (const auto& [axis, index] : request.fixedIndices) {
        if (axis < 0 || axis >= erank || rank == 0) {
            return invalidArgument("fixed axis " + std::to_string(axis) + " does not exist in a tensor of rank " +
                                   std::to_string(rank) + " (shape " + tensor.shape.toString() + ")");
        }
        if (axis == p.rowAxis || axis == p.colAxis) {
            return invalidArgument("axis " + std::to_string(axis) + " is a heatmap axis and cannot be fixed");
        }
        const int64_t extent = p.dims[static_cast<size_t>(axis)];
        if (index < 0 || index >= extent) {
            return outOfRange("index " + std::to_string(index) + " out of range for axis " + std::to_string(axis) + " of size " +
                              std::to_string(extent) + " (shape " + tensor.shape.toString() + ")");
        }
        p.fixed[static_cast<size_t>(axis)] = index;
    }
    if (elements == 0) {
        return invalidArgument("cannot draw a heatmap of an empty tensor (shape " + tensor.shape.toString() + ")");
    }
    const int64_t srcH = p.rowAxis >= 0 ? p.dims[static_cast<size_t>(p.rowAxis)] : 1;
    const int64_t srcW = p.dims[static_cast<size_t>(p.colAxis)];
    p.outH = static_cast<int>(std::min<int64_t>(srcH, request.maxHeight));
    p.outW = static_cast<int>(std::min<int64_t>(srcW, request.maxWidth));
    p.rowMap = poolMap(srcH, p.outH);
    p.colMap = poolMap(srcW, p.outW);
    p.colStart.assign(static_cast<size_t>(p.outW) + 1, srcW);
    for (int64_t i = srcW - 1; i >= 0; --i) p.colStart[static_cast<size_t>(p.colMap[static_cast<size_t>(i)])] = i;
    return p;
}

// Each worker pools a range of outer rows into its own cells.
Result<std::vector<Accum>> accumulateCells(const preview::Elements& el, const Plan& p, const HeatmapRequest& request) {
    const size_t cells = static_cast<size_t>(p.outW) * static_cast<size_t>(p.outH);
    const int64_t outer = el.buffer.count / p.dims.back();
    const auto threads = static_cast<int64_t>(platform::threadsOrDefault(request.cpuThreads));
    const auto workers = static_cast<size_t>(std::clamp<int64_t>(std::min<int64_t>(threads, el.buffer.count / 65536), 1, outer));
    std::vector<Accum> parts(workers);
    for (Accum& a : parts) {
        a.sum.assign(cells, 0.0);
        a.count.assign(cells, 0.0);
    }
    Status pool;
    preview::dispatchKind(el.buffer.kind, [&]<ElementKind K>() {
        pool = platform::forEachRange(outer, workers, [&](size_t w, int64_t begin, int64_t end) {
            accumulate<K>(el.buffer.data, p, request.reduce, begin, end, parts[w]);
        });
    });
    CKPT_RETURN_IF_ERROR(pool);
    return parts;
}

// The workers' cells joined into h.values (NaN where no finite value fell);
// lo and hi receive the range of what was joined.
void joinCells(const std::vector<Accum>& parts, HeatmapReduce reduce, Heatmap& h, double& lo, double& hi) {
    const size_t cells = h.values.size();
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    for (size_t c = 0; c < cells; ++c) {
        double v = 0, n = 0;
        for (const Accum& a : parts) {
            if (a.count[c] == 0) continue;
            if (reduce == HeatmapReduce::Mean) v += a.sum[c];
            else if (n == 0 || std::fabs(a.sum[c]) > std::fabs(v)) v = a.sum[c];
            n += a.count[c];
        }
        if (n == 0) continue;
        h.values[c] = reduce == HeatmapReduce::Mean ? v / n : v;
        lo = std::min(lo, h.values[c]);
        hi = std::max(hi, h.values[c]);
    }
}

// Colours h.values on [lo, hi] with 'map' (or, when null, coolwarm for
// values of both signs and viridis otherwise); a diverging map is centred
// on zero.
void colourCells(Heatmap& h, const Colormap* map, double lo, double hi) {
    if (!map) {
        const char* name = (lo < 0 && hi > 0) ? "coolwarm" : "viridis";
        for (const Colormap& m : colormaps()) {
            if (m.name == std::string_view(name)) map = &m;
        }
    }
    h.colormap = map->name;
    if (lo > hi) {  // no finite value at all
        lo = hi = 0;
    } else if (map->diverging) {
        const double m = std::max(std::fabs(lo), std::fabs(hi));
        lo = -m;
        hi = m;
    }
    h.lo = lo;
    h.hi = hi;
    const size_t cells = h.values.size();
    h.rgba.assign(cells * 4, 0);
    for (size_t c = 0; c < cells; ++c) {
        const double v = h.values[c];
        std::array<uint8_t, 4> px{128, 128, 128, 0};  // transparent: no finite value
        if (!std::isnan(v)) px = colorAt(*map, hi > lo ? (v - lo) / (hi - lo) : 0.5);
        std::copy(px.begin(), px.end(), h.rgba.begin() + static_cast<std::ptrdiff_t>(c * 4));
    }
}

}  // namespace

Result<Heatmap> renderHeatmap(const TensorView& tensor, const HeatmapRequest& request) {
    CKPT_ASSIGN_OR_RETURN(const Colormap* map, checkRequest(request));
    CKPT_ASSIGN_OR_RETURN(preview::Elements el, preview::elementsOf(tensor));
    CKPT_ASSIGN_OR_RETURN(const Plan p, planHeatmap(tensor, request, el.buffer.count));
    CKPT_ASSIGN_OR_RETURN(const std::vector<Accum> parts, accumulateCells(el, p, request));
    const int rank = tensor.shape.rank();
    Heatmap h;
    h.width = p.outW;
    h.height = p.outH;
    h.rowAxis = rank == 0 ? -1 : p.rowAxis;
    h.colAxis = rank == 0 ? -1 : p.colAxis;
    h.computedOn.device = "cpu";
    h.values.assign(static_cast<size_t>(p.outW) * static_cast<size_t>(p.outH), kNaN);
    double lo = 0, hi = 0;
    joinCells(parts, request.reduce, h, lo, hi);
    if (request.lo) {  // a shared scale replaces the data's own range
        lo = *request.lo;
        hi = *request.hi;
    }
    colourCells(h, map, lo, hi);
    return h;
}

}  // namespace ckpt

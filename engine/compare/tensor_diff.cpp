#include "ckpt/tensor_diff.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "compare/pair_kernel.h"
#include "format/region_read.h"
#include "platform/parallel.h"
#include "preview/preview_backend.h"

namespace ckpt {
namespace {

using preview::ElementKind;

Status checkPair(const TensorView& a, const TensorView& b) {
    if (a.dtype != b.dtype)
        return invalidArgument("cannot compare values of " + std::string(dataTypeName(a.dtype)) + " with " +
                               std::string(dataTypeName(b.dtype)));
    if (a.shape != b.shape)
        return invalidArgument("cannot compare values of shape " + a.shape.toString() + " with " + b.shape.toString());
    if (!a.shape.numElements()) return invalidArgument("shape " + a.shape.toString() + " has too many elements");
    return okStatus();
}

Status checkBytes(const TensorView& t, int64_t elementSize) {
    if (static_cast<int64_t>(t.bytes.size()) != t.numElements() * elementSize)
        return invalidArgument("tensor of shape " + t.shape.toString() + " holds " + std::to_string(t.bytes.size()) +
                               " bytes, not " + std::to_string(t.numElements() * elementSize));
    return okStatus();
}

std::optional<int64_t> parseInt(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    int64_t v = 0;
    const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
    if (res.ec != std::errc() || res.ptr != text.data() + text.size()) return std::nullopt;
    return v;
}

}  // namespace

ResolvedTolerance toleranceFor(DataType dtype, const Tolerance& tolerance) {
    ResolvedTolerance r;
    r.exact = tolerance.exact;
    r.nanEqual = tolerance.nanEqual;
    switch (dtype) {
    case DataType::Float:
    case DataType::Complex64: r.rtol = 1.3e-6, r.atol = 1e-5; break;
    case DataType::Double:
    case DataType::Complex128: r.rtol = 1e-7, r.atol = 1e-7; break;
    case DataType::Half: r.rtol = 1e-3, r.atol = 1e-5; break;
    case DataType::BFloat16: r.rtol = 1.6e-2, r.atol = 1e-5; break;
    default: r.exact = true;
    }
    if (!r.exact) {
        if (tolerance.atol) r.atol = *tolerance.atol;
        if (tolerance.rtol) r.rtol = *tolerance.rtol;
    }
    if (r.exact) r.atol = r.rtol = 0;
    return r;
}

Result<DiffSlice> parseDiffSlice(std::string_view text, const TensorShape& shape) {
    DiffSlice slice;
    const std::string spec(text);
    size_t pos = 0;
    for (int d = 0; pos <= spec.size(); ++d) {
        const size_t comma = std::min(spec.find(',', pos), spec.size());
        const std::string_view part = std::string_view(spec).substr(pos, comma - pos);
        pos = comma + 1;
        if (d >= shape.rank()) return invalidArgument("slice '" + spec + "' has more dimensions than shape " + shape.toString());
        const int64_t dim = shape.dims[static_cast<size_t>(d)];
        int64_t lo = 0, hi = dim;
        const size_t colon = part.find(':');
        auto bound = [&](std::string_view t, int64_t fallback) -> std::optional<int64_t> {
            if (t.find_first_not_of(' ') == std::string_view::npos) return fallback;
            auto v = parseInt(t);
            if (v && *v < 0) *v += dim;  // numpy's negative indices
            return v;
        };
        if (colon == std::string_view::npos) {
            auto v = bound(part, -1);
            if (!v || *v < 0 || *v >= dim)
                return invalidArgument("slice '" + spec + "': index '" + std::string(part) + "' is not inside dimension " +
                                       std::to_string(d) + " of shape " + shape.toString());
            lo = *v, hi = *v + 1;
        } else {
            auto l = bound(part.substr(0, colon), 0), h = bound(part.substr(colon + 1), dim);
            if (!l || !h || *l < 0 || *h > dim || *l > *h)
                return invalidArgument("slice '" + spec + "': range '" + std::string(part) + "' is not inside dimension " +
                                       std::to_string(d) + " of shape " + shape.toString());
            lo = *l, hi = *h;
        }
        slice.ranges.emplace_back(lo, hi);
        if (comma == spec.size()) break;
    }
    return slice;
}

Result<TensorDiff> diffTensors(const TensorView& a, const TensorView& b, const TensorDiffOptions& options) {
    CKPT_RETURN_IF_ERROR(checkPair(a, b));
    const ResolvedTolerance tol = toleranceFor(a.dtype, options.tolerance);
    const compare::SliceRuns slice = options.slice ? compare::SliceRuns(a.shape, *options.slice) : compare::SliceRuns();
    const int64_t n = a.numElements();
    if (a.dtype == DataType::String) {
        if (static_cast<int64_t>(a.strings.size()) != n || static_cast<int64_t>(b.strings.size()) != n)
            return invalidArgument("string tensor of shape " + a.shape.toString() + " has the wrong element count");
        compare::PairPartial p;
        compare::accumulateStringPairs(a.strings, b.strings, slice, options.maxListed, p);
        return compare::finishDiff(std::move(p), tol, true);
    }
    CKPT_ASSIGN_OR_RETURN(ElementKind kind, preview::elementKindOf(a.dtype));
    const int64_t size = preview::elementSize(kind);
    CKPT_RETURN_IF_ERROR(checkBytes(a, size));
    CKPT_RETURN_IF_ERROR(checkBytes(b, size));
    // The same parts a streamed diff reads, so both give the same bits.
    const int64_t perPart = static_cast<int64_t>(format::kRegionPartBytes) / size;
    const int64_t parts = std::max<int64_t>(1, (n + perPart - 1) / perPart);
    std::vector<compare::PairPartial> partials(static_cast<size_t>(parts));
    CKPT_RETURN_IF_ERROR(platform::forEachItem(
        static_cast<size_t>(parts), platform::threadsOrDefault(options.cpuThreads), [&](size_t, size_t part) {
            const int64_t first = static_cast<int64_t>(part) * perPart;
            const compare::PairRun run{kind, a.bytes.data() + first * size, b.bytes.data() + first * size, first,
                                       std::min(perPart, n - first)};
            compare::accumulatePairs(run, slice, tol, options.maxListed, partials[part]);
        }));
    for (size_t i = 1; i < partials.size(); ++i) compare::mergePartials(partials[0], std::move(partials[i]), options.maxListed);
    return compare::finishDiff(std::move(partials[0]), tol, tol.exact || compare::comparesExactly(kind));
}

bool isEqualWithinTolerance(const TensorDiff& diff) {
    return diff.mismatches == 0 && diff.nansAppeared == 0 && diff.nansDisappeared == 0 && diff.infsAppeared == 0 &&
           diff.infsDisappeared == 0;
}

Result<Tensor> absoluteDifference(const TensorView& a, const TensorView& b) {
    CKPT_RETURN_IF_ERROR(checkPair(a, b));
    CKPT_ASSIGN_OR_RETURN(ElementKind kind, preview::elementKindOf(a.dtype));
    const int64_t size = preview::elementSize(kind);
    CKPT_RETURN_IF_ERROR(checkBytes(a, size));
    CKPT_RETURN_IF_ERROR(checkBytes(b, size));
    const int64_t n = a.numElements();
    Tensor out;
    out.dtype = DataType::Double;
    out.shape = a.shape;
    out.bytes.resize(static_cast<size_t>(n) * sizeof(double));
    auto* dst = reinterpret_cast<double*>(out.bytes.data());
    preview::dispatchKind(kind, [&]<ElementKind K>() {
        for (int64_t i = 0; i < n; ++i) {
            if constexpr (K == ElementKind::C64 || K == ElementKind::C128) {
                using T = std::conditional_t<K == ElementKind::C64, float, double>;
                const T* x = reinterpret_cast<const T*>(a.bytes.data()) + 2 * i;
                const T* y = reinterpret_cast<const T*>(b.bytes.data()) + 2 * i;
                dst[i] = std::hypot(static_cast<double>(x[0]) - y[0], static_cast<double>(x[1]) - y[1]);
            } else {
                dst[i] = std::fabs(preview::loadElement<K>(a.bytes.data(), i) - preview::loadElement<K>(b.bytes.data(), i));
            }
        }
    });
    return out;
}

}  // namespace ckpt

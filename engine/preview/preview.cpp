// The preview API (ckpt/preview.h): turns a TensorView into raw elements,
// picks a backend (auto / cpu / cuda, recording why CUDA was not used) and
// finishes the results from the backend's partials.

#include "ckpt/preview.h"

#include <cmath>
#include <limits>

#include "platform/parallel.h"
#include "preview/device_choice.h"
#include "preview/preview_backend.h"

namespace ckpt {
namespace {

using preview::Elements;
using preview::PreviewBackend;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Selected {
    std::unique_ptr<PreviewBackend> backend;
    ComputedOn on;
};

// Auto asks the device model (device_choice.h) before touching CUDA at
// all: starting the driver is most of what the GPU path costs.
Result<Selected> selectBackend(const PreviewOptions& options, int64_t bytes) {
    Selected sel;
    bool tryCuda = options.device == PreviewDevice::Cuda;
    if (options.device == PreviewDevice::Auto) {
        const preview::DeviceEstimate e =
            preview::estimateDevices(bytes, platform::threadsOrDefault(options.cpuThreads), preview::cudaContextStarted());
        sel.on.estimate = e.summary;
        tryCuda = e.cuda;
        if (!e.cuda) sel.on.fallbackReason = "the CPU is estimated faster here";
    }
    if (tryCuda) {
        auto cuda = preview::makeCudaBackend(options.cudaChunkBytes);
        if (cuda) {
            sel.backend = std::move(*cuda);
            sel.on.device = "cuda";
            sel.on.deviceName = sel.backend->deviceName();
            return sel;
        }
        if (options.device == PreviewDevice::Cuda) return cuda.status();
        sel.on.fallbackReason = cuda.status().message();
    }
    sel.backend = preview::makeCpuBackend(options.cpuThreads);
    sel.on.device = "cpu";
    return sel;
}

// Runs op on the backend chosen for a pass over 'in'; under Auto a CUDA
// failure falls back to the CPU with the error recorded.
template <typename Op>
Status runOnBackend(const PreviewOptions& options, const preview::ElementBuffer& in, ComputedOn& on, Op&& op) {
    CKPT_ASSIGN_OR_RETURN(Selected sel, selectBackend(options, in.count * preview::elementSize(in.kind)));
    Status st = op(*sel.backend);
    if (!st.isOk() && sel.on.device == "cuda" && options.device == PreviewDevice::Auto) {
        auto cpu = preview::makeCpuBackend(options.cpuThreads);
        sel.on = {"cpu", {}, "CUDA failed: " + st.toString(), sel.on.estimate};
        st = op(*cpu);
    }
    on = sel.on;
    return st;
}

}  // namespace

namespace preview {

void fillStats(const TilePartial& merged, const Extremes& ex, TensorStats& s) {
    s.finiteCount = ex.finite;
    s.zeros = ex.zeros;
    s.nans = ex.nans;
    s.posInfs = ex.posInfs;
    s.negInfs = ex.negInfs;
    if (ex.finite == 0) {
        s.min = s.max = s.mean = s.std = s.absMax = kNaN;
        return;
    }
    s.min = ex.min;
    s.max = ex.max;
    s.absMax = std::max(std::fabs(ex.min), std::fabs(ex.max));
    s.mean = merged.mean;
    s.std = std::sqrt(merged.m2 / static_cast<double>(merged.n));
}

Result<ElementKind> elementKindOf(DataType dtype) {
    switch (dtype) {
    case DataType::Float: return ElementKind::F32;
    case DataType::Double: return ElementKind::F64;
    case DataType::Half: return ElementKind::F16;
    case DataType::BFloat16: return ElementKind::BF16;
    case DataType::Int8:
    case DataType::QInt8: return ElementKind::I8;
    case DataType::Int16:
    case DataType::QInt16: return ElementKind::I16;
    case DataType::Int32:
    case DataType::QInt32: return ElementKind::I32;
    case DataType::Int64: return ElementKind::I64;
    case DataType::UInt8:
    case DataType::QUInt8: return ElementKind::U8;
    case DataType::UInt16:
    case DataType::QUInt16: return ElementKind::U16;
    case DataType::UInt32: return ElementKind::U32;
    case DataType::UInt64: return ElementKind::U64;
    case DataType::Bool: return ElementKind::Bool;
    case DataType::Complex64: return ElementKind::C64;
    case DataType::Complex128: return ElementKind::C128;
    default: return Status(StatusCode::Unimplemented, "no preview for dtype " + std::string(dataTypeName(dtype)));
    }
}

}  // namespace preview

std::string_view previewDeviceName(PreviewDevice device) {
    switch (device) {
    case PreviewDevice::Auto: return "auto";
    case PreviewDevice::Cpu: return "cpu";
    case PreviewDevice::Cuda: return "cuda";
    }
    return "auto";
}

std::optional<PreviewDevice> previewDeviceFromName(std::string_view name) {
    if (name == "auto") return PreviewDevice::Auto;
    if (name == "cpu") return PreviewDevice::Cpu;
    if (name == "cuda" || name == "gpu") return PreviewDevice::Cuda;
    return std::nullopt;
}

Result<TensorStats> computeStats(const TensorView& tensor, const PreviewOptions& options) {
    CKPT_ASSIGN_OR_RETURN(Elements el, preview::elementsOf(tensor));
    TensorStats stats;
    stats.count = el.buffer.count;
    stats.stringLengths = el.stringLengths;
    stats.complexMagnitude = el.complexMagnitude;
    std::vector<preview::TilePartial> tiles;
    preview::Extremes ex;
    CKPT_RETURN_IF_ERROR(
        runOnBackend(options, el.buffer, stats.computedOn, [&](PreviewBackend& b) { return b.stats(el.buffer, tiles, ex); }));
    preview::fillStats(preview::mergeTiles(tiles), ex, stats);
    return stats;
}

Result<Histogram> computeHistogram(const TensorView& tensor, const HistogramRequest& request, const PreviewOptions& options) {
    if (request.bins < 1 || request.bins > kMaxHistogramBins) {
        return invalidArgument("histogram bins must be 1.." + std::to_string(kMaxHistogramBins) + ", got " +
                               std::to_string(request.bins));
    }
    if ((request.lo && !std::isfinite(*request.lo)) || (request.hi && !std::isfinite(*request.hi))) {
        return invalidArgument("histogram range must be finite");
    }
    CKPT_ASSIGN_OR_RETURN(Elements el, preview::elementsOf(tensor));
    Histogram h;
    h.logCounts = request.logCounts;
    h.stringLengths = el.stringLengths;
    double lo = 0, hi = 1;  // numpy's range for no finite values
    if (!request.lo || !request.hi) {
        CKPT_ASSIGN_OR_RETURN(TensorStats stats, computeStats(tensor, options));
        if (stats.finiteCount > 0) {
            lo = stats.min;
            hi = stats.max;
        }
    }
    if (request.lo) lo = *request.lo;
    if (request.hi) hi = *request.hi;
    if (lo > hi) return invalidArgument("histogram range is empty: lo > hi");
    if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
    }
    const preview::HistogramSpec spec = preview::makeHistogramSpec(lo, hi, request.bins);
    preview::HistogramCounts counts;
    CKPT_RETURN_IF_ERROR(
        runOnBackend(options, el.buffer, h.computedOn, [&](PreviewBackend& b) { return b.histogram(el.buffer, spec, counts); }));
    h.lo = lo;
    h.hi = hi;
    h.edges = spec.edges;
    h.counts = std::move(counts.counts);
    h.below = counts.below;
    h.above = counts.above;
    h.nans = counts.nans;
    return h;
}

namespace preview {

Result<Elements> elementsOf(const TensorView& t) {
    Elements el;
    const auto n = t.shape.numElements();
    if (!n) return invalidArgument("tensor shape " + t.shape.toString() + " has more elements than int64 holds");
    if (t.dtype == DataType::String) {
        if (static_cast<int64_t>(t.strings.size()) != *n) {
            return invalidArgument("string tensor of shape " + t.shape.toString() + " holds " + std::to_string(t.strings.size()) +
                                   " strings");
        }
        el.lengths.reserve(t.strings.size());
        for (const std::string& s : t.strings) el.lengths.push_back(static_cast<int64_t>(s.size()));
        el.buffer = {ElementKind::I64, reinterpret_cast<const unsigned char*>(el.lengths.data()), *n};
        el.stringLengths = true;
        return el;
    }
    CKPT_ASSIGN_OR_RETURN(ElementKind kind, preview::elementKindOf(t.dtype));
    const int64_t expected = *n * preview::elementSize(kind);
    if (static_cast<int64_t>(t.bytes.size()) != expected) {
        return invalidArgument(std::string(dataTypeName(t.dtype)) + " tensor of shape " + t.shape.toString() + " needs " +
                               std::to_string(expected) + " bytes, has " + std::to_string(t.bytes.size()));
    }
    el.buffer = {kind, t.bytes.data(), *n};
    el.complexMagnitude = isComplex(t.dtype);
    return el;
}

}  // namespace preview
}  // namespace ckpt

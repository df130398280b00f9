#pragma once
// Tensor previews: statistics, histograms and heatmap thumbnails of decoded
// tensors, computed on a CUDA device when one is usable and on all CPU cores
// otherwise. Pure functions of their inputs; safe to call from any thread
// (each call creates its own worker threads / CUDA stream).
//   auto tensor = reader->read(key);
//   PreviewOptions opt;                        // device = Auto
//   auto stats = computeStats(TensorView::of(*tensor), opt);
//   if (!stats) return stats.status();
//   std::cout << stats->mean << " on " << stats->computedOn.device;
//
// Numeric contract (docs/cli.md "stats"): min/max/absmax, mean and std are
// over the finite values (NaN and ±Inf are only counted); std is the
// population standard deviation (ddof = 0). Complex values preview as their
// magnitude, bool as 0/1, strings as their byte lengths. The CPU and CUDA
// paths give identical counts, min, max and histogram bins, and mean/std that
// agree to well under 1e-9 relative (both merge the same per-tile float64
// partials in the same order).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/dtype.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

// Raw host values of one tensor; borrows, the owner must outlive the view.
struct TensorView {
    DataType dtype = DataType::Invalid;
    TensorShape shape;
    std::span<const uint8_t> bytes;        // fixed-size types, little-endian row-major
    std::span<const std::string> strings;  // DT_STRING

    static TensorView of(const Tensor& tensor) { return {tensor.dtype, tensor.shape, tensor.bytes, tensor.strings}; }
    int64_t numElements() const { return shape.numElements().value_or(0); }
};

enum class PreviewDevice { Auto, Cpu, Cuda };
std::string_view previewDeviceName(PreviewDevice device);  // "auto", "cpu", "cuda"
std::optional<PreviewDevice> previewDeviceFromName(std::string_view name);

struct PreviewOptions {
    // Auto: CUDA when a device is usable and a model of both paths (size,
    // cores, whether CUDA has started) says it finishes first, else CPU;
    // the estimate and the reason are recorded.
    // Cuda: fail with FailedPrecondition when no device is usable.
    PreviewDevice device = PreviewDevice::Auto;
    int cpuThreads = 0;  // 0 = std::thread::hardware_concurrency()
    // Bytes per chunk streamed to the GPU; 0 = 64 MiB. Tests make it small
    // to exercise the streaming path on small tensors.
    size_t cudaChunkBytes = 0;
};

// Where a preview ran, and why not on the GPU when it did not.
struct ComputedOn {
    std::string device;          // "cpu" or "cuda"
    std::string deviceName;      // e.g. "NVIDIA H100 80GB HBM3"; "" for cpu
    std::string fallbackReason;  // set when Auto fell back to the CPU
    std::string estimate;        // Auto: its estimate of both paths ("cpu ~0.012 s on 2 threads, cuda ~0.31 s ...")
};

struct TensorStats {
    int64_t count = 0;        // elements
    int64_t finiteCount = 0;  // elements that enter min/max/mean/std
    int64_t zeros = 0;
    int64_t nans = 0;
    int64_t posInfs = 0;
    int64_t negInfs = 0;
    // NaN when finiteCount == 0.
    double min = 0, max = 0, mean = 0, std = 0, absMax = 0;
    bool stringLengths = false;  // stats describe byte lengths of strings
    bool complexMagnitude = false;
    ComputedOn computedOn;
};

struct HistogramRequest {
    int bins = 64;                 // 1 ... kMaxHistogramBins
    std::optional<double> lo, hi;  // default: finite [min, max]
    bool logCounts = false;        // presentation hint, counts stay linear
};
inline constexpr int kMaxHistogramBins = 4096;

// Bins follow numpy.histogram on float64 values: edges[i] = lo + i*(hi-lo)/bins,
// last edge = hi, the last bin closed. lo == hi widens to [lo-0.5, hi+0.5].
struct Histogram {
    double lo = 0, hi = 0;
    std::vector<double> edges;     // bins + 1
    std::vector<int64_t> counts;   // bins
    int64_t below = 0, above = 0;  // finite or infinite values outside [lo, hi]
    int64_t nans = 0;
    bool logCounts = false;
    bool stringLengths = false;
    ComputedOn computedOn;
};

enum class HeatmapReduce { Mean, MaxAbs };

struct HeatmapRequest {
    // (row axis, column axis); default: the last two axes (rank 1: one row).
    std::optional<std::pair<int, int>> axes;
    std::map<int, int64_t> fixedIndices;  // axis -> index; other axes are reduced
    HeatmapReduce reduce = HeatmapReduce::Mean;
    int maxWidth = 256, maxHeight = 256;  // the thumbnail is pooled to at most this
    // "auto" (diverging "coolwarm" for data with both signs, else "viridis"),
    // "viridis", "magma", "gray", "coolwarm", "rdbu".
    std::string colormap = "auto";
    // A fixed colour scale instead of the data's pooled [min, max], so two
    // heatmaps drawn with the same range compare by colour (both or
    // neither; lo < hi). "auto" and the diverging maps' centring on zero
    // then apply to this range; values outside it take the ends' colours.
    std::optional<double> lo, hi;
    int cpuThreads = 0;
};

struct Heatmap {
    int width = 0, height = 0;
    std::vector<double> values;  // height*width pooled values (NaN: no finite value)
    std::vector<uint8_t> rgba;   // height*width*4
    std::string colormap;        // the colormap used (auto resolved)
    double lo = 0, hi = 0;       // values mapped to the colormap's ends
    int rowAxis = -1, colAxis = -1;
    ComputedOn computedOn;
};

std::vector<std::string> heatmapColormapNames();

// InvalidArgument for variant/resource dtypes and for bad requests.
Result<TensorStats> computeStats(const TensorView& tensor, const PreviewOptions& options = {});
Result<Histogram> computeHistogram(const TensorView& tensor, const HistogramRequest& request, const PreviewOptions& options = {});
// Heatmaps run on the CPU (pooling is cheap next to reading the tensor).
Result<Heatmap> renderHeatmap(const TensorView& tensor, const HeatmapRequest& request);
// 8-bit RGBA PNG via libpng. Fails with the file name and libpng's message.
Status writePng(const Heatmap& heatmap, const std::string& path);

}  // namespace ckpt

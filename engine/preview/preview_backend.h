#pragma once
// The seam between the preview API (preview.cpp) and the engines that do
// the heavy passes: CpuBackend (always built, the reference) and
// CudaBackend (preview/cuda/, built only when CMake found CUDA).
// A backend sees raw host elements only: no files, no protobuf, so the
// module can be built and benchmarked on its own.
// A backend object is used by one thread at a time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/preview.h"
#include "ckpt/status.h"
#include "preview/preview_element.h"

namespace ckpt::preview {

struct ElementBuffer {
    ElementKind kind = ElementKind::F32;
    const unsigned char* data = nullptr;  // count * elementSize(kind) bytes, host memory
    int64_t count = 0;
};

struct HistogramSpec {
    double lo = 0, hi = 1, width = 1;  // width = hi - lo > 0
    int bins = 1;
    std::vector<double> edges;  // bins + 1, numpy.linspace's values
};

struct HistogramCounts {
    std::vector<int64_t> counts;
    int64_t below = 0, above = 0, nans = 0;
};

// The element kind that holds a dtype's values; Unimplemented for dtypes
// without numbers (strings, variant, resource, float8...).
Result<ElementKind> elementKindOf(DataType dtype);

// The elements a backend sees for a tensor; owns the string lengths.
struct Elements {
    ElementBuffer buffer;
    std::vector<int64_t> lengths;
    bool stringLengths = false;
    bool complexMagnitude = false;
};
// InvalidArgument when bytes and shape disagree, Unimplemented for dtypes
// without numbers (variant, resource, float8...).
Result<Elements> elementsOf(const TensorView& tensor);

class PreviewBackend {
public:
    virtual ~PreviewBackend() = default;
    virtual std::string name() const = 0;  // "cpu", "cuda"
    virtual std::string deviceName() const { return {}; }
    // One partial per tile of kTileElements (the last may be short), in
    // tile order, plus the order-independent totals.
    virtual Status stats(const ElementBuffer& in, std::vector<TilePartial>& tiles, Extremes& extremes) = 0;
    virtual Status histogram(const ElementBuffer& in, const HistogramSpec& spec, HistogramCounts& out) = 0;
};

// threads <= 0: hardware_concurrency.
std::unique_ptr<PreviewBackend> makeCpuBackend(int threads);

// A usable CUDA backend, or why there is none: FailedPrecondition with
// "built without CUDA", "no CUDA driver ...", "no CUDA device" and the like.
Result<std::unique_ptr<PreviewBackend>> makeCudaBackend(size_t chunkBytes = 0);
// Whether this process has created a usable CUDA backend already (its
// context is up, so another costs no start).
bool cudaContextStarted();
// "12.4 (driver 12.6)", or why there is none ("built without CUDA", ...).
std::string cudaRuntimeDescription();

// The CPU backend's statistics fed a tensor a run at a time, in order, on
// the calling thread: the same tile partials, folded in tile order, and the
// same totals as CpuBackend::stats over the whole buffer on one thread (ckpt
// history streams tensors through it). Every run but the last holds a whole
// number of tiles.
class StatsStream {
public:
    explicit StatsStream(ElementKind kind);
    ~StatsStream();
    StatsStream(StatsStream&&) noexcept;
    StatsStream& operator=(StatsStream&&) noexcept;
    // The next 'count' elements.
    void add(const unsigned char* data, int64_t count);
    TilePartial merged() const;  // mergeTiles of every tile so far
    Extremes extremes() const;

private:
    struct State;
    ElementKind m_kind;
    std::unique_ptr<State> m_state;
};

// Folds tile partials in order (mergePartial).
TilePartial mergeTiles(const std::vector<TilePartial>& tiles);
// Adds b's totals into a.
void mergeExtremes(Extremes& a, const Extremes& b);
// A tensor's statistics from its merged tiles and totals (count and the
// string/complex flags are the caller's).
void fillStats(const TilePartial& merged, const Extremes& extremes, TensorStats& stats);
// numpy.linspace(lo, hi, bins + 1) and the derived fields.
HistogramSpec makeHistogramSpec(double lo, double hi, int bins);

inline int64_t tileCount(int64_t elements) { return (elements + kTileElements - 1) / kTileElements; }

}  // namespace ckpt::preview

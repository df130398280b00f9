#pragma once
// Figures computed from a tensor's values, kept in the catalog so that the
// next preview of the same bytes, in this checkpoint or any other, is
// instant. Keyed by the tensor's content identity as the index states it
// (crc32c of the stored bytes, dtype, shape, size) and the kind of figure
// ("stats", "histogram:64"), so no data is read to find a hit.
//
// Two different tensors of one dtype and shape share a crc32c with
// probability 2^-32; the chance that a request meets a wrong entry is the
// number of cached entries of that dtype and shape over 2^32 (one in four
// million for a thousand cached previews of one shape). Partitioned tensors
// have no single crc and are never cached.
//   auto stats = cachedStats(catalog.get(), *checkpoint, *checkpoint->bundle().find(key), {});
//   if (stats->fromCache) ...

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/checkpoint_diff.h"
#include "ckpt/preview.h"
#include "ckpt/status.h"

namespace ckpt {

class Catalog;
class BundleReader;
struct TensorInfo;

struct TensorIdentity {
    uint32_t crc32c = 0;  // unmasked
    std::string dtype;
    std::string shape;
    uint64_t bytes = 0;
};
// nullopt for partitioned tensors (no single stored crc).
std::optional<TensorIdentity> tensorIdentity(const TensorInfo& info);

class ResultsCache {
public:
    explicit ResultsCache(Catalog& catalog) : m_catalog(catalog) {}
    Result<std::optional<std::string>> get(const TensorIdentity& identity, std::string_view kind);
    Status put(const TensorIdentity& identity, std::string_view kind, std::string_view payload);

private:
    Catalog& m_catalog;
};

template <typename T>
struct Cached {
    T value;
    bool fromCache = false;
};

// The previews through the cache: looked up, else read, computed and
// stored. 'catalog' may be null (no cache: computed every time). A cache
// that cannot be read or written is ignored: the figure is computed.
Result<Cached<TensorStats>> cachedStats(Catalog* catalog, const BundleReader& bundle, const TensorInfo& info,
                                        const PreviewOptions& options = {});
Result<Cached<Histogram>> cachedHistogram(Catalog* catalog, const BundleReader& bundle, const TensorInfo& info,
                                          const HistogramRequest& request, const PreviewOptions& options = {});

// The diff's figures through the cache: a pair is keyed by A's identity and,
// as the figure's kind, B's identity and every option that shapes the
// figures (resolved tolerance, NaN rule, listed mismatches, slice). Pairs
// with a partitioned side are never cached. One object per thread, like
// its Catalog; diffCheckpoints uses it from its calling thread only.
//   CatalogDiffCache figures(*catalog);
//   DiffOptions opt; opt.figures = &figures;
class CatalogDiffCache : public DiffFigureCache {
public:
    explicit CatalogDiffCache(Catalog& catalog) : m_cache(catalog) {}
    std::optional<TensorDiff> find(const TensorInfo& a, const TensorInfo& b, const DiffOptions& options) override;
    void store(const TensorInfo& a, const TensorInfo& b, const DiffOptions& options, const TensorDiff& diff) override;

private:
    ResultsCache m_cache;
};

}  // namespace ckpt

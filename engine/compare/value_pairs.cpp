#include "compare/value_pairs.h"

#include <atomic>
#include <limits>

#include "compare/pair_kernel.h"
#include "format/region_read.h"
#include "format/region_scan.h"
#include "platform/parallel.h"
#include "preview/preview_backend.h"
#include "format/bundle_reader_access.h"

namespace ckpt::compare {

bool sameStoredBytes(const TensorInfo& a, const TensorInfo& b) {
    if (a.isPartitioned() != b.isPartitioned()) return false;
    auto same = [](const StoredRegion& x, const StoredRegion& y) { return x.size == y.size && x.maskedCrc32c == y.maskedCrc32c; };
    if (!a.isPartitioned()) return same(a.region, b.region);
    if (a.slices.size() != b.slices.size()) return false;
    for (size_t i = 0; i < a.slices.size(); ++i)
        if (a.slices[i].slice != b.slices[i].slice || !same(a.slices[i].region, b.slices[i].region)) return false;
    return true;
}

namespace {

TensorDiff checksumEqual(const TensorInfo& t, const ResolvedTolerance& tol) {
    TensorDiff d;
    d.elements = t.shape.numElements().value_or(0);
    d.tolerance = tol;
    d.fromChecksums = true;
    d.normA = d.normB = std::numeric_limits<double>::quiet_NaN();  // not read
    d.cosine = 1;
    return d;
}

bool streamable(const TensorInfo& t) { return !t.isPartitioned() && preview::elementKindOf(t.dtype).ok(); }

}  // namespace

Result<ValuePairsStats> compareValuePairs(const BundleReader& a, const BundleReader& b, std::vector<ValuePair>& pairs,
                                          const DiffOptions& options, const std::string& labelA, const std::string& labelB) {
    ValuePairsStats stats;
    const bool shortcut = options.trustChecksums && options.values.tolerance.nanEqual && !options.slice;
    std::vector<size_t> streamed, whole;
    int64_t total = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
        ValuePair& p = pairs[i];
        const ResolvedTolerance tol = toleranceFor(p.a->dtype, options.values.tolerance);
        if (shortcut && sameStoredBytes(*p.a, *p.b)) {
            if (options.keepUnchanged) p.result = checksumEqual(*p.a, tol);  // else the row is not kept
            p.equal = true;
            ++stats.fromChecksums;
        } else if (!isDecodable(p.a->dtype)) {
            p.equal = sameStoredBytes(*p.a, *p.b);  // no values to compare: bytes decide
        } else if (auto known = options.figures ? options.figures->find(*p.a, *p.b, options) : std::nullopt) {
            p.result = std::move(*known);
            p.equal = isEqualWithinTolerance(*p.result);
            ++stats.fromCache;
        } else if (streamable(*p.a)) {
            streamed.push_back(i);
            total += 2 * p.a->region.size;
        } else {
            whole.push_back(i);
            total += p.a->storedBytes() + p.b->storedBytes();
        }
    }

    // With --slice, one per streamed pair (shapes are equal within a pair);
    // none otherwise: 100,000 pairs need no 100,000 "every element" objects.
    const SliceRuns everyElement;
    std::vector<SliceRuns> slices;
    if (options.slice) {
        slices.reserve(streamed.size());
        for (size_t i : streamed) {
            auto s = parseDiffSlice(*options.slice, pairs[i].a->shape);
            if (!s) return s.status().withContext(pairs[i].a->key);
            slices.emplace_back(pairs[i].a->shape, *s);
        }
    }
    std::atomic<int64_t> done{0};
    auto report = [&](int64_t bytes) {
        const int64_t now = done.fetch_add(bytes) + bytes;
        if (options.progress) options.progress(now, total, "compare");
    };
    const int maxListed = options.values.maxListed;

    // Streamed pairs: every part of both sides once, partials merged in part
    // order. One array of partials for all pairs (pair s's parts from
    // firstPartial[s]): no allocation per pair.
    std::vector<format::ScannedRegion> regionsA, regionsB;
    regionsA.reserve(streamed.size());
    regionsB.reserve(streamed.size());
    std::vector<size_t> firstPartial(streamed.size() + 1, 0);
    std::vector<preview::ElementKind> kinds(streamed.size());
    std::vector<ResolvedTolerance> tolerances(streamed.size());
    for (size_t s = 0; s < streamed.size(); ++s) {
        const ValuePair& p = pairs[streamed[s]];
        auto fileA = format::shardFile(a, p.a->region.shardId);
        if (!fileA) return fileA.status().withContext(labelA);
        auto fileB = format::shardFile(b, p.b->region.shardId);
        if (!fileB) return fileB.status().withContext(labelB);
        regionsA.push_back({*fileA, p.a->key, p.a->region, nullptr, {}});
        regionsB.push_back({*fileB, p.b->key, p.b->region, nullptr, {}});
        firstPartial[s + 1] = firstPartial[s] + format::regionPartCount(static_cast<uint64_t>(p.a->region.size));
        kinds[s] = *preview::elementKindOf(p.a->dtype);
        tolerances[s] = toleranceFor(p.a->dtype, options.values.tolerance);
    }
    auto scanPairs = [&]() -> Status {
        std::vector<PairPartial> partials(firstPartial.back());
        format::ScanOptions scan;
        scan.threads = platform::threadsOrDefault(options.values.cpuThreads);
        scan.cancel = options.cancel;
        CKPT_ASSIGN_OR_RETURN(format::PairScanResult scanned,
                              format::scanRegionPairs(regionsA, regionsB, scan, [&](const format::RegionPairPart& part) {
                                  const size_t s = part.pair;
                                  const int64_t size = preview::elementSize(kinds[s]);
                                  const PairRun run{kinds[s], part.a.data(), part.b.data(),
                                                    static_cast<int64_t>(part.begin) / size,
                                                    static_cast<int64_t>(part.a.size()) / size};
                                  accumulatePairs(run, slices.empty() ? everyElement : slices[s], tolerances[s], maxListed,
                                                  partials[firstPartial[s] + part.part]);
                                  report(static_cast<int64_t>(2 * part.a.size()));
                              }));
        stats.bytesRead += scanned.bytesScanned;
        for (size_t s = 0; s < streamed.size(); ++s) {
            if (!scanned.a[s].isOk()) return scanned.a[s].withContext(labelA);
            if (!scanned.b[s].isOk()) return scanned.b[s].withContext(labelB);
            PairPartial& merged = partials[firstPartial[s]];
            for (size_t k = firstPartial[s] + 1; k < firstPartial[s + 1]; ++k)
                mergePartials(merged, std::move(partials[k]), maxListed);
            ValuePair& p = pairs[streamed[s]];
            p.result = finishDiff(std::move(merged), tolerances[s], tolerances[s].exact || comparesExactly(kinds[s]));
            p.equal = isEqualWithinTolerance(*p.result);
            if (options.figures) options.figures->store(*p.a, *p.b, options, *p.result);
        }
        return okStatus();
    };
    // Nothing to stream (a batch answered by checksums): no scan to start.
    if (!streamed.empty()) CKPT_RETURN_IF_ERROR(scanPairs());

    // Strings and partitioned tensors: one pair in memory at a time.
    for (size_t i : whole) {
        if (options.cancel && options.cancel->isCancelled()) return cancelled("comparison cancelled");
        ValuePair& p = pairs[i];
        auto ta = a.read(*p.a);
        if (!ta) return ta.status().withContext(labelA);
        auto tb = b.read(*p.b);
        if (!tb) return tb.status().withContext(labelB);
        TensorDiffOptions opt = options.values;
        if (options.slice) {
            auto s = parseDiffSlice(*options.slice, p.a->shape);
            if (!s) return s.status().withContext(p.a->key);
            opt.slice = *s;
        }
        auto d = diffTensors(TensorView::of(*ta), TensorView::of(*tb), opt);
        if (!d) return d.status().withContext(p.a->key);
        p.result = std::move(*d);
        p.equal = isEqualWithinTolerance(*p.result);
        if (options.figures) options.figures->store(*p.a, *p.b, options, *p.result);
        const int64_t bytes = p.a->storedBytes() + p.b->storedBytes();
        stats.bytesRead += bytes;
        report(bytes);
    }
    return stats;
}

}  // namespace ckpt::compare

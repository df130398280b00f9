#pragma once
// The element-pair accumulator behind every comparison (tensor_diff.h): a
// run of elements of A and B goes in, a PairPartial comes out; partials of
// consecutive runs merge in order into one TensorDiff. Streamed diffs feed
// it one stored part at a time, in-memory diffs one range per thread, so
// both give the same figures bit for bit for the same split.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ckpt/tensor_diff.h"
#include "preview/preview_element.h"

namespace ckpt::compare {

struct PairPartial {
    int64_t elements = 0, mismatches = 0, finitePairs = 0;
    double sumAbs = 0, sumSqA = 0, sumSqB = 0, sumSqDiff = 0, dot = 0;
    double maxAbs = -1, maxRel = -1;  // -1: no finite pair yet
    int64_t maxAbsIndex = -1, maxRelIndex = -1;
    int64_t nansA = 0, nansB = 0, infsA = 0, infsB = 0;
    int64_t nansAppeared = 0, nansDisappeared = 0, infsAppeared = 0, infsDisappeared = 0;
    std::vector<DifferingElement> listed;  // first mismatches of this run, at most maxListed
};

// Which elements of a run to visit: all, or those of a slice.
class SliceRuns {
public:
    SliceRuns() = default;  // every element
    SliceRuns(const TensorShape& shape, const DiffSlice& slice);
    // Calls fn(begin, end) for each maximal run of selected flat indices in
    // [begin, end), in order.
    template <typename Fn>
    void forEach(int64_t begin, int64_t end, Fn&& fn) const;
    // Elements the slice selects (all elements without one).
    int64_t selectedCount(int64_t total) const;

private:
    bool m_all = true;
    std::vector<int64_t> m_dims;
    std::vector<std::pair<int64_t, int64_t>> m_ranges;
};

struct PairRun {
    preview::ElementKind kind = preview::ElementKind::F32;
    const unsigned char* a = nullptr;  // element 'first' of A
    const unsigned char* b = nullptr;
    int64_t first = 0;  // flat index of a[0] / b[0] in the whole tensor
    int64_t count = 0;
};

// Accumulates the run's selected elements into 'out' (which may hold an
// earlier run's figures).
void accumulatePairs(const PairRun& run, const SliceRuns& slice, const ResolvedTolerance& tolerance, int maxListed,
                     PairPartial& out);
// accumulatePairs' sums alone, each with its bits for the same runs:
// elements, finitePairs, sumAbs, sumSqA, sumSqB, sumSqDiff and the NaN/Inf
// counts. Mismatches, maxima, dot and listed elements are left incomplete.
// About twice as fast on float pairs; ckpt history needs only the norms.
void accumulateSums(const PairRun& run, const ResolvedTolerance& tolerance, PairPartial& out);
// String tensors: equality only; counts and listed mismatches.
void accumulateStringPairs(std::span<const std::string> a, std::span<const std::string> b, const SliceRuns& slice, int maxListed,
                           PairPartial& out);

// Folds 'next' (the run right after 'into's) into 'into'.
void mergePartials(PairPartial& into, PairPartial&& next, int maxListed);
// The figures users see.
TensorDiff finishDiff(PairPartial&& partial, const ResolvedTolerance& tolerance, bool exactCompare);

// Whether a dtype compares for equality whatever the tolerance.
bool comparesExactly(preview::ElementKind kind);

template <typename Fn>
void SliceRuns::forEach(int64_t begin, int64_t end, Fn&& fn) const {
    if (m_all || m_dims.empty()) {
        if (begin < end) fn(begin, end);
        return;
    }
    const int64_t inner = m_dims.back();
    if (inner <= 0) return;
    const auto [lo, hi] = m_ranges.back();
    for (int64_t row = begin / inner; row * inner < end; ++row) {
        // The row's outer indices, innermost first.
        int64_t rest = row;
        bool inside = true;
        for (size_t d = m_dims.size() - 1; d-- > 0;) {
            const int64_t idx = rest % m_dims[d];
            rest /= m_dims[d];
            if (idx < m_ranges[d].first || idx >= m_ranges[d].second) {
                inside = false;
                break;
            }
        }
        if (!inside) continue;
        const int64_t runBegin = std::max(begin, row * inner + lo), runEnd = std::min(end, row * inner + hi);
        if (runBegin < runEnd) fn(runBegin, runEnd);
    }
}

}  // namespace ckpt::compare

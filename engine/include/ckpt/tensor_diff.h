#pragma once
// Element-wise comparison of two tensors of one dtype and shape: how many
// elements differ beyond a tolerance, and by how much. One accumulator for
// every caller: `ckpt diff` streams stored regions through it part by part,
// `ckpt history` and the explorer's compare view feed it decoded tensors.
// Sums are float64 whatever the dtype; bf16 and half are widened exactly.
//   TensorDiffOptions opt;                       // per-dtype tolerance
//   auto d = diffTensors(TensorView::of(a), TensorView::of(b), opt);
//   if (d && d->mismatches > 0) report(d->maxAbsDiff, d->maxAbsIndex);
//
// Numeric contract (docs/cli.md "diff"):
//  - an element pair matches when |a-b| <= atol + rtol*|b| (numpy.isclose);
//    integers, bools and strings, and every dtype under `exact`, match only
//    when equal; NaN matches NaN unless nanEqual is false; an infinity
//    matches only the same infinity;
//  - max/mean |a-b|, max relative |a-b|/|b|, the L2 figures and cosine are
//    over pairs where both values are finite; complex values use |a-b| of
//    the complex difference and the Hermitian inner product.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/dtype.h"
#include "ckpt/preview.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

struct Tolerance {
    // Unset: the dtype's default (toleranceFor).
    std::optional<double> atol, rtol;
    bool exact = false;    // every dtype compares for equality
    bool nanEqual = true;  // NaN == NaN (h5diff, numpy.testing.assert_allclose)
};

struct ResolvedTolerance {
    double atol = 0, rtol = 0;
    bool exact = false;
    bool nanEqual = true;
};

// torch.testing.assert_close's defaults: float32 (and complex64) rtol
// 1.3e-6 / atol 1e-5, float64 (complex128) 1e-7 / 1e-7, half 1e-3 / 1e-5,
// bfloat16 1.6e-2 / 1e-5; exact for every other dtype.
ResolvedTolerance toleranceFor(DataType dtype, const Tolerance& tolerance);

// One differing element: its flat row-major index and both values as
// text (numbers with round-trip precision, strings escaped).
struct DifferingElement {
    int64_t index = 0;
    std::string a, b;
};

struct TensorDiff {
    int64_t elements = 0;    // compared (within the slice, if any)
    int64_t mismatches = 0;  // beyond tolerance
    bool exactCompare = false;
    ResolvedTolerance tolerance;
    // Over pairs where both are finite. Indices are flat row-major, -1 when
    // no pair is finite. maxRelDiff is +inf where b == 0 and a != b.
    double maxAbsDiff = 0;
    int64_t maxAbsIndex = -1;
    double maxRelDiff = 0;
    int64_t maxRelIndex = -1;
    double meanAbsDiff = 0;
    double normA = 0, normB = 0, normDiff = 0;  // L2 norms
    // normDiff / normA: 0 when both are 0, +inf when only normA is 0.
    double relL2 = 0;
    // <a,b> / (|a||b|); NaN when either norm is 0 (undefined, as in scipy).
    double cosine = 0;
    int64_t nansA = 0, nansB = 0, infsA = 0, infsB = 0;
    int64_t nansAppeared = 0, nansDisappeared = 0;  // NaN in B only / in A only
    int64_t infsAppeared = 0, infsDisappeared = 0;
    // The first differing elements in index order, at most maxListed.
    std::vector<DifferingElement> firstMismatches;
    // Answered from the stored crc32c and size: the bytes are identical and
    // nothing was read (the figures are those of equal tensors).
    bool fromChecksums = false;

    // mismatches / elements; 0 when nothing was compared.
    double mismatchFraction() const {
        return elements > 0 ? static_cast<double>(mismatches) / static_cast<double>(elements) : 0.0;
    }
};

// Part of a tensor to compare: one [start, stop) per dimension.
struct DiffSlice {
    std::vector<std::pair<int64_t, int64_t>> ranges;
};
// numpy-style "0:10,:,3" (start:stop, ':' for all, one index); fewer
// ranges than dimensions leave the rest whole. InvalidArgument on text
// that is not one, or ranges outside 'shape'.
Result<DiffSlice> parseDiffSlice(std::string_view text, const TensorShape& shape);

struct TensorDiffOptions {
    Tolerance tolerance;
    int maxListed = 10;              // firstMismatches kept (h5diff's --count)
    std::optional<DiffSlice> slice;  // compare only these elements
    int cpuThreads = 0;              // 0: every core
};

// InvalidArgument when dtypes or shapes differ, or for dtypes without
// values (resource, variant).
Result<TensorDiff> diffTensors(const TensorView& a, const TensorView& b, const TensorDiffOptions& options = {});

// Does the pair count as equal (no mismatches, no NaN/Inf appearing)?
bool isEqualWithinTolerance(const TensorDiff& diff);

// |a - b| element-wise as a float64 tensor of the same shape (NaN where
// either is NaN), for views that show where two tensors differ; complex
// pairs give the modulus of the difference. Same errors as diffTensors.
Result<Tensor> absoluteDifference(const TensorView& a, const TensorView& b);

}  // namespace ckpt

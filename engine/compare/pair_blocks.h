#pragma once
// The vectorized heart of the pair kernel (pair_kernel.cpp): one block of
// float pairs summed in kLanes independent lanes, so that the compiler can
// keep every lane in a SIMD register (AVX-512, AVX2 or SSE2 clones, chosen
// at run time). The block's figures are only trusted when allFinite(); the
// caller redoes other blocks one element at a time.

#include <cstdint>

#include "preview/preview_element.h"

namespace ckpt::compare {

inline constexpr int kLanes = 8;
inline constexpr int64_t kBlockElements = 512;

struct BlockFigures {
    double sumAbs[kLanes], sumSqDiff[kLanes], sumSqA[kLanes], sumSqB[kLanes], dot[kLanes];
    double maxAbs[kLanes];
    // Counts kept as doubles so every lane is one vector type.
    double mismatches[kLanes], relCandidates[kLanes];

    // A NaN or infinity anywhere in the block leaves a sum that is not
    // finite (so may a huge float64, whose square overflows: the block is
    // then merely redone element by element).
    bool allFinite() const;
};

// Sums 'count' (a multiple of kLanes, at most kBlockElements) pairs from
// a and b. A pair mismatches when |a-b| > atol + rtol*|b|; it is a
// candidate for the largest relative difference when |a-b| > relBar*|b|.
// Kinds: F32, F64 and BF16 (the others go element by element).
void sumBlock(preview::ElementKind kind, const unsigned char* a, const unsigned char* b, int64_t count, double atol, double rtol,
              double relBar, BlockFigures& out);

// The part of BlockFigures a change between two tensors needs (ckpt
// history: the sums of squares of A and of A-B), summed lane for lane as
// sumBlock sums them, so each field has sumBlock's bits; sumAbs and sumSqB
// are kept only so that allFinite() decides as sumBlock's does.
struct ChangeFigures {
    double sumAbs[kLanes], sumSqDiff[kLanes], sumSqA[kLanes], sumSqB[kLanes];
    bool allFinite() const;
};
// One block of 'count' pairs (as sumBlock), or kChangeBlocks whole blocks
// one after another (count ignored), out[j] for block j.
inline constexpr int kChangeBlocks = 4;
void sumChangeBlocks(preview::ElementKind kind, const unsigned char* a, const unsigned char* b, int64_t count, int blocks,
                     ChangeFigures* out);

}  // namespace ckpt::compare

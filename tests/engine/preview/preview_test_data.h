#pragma once
// Synthetic tensors and tolerances for the preview suites (tst_preview,
// tst_preview_cuda).

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ckpt/tensor.h"
#include "test_tensors.h"

namespace ckpt::testing {

// Named tolerances (issue 5): counts, min, max and bins are exact.
constexpr double kMeanStdRelative = 1e-9;      // vs numpy and CPU vs CUDA
constexpr double kMeanStdAbsOfAbsMax = 1e-12;  // floor for means that cancel to ~0

// Mean and std agree to the named tolerances (NaN only with NaN).
inline bool closeEnough(double ours, double theirs, double absMax) {
    if (std::isnan(ours) || std::isnan(theirs)) return std::isnan(ours) && std::isnan(theirs);
    const double diff = std::fabs(ours - theirs);
    return diff <= kMeanStdRelative * std::fabs(theirs) || diff <= kMeanStdAbsOfAbsMax * absMax;
}

template <typename T, typename Gen>
std::vector<T> generate(size_t n, Gen gen) {
    std::vector<T> v(n);
    for (auto& x : v) x = gen();
    return v;
}

inline std::mt19937_64& rng() {
    static std::mt19937_64 r(12345);
    return r;
}

}  // namespace ckpt::testing

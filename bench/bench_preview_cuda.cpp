// GPU preview benchmark (issue 5), built when CMake found CUDA:
//   bench_preview_cuda [--mib N] [--reps R]
// Prints one JSON object; exits 3 with the reason when no device is usable.

#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cuda_bench.h"

int main(int argc, char** argv) {
    int64_t mib = 1024;
    int reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--mib") mib = std::stoll(argv[i + 1]);
        else if (a == "--reps") reps = std::stoi(argv[i + 1]);
    }
    auto r = ckpt::preview::cuda::runCudaBench(mib << 20, reps);
    if (!r) {
        std::cerr << "bench_preview_cuda: " << r.status().toString() << "\n";
        return 3;
    }
    const double peak = r->peakGBs > 0 ? r->peakGBs : r->d2dCopyGBs;
    nlohmann::json out = {
        {"device", r->device},
        {"buffer_mib", mib},
        {"peak_bandwidth_gbps", r->peakGBs},
        {"d2d_copy_gbps", r->d2dCopyGBs},
        {"sum_kernel_gbps", r->sumKernelGBs},
        {"stats_kernel_gbps", r->statsKernelGBs},
        {"histogram_kernel_gbps", r->histogramKernelGBs},
        {"stats_kernel_fraction_of_peak", r->statsKernelGBs / peak},
        {"h2d_pinned_gbps", r->h2dPinnedGBs},
        {"end_to_end_pinned_gbps", r->endToEndPinnedGBs},
        {"end_to_end_pageable_gbps", r->endToEndPageableGBs},
        {"end_to_end_pinned_vs_h2d", r->endToEndPinnedGBs / r->h2dPinnedGBs},
        {"end_to_end_pageable_vs_h2d", r->endToEndPageableGBs / r->h2dPinnedGBs},
        {"extremes_equal_cpu", r->extremesEqualCpu},
        {"max_relative_diff_to_cpu", r->maxRelativeDiffToCpu},
    };
    std::cout << out.dump(1) << "\n";
    return 0;
}

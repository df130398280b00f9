// CPU preview benchmark (issue 5): statistics + histogram of a 1 GiB float32
// buffer against a plain multi-threaded sum of the same buffer in the same
// run, and a 4096x4096 heatmap thumbnail. Prints one JSON object.
//   bench_preview [--mib N] [--threads T] [--reps R]
// Never run from CTest: timings depend on the machine and its load.

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/preview.h"

using namespace ckpt;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// The yardstick: each thread sums its share in 8 independent float64 lanes
// (vectorizable, no -ffast-math needed), partials added at the end. Built
// with the project's flags, like the code it is compared with; the AVX2
// build of the same loop is reported beside it: it runs at memory speed.
[[gnu::always_inline]] inline double sumRange(const float* p, int64_t b, int64_t e) {
    double acc[8] = {};
    int64_t i = b;
    for (; i + 8 <= e; i += 8)
        for (int k = 0; k < 8; ++k) acc[k] += p[i + k];
    for (; i < e; ++i) acc[0] += p[i];
    double s = 0;
    for (double a : acc) s += a;
    return s;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) double sumRangeAvx2(const float* p, int64_t b, int64_t e) { return sumRange(p, b, e); }
#else
double sumRangeAvx2(const float* p, int64_t b, int64_t e) { return sumRange(p, b, e); }
#endif

template <bool Avx2>
double plainSum(const float* p, int64_t n, int threads) {
    std::vector<double> part(static_cast<size_t>(threads), 0.0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            const int64_t b = n * t / threads, e = n * (t + 1) / threads;
            part[static_cast<size_t>(t)] = Avx2 ? sumRangeAvx2(p, b, e) : sumRange(p, b, e);
        });
    }
    for (auto& th : pool) th.join();
    double s = 0;
    for (double v : part) s += v;
    return s;
}

template <typename Fn>
double best(int reps, Fn&& fn) {
    double b = 1e30;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        fn();
        b = std::min(b, seconds(t0, Clock::now()));
    }
    return b;
}

}  // namespace

int main(int argc, char** argv) {
    int64_t mib = 1024;
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    int reps = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--mib") mib = std::stoll(argv[i + 1]);
        else if (a == "--threads") threads = std::stoi(argv[i + 1]);
        else if (a == "--reps") reps = std::stoi(argv[i + 1]);
    }
    const int64_t n = mib * (int64_t{1} << 20) / 4;
    Tensor t;
    t.dtype = DataType::Float;
    t.shape.dims = {n};
    t.bytes.resize(static_cast<size_t>(n) * 4);
    {
        // Fill in parallel (first touch) with a cheap generator.
        std::vector<std::thread> pool;
        float* p = reinterpret_cast<float*>(t.bytes.data());
        for (int w = 0; w < threads; ++w) {
            pool.emplace_back([&, w] {
                std::mt19937 r(static_cast<unsigned>(w));
                std::normal_distribution<float> d(0.1f, 1.0f);
                const int64_t b = n * w / threads, e = n * (w + 1) / threads;
                for (int64_t i = b; i < e; ++i) p[i] = d(r);
            });
        }
        for (auto& th : pool) th.join();
    }
    const float* data = reinterpret_cast<const float*>(t.bytes.data());
    const double bytes = static_cast<double>(t.bytes.size());
    volatile double sink = 0;
    PreviewOptions cpu;
    cpu.device = PreviewDevice::Cpu;
    cpu.cpuThreads = threads;
    // Sum and preview runs alternate so that load from other processes
    // hits both alike; each figure is the best of its runs.
    double sumS = 1e30, sumAvx2S = 1e30, statsS = 1e30, histS = 1e30, bothS = 1e30;
    for (int r = 0; r < reps; ++r) {
        sumS = std::min(sumS, best(1, [&] { sink = sink + plainSum<false>(data, n, threads); }));
        sumAvx2S = std::min(sumAvx2S, best(1, [&] { sink = sink + plainSum<true>(data, n, threads); }));
        const auto t0 = Clock::now();
        auto s = computeStats(TensorView::of(t), cpu);
        const auto t1 = Clock::now();
        HistogramRequest req;
        req.bins = 64;
        req.lo = s->min;
        req.hi = s->max;
        auto h = computeHistogram(TensorView::of(t), req, cpu);
        const auto t2 = Clock::now();
        statsS = std::min(statsS, seconds(t0, t1));
        histS = std::min(histS, seconds(t1, t2));
        bothS = std::min(bothS, seconds(t0, t2));
        sink = sink + s->mean + static_cast<double>(h->counts[0]);
    }

    // 4096 x 4096 float32 heatmap, pooled to 256 x 256.
    Tensor m;
    m.dtype = DataType::Float;
    m.shape.dims = {4096, 4096};
    m.bytes.assign(t.bytes.begin(),
                   t.bytes.begin() + std::min<int64_t>(static_cast<int64_t>(t.bytes.size()), int64_t{4096} * 4096 * 4));
    m.bytes.resize(size_t{4096} * 4096 * 4);
    HeatmapRequest hreq;
    hreq.cpuThreads = threads;
    const double heatS = best(std::max(reps, 5), [&] {
        auto h = renderHeatmap(TensorView::of(m), hreq);
        sink = sink + h->values[0];
    });

    nlohmann::json out = {
        {"buffer_mib", mib},
        {"threads", threads},
        {"plain_sum_gbps", bytes / sumS / 1e9},
        {"plain_sum_avx2_gbps", bytes / sumAvx2S / 1e9},
        {"stats_gbps", bytes / statsS / 1e9},
        {"histogram_gbps", bytes / histS / 1e9},
        {"stats_plus_histogram_gbps", bytes / bothS / 1e9},
        {"ratio_stats_plus_histogram_vs_sum", sumS / bothS},
        {"ratio_stats_vs_sum", sumS / statsS},
        {"ratio_stats_plus_histogram_vs_avx2_sum", sumAvx2S / bothS},
        {"heatmap_4096x4096_ms", heatS * 1e3},
    };
    std::cout << out.dump(1) << "\n";
    return 0;
}

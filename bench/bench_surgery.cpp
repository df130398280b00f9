// Checkpoint averaging (issue #18): averageCheckpoints over K checkpoints of
// N MiB each against `cat` of the same input files to /dev/null, both with
// the inputs warm in the page cache, in one run. Target: the average runs
// at >= 0.7x cat's throughput over the inputs (ratio = cat seconds /
// average seconds). The average also writes its result (N MiB) and
// verifies it; cat writes nothing: the target includes both.
//   bench_surgery DIR [--k 5] [--mib 1024] [--tensors 64] [--repeat 3] [--method mean|ema] [--cold] [--keep]
// The default size shrinks to what fits: (K + 1) * N MiB must be free in
// DIR and K * N MiB must fit in half the memory (a warm page cache).
// Prints one JSON object; docs/benchmarks.md ("Surgery") explains it.

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_timing.h"
#include "ckpt/save.h"
#include "ckpt/surgery.h"
#include "ckpt/trackable.h"

using namespace ckpt;

namespace {

using bench::Clock;
using bench::secondsSince;

// Deletions on this VM's ext4 (online discard) queue TRIMs the next commit
// waits for: every deletion is followed by sync(), outside the timings.
void removeAndSettle(const std::filesystem::path& p) {
    std::filesystem::remove_all(p);
    ::sync();
}

int64_t freeMiB(const std::string& dir) {
    struct statvfs s {};
    if (::statvfs(dir.c_str(), &s) != 0) return 0;
    return static_cast<int64_t>(s.f_bavail) * static_cast<int64_t>(s.f_frsize) / (1 << 20);
}

int64_t memoryMiB() { return static_cast<int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE) / (1 << 20); }

// 'tensors' float32 variables of 'mib' MiB in all under model/layer_<i>/kernel,
// plus an int64 step: what a checkpoint of a model looks like to averaging.
struct Program {
    std::shared_ptr<Trackable> root = Trackable::makeObject();
    std::vector<std::shared_ptr<Variable>> vars;
    std::shared_ptr<Variable> step = Variable::make(DataType::Int64, TensorShape{{}});

    Program(int tensors, int64_t mib) {
        auto model = Trackable::makeObject();
        const int64_t elements = mib * (1 << 20) / 4 / tensors;
        for (int i = 0; i < tensors; ++i) {
            auto layer = Trackable::makeObject();
            vars.push_back(Variable::make(DataType::Float, TensorShape{{elements}}));
            (void)layer->addChild("kernel", vars.back());
            (void)model->addChild("layer_" + std::to_string(i), layer);
        }
        (void)root->addChild("model", model);
        (void)root->addChild("step", step);
    }

    void fill(int k) {
        for (size_t i = 0; i < vars.size(); ++i) {
            float* f = reinterpret_cast<float*>(vars[i]->mutableValue().bytes.data());
            const int64_t n = vars[i]->value().numElements();
            for (int64_t j = 0; j < n; ++j) f[j] = static_cast<float>(k) + static_cast<float>((j + i) % 1024) * 1e-3f;
        }
        int64_t s = 100 * k;
        std::memcpy(step->mutableValue().bytes.data(), &s, sizeof s);
    }
};

std::vector<std::string> dataFiles(const std::vector<std::string>& prefixes) {
    std::vector<std::string> out;
    for (const std::string& prefix : prefixes) {
        const std::filesystem::path p(prefix);
        for (const auto& e : std::filesystem::directory_iterator(p.parent_path()))
            if (e.path().filename().string().rfind(p.filename().string() + ".", 0) == 0) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

double timeCat(const std::vector<std::string>& files) {
    std::string cmd = "cat";
    for (const std::string& f : files) cmd += " '" + f + "'";
    cmd += " > /dev/null";
    const auto start = Clock::now();
    if (std::system(cmd.c_str()) != 0) std::cerr << "bench_surgery: cat failed\n";
    return secondsSince(start);
}

}  // namespace

// Empties the page cache, so the next read comes from the disk (--cold).
bool dropCaches() {
    ::sync();
    std::ofstream drop("/proc/sys/vm/drop_caches");
    drop << "3\n";
    drop.flush();
    return static_cast<bool>(drop);
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: bench_surgery DIR [--k 5] [--mib 1024] [--tensors 64] [--repeat 3] [--method mean|ema] [--cold] "
                     "[--keep]\n";
        return 2;
    }
    const std::string dir = std::string(argv[1]) + "/bench_surgery_run";
    int k = 5, tensors = 64, repeat = 3;
    int64_t mib = 0;
    std::string method = "mean";
    bool keep = false, cold = false;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--keep" || a == "--cold") {
            (a == "--keep" ? keep : cold) = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::cerr << "bench_surgery: " << a << " needs a value\n";
            return 2;
        }
        const char* v = argv[++i];
        if (a == "--k") k = std::atoi(v);
        else if (a == "--mib") mib = std::atoll(v);
        else if (a == "--tensors") tensors = std::atoi(v);
        else if (a == "--repeat") repeat = std::atoi(v);
        else if (a == "--method") method = v;
        else {
            std::cerr << "bench_surgery: unknown option " << a << "\n";
            return 2;
        }
    }
    std::filesystem::create_directories(dir);
    const int64_t fitsDisk = freeMiB(dir) * 9 / 10 / (k + 1);
    const int64_t fitsCache = memoryMiB() / 2 / k;
    if (mib == 0) mib = std::max<int64_t>(16, std::min<int64_t>({1024, fitsDisk, fitsCache}));
    if ((k + 1) * mib > freeMiB(dir)) {
        std::cerr << "bench_surgery: " << (k + 1) * mib << " MiB needed in " << dir << ", " << freeMiB(dir) << " free\n";
        return 1;
    }

    // The inputs, written once by the save pipeline.
    std::vector<std::string> sources;
    {
        Program p(tensors, mib);
        for (int i = 1; i <= k; ++i) {
            p.fill(i);
            sources.push_back(dir + "/run/ckpt-" + std::to_string(i));
            auto saved = writeCheckpoint(*p.root, sources.back(), SaveOptions{});
            if (!saved.ok()) {
                std::cerr << "bench_surgery: " << saved.status().toString() << "\n";
                return 1;
            }
        }
    }
    const std::vector<std::string> files = dataFiles(sources);
    uint64_t inputBytes = 0;
    for (const std::string& f : files) inputBytes += std::filesystem::file_size(f);

    AverageSpec spec;
    spec.method = method == "ema" ? AverageMethod::Ema : AverageMethod::Mean;
    const std::string dst = dir + "/out/average";
    std::vector<double> catSeconds, averageSeconds;
    // Where the average's time goes, from its progress reports: reading and
    // combining the inputs until the first "write" report, writing the
    // result (fsynced) until the first "verify" report, then reading it
    // back for verification. Summed over the runs.
    std::map<std::string, double> phaseSeconds;
    SurgeryResult last;
    (void)timeCat(files);  // warms the page cache
    for (int r = 0; r < repeat; ++r) {
        removeAndSettle(dir + "/out");
        if (cold && !dropCaches()) {
            std::cerr << "bench_surgery: --cold needs root and a writable /proc/sys/vm/drop_caches\n";
            return 1;
        }
        catSeconds.push_back(timeCat(files));
        if (cold) dropCaches();
        const auto start = Clock::now();
        std::string phase = "read";
        auto phaseStart = start;
        SurgeryOptions options;
        options.progress = [&](int64_t, int64_t, std::string_view now) {
            if (now == phase) return;
            phaseSeconds[phase] += secondsSince(phaseStart);
            phase = std::string(now);
            phaseStart = Clock::now();
        };
        auto done = averageCheckpoints(sources, dst, spec, options);
        averageSeconds.push_back(secondsSince(start));
        phaseSeconds[phase] += secondsSince(phaseStart);
        if (!done.ok()) {
            std::cerr << "bench_surgery: " << done.status().toString() << "\n";
            return 1;
        }
        last = std::move(*done);
    }
    std::sort(catSeconds.begin(), catSeconds.end());
    std::sort(averageSeconds.begin(), averageSeconds.end());
    const double catMedian = catSeconds[catSeconds.size() / 2];
    const double averageMedian = averageSeconds[averageSeconds.size() / 2];
    const double gib = static_cast<double>(inputBytes) / (1 << 30);
    nlohmann::json out = {
        {"k", k},
        {"mib_each", mib},
        {"tensors_each", tensors},
        {"method", method},
        {"page_cache", cold ? "cold" : "warm"},
        {"cpus", std::thread::hardware_concurrency()},
        {"input_bytes", inputBytes},
        {"repeat", repeat},
        {"cat_seconds", catSeconds},
        {"average_seconds", averageSeconds},
        {"cat_gib_per_s", gib / catMedian},
        {"average_gib_per_s", gib / averageMedian},
        {"ratio_vs_cat", catMedian / averageMedian},
        {"target_ratio", 0.7},
        {"phase_seconds_mean",
         [&] {
             nlohmann::json phases;
             for (const auto& [name, total] : phaseSeconds) phases[name] = total / repeat;
             return phases;
         }()},
        {"result_shards", last.stats.shards},
        {"result_verified", last.verify.ok()},
        {"notes", last.notes},
    };
    std::cout << out.dump(2) << "\n";
    if (!keep) removeAndSettle(dir);
    return 0;
}

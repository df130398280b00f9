// Export throughput: a checkpoint of N MiB of float32 in 256 tensors
// exported to safetensors (and npz) by exportCheckpoint, write, fsync,
// read-back and bit-exact check included, against `dd ... conv=fsync` of
// the same number of bytes, interleaved in one run on the same disk. The
// target: export >= 0.8x dd (ratio = dd seconds / export seconds).
//   bench_export DIR [--mib 2048] [--tensors 256] [--repeat 2] [--npz 1]
// Prints one JSON object; docs/benchmarks.md explains the numbers.

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_tensors.h"
#include "bench_timing.h"
#include "ckpt/convert.h"
#include "ckpt/save.h"

using namespace ckpt;

namespace {

using bench::Clock;
using bench::median;
using bench::secondsSince;

using bench::cpuSeconds;
double g_cpuSeconds = 0;  // of the last timed run

// As bench_save: a deletion's TRIMs are settled outside the timings.
void removeAndSettle(const std::filesystem::path& p) {
    std::filesystem::remove_all(p);
    ::sync();
}

double timeDd(const std::string& dir, int64_t mib) {
    const std::string file = dir + "/dd.bin";
    const std::string cmd = "dd if=/dev/zero of=" + file + " bs=8M count=" + std::to_string(mib / 8) + " conv=fsync status=none";
    const double cpu = cpuSeconds(RUSAGE_CHILDREN);
    const auto t = Clock::now();
    if (std::system(cmd.c_str()) != 0) return -1;
    const double s = secondsSince(t);
    g_cpuSeconds = cpuSeconds(RUSAGE_CHILDREN) - cpu;
    removeAndSettle(file);
    return s;
}

// Seconds until the first "check" progress: the write (fsync included)
// before the read-back; the rest is the check and the rename.
double g_writeSeconds = 0;

double timeExport(const std::string& src, const std::string& out, ArrayFormat format) {
    ExportOptions o;
    o.format = format;
    const auto t = Clock::now();
    bool checking = false;
    o.progress = [&](int64_t, int64_t, std::string_view phase) {
        if (!checking && phase == "check") {
            checking = true;
            g_writeSeconds = secondsSince(t);
        }
    };
    const double cpu = cpuSeconds(RUSAGE_SELF);
    auto done = exportCheckpoint(src, out, o);
    const double s = secondsSince(t);
    g_cpuSeconds = cpuSeconds(RUSAGE_SELF) - cpu;
    if (!done.ok()) {
        std::cerr << done.status().toString() << "\n";
        std::exit(1);
    }
    removeAndSettle(out);
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: bench_export DIR [--mib N] [--tensors N] [--repeat N] [--npz 0|1]\n";
        return 2;
    }
    const std::string dir = std::string(argv[1]) + "/bench_export_run";
    int64_t mib = 2048;
    int count = 256, repeat = 2;
    bool npz = true;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--mib") mib = std::atoll(argv[i + 1]);
        else if (a == "--tensors") count = std::atoi(argv[i + 1]);
        else if (a == "--repeat") repeat = std::atoi(argv[i + 1]);
        else if (a == "--npz") npz = std::atoi(argv[i + 1]) != 0;
    }
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const int64_t elementsEach = mib * 1024 * 1024 / 4 / count;
    {
        std::vector<SaveTensor> tensors = bench::makeSaveTensors(count, elementsEach);
        auto saved = writeTensors(dir + "/src/ckpt", std::move(tensors), {});
        if (!saved.ok()) {
            std::cerr << saved.status().toString() << "\n";
            return 1;
        }
    }
    const std::string src = dir + "/src/ckpt";
    std::vector<double> dds, sts, npzs, stWrites, npzWrites, ddCpus, stCpus, npzCpus;
    // Interleaved, so that a slow spell of the shared disk hits each.
    for (int r = 0; r < repeat; ++r) {
        sts.push_back(timeExport(src, dir + "/out.safetensors", ArrayFormat::Safetensors));
        stWrites.push_back(g_writeSeconds);
        stCpus.push_back(g_cpuSeconds);
        dds.push_back(timeDd(dir, mib));
        ddCpus.push_back(g_cpuSeconds);
        if (npz) {
            npzs.push_back(timeExport(src, dir + "/out.npz", ArrayFormat::Npz));
            npzWrites.push_back(g_writeSeconds);
            npzCpus.push_back(g_cpuSeconds);
        }
    }
    std::filesystem::remove_all(dir);
    const double mibs = static_cast<double>(elementsEach) * 4 * count / (1024.0 * 1024.0);
    const double dd = median(dds), st = median(sts);
    nlohmann::json out{{"mib", mibs},
                       {"tensors", count},
                       {"repeat", repeat},
                       {"dd_fsync_s", dd},
                       {"dd_MiB_per_s", mibs / dd},
                       {"dd_cpu_s", median(ddCpus)},
                       {"export_safetensors_s", st},
                       {"export_safetensors_write_s", median(stWrites)},
                       {"export_safetensors_cpu_s", median(stCpus)},
                       {"export_safetensors_MiB_per_s", mibs / st},
                       {"ratio_safetensors_vs_dd", dd / st},
                       {"target_ratio", 0.8}};
    if (npz) {
        const double n = median(npzs);
        out["export_npz_s"] = n;
        out["export_npz_write_s"] = median(npzWrites);
        out["export_npz_cpu_s"] = median(npzCpus);
        out["export_npz_MiB_per_s"] = mibs / n;
        out["ratio_npz_vs_dd"] = dd / n;
    }
    std::cout << out.dump(1) << "\n";
    return 0;
}

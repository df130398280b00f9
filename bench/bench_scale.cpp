// Per-tensor cost and scale (issue 34, docs/benchmarks.md "Scale"): how
// listing, verify, diff, history and a catalog scan grow from 10,000 to
// 1,000,000 tiny tensors, and the same operations on a ~1 TB checkpoint of
// 1,000,000 tensors that costs no disk: its data files are sparse (every
// tensor a hole of zeros, whose crc32c the index states) and its index is
// written by the engine's own writer. Every operation runs in a fresh
// process, ckpt as users run it (or this program's child mode for the
// catalog scan), for its wall time, CPU time and peak RSS; ratios are taken
// within one run. Never fails on time (exit 2 only on setup errors).
//   bench_scale [--dir D] [--only tiny|terabyte] [--counts 10000,100000,1000000] [--repeat R]
//               [--tb-tensors N[,N...]] [--tb-mib M] [--shards S] [--read-all] [--keep] [--baseline OTHER_CKPT]
//               [--ops diff,inspect]  (only operations whose names contain one of these)

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench_child.h"
#include "bench_timing.h"
#include "ckpt/bundle_naming.h"
#include "ckpt/catalog.h"
#include "platform/crc32c.h"
#include "sparse_checkpoint.h"

namespace fs = std::filesystem;
using namespace ckpt;
using bench::ChildResult;
using bench::IndexEntry;
using bench::runChild;
using bench::scaleKey;

namespace {

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "bench_scale: %s\n", message.c_str());
    std::exit(2);
}

void check(const Status& s) {
    if (!s.isOk()) die(s.toString());
}

// n tiny tensors (16 floats) in one real data file; 'seed' varies the values.
void writeTiny(const std::string& prefix, int64_t n, uint32_t seed) {
    constexpr int64_t kBytes = 64;
    fs::create_directories(fs::path(prefix).parent_path());
    std::vector<IndexEntry> entries(static_cast<size_t>(n));
    std::vector<float> data(static_cast<size_t>(n) * 16);
    uint32_t s = seed * 2654435761u + 1;
    for (float& f : data) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        f = static_cast<float>(s % 20000) / 10000.0f - 1.0f;
    }
    for (int64_t i = 0; i < n; ++i) {
        const float* p = data.data() + i * 16;
        entries[static_cast<size_t>(i)] = {scaleKey(i), 0, i * kBytes, kBytes, platform::crc32cMask(platform::crc32c(p, kBytes))};
    }
    std::sort(entries.begin(), entries.end(), [](const IndexEntry& a, const IndexEntry& b) { return a.key < b.key; });
    std::FILE* f = std::fopen(dataFileName(prefix, 0, 1).c_str(), "wb");
    if (!f || std::fwrite(data.data(), 4, data.size(), f) != data.size() || std::fclose(f) != 0)
        die("cannot write " + dataFileName(prefix, 0, 1));
    check(bench::writeIndex(prefix, entries, 1));
}

std::vector<std::string> dataFilesOf(const std::string& prefix, int32_t shards) {
    std::vector<std::string> files;
    for (int32_t s = 0; s < shards; ++s) files.push_back(dataFileName(prefix, s, shards));
    return files;
}

int catalogChild(const std::string& db, const std::string& root) {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db + suffix);
    auto catalog = Catalog::open(db);
    if (!catalog.ok() || !(*catalog)->addRoot(root).ok()) return 3;
    auto scan = (*catalog)->scan({});
    if (!scan.ok()) return 4;
    std::printf("%lld\n", static_cast<long long>(scan->tensorRows));
    return 0;
}

struct Op {
    std::string name;
    std::vector<std::string> args;
    bool differs = false;  // exit code 1 is the answer (diff of different values)
};

struct Figure {
    double wallMs = 0, cpuMs = 0, rssMb = 0;
};

const std::string kCkpt = CKPT_CLI_PATH;

// Another build's ckpt (--baseline), run beside this one's with a results
// cache of its own (an older build may refuse a newer catalog schema).
struct Baseline {
    std::string ckpt;
    std::string dataHome;
};

// One run of 'op', by 'ckpt' in place of this build's where it names one.
ChildResult runOnce(const Op& op, const Baseline* baseline, const std::string& dataHome) {
    std::vector<std::string> args = op.args;
    if (baseline && !args.empty() && args[0] == kCkpt) args[0] = baseline->ckpt;
    ::setenv("XDG_DATA_HOME", (baseline ? baseline->dataHome : dataHome).c_str(), 1);
    ChildResult r = runChild(args);  // not const: returned by move
    if (r.exitCode != 0 && !(op.differs && r.exitCode == 1))
        die(op.name + (baseline ? " (baseline)" : "") + " failed (exit " + std::to_string(r.exitCode) + ")");
    return r;
}

struct Measured {
    Figure ours, baseline;
};

// --ops: the operations to run, by a part of their names; none: all.
std::vector<std::string> g_ops;

bool selected(const std::string& name) {
    return g_ops.empty() ||
           std::any_of(g_ops.begin(), g_ops.end(), [&](const std::string& o) { return name.find(o) != std::string::npos; });
}

// Medians of 'repeat' runs of one operation (RSS: the largest), this
// build's and the baseline's alternating when there is one.
Measured measure(const Op& op, int repeat, const Baseline& baseline, const std::string& dataHome) {
    const bool withBaseline = !baseline.ckpt.empty() && !op.args.empty() && op.args[0] == kCkpt;
    std::vector<double> wall[2], cpu[2];
    Figure f[2];
    for (int i = 0; i < repeat; ++i) {
        for (int side = 0; side < (withBaseline ? 2 : 1); ++side) {
            const ChildResult r = runOnce(op, side == 1 ? &baseline : nullptr, dataHome);
            wall[side].push_back(r.wallMs);
            cpu[side].push_back(r.cpuMs);
            f[side].rssMb = std::max(f[side].rssMb, r.maxRssMb);
        }
    }
    for (int side = 0; side < (withBaseline ? 2 : 1); ++side) {
        f[side].wallMs = bench::median(wall[side]);
        f[side].cpuMs = bench::median(cpu[side]);
    }
    return {f[0], f[1]};
}

void print(const std::string& what, const Measured& m) {
    std::printf("  %-44s %9.1f ms  cpu %9.1f ms  peak RSS %7.1f MB\n", what.c_str(), m.ours.wallMs, m.ours.cpuMs, m.ours.rssMb);
    if (m.baseline.wallMs > 0)
        std::printf("  %-44s %9.1f ms  cpu %9.1f ms  peak RSS %7.1f MB  (ours/baseline: wall %.2fx, cpu %.2fx)\n", "  baseline",
                    m.baseline.wallMs, m.baseline.cpuMs, m.baseline.rssMb, m.ours.wallMs / m.baseline.wallMs,
                    m.ours.cpuMs / m.baseline.cpuMs);
    std::fflush(stdout);
}

void runTiny(const std::string& dir, const std::vector<int64_t>& counts, int repeat, const Baseline& baseline, bool keep) {
    std::map<int64_t, std::map<std::string, Figure>> all;
    for (int64_t n : counts) {
        const std::string base = dir + "/tiny-" + std::to_string(n);
        const std::string a = base + "/a/ckpt-1", b = base + "/b/ckpt-1", same = base + "/same/ckpt-1";
        const auto t0 = bench::Clock::now();
        writeTiny(a, n, 1);
        writeTiny(b, n, 2);
        check(bench::linkCopy(a, same));
        std::printf("tiny: %lld tensors of 64 bytes (x3 checkpoints) written in %.1f s; load average %s",
                    static_cast<long long>(n), bench::secondsSince(t0), bench::loadAverage().c_str());
        const std::vector<Op> ops = {
            {"list (ckpt inspect)", {kCkpt, "inspect", a}},
            {"ckpt inspect --json", {kCkpt, "inspect", a, "--json"}},
            {"ckpt verify", {kCkpt, "verify", a}},
            {"ckpt diff, from checksums (identical)", {kCkpt, "diff", a, same, "--no-cache"}},
            {"ckpt diff, every value read", {kCkpt, "diff", a, b, "--no-cache"}, true},
            {"ckpt history of 2", {kCkpt, "history", a, b}},
            {"catalog scan (new database)", {bench::selfPath(), "--catalog-child", base + "/catalog.db", base + "/a"}},
        };
        for (const Op& op : ops) {
            if (!selected(op.name)) continue;
            const Measured m = measure(op, repeat, baseline, dir + "/xdg");
            print(op.name + " @" + std::to_string(n), m);
            all[n][op.name] = m.ours;
        }
        if (!keep) fs::remove_all(base);
    }
    if (all.empty()) return;
    const int64_t first = all.begin()->first, last = all.rbegin()->first;
    if (selected("ckpt verify") && selected("list (ckpt inspect)")) {
        std::printf("tiny: verify / list per count:");
        for (auto& [n, ops] : all)
            std::printf(" %lld: %.2fx", static_cast<long long>(n), ops["ckpt verify"].wallMs / ops["list (ckpt inspect)"].wallMs);
        std::printf("  (target <= ~3x)\n");
    }
    for (auto& [name, f] : all[last]) {
        std::printf("tiny: %-40s growth %lld -> %lld tensors:", name.c_str(), static_cast<long long>(first),
                    static_cast<long long>(last));
        for (auto it = all.begin(); std::next(it) != all.end(); ++it)
            std::printf(" x%.1f (%lld->%lld)", std::next(it)->second[name].wallMs / it->second[name].wallMs,
                        static_cast<long long>(it->first), static_cast<long long>(std::next(it)->first));
        std::printf("\n");
    }
}

// One size of the sparse checkpoint: each operation's figures by name.
std::map<std::string, Figure> runSparse(const std::string& dir, int64_t tensors, int64_t mib, int32_t shards, int repeat,
                                        const Baseline& baseline, bool readAll, bool keep) {
    const std::string base = dir + "/terabyte";
    const std::string a = base + "/a/ckpt-1", same = base + "/same/ckpt-1";
    const int64_t bytes = mib << 20;
    const auto t0 = bench::Clock::now();
    check(bench::writeSparse(a, tensors, bytes, shards));
    check(bench::linkCopy(a, same));
    const double total = static_cast<double>(tensors) * static_cast<double>(bytes);
    std::printf(
        "terabyte: %lld tensors of %lld MiB (%.3f TB, %d sparse shards, index %.1f MB) written in %.1f s; load average %s",
        static_cast<long long>(tensors), static_cast<long long>(mib), total / 1e12, shards,
        static_cast<double>(fs::file_size(indexFileName(a))) / 1e6, bench::secondsSince(t0), bench::loadAverage().c_str());
    const std::vector<Op> ops = {
        {"ckpt inspect", {kCkpt, "inspect", a}},
        {"ckpt inspect --json", {kCkpt, "inspect", a, "--json"}},
        {"ckpt list (the directory)", {kCkpt, "list", base + "/a"}},
        {"ckpt diff, from checksums", {kCkpt, "diff", a, same, "--no-cache"}},
        {"catalog scan (new database)", {bench::selfPath(), "--catalog-child", base + "/catalog.db", base + "/a"}},
        {"ckpt stats of one tensor", {kCkpt, "stats", a, scaleKey(tensors / 2), "--device", "cpu"}},
    };
    std::map<std::string, Figure> figures;
    for (const Op& op : ops) {
        if (!selected(op.name)) continue;
        const Measured m = measure(op, repeat, baseline, dir + "/xdg");
        const Figure& f = m.ours;
        print(op.name, m);
        std::printf("    target < 3 s and < 200 MB: %s\n", f.wallMs < 3000 && f.rssMb < 200 ? "met" : "MISSED");
        figures[op.name] = f;
    }
    if (readAll) {
        // Every byte read once by each: holes come back as zero pages, no disk.
        std::string cat = "cat";
        for (const std::string& f : dataFilesOf(a, shards)) cat += " '" + f + "'";
        const Figure c = measure({"cat", {"/bin/sh", "-c", cat + " > /dev/null"}}, 1, {}, dir + "/xdg").ours;
        const Figure v = measure({"ckpt verify", {kCkpt, "verify", a}}, 1, {}, dir + "/xdg").ours;
        print("cat of the data files", {c, {}});
        print("ckpt verify", {v, {}});
        std::printf("    verify / cat throughput %.2f (target >= 0.8), %.2f GB/s vs %.2f GB/s; load average %s",
                    c.wallMs / v.wallMs, total / v.wallMs / 1e6, total / c.wallMs / 1e6, bench::loadAverage().c_str());
        figures["ckpt verify (every byte)"] = v;
        figures["cat of the data files"] = c;
    }
    if (!keep) fs::remove_all(base);
    return figures;
}

// Each size in turn (1,000 x 1 MiB is ~1 GiB, 1,000,000 ~1 TB), then how
// every operation's wall time and peak RSS grow from the smallest to the largest.
void runTerabyte(const std::string& dir, const std::vector<int64_t>& sizes, int64_t mib, int32_t shards, int repeat,
                 const Baseline& baseline, bool readAll, bool keep) {
    std::map<int64_t, std::map<std::string, Figure>> all;
    for (int64_t n : sizes) all[n] = runSparse(dir, n, mib, shards, repeat, baseline, readAll, keep);
    if (all.size() < 2) return;
    std::printf("terabyte: growth, wall ms / peak RSS MB per size (tensors of %lld MiB):\n", static_cast<long long>(mib));
    for (const auto& op : all.rbegin()->second) {
        const std::string& name = op.first;
        std::printf("  %-34s", name.c_str());
        for (auto& [n, ops] : all) {
            auto it = ops.find(name);
            if (it == ops.end()) continue;
            std::printf("  %lld: %.0f ms / %.1f MB", static_cast<long long>(n), it->second.wallMs, it->second.rssMb);
        }
        std::printf("\n");
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "--catalog-child") == 0) return catalogChild(argv[2], argv[3]);
    bench::startLauncher();  // while this process is small: see bench_child.h
    std::string dir = "/var/tmp/ckpt-bench-scale", only;
    std::vector<int64_t> sweep = {10'000, 100'000, 1'000'000};
    int repeat = 3, shards = 16;
    std::vector<int64_t> tbSizes = {1'000'000};
    int64_t tbMib = 1;
    bool readAll = false, keep = false;
    Baseline baseline;
    CLI::App app{"Per-tensor cost from 10k to 1M tensors; a ~1 TB, 1M-tensor sparse checkpoint"};
    app.add_option("--dir", dir, "Scratch directory (the terabyte checkpoint is sparse: about its index on disk)")
        ->capture_default_str();
    app.add_option("--only", only, "One part")->check(CLI::IsMember({"tiny", "terabyte"}));
    app.add_option("--counts", sweep, "Tensor counts of the tiny sweep")
        ->delimiter(',')
        ->check(CLI::Range(int64_t{1}, int64_t{10'000'000}));
    app.add_option("--repeat", repeat, "Runs per operation; medians are reported")->capture_default_str();
    app.add_option("--tb-tensors", tbSizes,
                   "Tensors in the terabyte checkpoint; a list (1000,1000000) runs each and prints the growth")
        ->delimiter(',')
        ->check(CLI::Range(int64_t{1}, int64_t{10'000'000}));
    app.add_option("--tb-mib", tbMib, "MiB per tensor there")->capture_default_str();
    app.add_option("--shards", shards, "Its data files")->capture_default_str();
    app.add_flag("--read-all", readAll, "Also verify the terabyte against cat of its files (reads ~1 TB of zero pages)");
    app.add_flag("--keep", keep, "Keep the generated checkpoints");
    app.add_option("--ops", g_ops, "Only the operations whose names contain one of these")->delimiter(',');
    app.add_option("--baseline", baseline.ckpt, "Another build's ckpt, timed beside this one's (alternating)")
        ->check(CLI::ExistingFile);
    CLI11_PARSE(app, argc, argv);
    if (repeat < 1 || shards < 1 || tbMib < 1) die("counts must be positive");
    fs::create_directories(dir);
    // ckpt's results cache and records go to catalogs of this run, not the user's.
    baseline.dataHome = dir + "/xdg-baseline";
    std::printf("bench_scale: %s, load average %s", dir.c_str(), bench::loadAverage().c_str());
    if (only.empty() || only == "tiny") runTiny(dir, sweep, repeat, baseline, keep);
    if (only.empty() || only == "terabyte") runTerabyte(dir, tbSizes, tbMib, shards, repeat, baseline, readAll, keep);
    return 0;
}

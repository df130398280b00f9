// Comparison benchmarks for issue 14's performance targets (docs/benchmarks.md):
//  identical: diffCheckpoints of two identical checkpoints of 100,000 small
//             tensors (object-based, like a TF2 save) in < 300 ms, answered
//             from the stored checksums alone (nothing read);
//  diff:      diffCheckpoints of two ~2 GiB checkpoints in which every
//             element differs, warm in the page cache, at >= 0.7x the
//             throughput of `cat A.data* B.data* > /dev/null`;
//  history:   computeHistory over 10 checkpoints of 256 MiB (every element
//             moving) at >= 0.7x the throughput of `cat` of all their data
//             files, with a peak RSS <= 2x the largest tensor + 200 MB.
// The baselines run in the same process run, interleaved with the engine,
// and only ratios are targets; nothing here gates CI. The checkpoints are
// written with the engine's own save pipeline (CheckpointManager over a
// Trackable graph) in child processes, and every measurement runs in a
// fresh child so its peak RSS is the operation's own (a child's ru_maxrss
// starts from its parent's peak, see bench_reader.cpp).
//   bench_compare [--dir D] [--quick] [--only identical|diff|history] ...
// CKPT_BENCH_QUICK=1 is --quick: small sizes for a smoke run.
// Exit status: 0 when every target is met, 1 when one is missed, 2 on errors.

#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/checkpoint_history.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/save.h"
#include "ckpt/trackable.h"
#include "platform/crc32c.h"
#include "bench_child.h"
#include "bench_timing.h"

using namespace ckpt;

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kIdenticalTargetMs = 300;
constexpr double kDiffTargetRatio = 0.7;
constexpr double kHistoryTargetRatio = 0.7;
constexpr double kHistoryRssHeadroomMb = 200;  // on top of 2x the largest tensor
constexpr long kTmpfsMagic = 0x01021994;       // TMPFS_MAGIC, linux/magic.h

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "bench_compare: %s\n", message.c_str());
    std::exit(2);
}

using bench::median;
using bench::secondsSince;

// ---------------------------------------------------------------------------
// Generation (child processes)

void addOrDie(Trackable& parent, const std::string& name, std::shared_ptr<Trackable> child) {
    const Status s = parent.addChild(name, std::move(child));
    if (!s.isOk()) die(s.toString());
}

// Two identical checkpoints A/ckpt-1 and B/ckpt-1 of root -> model -> layers
// -> <i> -> {kernel, bias}, 2x2 float32 each: 'tensors' values in all.
void generateMany(const std::string& dir, int tensors) {
    auto root = Trackable::makeObject();
    auto model = Trackable::makeObject();
    auto layers = Trackable::makeObject();
    addOrDie(*root, "model", model);
    addOrDie(*model, "layers", layers);
    int written = 0;
    for (int layer = 0; written < tensors; ++layer) {
        auto l = Trackable::makeObject();
        addOrDie(*layers, std::to_string(layer), l);
        for (const char* name : {"kernel", "bias"}) {
            if (written == tensors) break;
            auto v = Variable::make(DataType::Float, TensorShape{{2, 2}});
            float* f = reinterpret_cast<float*>(v->mutableValue().bytes.data());
            for (int i = 0; i < 4; ++i) f[i] = static_cast<float>(written * 4 + i) * 0.25f;
            addOrDie(*l, name, v);
            ++written;
        }
    }
    for (const char* side : {"A", "B"}) {
        CheckpointManagerOptions o;
        o.maxToKeep = std::nullopt;
        auto m = CheckpointManager::create(root, dir + "/" + side, o);
        if (!m.ok()) die(m.status().toString());
        auto saved = (*m)->save();
        if (!saved.ok()) die(saved.status().toString());
        // Both sides store save_counter 1: the checkpoints are byte for byte alike.
        auto counter = saveCounter(*root);
        if (!counter.ok()) die(counter.status().toString());
        const int64_t zero = 0;
        std::memcpy((*counter)->mutableValue().bytes.data(), &zero, 8);
        if (const Status s = (*m)->close(); !s.isOk()) die(s.toString());
    }
}

// 'count' checkpoints ckpt-1..count in 'dir', each 'mib' MiB of float32 in
// 'tensors' variables model/w<i>; between saves every element moves.
void generateSeries(const std::string& dir, int count, int64_t mib, int tensors) {
    const int64_t elements = mib * 1024 * 1024 / 4 / tensors;
    auto root = Trackable::makeObject();
    auto model = Trackable::makeObject();
    addOrDie(*root, "model", model);
    std::vector<std::shared_ptr<Variable>> vars;
    for (int t = 0; t < tensors; ++t) {
        auto v = Variable::make(DataType::Float, TensorShape{{elements}});
        float* f = reinterpret_cast<float*>(v->mutableValue().bytes.data());
        for (int64_t j = 0; j < elements; ++j)
            f[j] = static_cast<float>((static_cast<uint64_t>(j) * 2654435761u + static_cast<uint64_t>(t)) % 10007) * 1e-4f - 0.5f;
        addOrDie(*model, "w" + std::to_string(t), v);
        vars.push_back(std::move(v));
    }
    CheckpointManagerOptions o;
    o.maxToKeep = std::nullopt;
    auto m = CheckpointManager::create(root, dir, o);
    if (!m.ok()) die(m.status().toString());
    for (int c = 0; c < count; ++c) {
        if (c > 0)
            for (auto& v : vars) {
                float* f = reinterpret_cast<float*>(v->mutableValue().bytes.data());
                for (int64_t j = 0; j < elements; ++j) f[j] = f[j] * 0.999f + 1e-3f;
            }
        auto saved = (*m)->save();
        if (!saved.ok()) die(saved.status().toString());
    }
    if (const Status s = (*m)->close(); !s.isOk()) die(s.toString());
}

// ---------------------------------------------------------------------------
// Measurement (child processes print "<ms> <details...>" on stdout)

// 'rows': "changed" as `ckpt diff` asks (rows for changes only, the
// default), or "all" as the explorer asks (a row for every value).
int diffChild(const std::string& a, const std::string& b, const std::string& rows) {
    DiffOptions options;
    options.keepUnchanged = rows == "all";
    const auto t = Clock::now();
    auto diff = diffCheckpoints(a, b, options);
    const double ms = secondsSince(t) * 1e3;
    if (!diff.ok()) {
        std::fprintf(stderr, "%s\n", diff.status().toString().c_str());
        return 1;
    }
    const int64_t pairs = diff->counts.unchanged + diff->counts.modified;
    std::printf("%.3f %lld %lld %lld %lld\n", ms, static_cast<long long>(pairs), static_cast<long long>(diff->fromChecksums),
                static_cast<long long>(diff->bytesRead), static_cast<long long>(diff->counts.changed()));
    return 0;
}

int historyChild(const std::string& dir) {
    const auto t = Clock::now();
    auto h = computeHistory({dir});
    const double ms = secondsSince(t) * 1e3;
    if (!h.ok()) {
        std::fprintf(stderr, "%s\n", h.status().toString().c_str());
        return 1;
    }
    std::printf("%.3f %zu %zu %lld\n", ms, h->checkpoints.size(), h->variables.size(), static_cast<long long>(h->bytesRead));
    return 0;
}

// For the identical case: what opening both checkpoints (index and object
// graph, nothing else) costs, the floor under any object-based diff.
int openChild(const std::string& a, const std::string& b) {
    const auto t = Clock::now();
    auto ca = Checkpoint::open(a);
    auto cb = Checkpoint::open(b);
    const double ms = secondsSince(t) * 1e3;
    if (!ca.ok() || !cb.ok()) return 1;
    std::printf("%.3f\n", ms);
    return 0;
}

// For the big cases: a plain single-threaded loop over two float32 files
// that computes the figures a diff needs (max |a-b|, the three sums of
// squares, the dot product, the isclose count) from 16 MiB preads, no
// checksums, no object graph: how fast one core does the arithmetic.
int kernelChild(const std::vector<std::string>& files) {
    if (files.size() % 2) return 1;
    const auto t = Clock::now();
    constexpr size_t kChunk = 16u << 20;
    std::vector<float> a(kChunk / 4), b(kChunk / 4);
    double maxAbs = 0, sa = 0, sb = 0, sd = 0, dot = 0;
    long long mismatches = 0;
    for (size_t f = 0; f < files.size(); f += 2) {
        const int fa = ::open(files[f].c_str(), O_RDONLY), fb = ::open(files[f + 1].c_str(), O_RDONLY);
        if (fa < 0 || fb < 0) return 1;
        for (off_t off = 0;; off += static_cast<off_t>(kChunk)) {
            const ssize_t na = ::pread(fa, a.data(), kChunk, off), nb = ::pread(fb, b.data(), kChunk, off);
            if (na <= 0 || nb <= 0) break;
            const size_t n = static_cast<size_t>(std::min(na, nb)) / 4;
            for (size_t i = 0; i < n; ++i) {
                const double x = a[i], y = b[i], d = std::fabs(x - y);
                maxAbs = std::max(maxAbs, d);
                sa += x * x;
                sb += y * y;
                sd += d * d;
                dot += x * y;
                mismatches += d > 1e-5 + 1.3e-6 * std::fabs(y);
            }
        }
        ::close(fa);
        ::close(fb);
    }
    const double ms = secondsSince(t) * 1e3;
    std::printf("%.3f %g %lld\n", ms, maxAbs + sa + sb + sd + dot, mismatches);
    return 0;
}

using bench::ChildResult;
using bench::runChild;
using bench::selfPath;

void runOrDie(const std::vector<std::string>& args, const char* what) {
    ChildResult r = runChild(args);
    if (r.exitCode != 0) die(std::string(what) + " failed");
}

std::vector<std::string> dataFiles(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path().filename().string().find(".data-") != std::string::npos)
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

double totalBytes(const std::vector<std::string>& files) {
    double bytes = 0;
    for (const std::string& f : files) bytes += static_cast<double>(std::filesystem::file_size(f));
    return bytes;
}

// `cat FILES > /dev/null`, the yardstick, as a whole process.
ChildResult timeCat(const std::vector<std::string>& files) {
    std::vector<std::string> args = {"/bin/sh", "-c", "cat \"$@\" > /dev/null", "sh"};
    args.insert(args.end(), files.begin(), files.end());
    ChildResult r = runChild(args);
    if (r.exitCode != 0) die("cat failed");
    return r;
}

void checkScratch(const std::string& dir, double neededBytes) {
    struct statvfs s {};
    if (::statvfs(dir.c_str(), &s) != 0) die("cannot statvfs " + dir);
    const double available = static_cast<double>(s.f_bavail) * static_cast<double>(s.f_frsize);
    if (available < neededBytes + double(512 << 20))
        die("needs " + std::to_string(static_cast<long long>(neededBytes / double(1 << 20))) + " MiB plus 512 MiB headroom in " +
            dir + ", only " + std::to_string(static_cast<long long>(available / double(1 << 20))) +
            " MiB free (use --dir or smaller sizes)");
}

// ---------------------------------------------------------------------------

bool runIdentical(const std::string& dir, int tensors, int repeat) {
    const std::string base = dir + "/identical";
    auto t0 = Clock::now();
    runOrDie({selfPath(), "--generate-many", base, std::to_string(tensors)}, "generating the identical checkpoints");
    std::printf("identical: generated 2 x %d tensors in %.1f s (index %.1f MB each)\n", tensors, secondsSince(t0),
                static_cast<double>(std::filesystem::file_size(base + "/A/ckpt-1.index")) / 1e6);
    std::vector<double> ms, rss;
    std::string last;
    for (int i = 0; i < repeat; ++i) {
        ChildResult r = runChild({selfPath(), "--diff-child", base + "/A/ckpt-1", base + "/B/ckpt-1", "changed"});
        if (r.exitCode != 0) die("diff of the identical checkpoints failed");
        ms.push_back(std::stod(r.out));
        rss.push_back(r.maxRssMb);
        last = r.out;
    }
    double t = 0;
    long long pairs = 0, fromChecksums = 0, bytesRead = 0, changed = 0;
    std::sscanf(last.c_str(), "%lf %lld %lld %lld %lld", &t, &pairs, &fromChecksums, &bytesRead, &changed);
    std::vector<double> openMs, allRowsMs;
    for (int i = 0; i < repeat; ++i) {
        ChildResult r = runChild({selfPath(), "--diff-child", base + "/A/ckpt-1", base + "/B/ckpt-1", "all"});
        if (r.exitCode != 0) die("diff of the identical checkpoints failed");
        allRowsMs.push_back(std::stod(r.out));
    }
    for (int i = 0; i < repeat; ++i) {
        ChildResult r = runChild({selfPath(), "--open-child", base + "/A/ckpt-1", base + "/B/ckpt-1"});
        if (r.exitCode != 0) die("opening the identical checkpoints failed");
        openMs.push_back(std::stod(r.out));
    }
    const double best = *std::min_element(ms.begin(), ms.end());
    const bool checksumsOnly = pairs == fromChecksums && bytesRead == 0 && changed == 0;
    const bool met = best < kIdenticalTargetMs && checksumsOnly;
    std::printf(
        "identical: diffCheckpoints best %.1f ms (median %.1f), peak RSS %.1f MB; %lld pairs, %lld from checksums, "
        "%lld bytes read, %lld changed [%s: < %.0f ms from checksums alone]\n",
        best, median(ms), *std::min_element(rss.begin(), rss.end()), pairs, fromChecksums, bytesRead, changed,
        met ? "target met" : "target MISSED", kIdenticalTargetMs);
    std::printf("identical: with a row for every value (as the explorer asks): best %.1f ms (info)\n",
                *std::min_element(allRowsMs.begin(), allRowsMs.end()));
    std::printf("identical: Checkpoint::open of both, one after the other (index + object graph): best %.1f ms (info)\n",
                *std::min_element(openMs.begin(), openMs.end()));
    return met;
}

bool runDiff(const std::string& dir, int64_t mib, int tensors, int repeat) {
    const std::string base = dir + "/diff";
    checkScratch(dir, 2.0 * double(mib) * double(1 << 20));
    auto t0 = Clock::now();
    runOrDie({selfPath(), "--generate-series", base, "2", std::to_string(mib), std::to_string(tensors)},
             "generating the diff checkpoints");
    const std::vector<std::string> files = dataFiles(base);
    const double bytes = totalBytes(files);
    std::printf("diff: generated 2 x %lld MiB in %d tensors in %.1f s (%zu data files, %.2f GiB in all)\n",
                static_cast<long long>(mib), tensors, secondsSince(t0), files.size(), bytes / double(1ull << 30));
    timeCat(files);  // warm the page cache: the target compares CPU-bound throughput, not the disk
    std::vector<double> catMbps, diffMbps, pairRatios;
    std::string last;
    double rss = 0;
    for (int i = 0; i < repeat; ++i) {  // interleaved so both see the same machine load
        const ChildResult c = timeCat(files);
        catMbps.push_back(bytes / 1e6 / (c.wallMs / 1000));
        const ChildResult d = runChild({selfPath(), "--diff-child", base + "/ckpt-1", base + "/ckpt-2", "changed"});
        if (d.exitCode != 0) die("diff failed");
        diffMbps.push_back(bytes / 1e6 / (d.wallMs / 1000));
        pairRatios.push_back(diffMbps.back() / catMbps.back());
        rss = std::max(rss, d.maxRssMb);
        last = d.out;
        std::printf("diff: run %d: cat %7.0f MB/s  diffCheckpoints %7.0f MB/s (process, peak RSS %.1f MB)\n", i + 1,
                    catMbps.back(), diffMbps.back(), d.maxRssMb);
    }
    double t = 0;
    long long pairs = 0, fromChecksums = 0, bytesRead = 0, changed = 0;
    std::sscanf(last.c_str(), "%lf %lld %lld %lld %lld", &t, &pairs, &fromChecksums, &bytesRead, &changed);
    const double catBest = *std::max_element(catMbps.begin(), catMbps.end());
    const double diffBest = *std::max_element(diffMbps.begin(), diffMbps.end());
    const double ratio = diffBest / catBest;
    const bool met = ratio >= kDiffTargetRatio;
    std::printf(
        "diff: %lld pairs (%lld changed, %lld from checksums), %.2f GiB read; best cat %.0f MB/s, best diff %.0f MB/s, "
        "ratio %.2f (median of per-run ratios %.2f) [%s: >= %.1f]\n",
        pairs, changed, fromChecksums, static_cast<double>(bytesRead) / double(1ull << 30), catBest, diffBest, ratio,
        median(pairRatios), met ? "target met" : "target MISSED", kDiffTargetRatio);
    // Information: one core's plain fused loop over the same pairs of files.
    std::vector<std::string> kernelArgs = {selfPath(), "--kernel-child"};
    kernelArgs.insert(kernelArgs.end(), files.begin(), files.end());
    std::vector<double> kernelMbps;
    for (int i = 0; i < repeat; ++i) {
        const ChildResult k = runChild(kernelArgs);
        if (k.exitCode != 0) die("the plain loop failed");
        kernelMbps.push_back(bytes / 1e6 / (k.wallMs / 1000));
    }
    const double kernelBest = *std::max_element(kernelMbps.begin(), kernelMbps.end());
    std::printf(
        "diff: plain single-threaded pread + fused float64 loop: best %.0f MB/s, %.2fx cat; diff / plain loop %.2f (info)\n",
        kernelBest, kernelBest / catBest, diffBest / kernelBest);
    std::filesystem::remove_all(base);
    return met;
}

bool runHistory(const std::string& dir, int count, int64_t mib, int tensors, int repeat) {
    const std::string base = dir + "/history";
    checkScratch(dir, double(count) * double(mib) * double(1 << 20));
    auto t0 = Clock::now();
    runOrDie({selfPath(), "--generate-series", base, std::to_string(count), std::to_string(mib), std::to_string(tensors)},
             "generating the history checkpoints");
    const std::vector<std::string> files = dataFiles(base);
    const double bytes = totalBytes(files);
    const double largestMb = double(mib) * double(1 << 20) / tensors / 1e6;
    std::printf("history: generated %d x %lld MiB in %d tensors (largest %.1f MB) in %.1f s (%.2f GiB in all)\n", count,
                static_cast<long long>(mib), tensors, largestMb, secondsSince(t0), bytes / double(1ull << 30));
    timeCat(files);
    std::vector<double> catMbps, historyMbps, pairRatios;
    double rss = 0;
    std::string last;
    for (int i = 0; i < repeat; ++i) {
        const ChildResult c = timeCat(files);
        catMbps.push_back(bytes / 1e6 / (c.wallMs / 1000));
        const ChildResult h = runChild({selfPath(), "--history-child", base});
        if (h.exitCode != 0) die("computeHistory failed");
        historyMbps.push_back(bytes / 1e6 / (h.wallMs / 1000));
        pairRatios.push_back(historyMbps.back() / catMbps.back());
        rss = std::max(rss, h.maxRssMb);
        last = h.out;
        std::printf("history: run %d: cat %7.0f MB/s  computeHistory %7.0f MB/s (process, peak RSS %.1f MB)\n", i + 1,
                    catMbps.back(), historyMbps.back(), h.maxRssMb);
    }
    double t = 0;
    long long checkpoints = 0, variables = 0, bytesRead = 0;
    std::sscanf(last.c_str(), "%lf %lld %lld %lld", &t, &checkpoints, &variables, &bytesRead);
    const double catBest = *std::max_element(catMbps.begin(), catMbps.end());
    const double historyBest = *std::max_element(historyMbps.begin(), historyMbps.end());
    const double ratio = historyBest / catBest;
    const double rssLimitMb = 2 * largestMb + kHistoryRssHeadroomMb;
    const bool speedMet = ratio >= kHistoryTargetRatio;
    const bool rssMet = rss <= rssLimitMb;
    std::printf(
        "history: %lld checkpoints, %lld variables, %.2f GiB read; best cat %.0f MB/s, best computeHistory %.0f MB/s, "
        "ratio %.2f (median of per-run ratios %.2f) [%s: >= %.1f]\n",
        checkpoints, variables, static_cast<double>(bytesRead) / double(1ull << 30), catBest, historyBest, ratio,
        median(pairRatios), speedMet ? "target met" : "target MISSED", kHistoryTargetRatio);
    std::printf("history: peak RSS %.1f MB (worst run) vs 2 x %.1f MB + %.0f MB = %.1f MB [%s]\n", rss, largestMb,
                kHistoryRssHeadroomMb, rssLimitMb, rssMet ? "target met" : "target MISSED");
    std::filesystem::remove_all(base);
    return speedMet && rssMet;
}

}  // namespace

int main(int argc, char** argv) {
    // Internal modes: the parent runs these as children.
    if (argc == 4 && std::strcmp(argv[1], "--generate-many") == 0) {
        generateMany(argv[2], std::stoi(argv[3]));
        return 0;
    }
    if (argc == 6 && std::strcmp(argv[1], "--generate-series") == 0) {
        generateSeries(argv[2], std::stoi(argv[3]), std::stoll(argv[4]), std::stoi(argv[5]));
        return 0;
    }
    if (argc == 5 && std::strcmp(argv[1], "--diff-child") == 0) return diffChild(argv[2], argv[3], argv[4]);
    if (argc == 3 && std::strcmp(argv[1], "--history-child") == 0) return historyChild(argv[2]);
    if (argc == 4 && std::strcmp(argv[1], "--open-child") == 0) return openChild(argv[2], argv[3]);
    if (argc >= 2 && std::strcmp(argv[1], "--kernel-child") == 0) return kernelChild({argv + 2, argv + argc});

    ckpt::bench::startLauncher();  // while this process is small: see bench_child.h

    CLI::App app{"ckpt-explorer comparison benchmarks (issue 14 targets); see docs/benchmarks.md"};
    // /var/tmp rather than /tmp: the files must be on disk, and /tmp is often tmpfs.
    std::string dir = "/var/tmp/ckpt-bench-compare";
    int tensors = 100000;
    int64_t diffMib = 2048;
    int diffTensors = 64;
    int historyCount = 10;
    int64_t historyMib = 256;
    int historyTensors = 16;
    int repeat = 3;
    bool quick = false;
    std::string only;
    bool keep = false;
    app.add_option("--dir", dir, "Scratch directory (on disk) for the generated checkpoints")->capture_default_str();
    app.add_option("--tensors", tensors, "Tensors in each identical checkpoint")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--diff-mib", diffMib, "Size of each diffed checkpoint in MiB")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--diff-tensors", diffTensors, "Tensors in each diffed checkpoint")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--history-count", historyCount, "Checkpoints in the history")
        ->capture_default_str()
        ->check(CLI::Range(2, 1000));
    app.add_option("--history-mib", historyMib, "Size of each history checkpoint in MiB")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--history-tensors", historyTensors, "Tensors in each history checkpoint")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--repeat", repeat, "Timed repetitions; the best is reported")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_flag("--quick", quick, "Small sizes for a smoke run (also CKPT_BENCH_QUICK=1)");
    app.add_option("--only", only, "Run one benchmark")->check(CLI::IsMember({"identical", "diff", "history"}));
    app.add_flag("--keep", keep, "Keep the identical checkpoints (the big ones are always removed)");
    CLI11_PARSE(app, argc, argv);
    if (const char* q = std::getenv("CKPT_BENCH_QUICK"); q && std::strcmp(q, "1") == 0) quick = true;
    if (quick) {
        tensors = std::min(tensors, 10000);
        diffMib = std::min<int64_t>(diffMib, 64);
        historyCount = std::min(historyCount, 3);
        historyMib = std::min<int64_t>(historyMib, 16);
        repeat = std::min(repeat, 2);
    }

    std::filesystem::create_directories(dir);
    struct statfs fs {};
    if (::statfs(dir.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kTmpfsMagic)
        std::printf("bench_compare: warning: %s is on tmpfs; the targets are meant for files on disk (use --dir)\n", dir.c_str());
    std::printf("bench_compare: %u hardware threads, hardware crc32c: %s, scratch %s%s\n", std::thread::hardware_concurrency(),
                platform::crc32cIsHardwareAccelerated() ? "yes" : "no", dir.c_str(), quick ? " (quick sizes)" : "");
    bool ok = true;
    if (only.empty() || only == "identical") ok &= runIdentical(dir, tensors, repeat);
    if (only.empty() || only == "diff") ok &= runDiff(dir, diffMib, diffTensors, repeat);
    if (only.empty() || only == "history") ok &= runHistory(dir, historyCount, historyMib, historyTensors, repeat);
    if (!keep) std::filesystem::remove_all(dir + "/identical");
    std::printf("bench_compare: %s\n", ok ? "all targets met" : "some targets MISSED");
    return ok ? 0 : 1;
}

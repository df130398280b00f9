// Retention planning for issue 15's target (docs/benchmarks.md): planning a
// directory of 10,000 checkpoints, each with its metadata, takes < 1 s.
// Baselines in the same process: reading the directory alone, and
// listCheckpoints (what `ckpt list` and the explorer's sidebar cost).
// The checkpoints are one real save by the engine's pipeline, hard-linked
// (copied where links fail) under 10,000 names, each with its own metadata
// (step, time, val_loss, owner) so every rule has work to do.
//   bench_retention [SCRATCH_DIR] [--count N]
// Prints the figures; never fails on time (exit 2 only on setup errors).

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/retention.h"
#include "ckpt/save.h"
#include "ckpt/trackable.h"
#include "bench_timing.h"

namespace fs = std::filesystem;
using namespace ckpt;

namespace {

using bench::secondsSince;
using bench::timed;

bool linkOrCopy(const std::string& from, const std::string& to) {
    if (::link(from.c_str(), to.c_str()) == 0) return true;
    std::error_code ec;
    return fs::copy_file(from, to, ec);
}

int build(const std::string& dir, int count) {
    auto root = Trackable::makeObject();
    Tensor w;
    w.dtype = DataType::Float;
    w.shape = TensorShape{{64}};
    w.bytes.assign(256, 1);
    Tensor step;
    step.dtype = DataType::Int64;
    step.bytes.assign(8, 0);
    if (!root->addChild("w", Variable::fromTensor(std::move(w))).isOk() ||
        !root->addChild("step", Variable::fromTensor(std::move(step))).isOk())
        return 2;
    const std::string seed = dir + "/seed/ckpt";
    fs::create_directories(dir + "/seed");
    auto saved = writeCheckpoint(*root, seed, SaveOptions{});
    if (!saved.ok()) {
        std::fprintf(stderr, "bench_retention: %s\n", saved.status().toString().c_str());
        return 2;
    }
    const std::string runDir = dir + "/run";
    fs::create_directories(runDir);
    const double t0 = 1795521600.0 - count * 600.0;  // one save every 10 minutes up to 2026-11-24 12:00 UTC
    for (int i = 1; i <= count; ++i) {
        const std::string prefix = runDir + "/ckpt-" + std::to_string(i);
        if (!linkOrCopy(indexFileName(seed), indexFileName(prefix)) ||
            !linkOrCopy(dataFileName(seed, 0, 1), dataFileName(prefix, 0, 1)))
            return 2;
        CheckpointMetadata m;
        m.step = int64_t{i} * 100;
        m.savedAt = t0 + i * 600.0;
        m.metrics["val_loss"] = 1.0 / (1 + (i * 7919) % 1000);
        m.owner = "run-a";
        m.writer = "bench_retention";
        // A plain write: the benchmark times planning, not 10,000 fsyncs.
        std::ofstream(checkpointMetadataFileName(prefix)) << checkpointMetadataToJson(m);
    }
    CheckpointState state;
    state.modelCheckpointPath = "ckpt-" + std::to_string(count);
    for (int i = std::max(1, count - 4); i <= count; ++i) state.allModelCheckpointPaths.push_back("ckpt-" + std::to_string(i));
    return writeCheckpointState(runDir, state).isOk() ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string scratch = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    int count = 10000;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--count") == 0 && i + 1 < argc) {
            count = std::atoi(argv[++i]);
        } else {
            scratch = argv[i];
        }
    }
    if (count < 1) return 2;
    const std::string dir = scratch + "/bench_retention_" + std::to_string(::getpid());
    const auto setupStart = std::chrono::steady_clock::now();
    if (int rc = build(dir, count); rc != 0) {
        fs::remove_all(dir);
        return rc;
    }
    std::printf("retention: %d checkpoints with metadata written in %.1f s\n", count, secondsSince(setupStart));
    const std::string runDir = dir + "/run";

    auto policy = parseRetentionPolicy(
        R"({"keep_latest": 5, "keep_daily": 7, "keep_weekly": 4, "keep_every_steps": 100000,
            "keep_best": {"metric": "val_loss", "count": 3}, "min_age": "1h"})",
        "bench policy");
    if (!policy.ok()) return 2;
    const RetentionContext context{.now = 1795521600.0, .owner = "run-a"};

    // Warm the page cache and check the plan once.
    auto first = planDirectoryRetention(runDir, *policy, context);
    if (!first.ok() || first->decisions.size() != static_cast<size_t>(count)) {
        std::fprintf(stderr, "bench_retention: plan failed: %s\n",
                     first.ok() ? "wrong count" : first.status().toString().c_str());
        fs::remove_all(dir);
        return 2;
    }
    const int runs = 5;
    const auto readdirOnly = timed(runs, [&] {
        size_t n = 0;
        for (const auto& e : fs::directory_iterator(runDir)) n += e.path().native().size() > 0;
        if (n == 0) std::abort();
    });
    const auto listing = timed(runs, [&] {
        auto l = listCheckpoints(runDir, {.countTensors = false});
        if (!l.ok()) std::abort();
    });
    const auto candidates = timed(runs, [&] {
        auto c = retentionCandidates(runDir);
        if (!c.ok()) std::abort();
    });
    const auto plan = timed(runs, [&] {
        auto p = planDirectoryRetention(runDir, *policy, context);
        if (!p.ok()) std::abort();
    });
    std::vector<RetentionCandidate> gathered = *retentionCandidates(runDir);
    const auto pure = timed(runs, [&] { (void)planRetention(gathered, *policy, context); });

    std::printf("retention: kept %d, delete %d of %d\n", first->kept, first->deleted, count);
    std::printf("  %-42s best %8.1f ms  median %8.1f ms\n", "read the directory (baseline)", readdirOnly.first * 1e3,
                readdirOnly.second * 1e3);
    std::printf("  %-42s best %8.1f ms  median %8.1f ms\n", "listCheckpoints, no tensor count (baseline)", listing.first * 1e3,
                listing.second * 1e3);
    std::printf("  %-42s best %8.1f ms  median %8.1f ms\n", "retentionCandidates", candidates.first * 1e3,
                candidates.second * 1e3);
    std::printf("  %-42s best %8.1f ms  median %8.1f ms\n", "planRetention (pure, no I/O)", pure.first * 1e3, pure.second * 1e3);
    std::printf("  %-42s best %8.1f ms  median %8.1f ms  (target < 1000 ms: %s)\n", "planDirectoryRetention", plan.first * 1e3,
                plan.second * 1e3, plan.second < 1.0 ? "met" : "MISSED");
    fs::remove_all(dir);
    return 0;
}

// Save throughput: N MiB of float32 in 256 tensors written by the save
// pipeline (1 shard, 4 shards) against `dd ... conv=fsync` of the same
// number of bytes, and what async saves (eager and deferred snapshots)
// block for against a sync save, all in one run on the same disk.
//   bench_save DIR [--mib 2048] [--tensors 256] [--repeat 2]
// Prints one JSON object; docs/benchmarks.md explains the numbers.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ckpt/checkpoint_manager.h"
#include "ckpt/save.h"
#include "platform/crc32c.h"
#include "bench_tensors.h"
#include "bench_timing.h"

using namespace ckpt;
using Clock = std::chrono::steady_clock;

namespace {

using bench::median;
using bench::secondsSince;

// Deleting a 2 GiB file on a filesystem mounted with online discard (this
// VM's ext4 is) queues TRIMs that the next journal commit waits for: the
// measurement after a deletion would pay for the previous one's cleanup.
// Every deletion is followed by sync(), outside the timings; its total is
// reported.
double g_settleSeconds = 0;
void removeAndSettle(const std::filesystem::path& p) {
    std::filesystem::remove_all(p);
    const auto t = Clock::now();
    ::sync();
    g_settleSeconds += secondsSince(t);
}

std::shared_ptr<Trackable> makeGraph(int count, int64_t elementsEach) {
    auto root = Trackable::makeObject();
    for (int i = 0; i < count; ++i) {
        auto v = Variable::make(DataType::Float, TensorShape{{elementsEach}});
        float* f = reinterpret_cast<float*>(v->mutableValue().bytes.data());
        for (int64_t j = 0; j < elementsEach; ++j) f[j] = static_cast<float>(i);
        (void)root->addChild("v" + std::to_string(i), v);
    }
    return root;
}

// The target's yardstick is plain dd with fsync; dd with oflag=direct (what
// the pipeline's data files do) is timed too, for information.
double timeDd(const std::string& dir, int64_t mib, bool direct = false) {
    const std::string file = dir + "/dd.bin";
    const std::string cmd = "dd if=/dev/zero of=" + file + " bs=8M count=" + std::to_string(mib / 8) + " conv=fsync status=none" +
                            (direct ? " oflag=direct" : "");
    const auto t = Clock::now();
    if (std::system(cmd.c_str()) != 0) return -1;
    const double s = secondsSince(t);
    removeAndSettle(file);
    return s;
}

double timeSave(const std::string& dir, const std::vector<SaveTensor>& tensors, std::shared_ptr<const ShardingPolicy> policy,
                int* shards) {
    std::vector<SaveTensor> copy = tensors;  // the pipeline consumes its input; copy outside the timing
    SaveOptions o;
    o.policy = std::move(policy);
    const auto t = Clock::now();
    auto stats = writeTensors(dir + "/ckpt", std::move(copy), o);
    const double s = secondsSince(t);
    if (!stats.ok()) {
        std::cerr << stats.status().toString() << "\n";
        std::exit(1);
    }
    if (shards) *shards = stats->shards;
    removeAndSettle(dir);
    std::filesystem::create_directories(dir);
    return s;
}

double best(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: bench_save DIR [--mib N] [--tensors N] [--repeat N]\n";
        return 2;
    }
    const std::string dir = std::string(argv[1]) + "/bench_save_run";
    int64_t mib = 2048;
    int count = 256, repeat = 2;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--mib") mib = std::atoll(argv[i + 1]);
        else if (a == "--tensors") count = std::atoi(argv[i + 1]);
        else if (a == "--repeat") repeat = std::atoi(argv[i + 1]);
    }
    std::filesystem::create_directories(dir);
    const int64_t elementsEach = mib * 1024 * 1024 / 4 / count;
    const double bytes = static_cast<double>(elementsEach) * 4 * count;
    std::vector<double> dds, ddDirects, ones, fours;
    int shards1 = 0, shards4 = 0;
    {
        const auto tensors = bench::makeSaveTensors(count, elementsEach);
        // Interleaved, so that a slow spell of the shared disk hits all three.
        for (int r = 0; r < repeat; ++r) {
            ones.push_back(timeSave(dir, tensors, std::make_shared<ShardByTaskPolicy>(), &shards1));
            dds.push_back(timeDd(dir, mib));
            fours.push_back(timeSave(dir, tensors, std::make_shared<FixedShardCountPolicy>(4), &shards4));
            ddDirects.push_back(timeDd(dir, mib, true));
        }
    }
    const double dd = best(dds), one = best(ones), four = best(fours);

    // Async vs sync through the manager, every repetition in the same
    // minutes. A sync save writes straight from the variables; async ones
    // snapshot them first. The second async save comes after "training" for
    // 2.5 sync saves, so it measures the steady state (the first one also pays page
    // faults for fresh snapshot memory). An eager snapshot copies before
    // save() returns; a deferred one returns at once and copies on the
    // writer thread. Its worst case is a caller that changes every variable
    // the moment save() returns: that loop's time is the stall reported.
    auto root = makeGraph(count, elementsEach);
    std::vector<Variable*> variables;
    for (const auto& c : root->children()) variables.push_back(c.object->asVariable());
    auto touchAll = [&] {
        const auto t = Clock::now();
        for (Variable* v : variables) reinterpret_cast<float*>(v->mutableValue().bytes.data())[0] += 1.0f;
        return secondsSince(t);
    };
    struct AsyncRuns {
        std::vector<double> first, steady, waited, stall, firstFraction, steadyFraction, stallFraction;
    };
    std::vector<double> syncSaves;
    AsyncRuns eager, deferred;
    auto asyncRun = [&](CheckpointManagerOptions::Snapshot mode, double syncSave, AsyncRuns& out) {
        removeAndSettle(dir);
        CheckpointManagerOptions o;
        o.maxToKeep = 1;
        o.async = true;
        o.asyncSnapshot = mode;
        auto m = CheckpointManager::create(root, dir, o);
        auto first = (*m)->save();
        // Long enough for the first write (and a deferred copy into fresh memory) to end.
        std::this_thread::sleep_for(std::chrono::duration<double>(syncSave * 2.5));
        auto second = (*m)->save();
        const double stall = touchAll();
        const Status s = (*m)->close();
        if (!first.ok() || !second.ok() || !s.isOk()) {
            std::cerr << "async save failed: " << s.toString() << "\n";
            std::exit(1);
        }
        out.first.push_back(first->blockingSeconds);
        out.steady.push_back(second->blockingSeconds);
        out.waited.push_back(second->waitedSeconds);
        out.stall.push_back(stall);
        out.firstFraction.push_back(first->blockingSeconds / syncSave);
        out.steadyFraction.push_back(second->blockingSeconds / syncSave);
        out.stallFraction.push_back(stall / syncSave);
    };
    for (int r = 0; r < repeat; ++r) {
        removeAndSettle(dir);
        {
            CheckpointManagerOptions o;
            o.maxToKeep = 1;
            auto m = CheckpointManager::create(root, dir, o);
            auto saved = (*m)->save();
            if (!saved.ok()) {
                std::cerr << saved.status().toString() << "\n";
                return 1;
            }
            syncSaves.push_back(saved->blockingSeconds);
        }
        asyncRun(CheckpointManagerOptions::Snapshot::Eager, syncSaves.back(), eager);
        asyncRun(CheckpointManagerOptions::Snapshot::Deferred, syncSaves.back(), deferred);
    }
    std::filesystem::remove_all(dir);
    const double mibs = bytes / (1024.0 * 1024.0);
    nlohmann::json out = {
        {"bytes", bytes},
        {"tensors", count},
        {"crc32c_hardware", platform::crc32cIsHardwareAccelerated()},
        {"dd_fsync_s", dd},
        {"dd_MiB_per_s", mibs / dd},
        {"save_1_shard_s", one},
        {"save_1_shard_MiB_per_s", mibs / one},
        {"ratio_1_shard_vs_dd", dd / one},
        {"save_4_shards_s", four},
        {"shards_in_4_shard_save", shards4},
        {"ratio_4_vs_1_shard_speed", one / four},
        {"runs_dd_s", dds},
        {"runs_dd_direct_s", ddDirects},
        {"median_ratio_1_shard_vs_dd_direct", median(ddDirects) / median(ones)},
        {"runs_save_1_shard_s", ones},
        {"runs_save_4_shards_s", fours},
        {"median_ratio_1_shard_vs_dd", median(dds) / median(ones)},
        {"median_ratio_4_vs_1_shard_speed", median(ones) / median(fours)},
        {"settle_sync_s_total", g_settleSeconds},
        {"runs_manager_sync_save_s", syncSaves},
        {"runs_eager_async_first_blocking_s", eager.first},
        {"runs_eager_async_steady_blocking_s", eager.steady},
        {"runs_eager_async_steady_waited_s", eager.waited},
        {"runs_deferred_async_first_blocking_s", deferred.first},
        {"runs_deferred_async_steady_blocking_s", deferred.steady},
        {"runs_deferred_async_steady_waited_s", deferred.waited},
        {"runs_deferred_immediate_change_stall_s", deferred.stall},
        {"runs_eager_immediate_change_s", eager.stall},
        {"median_eager_async_first_blocking_fraction", median(eager.firstFraction)},
        {"median_deferred_async_first_blocking_fraction", median(deferred.firstFraction)},
        {"median_eager_async_steady_blocking_fraction", median(eager.steadyFraction)},
        {"median_deferred_async_steady_blocking_fraction", median(deferred.steadyFraction)},
        {"median_deferred_immediate_change_stall_fraction", median(deferred.stallFraction)},
    };
    std::cout << out.dump(2) << "\n";
    return 0;
}

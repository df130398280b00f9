// Saves by N writers (ckpt/distributed_save.h) against one writer: the same
// MiB of float32 in the same tensors, saved once by one process with
// writeTensors (today's save, one data file) and once by N processes of
// which rank 0 also merges and commits; wall time from the first process's
// start to the last one's exit, both as child processes, in one run.
//   bench_writers DEST [--mib 1024] [--tensors 64] [--world 4] [--repeat 1]
// DEST: a local directory or an s3:// location (settings from the
// environment, as ckpt takes them: set -a; . build/s3-server/env; set +a).
// Prints one JSON object; docs/benchmarks.md, "Saves by N writers", explains it.

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_timing.h"
#include "ckpt/distributed_save.h"
#include "ckpt/object_store.h"
#include "ckpt/save.h"
#include "storage/dispatch.h"

extern char** environ;

using namespace ckpt;
using bench::Clock;
using bench::secondsSince;

namespace {

// Values made on demand from one 1 MiB pattern: no writer holds its
// tensors in memory, and making them costs a memcpy.
class PatternSource final : public TensorSource {
public:
    explicit PatternSource(uint32_t seed) : m_pattern(1u << 20) {
        std::mt19937 rng(seed);
        for (auto& b : m_pattern) b = static_cast<uint8_t>(rng() & 0x7f);  // finite floats
    }
    Status read(uint64_t offset, uint64_t length, const ByteSink& sink) const override {
        while (length > 0) {
            const uint64_t at = offset % m_pattern.size();
            const uint64_t n = std::min<uint64_t>(length, m_pattern.size() - at);
            CKPT_RETURN_IF_ERROR(sink({m_pattern.data() + at, static_cast<size_t>(n)}));
            offset += n;
            length -= n;
        }
        return okStatus();
    }

private:
    std::vector<uint8_t> m_pattern;
};

std::vector<SaveTensor> makeTensors(int64_t mib, int count) {
    auto source = std::make_shared<PatternSource>(7);
    const int64_t floats = mib * (1 << 20) / 4 / count;
    std::vector<SaveTensor> tensors;
    for (int i = 0; i < count; ++i) {
        SaveTensor t;
        char key[64];
        std::snprintf(key, sizeof key, "model/layer_%03d/kernel/.ATTRIBUTES/VARIABLE_VALUE", i);
        t.key = key;
        t.value.dtype = DataType::Float;
        t.value.shape.dims = {floats};
        t.fullShape = t.value.shape;
        t.source = source;
        t.sourceOffset = static_cast<uint64_t>(i) * 4096;
        tensors.push_back(std::move(t));
    }
    return tensors;
}

[[noreturn]] void die(const std::string& why) {
    std::cerr << "bench_writers: " << why << "\n";
    std::exit(1);
}

// Starts every argv at once and waits for all; wall seconds, or -1 when one failed.
double runAll(const std::vector<std::vector<std::string>>& commands) {
    const auto start = Clock::now();
    std::vector<pid_t> pids;
    for (const auto& args : commands) {
        std::vector<char*> argv;
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        pid_t pid = 0;
        if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) die("cannot start " + args[0]);
        pids.push_back(pid);
    }
    bool ok = true;
    for (pid_t pid : pids) {
        int status = 0;
        ok = ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && ok;
    }
    return ok ? secondsSince(start) : -1;
}

void clear(const std::string& dest) {
    (void)storage::removeAll(dest);
    if (storage::locationScheme(dest).empty()) ::sync();  // discard of the deleted files, outside the timings
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Saves by N writers against one writer"};
    std::string dest, role = "bench", prefix, saveId;
    int64_t mib = 1024;
    int tensors = 64, world = 4, rank = 0, repeat = 1;
    app.add_option("DEST", dest, "Local directory or s3:// location (emptied)")->required();
    app.add_option("--mib", mib, "MiB saved in all")->capture_default_str();
    app.add_option("--tensors", tensors, "Tensors (equal sizes)")->capture_default_str();
    app.add_option("--world", world, "Writers")->capture_default_str();
    app.add_option("--repeat", repeat, "Timed repetitions of each")->capture_default_str();
    app.add_option("--role", role, "(internal) bench, single or rank");
    app.add_option("--rank", rank, "(internal)");
    app.add_option("--save-id", saveId, "(internal)");
    CLI11_PARSE(app, argc, argv);
    if (Status s = configureObjectStores({}); !s.isOk()) die(s.toString());

    if (role == "single") {
        auto saved = writeTensors(dest, makeTensors(mib, tensors), {});
        if (!saved.ok()) die(saved.status().toString());
        return 0;
    }
    if (role == "rank") {
        PartSaveOptions part;
        part.saveId = saveId;
        auto written = writeCheckpointPart(dest, WriterRank{rank, world, {}}, makeTensors(mib, tensors), part);
        if (!written.ok()) die(written.status().toString());
        if (rank == 0) {
            PartsCommitOptions commit;
            commit.saveId = saveId;
            commit.updateState = false;
            auto committed = commitCheckpointParts(dest, world, commit);
            if (!committed.ok()) die(committed.status().toString());
        }
        return 0;
    }

    std::error_code ec;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    const std::string common[] = {"--mib", std::to_string(mib), "--tensors", std::to_string(tensors)};
    std::vector<double> single, writers;
    for (int r = 0; r < repeat; ++r) {
        clear(dest);
        (void)storage::createDirectories(dest);
        std::vector<std::string> one = {self, dest + "/single", "--role", "single"};
        one.insert(one.end(), std::begin(common), std::end(common));
        single.push_back(runAll({one}));
        clear(dest);
        (void)storage::createDirectories(dest);
        std::vector<std::vector<std::string>> ranks;
        for (int i = 0; i < world; ++i) {
            std::vector<std::string> a = {self,        dest + "/parts",        "--role",  "rank",
                                          "--rank",    std::to_string(i),      "--world", std::to_string(world),
                                          "--save-id", "r" + std::to_string(r)};
            a.insert(a.end(), std::begin(common), std::end(common));
            ranks.push_back(std::move(a));
        }
        writers.push_back(runAll(ranks));
        if (single.back() < 0 || writers.back() < 0) die("a save failed");
    }
    clear(dest);
    const double s = bench::median(single), w = bench::median(writers);
    nlohmann::json out = {{"dest", dest},
                          {"mib", mib},
                          {"tensors", tensors},
                          {"world", world},
                          {"hardware_threads", std::thread::hardware_concurrency()},
                          {"load", bench::loadAverage()},
                          {"one_writer_s", single},
                          {"n_writers_s", writers},
                          {"ratio_n_over_one", w / s}};
    std::cout << out.dump() << "\n";
    return 0;
}

// `ckpt restore --match-only` end to end, as a user runs it (issue #34): a
// checkpoint of 100,000 variables (root -> layer_i -> {kernel, bias} and a
// save counter: 150,002 objects) restored into its own spec (`ckpt spec`),
// each run a whole process: spec parse, checkpoint open, graph, matching,
// report. Target < 300 ms and < 200 MB peak RSS. The baseline, run the same
// way in the same run, is `ckpt inspect` of the checkpoint (opening its
// index and graph, which the restore does too).
// Usage: bench_restore_cli [DIR] [--variables N] [--runs N] [--keep]   (the
// files go to a fresh directory inside DIR, default the temp directory,
// removed at exit unless --keep, for profiling). Prints one JSON object: per command the best and median wall
// seconds and the largest peak RSS (wait4).

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/save.h"
#include "ckpt/trackable.h"

using namespace ckpt;

namespace {

struct Run {
    double seconds = 0;
    long maxRssKiB = 0;
    int exitCode = -1;
};

// Runs 'args' with stdout to 'out' (or /dev/null); wall time and peak RSS of the child.
Run runProcess(const std::vector<std::string>& args, const std::string& out = "/dev/null") {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) ::dup2(fd, 1);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    int status = 0;
    rusage usage{};
    ::wait4(pid, &status, 0, &usage);
    Run r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.maxRssKiB = usage.ru_maxrss;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

nlohmann::json measure(const std::vector<std::string>& args, int runs) {
    std::vector<double> seconds;
    long rss = 0;
    for (int i = 0; i < runs; ++i) {
        const Run r = runProcess(args);
        if (r.exitCode != 0) {
            std::cerr << "bench_restore_cli: " << args[0] << " " << args[1] << " exited " << r.exitCode << "\n";
            std::exit(1);
        }
        seconds.push_back(r.seconds);
        rss = std::max(rss, r.maxRssKiB);
    }
    std::sort(seconds.begin(), seconds.end());
    return {{"best_s", seconds.front()}, {"median_s", seconds[seconds.size() / 2]}, {"max_rss_mb", rss / 1024.0}};
}

}  // namespace

int main(int argc, char** argv) {
    std::string parent = std::filesystem::temp_directory_path().string();
    int variables = 100000, runs = 5;
    bool keep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--variables" && i + 1 < argc) variables = std::max(2, std::atoi(argv[++i]));
        else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--keep") keep = true;
        else parent = a;
    }
    const std::string dir = parent + "/bench_restore_cli_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    const std::string ckptBin = std::filesystem::path(argv[0]).parent_path().parent_path().parent_path() / "app/cli/ckpt";

    auto root = Trackable::makeObject();
    for (int l = 0; l < variables / 2; ++l) {
        auto layer = Trackable::makeObject();
        (void)layer->addChild("kernel", Variable::make(DataType::Float, TensorShape{{2}}));
        (void)layer->addChild("bias", Variable::make(DataType::Float, TensorShape{{1}}));
        (void)root->addChild("layer_" + std::to_string(l), layer);
    }
    (void)saveCounter(*root);
    const std::string prefix = dir + "/ckpt-1";
    if (auto st = writeCheckpoint(*root, prefix, {}); !st.ok()) {
        std::cerr << st.status().toString() << "\n";
        return 1;
    }
    const std::string spec = dir + "/spec.json";
    const Run specRun = runProcess({ckptBin, "spec", prefix}, spec);

    nlohmann::json out;
    out["variables"] = variables;
    out["objects"] = 1 + 1 + variables / 2 + (variables / 2) * 2;
    out["spec_bytes"] = std::filesystem::file_size(spec);
    out["spec_s"] = specRun.seconds;
    out["runs"] = runs;
    out["baseline_inspect"] = measure({ckptBin, "inspect", prefix}, runs);
    out["restore_match_only"] = measure({ckptBin, "restore", prefix, "--into", spec, "--match-only", "--no-record"}, runs);
    out["restore_match_only_json"] =
        measure({ckptBin, "restore", prefix, "--into", spec, "--match-only", "--no-record", "--json"}, runs);
    if (keep) out["kept"] = dir;
    std::cout << out.dump(1) << "\n";
    if (!keep) std::filesystem::remove_all(dir);
    return 0;
}

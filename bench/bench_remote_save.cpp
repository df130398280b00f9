// Saving to object storage (issue 33, docs/remote.md "Multipart uploads"),
// against the loopback SeaweedFS of scripts/s3-server.sh, in one run:
//  save:  the save pipeline (writeTensors, one data file) writing N MiB of
//         float32 to s3:// — the data file as a multipart upload, the index
//         create-only — against `curl --aws-sigv4`'s single PUT of the same
//         data file's bytes, interleaved so the machine's load hits both
//         alike; target: save throughput >= 0.7x curl's;
//  equal: every object of every remote save has the sha256 of the same
//         file of a local save of the same tensors (sha256sum of the local
//         file, of `curl`'s GET of the object).
//  cpu:   CPU seconds per GiB of each step, the client's and the
//         server's: on a small machine the server's share decides what is
//         left to a client, and it depends on the values (a compressible
//         ramp costs SeaweedFS more; --values weights, the default, is as
//         incompressible as a trained model).
//   bench_remote_save [--state build/s3-server] [--mib 1024] [--repeat 3]
//                     [--values weights|ramp] [--only curl,save,upload]
// Exit status: 0 when both targets are met, 1 when one is missed, 2 on errors.

#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_s3_env.h"
#include "bench_tensors.h"
#include "bench_timing.h"
#include "ckpt/object_store.h"
#include "ckpt/save.h"
#include "storage/dispatch.h"

namespace {

using ckpt::bench::Clock;
using ckpt::bench::secondsSince;
namespace fs = std::filesystem;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "bench_remote_save: %s\n", what.c_str());
    std::exit(2);
}

// Runs a shell command; its stdout (trimmed).
std::string shell(const std::string& cmd) {
    std::FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) die("cannot run " + cmd);
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    if (::pclose(p) != 0) die("failed: " + cmd.substr(0, cmd.find(' ')));
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

// CPU seconds so far of this process, of its waited-for children (curl)
// and of the server: on a 2-core machine the server's share decides what
// is left to a client, so each figure says whose CPU it cost.
struct CpuSeconds {
    double self = 0, children = 0, server = 0;
};

CpuSeconds cpuNow(const std::string& serverPid) {
    CpuSeconds c;
    c.self = ckpt::bench::cpuSeconds(RUSAGE_SELF);
    c.children = ckpt::bench::cpuSeconds(RUSAGE_CHILDREN);
    std::ifstream stat("/proc/" + serverPid + "/stat");
    std::string line;
    std::getline(stat, line);
    // Fields 14 and 15 (utime, stime in clock ticks) follow the command
    // name in parentheses.
    const size_t close = line.rfind(')');
    if (close != std::string::npos) {
        std::istringstream rest(line.substr(close + 2));
        std::string field;
        unsigned long long utime = 0, stime = 0;
        for (int i = 3; i <= 15 && rest >> field; ++i) {
            if (i == 14) utime = std::stoull(field);
            if (i == 15) stime = std::stoull(field);
        }
        c.server = double(utime + stime) / double(::sysconf(_SC_CLK_TCK));
    }
    return c;
}

// What one timed step cost: the client's CPU (this process, or curl) and
// the server's.
struct StepCpu {
    double client = 0, server = 0;
};

StepCpu cpuSince(const CpuSeconds& before, const CpuSeconds& after) {
    return {after.self - before.self + after.children - before.children, after.server - before.server};
}

// Values spread like an initialised layer's (uniform in [-0.05, 0.05), every
// mantissa bit in use): real checkpoints hardly compress, and a server that
// compresses what compresses (SeaweedFS does, per chunk) would otherwise
// spend its CPU on work a real save never causes.
void fillLikeWeights(std::vector<ckpt::SaveTensor>& tensors) {
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (auto& t : tensors) {
        auto* f = reinterpret_cast<float*>(t.value.bytes.data());
        const size_t n = t.value.bytes.size() / 4;
        for (size_t j = 0; j < n; ++j) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            f[j] = (static_cast<float>(state >> 40) / float(1 << 24) - 0.5f) * 0.1f;
        }
    }
}

double timeSave(const std::string& prefix, const std::vector<ckpt::SaveTensor>& tensors) {
    std::vector<ckpt::SaveTensor> copy = tensors;  // the pipeline consumes its input; copied outside the timing
    ckpt::SaveOptions options;
    options.policy = std::make_shared<ckpt::ShardByTaskPolicy>();
    const auto start = Clock::now();
    auto stats = ckpt::writeTensors(prefix, std::move(copy), options);
    const double s = secondsSince(start);
    if (!stats.ok()) die(prefix + ": " + stats.status().toString());
    return s;
}

// The data file's bytes through the store's WritableFile alone (no save
// pipeline): what the upload itself costs.
double timeUpload(const std::string& location, const std::string& bytes) {
    const auto start = Clock::now();
    ckpt::storage::CreateOptions options;
    options.expectedSize = bytes.size();
    auto out = ckpt::storage::create(location, options);
    if (!out.ok()) die(out.status().toString());
    for (size_t at = 0; at < bytes.size(); at += 1 << 20) {
        const size_t n = std::min<size_t>(1 << 20, bytes.size() - at);
        if (auto s = (*out)->append(bytes.data() + at, n); !s.isOk()) die(s.toString());
    }
    if (auto s = (*out)->close(); !s.isOk()) die(s.toString());
    return secondsSince(start);
}

bool report(bool ok, const char* what) {
    std::printf("  %-58s %s\n", what, ok ? "met" : "MISSED");
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"ckpt-explorer: saving to object storage against curl's single PUT (issue 33); see docs/benchmarks.md"};
    std::string state = "build/s3-server";
    std::string scratch = (fs::temp_directory_path() / "ckpt-bench-remote-save").string();
    int64_t mib = 1024;
    int tensors = 64, repeat = 3;
    std::string only = "curl,save,upload";
    std::string valuesKind = "weights";
    app.add_option("--state", state, "scripts/s3-server.sh's directory (its env file)")->capture_default_str();
    app.add_option("--dir", scratch, "Scratch directory")->capture_default_str();
    app.add_option("--mib", mib, "MiB saved")->capture_default_str();
    app.add_option("--tensors", tensors, "Tensors saved")->capture_default_str();
    app.add_option("--repeat", repeat, "Timed repetitions (medians)")->capture_default_str();
    app.add_option("--values", valuesKind,
                   "weights: pseudo-random like trained weights (as incompressible as real checkpoints); ramp: a "
                   "compressible ramp (some servers compress what they store, which costs them CPU)")
        ->check(CLI::IsMember({"weights", "ramp"}))
        ->capture_default_str();
    app.add_option("--only", only, "Which of curl,save,upload to time (profiling one alone)")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    const auto wanted = [&only](const char* step) { return only.find(step) != std::string::npos; };

    const auto found = ckpt::bench::useS3TestServer(state, scratch);
    if (!found) die("no " + state + "/env: run scripts/s3-server.sh start first");
    const auto& env = *found;
    if (auto s = ckpt::configureObjectStores({}); !s.isOk()) die(s.toString());
    const std::string bucket = env.at("CKPT_S3_BUCKET");
    const std::string endpoint = env.at("AWS_ENDPOINT_URL");
    const std::string curlAuth = "--aws-sigv4 aws:amz:" + env.at("AWS_REGION") + ":s3 --user " + env.at("AWS_ACCESS_KEY_ID") +
                                 ":" + env.at("AWS_SECRET_ACCESS_KEY") + " -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD'";
    fs::remove_all(scratch);
    fs::create_directories(scratch + "/local");
    const std::string run = std::to_string(::getpid());
    std::printf("bench_remote_save: %u hardware threads, SeaweedFS at %s, %lld MiB in %d tensors (%s); load: %s\n",
                std::thread::hardware_concurrency(), endpoint.c_str(), static_cast<long long>(mib), tensors, valuesKind.c_str(),
                shell("cut -d' ' -f1-3 /proc/loadavg").c_str());

    const int64_t elementsEach = mib * (1 << 20) / 4 / tensors;
    auto values = ckpt::bench::makeSaveTensors(tensors, elementsEach);
    if (valuesKind == "weights") fillLikeWeights(values);
    const std::string localPrefix = scratch + "/local/ckpt";
    timeSave(localPrefix, values);
    const std::string dataName = "ckpt.data-00000-of-00001";
    const double dataMiB = double(fs::file_size(scratch + "/local/" + dataName)) / (1 << 20);

    std::string dataBytes;
    {
        std::ifstream f(scratch + "/local/" + dataName, std::ios::binary);
        dataBytes.assign(std::istreambuf_iterator<char>(f), {});
    }
    std::vector<double> curlTimes, saveTimes, uploadTimes;
    const std::string serverPid = env.count("CKPT_S3_PID") != 0 ? env.at("CKPT_S3_PID") : "";
    StepCpu curlCpu, saveCpu, uploadCpu;  // sums over the rounds
    std::vector<std::string> saved;       // key prefixes of the remote saves
    const ckpt::ObjectStoreStats before = ckpt::objectStoreStats();
    const uint64_t requestsBefore = before.requests, retriesBefore = before.retries;
    const uint64_t sentBefore = before.bytesSent, receivedBefore = before.bytesReceived;
    for (int i = 0; i < repeat; ++i) {  // interleaved: a slow spell of the shared machine hits both
        const std::string putUrl = endpoint + "/" + bucket + "/bench-save/" + run + "/curl-" + std::to_string(i);
        const auto add = [](StepCpu& sum, const StepCpu& step) {
            sum.client += step.client;
            sum.server += step.server;
        };
        CpuSeconds mark = cpuNow(serverPid);
        const auto start = Clock::now();
        if (wanted("curl")) shell("curl -sf " + curlAuth + " -T " + scratch + "/local/" + dataName + " " + putUrl);
        curlTimes.push_back(secondsSince(start));
        CpuSeconds now = cpuNow(serverPid);
        add(curlCpu, cpuSince(mark, now));
        mark = now;
        const std::string key = "bench-save/" + run + "/save-" + std::to_string(i) + "/";
        saveTimes.push_back(wanted("save") ? timeSave("s3://" + bucket + "/" + key + "ckpt", values) : 0.0);
        if (wanted("save")) saved.push_back(key);
        now = cpuNow(serverPid);
        add(saveCpu, cpuSince(mark, now));
        mark = now;
        if (wanted("upload"))
            uploadTimes.push_back(
                timeUpload("s3://" + bucket + "/bench-save/" + run + "/upload-" + std::to_string(i), dataBytes));
        else uploadTimes.push_back(0.0);
        add(uploadCpu, cpuSince(mark, cpuNow(serverPid)));
        std::printf("  round %d: curl PUT %.2f s, save %.2f s, upload alone %.2f s\n", i + 1, curlTimes.back(), saveTimes.back(),
                    uploadTimes.back());
    }
    const ckpt::ObjectStoreStats after = ckpt::objectStoreStats();
    const double curlT = ckpt::bench::median(curlTimes), saveT = ckpt::bench::median(saveTimes);
    std::printf(
        "save: %.0f MiB data file: save %.0f MiB/s vs curl single PUT %.0f MiB/s: %.2fx (medians of %d, interleaved); "
        "%llu requests, %llu retries, %.0f MiB sent, %.0f MiB received for %d saves and as many uploads alone\n",
        dataMiB, dataMiB / saveT, dataMiB / curlT, curlT / saveT, repeat,
        static_cast<unsigned long long>(after.requests - requestsBefore),
        static_cast<unsigned long long>(after.retries - retriesBefore), double(after.bytesSent - sentBefore) / (1 << 20),
        double(after.bytesReceived - receivedBefore) / (1 << 20), repeat);
    const double uploadT = ckpt::bench::median(uploadTimes);
    std::printf("upload alone (the data file's bytes through the store's WritableFile): %.0f MiB/s: %.2fx curl\n",
                dataMiB / uploadT, curlT / uploadT);
    const double gib = dataMiB * repeat / 1024;
    std::printf("CPU seconds per GiB, client / server: curl %.2f / %.2f, save %.2f / %.2f, upload alone %.2f / %.2f\n",
                curlCpu.client / gib, curlCpu.server / gib, saveCpu.client / gib, saveCpu.server / gib, uploadCpu.client / gib,
                uploadCpu.server / gib);
    bool ok = report(curlT / saveT >= 0.7, "save >= 0.7x curl's single PUT");

    // Every object equal to the local save's file.
    bool equal = true;
    int compared = 0;
    for (const auto& entry : fs::directory_iterator(scratch + "/local")) {
        const std::string name = entry.path().filename().string();
        const std::string local = shell("sha256sum " + entry.path().string() + " | cut -c1-64");
        for (const std::string& key : saved) {
            const std::string remote =
                shell("curl -sf " + curlAuth + " " + endpoint + "/" + bucket + "/" + key + name + " | sha256sum | cut -c1-64");
            ++compared;
            if (remote != local) {
                equal = false;
                std::printf("  %s%s: sha256 %s, local %s\n", key.c_str(), name.c_str(), remote.c_str(), local.c_str());
            }
        }
    }
    std::printf("equal: %d objects compared with the local save by sha256\n", compared);
    ok &= report(equal && compared > 0, "every object sha256-equal to a local save");
    std::printf("load after: %s\n", shell("cut -d' ' -f1-3 /proc/loadavg").c_str());
    fs::remove_all(scratch);
    // The server keeps what it was sent (3 objects of the full size per
    // round): a few runs would fill a small disk.
    if (auto s = ckpt::storage::removeAll("s3://" + bucket + "/bench-save/" + run); !s.isOk())
        std::fprintf(stderr, "bench_remote_save: cleaning up: %s\n", s.toString().c_str());
    return ok ? 0 : 1;
}

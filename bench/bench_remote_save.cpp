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
//   bench_remote_save [--state build/s3-server] [--mib 1024] [--repeat 3]
// Exit status: 0 when both targets are met, 1 when one is missed, 2 on errors.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
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
    app.add_option("--state", state, "scripts/s3-server.sh's directory (its env file)")->capture_default_str();
    app.add_option("--dir", scratch, "Scratch directory")->capture_default_str();
    app.add_option("--mib", mib, "MiB saved")->capture_default_str();
    app.add_option("--tensors", tensors, "Tensors saved")->capture_default_str();
    app.add_option("--repeat", repeat, "Timed repetitions (medians)")->capture_default_str();
    CLI11_PARSE(app, argc, argv);

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
    std::printf("bench_remote_save: %u hardware threads, SeaweedFS at %s, %lld MiB in %d tensors; load: %s\n",
                std::thread::hardware_concurrency(), endpoint.c_str(), static_cast<long long>(mib), tensors,
                shell("cut -d' ' -f1-3 /proc/loadavg").c_str());

    const int64_t elementsEach = mib * (1 << 20) / 4 / tensors;
    const auto values = ckpt::bench::makeSaveTensors(tensors, elementsEach);
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
    std::vector<std::string> saved;  // key prefixes of the remote saves
    const ckpt::ObjectStoreStats before = ckpt::objectStoreStats();
    const uint64_t requestsBefore = before.requests, retriesBefore = before.retries;
    const uint64_t sentBefore = before.bytesSent, receivedBefore = before.bytesReceived;
    for (int i = 0; i < repeat; ++i) {  // interleaved: a slow spell of the shared machine hits both
        const std::string putUrl = endpoint + "/" + bucket + "/bench-save/" + run + "/curl-" + std::to_string(i);
        const auto start = Clock::now();
        shell("curl -sf " + curlAuth + " -T " + scratch + "/local/" + dataName + " " + putUrl);
        curlTimes.push_back(secondsSince(start));
        const std::string key = "bench-save/" + run + "/save-" + std::to_string(i) + "/";
        saveTimes.push_back(timeSave("s3://" + bucket + "/" + key + "ckpt", values));
        saved.push_back(key);
        uploadTimes.push_back(timeUpload("s3://" + bucket + "/bench-save/" + run + "/upload-" + std::to_string(i), dataBytes));
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
    return ok ? 0 : 1;
}

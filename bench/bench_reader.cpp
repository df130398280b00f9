// Reader benchmarks for issue 2's performance targets (docs/benchmarks.md):
//  list:   a checkpoint of 100,000 small tensors (with an object graph, like
//          a TF2 save) is listed in < 300 ms and < 200 MB peak RSS;
//          `ckpt inspect --json` of it is timed against plain `ckpt inspect`
//          and, with CKPT_PYTHON set, tf.train.list_variables (issue 13);
//  step:   readCheckpointStep of the same checkpoint against opening its
//          whole index for checkpointStep (issue 13);
//  verify: `ckpt verify` of a 2 GiB data file, warm in the page cache, runs
//          at >= 0.8x the throughput of `cat FILE > /dev/null`, both measured
//          in the same run.
// The checkpoints are generated here with the engine's IndexTableWriter and
// TensorFlow's protos. Every measurement runs in a fresh child process so
// peak RSS belongs to the operation alone, not to the generator.
// Exit status: 0 when every target is met, 1 when one is missed, 2 on errors.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_child.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/object_graph.h"
#include "ckpt/verify.h"
#include "format/index_table.h"
#include "format/region_codec.h"
#include "platform/crc32c.h"
#include "tensor_bundle.pb.h"
#include "trackable_object_graph.pb.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kListTargetMs = 300;
constexpr double kListTargetRssMb = 200;
constexpr double kVerifyTargetRatio = 0.8;
constexpr const char* kStepKey = "step/.ATTRIBUTES/VARIABLE_VALUE";

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "bench_reader: %s\n", message.c_str());
    std::exit(2);
}

void check(const ckpt::Status& s) {
    if (!s.isOk()) die(s.toString());
}

// Writes a bundle: regions appended to one data file, entries sorted into the index.
class BundleBuilder {
public:
    explicit BundleBuilder(std::string prefix) : m_prefix(std::move(prefix)) {
        m_data = std::fopen((m_prefix + ".data-00000-of-00001").c_str(), "wb");
        if (!m_data) die("cannot create " + m_prefix + ".data-00000-of-00001: " + std::strerror(errno));
    }

    void addFixed(const std::string& key, tensorflow::DataType dtype, const std::vector<int64_t>& shape, const void* bytes,
                  size_t n) {
        tensorflow::BundleEntryProto e;
        e.set_dtype(dtype);
        for (int64_t d : shape) e.mutable_shape()->add_dim()->set_size(d);
        e.set_offset(m_offset);
        e.set_size(static_cast<int64_t>(n));
        e.set_crc32c(ckpt::platform::crc32cMask(ckpt::platform::crc32c(bytes, n)));
        write(bytes, n);
        m_entries.emplace_back(key, e.SerializeAsString());
    }

    // A scalar DT_STRING tensor, encoded as docs/format.md, "String tensors".
    void addScalarString(const std::string& key, const std::string& value) {
        std::string region;
        for (uint64_t v = value.size();; v >>= 7) {
            const auto byte = static_cast<uint8_t>(v & 0x7f);
            if (v < 0x80) {
                region.push_back(static_cast<char>(byte));
                break;
            }
            region.push_back(static_cast<char>(byte | 0x80));
        }
        uint8_t fixedLen[8];
        const size_t lenWidth = value.size() <= 0xffffffffu ? 4 : 8;
        for (size_t i = 0; i < 8; ++i) fixedLen[i] = static_cast<uint8_t>(uint64_t{value.size()} >> (8 * i));
        const uint32_t lenCrc = ckpt::platform::crc32cMask(ckpt::platform::crc32c(fixedLen, lenWidth));
        for (int i = 0; i < 4; ++i) region.push_back(static_cast<char>(lenCrc >> (8 * i)));
        region += value;
        auto crc = ckpt::regionChecksum({reinterpret_cast<const uint8_t*>(region.data()), region.size()}, ckpt::DataType::String,
                                        1, key);
        if (!crc) die(crc.status().toString());
        tensorflow::BundleEntryProto e;
        e.set_dtype(tensorflow::DT_STRING);
        e.set_offset(m_offset);
        e.set_size(static_cast<int64_t>(region.size()));
        e.set_crc32c(*crc);
        write(region.data(), region.size());
        m_entries.emplace_back(key, e.SerializeAsString());
    }

    // Streams a large float region in chunks from 'fill'.
    template <typename Fill>
    void addLargeFloat(const std::string& key, uint64_t bytes, std::vector<uint8_t>& chunk, Fill fill) {
        tensorflow::BundleEntryProto e;
        e.set_dtype(tensorflow::DT_FLOAT);
        e.mutable_shape()->add_dim()->set_size(static_cast<int64_t>(bytes / 4));
        e.set_offset(m_offset);
        e.set_size(static_cast<int64_t>(bytes));
        uint32_t crc = 0;
        for (uint64_t done = 0; done < bytes;) {
            const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), bytes - done));
            fill(chunk.data(), n);
            crc = ckpt::platform::crc32cExtend(crc, chunk.data(), n);
            write(chunk.data(), n);
            done += n;
        }
        e.set_crc32c(ckpt::platform::crc32cMask(crc));
        m_entries.emplace_back(key, e.SerializeAsString());
    }

    void finish() {
        if (std::fclose(m_data) != 0) die("cannot write " + m_prefix + ".data-00000-of-00001");
        std::sort(m_entries.begin(), m_entries.end());
        auto writer = ckpt::format::IndexTableWriter::create(m_prefix + ".index");
        if (!writer) die(writer.status().toString());
        tensorflow::BundleHeaderProto header;
        header.set_num_shards(1);
        header.mutable_version()->set_producer(1);
        check((*writer)->add("", header.SerializeAsString()));
        for (const auto& [key, value] : m_entries) check((*writer)->add(key, value));
        check((*writer)->finish());
    }

private:
    void write(const void* p, size_t n) {
        if (n && std::fwrite(p, 1, n, m_data) != n) die("short write to " + m_prefix + ".data-00000-of-00001");
        m_offset += static_cast<int64_t>(n);
    }
    std::string m_prefix;
    std::FILE* m_data = nullptr;
    int64_t m_offset = 0;
    std::vector<std::pair<std::string, std::string>> m_entries;
};

// A TF2-style checkpoint: root -> model -> layers -> <i> -> {kernel, bias},
// one tensor per variable, a root `step` (tf.train.Checkpoint(step=...),
// for readCheckpointStep), plus the serialized object graph.
void generateListCheckpoint(const std::string& prefix, int numTensors) {
    BundleBuilder b(prefix);
    tensorflow::TrackableObjectGraph graph;
    auto* root = graph.add_nodes();
    auto* modelRef = root->add_children();
    modelRef->set_node_id(1);
    modelRef->set_local_name("model");
    graph.add_nodes();  // model
    auto* layersRef = graph.mutable_nodes(1)->add_children();
    layersRef->set_node_id(2);
    layersRef->set_local_name("layers");
    graph.add_nodes();  // layers
    const int numLayers = (numTensors + 1) / 2;
    float values[4];
    int written = 0;
    for (int layer = 0; layer < numLayers && written < numTensors; ++layer) {
        const int layerId = graph.nodes_size();
        auto* ref = graph.mutable_nodes(2)->add_children();
        ref->set_node_id(layerId);
        ref->set_local_name(std::to_string(layer));
        graph.add_nodes();
        for (const char* var : {"kernel", "bias"}) {
            if (written == numTensors) break;
            const int varId = graph.nodes_size();
            auto* child = graph.mutable_nodes(layerId)->add_children();
            child->set_node_id(varId);
            child->set_local_name(var);
            const std::string key = "model/layers/" + std::to_string(layer) + "/" + var + "/.ATTRIBUTES/VARIABLE_VALUE";
            auto* attr = graph.add_nodes()->add_attributes();
            attr->set_name("VARIABLE_VALUE");
            attr->set_full_name("layer_" + std::to_string(layer) + "/" + var);
            attr->set_checkpoint_key(key);
            for (int i = 0; i < 4; ++i) values[i] = static_cast<float>(written * 4 + i) * 0.25f;
            b.addFixed(key, tensorflow::DT_FLOAT, {2, 2}, values, sizeof values);
            ++written;
        }
    }
    auto* stepRef = graph.mutable_nodes(0)->add_children();
    stepRef->set_node_id(graph.nodes_size());
    stepRef->set_local_name("step");
    auto* stepAttr = graph.add_nodes()->add_attributes();
    stepAttr->set_name("VARIABLE_VALUE");
    stepAttr->set_full_name("step");
    stepAttr->set_checkpoint_key(kStepKey);
    const int64_t step = numTensors;
    b.addFixed(kStepKey, tensorflow::DT_INT64, {}, &step, sizeof step);
    b.addScalarString(std::string(ckpt::kObjectGraphKey), graph.SerializeAsString());
    b.finish();
}

// Pseudo-random payload: incompressible, cheap to produce at GB/s.
struct XorShift {
    uint64_t s = 0x9e3779b97f4a7c15ull;
    void fill(uint8_t* p, size_t n) {
        for (size_t i = 0; i + 8 <= n; i += 8) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            std::memcpy(p + i, &s, 8);
        }
        for (size_t i = n & ~size_t{7}; i < n; ++i) p[i] = static_cast<uint8_t>(i);
    }
};

void generateVerifyCheckpoint(const std::string& prefix, uint64_t totalBytes, int numTensors) {
    BundleBuilder b(prefix);
    std::vector<uint8_t> chunk(8u << 20);
    XorShift rng;
    const uint64_t per = (totalBytes / static_cast<uint64_t>(numTensors)) & ~uint64_t{3};
    for (int i = 0; i < numTensors; ++i) {
        const uint64_t bytes = i + 1 == numTensors ? (totalBytes - per * static_cast<uint64_t>(i)) & ~uint64_t{3} : per;
        char key[64];
        std::snprintf(key, sizeof key, "weights/%04d", i);
        b.addLargeFloat(key, bytes, chunk, [&](uint8_t* p, size_t n) { rng.fill(p, n); });
    }
    b.finish();
}

using ckpt::bench::ChildResult;
using ckpt::bench::runChild;
using ckpt::bench::selfPath;
using ckpt::bench::Stdout;

// The child side of the list measurement: open + iterate, timed in-process.
int listChild(const std::string& prefix, bool withGraph) {
    // The clock stops after the iteration: tearing the reader down is not
    // listing (the CLI exits right after printing).
    const auto start = Clock::now();
    size_t count = 0;
    int64_t bytes = 0;
    int32_t nodes = 0;
    double ms = 0;
    auto iterate = [&](const std::vector<ckpt::TensorInfo>& tensors) {
        for (const ckpt::TensorInfo& t : tensors) {
            ++count;
            bytes += t.storedBytes();
        }
    };
    if (withGraph) {
        auto opened = ckpt::Checkpoint::open(prefix);
        if (!opened) die(opened.status().toString());
        iterate((*opened)->bundle().tensors());
        nodes = (*opened)->objectGraph() ? (*opened)->objectGraph()->size() : 0;
        ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    } else {
        auto reader = ckpt::BundleReader::open(prefix);
        if (!reader) die(reader.status().toString());
        iterate((*reader)->tensors());
        ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }
    std::printf("%.3f %zu %lld %d\n", ms, count, static_cast<long long>(bytes), nodes);
    return 0;
}

// The child side of the step measurement: the step by index lookups
// (readCheckpointStep) or through a fully opened reader (checkpointStep).
int stepChild(const std::string& prefix, bool viaReader) {
    const auto start = Clock::now();
    std::optional<int64_t> step;
    if (viaReader) {
        auto reader = ckpt::BundleReader::open(prefix);
        if (!reader) die(reader.status().toString());
        step = ckpt::checkpointStep(prefix, reader->get()).step;
    } else {
        auto quick = ckpt::readCheckpointStep(prefix);
        if (!quick) die(quick.status().toString());
        step = quick->step;
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    std::printf("%.3f %lld\n", ms, static_cast<long long>(step.value_or(-1)));
    return 0;
}

double bestOf(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

uint64_t freeBytes(const std::string& dir) {
    struct statvfs s {};
    if (::statvfs(dir.c_str(), &s) != 0) die("cannot statvfs " + dir);
    return static_cast<uint64_t>(s.f_bavail) * s.f_frsize;
}

// Generation runs in a child so this process stays small (see
// bench_child.h: a process's size is a floor under its children's peak).
void generateInChild(const std::vector<std::string>& args) {
    ChildResult r = runChild(args, Stdout::discard);
    if (r.exitCode != 0) die("generating the checkpoint failed");
}

struct Timing {
    double bestMs = 0;
    double bestCpuMs = 0;
    double bestRssMb = 0;
};

// Runs 'args' 'repeat' times; with inProcessTime the child prints its own
// milliseconds first on stdout (the rest of the line goes to 'lastOut').
Timing timeChild(const char* name, const std::vector<std::string>& args, bool inProcessTime, int repeat,
                 std::string* lastOut = nullptr) {
    std::vector<double> ms, cpu, rss;
    for (int i = 0; i < repeat; ++i) {
        ChildResult r = runChild(args, inProcessTime ? Stdout::capture : Stdout::discard);
        if (r.exitCode != 0) die(std::string(name) + " failed: " + r.out);
        ms.push_back(inProcessTime ? std::stod(r.out) : r.wallMs);
        cpu.push_back(r.cpuMs);  // whole child process, start-up included
        rss.push_back(r.maxRssMb);
        if (lastOut) *lastOut = r.out;
    }
    return {bestOf(ms), bestOf(cpu), bestOf(rss)};
}

// tf.train.list_variables on the same bundle, timed inside Python after
// TensorFlow is imported (the import alone takes seconds). Prints
// "<ms> <variables> <peak RSS MB after import> <peak RSS MB after listing>".
constexpr const char* kTfListScript = R"(import resource, sys, time
import tensorflow as tf
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
before = rss()
t = time.perf_counter()
v = tf.train.list_variables(sys.argv[1])
print("%.3f %d %.1f %.1f" % ((time.perf_counter() - t) * 1e3, len(v), before, rss()))
)";

bool runList(const std::string& dir, int numTensors, int repeat, const std::string& ckptBinary) {
    const std::string prefix = dir + "/list/ckpt-1";
    std::filesystem::create_directories(dir + "/list");
    auto t0 = Clock::now();
    generateInChild({selfPath(), "--generate-list", prefix, std::to_string(numTensors)});
    std::printf("list: generated %d tensors (+ a step) in %.1f s (index %.1f MB, object graph of %d nodes)\n", numTensors,
                std::chrono::duration<double>(Clock::now() - t0).count(),
                static_cast<double>(std::filesystem::file_size(prefix + ".index")) / 1e6, 4 + numTensors + (numTensors + 1) / 2);

    bool ok = true;
    // The issue's target is the engine's listing; the rest show what users
    // see on top of it (object graph decoding, CLI start-up and output).
    struct Variant {
        const char* name;
        std::vector<std::string> args;
        bool inProcessTime;
        bool isTarget;
    };
    const std::vector<Variant> variants = {
        {"BundleReader::open + iterate", {selfPath(), "--list-child", prefix}, true, true},
        {"Checkpoint::open (+ object graph) + iterate", {selfPath(), "--list-child-graph", prefix}, true, false},
        {"ckpt inspect > /dev/null (process)", {ckptBinary, "inspect", prefix}, false, false},
        {"ckpt inspect --json > /dev/null (process)", {ckptBinary, "inspect", prefix, "--json"}, false, false},
    };
    std::vector<Timing> timings;
    for (const Variant& v : variants) {
        const Timing t = timeChild(v.name, v.args, v.inProcessTime, repeat);
        timings.push_back(t);
        const bool met = t.bestMs < kListTargetMs && t.bestRssMb < kListTargetRssMb;
        if (v.isTarget) ok &= met;
        std::printf("list: %-44s best %7.1f ms (process cpu %6.1f ms)  peak RSS %6.1f MB  [%s: < %.0f ms, < %.0f MB]\n", v.name,
                    t.bestMs, t.bestCpuMs, t.bestRssMb,
                    v.isTarget ? (met ? "target met" : "target MISSED") : (met ? "info, within" : "info, over"), kListTargetMs,
                    kListTargetRssMb);
    }
    const Timing& plain = timings[2];
    const Timing& json = timings[3];
    std::printf("list: ckpt inspect --json / ckpt inspect: %.2fx wall, %.2fx cpu\n", json.bestMs / plain.bestMs,
                json.bestCpuMs / plain.bestCpuMs);

    // TensorFlow's own listing, when a Python with TensorFlow is named.
    if (const char* python = std::getenv("CKPT_PYTHON"); python && *python) {
        ::setenv("TF_CPP_MIN_LOG_LEVEL", "3", 0);
        std::string out;
        const Timing tf = timeChild("tf.train.list_variables", {python, "-c", kTfListScript, prefix}, true, repeat, &out);
        double ms = 0, rssImport = 0, rssAfter = 0;
        long long variables = 0;
        std::sscanf(out.c_str(), "%lf %lld %lf %lf", &ms, &variables, &rssImport, &rssAfter);
        std::printf(
            "list: tf.train.list_variables (in Python, after import) best %7.1f ms, %lld variables, peak RSS %.1f MB "
            "(%.1f MB after importing TensorFlow)\n",
            tf.bestMs, variables, rssAfter, rssImport);
        std::printf(
            "list: ckpt inspect --json (whole process) / tf.train.list_variables: %.2fx wall; "
            "ckpt inspect / tf.train.list_variables: %.2fx\n",
            json.bestMs / tf.bestMs, plain.bestMs / tf.bestMs);
    } else {
        std::printf("list: tf.train.list_variables skipped (set CKPT_PYTHON to a Python with TensorFlow)\n");
    }

    // The step of the same checkpoint: index lookups vs a fully opened reader.
    std::string quickOut, readerOut;
    const Timing quick = timeChild("readCheckpointStep", {selfPath(), "--step-child", prefix}, true, repeat, &quickOut);
    const Timing full = timeChild("checkpointStep", {selfPath(), "--step-child-reader", prefix}, true, repeat, &readerOut);
    const std::string expected = std::to_string(numTensors);
    for (const std::string* out : {&quickOut, &readerOut})
        if (out->substr(out->find(' ') + 1, expected.size()) != expected) die("wrong step read: " + *out);
    std::printf("step: %-44s best %7.2f ms  peak RSS %6.1f MB\n", "readCheckpointStep (index lookups)", quick.bestMs,
                quick.bestRssMb);
    std::printf("step: %-44s best %7.2f ms  peak RSS %6.1f MB\n", "BundleReader::open + checkpointStep", full.bestMs,
                full.bestRssMb);
    std::printf("step: opening the whole index / lookups: %.0fx\n", full.bestMs / quick.bestMs);
    return ok;
}

bool runVerify(const std::string& dir, double gib, int numTensors, int repeat, const std::string& ckptBinary) {
    const uint64_t bytes = static_cast<uint64_t>(gib * double(1ull << 30));
    std::filesystem::create_directories(dir + "/verify");
    const uint64_t available = freeBytes(dir + "/verify");
    if (available < bytes + (512ull << 20))
        die("verify: needs " + std::to_string(bytes >> 20) + " MiB plus 512 MiB headroom in " + dir + ", only " +
            std::to_string(available >> 20) + " MiB free (use --dir or --verify-gib)");
    const std::string prefix = dir + "/verify/big";
    const std::string dataFile = prefix + ".data-00000-of-00001";
    auto t0 = Clock::now();
    generateInChild({selfPath(), "--generate-verify", prefix, std::to_string(bytes), std::to_string(numTensors)});
    std::printf("verify: generated %.2f GiB in %d tensors in %.1f s; hardware crc32c: %s\n",
                static_cast<double>(std::filesystem::file_size(dataFile)) / double(1ull << 30), numTensors,
                std::chrono::duration<double>(Clock::now() - t0).count(),
                ckpt::platform::crc32cIsHardwareAccelerated() ? "yes" : "no");

    // Warm the page cache: the target compares CPU-bound throughput, not the disk.
    runChild({"/bin/cat", dataFile}, Stdout::discard);
    const double fileMb = static_cast<double>(std::filesystem::file_size(dataFile)) / 1e6;
    std::vector<double> catMbps, verifyMbps;
    for (int i = 0; i < repeat; ++i) {  // interleaved so both see the same machine load
        ChildResult c = runChild({"/bin/sh", "-c", "cat \"$0\" > /dev/null", dataFile}, Stdout::discard);
        if (c.exitCode != 0) die("cat failed");
        catMbps.push_back(fileMb / (c.wallMs / 1000));
        ChildResult v = runChild({ckptBinary, "verify", prefix}, Stdout::discard);
        if (v.exitCode != 0) die("ckpt verify reported problems in the generated checkpoint");
        verifyMbps.push_back(fileMb / (v.wallMs / 1000));
        std::printf("verify: run %d: cat %7.0f MB/s  ckpt verify %7.0f MB/s (peak RSS %.1f MB)\n", i + 1, catMbps.back(),
                    verifyMbps.back(), v.maxRssMb);
    }
    const double catBest = *std::max_element(catMbps.begin(), catMbps.end());
    const double verifyBest = *std::max_element(verifyMbps.begin(), verifyMbps.end());
    const double ratio = verifyBest / catBest;
    // Pairs ran back to back, so their ratios cancel slow phases of a shared machine.
    std::vector<double> pairRatios;
    for (size_t i = 0; i < catMbps.size(); ++i) pairRatios.push_back(verifyMbps[i] / catMbps[i]);
    std::sort(pairRatios.begin(), pairRatios.end());
    const double medianPair = pairRatios[pairRatios.size() / 2];
    const bool met = ratio >= kVerifyTargetRatio;
    std::printf(
        "verify: best cat %.0f MB/s, best ckpt verify %.0f MB/s, ratio %.2f (median of per-run ratios %.2f) "
        "[%s: >= %.1f]\n",
        catBest, verifyBest, ratio, medianPair, met ? "target met" : "target MISSED", kVerifyTargetRatio);
    return met;
}

}  // namespace

int main(int argc, char** argv) {
    // Internal modes: the parent runs these as children (see generateInChild).
    if (argc == 3 && (std::strcmp(argv[1], "--list-child") == 0 || std::strcmp(argv[1], "--list-child-graph") == 0))
        return listChild(argv[2], std::strcmp(argv[1], "--list-child-graph") == 0);
    if (argc == 3 && (std::strcmp(argv[1], "--step-child") == 0 || std::strcmp(argv[1], "--step-child-reader") == 0))
        return stepChild(argv[2], std::strcmp(argv[1], "--step-child-reader") == 0);
    if (argc == 4 && std::strcmp(argv[1], "--generate-list") == 0) {
        generateListCheckpoint(argv[2], std::stoi(argv[3]));
        return 0;
    }
    if (argc == 5 && std::strcmp(argv[1], "--generate-verify") == 0) {
        generateVerifyCheckpoint(argv[2], std::stoull(argv[3]), std::stoi(argv[4]));
        return 0;
    }

    ckpt::bench::startLauncher();  // while this process is small: see bench_child.h

    CLI::App app{"ckpt-explorer reader benchmarks (issue 2 targets); see docs/benchmarks.md"};
    std::string dir = (std::filesystem::temp_directory_path() / "ckpt-bench").string();
    int numTensors = 100000;
    double verifyGib = 2.0;
    int verifyTensors = 256;
    int repeat = 3;
    std::string only;
    std::string ckptBinary = CKPT_CLI_PATH;
    bool keep = false;
    app.add_option("--dir", dir, "Scratch directory for the generated checkpoints")->capture_default_str();
    app.add_option("--tensors", numTensors, "Tensors in the listing checkpoint")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--verify-gib", verifyGib, "Size of the verify data file in GiB")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--verify-tensors", verifyTensors, "Tensors in the verify checkpoint")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--repeat", repeat, "Timed repetitions; the best is reported")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--only", only, "Run one benchmark")->check(CLI::IsMember({"list", "verify"}));
    app.add_option("--ckpt", ckptBinary, "The ckpt CLI to measure")->capture_default_str();
    app.add_flag("--keep", keep, "Keep the generated checkpoints");
    CLI11_PARSE(app, argc, argv);

    std::printf("bench_reader: %u hardware threads, scratch %s\n", std::thread::hardware_concurrency(), dir.c_str());
    std::filesystem::create_directories(dir);
    bool ok = true;
    if (only.empty() || only == "list") ok &= runList(dir, numTensors, repeat, ckptBinary);
    if (only.empty() || only == "verify") ok &= runVerify(dir, verifyGib, verifyTensors, repeat, ckptBinary);
    if (!keep) {
        std::filesystem::remove_all(dir + "/list");
        std::filesystem::remove_all(dir + "/verify");
    }
    std::printf("bench_reader: %s\n", ok ? "all targets met" : "some targets MISSED");
    return ok ? 0 : 1;
}

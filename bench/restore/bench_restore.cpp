// Restore benchmarks (issue 4):
//  1. matching: a ~100,000-node object graph restored with readValues=false
//     (match + dtype/shape checks against the index), target < 200 ms;
//  2. throughput: 2 GiB in 256 tensors restored into a program, compared with
//     `cat` of the same data file in the same run (page cache warm for both),
//     target >= 0.8x.
// Usage: bench_restore [DIR] [--mib N] [--nodes N]   (DIR defaults to a temp dir;
// the checkpoints written there are removed at exit unless DIR was given.)
// Prints one JSON object.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "../../tests/engine/restore/bundle_fixture.h"
#include "ckpt/checkpoint.h"
#include "ckpt/restore.h"
#include "../bench_timing.h"

using namespace ckpt;
using Clock = std::chrono::steady_clock;

namespace {

using bench::secondsSince;

// root -> block_i (i < blocks) -> layer_j (j < 8) -> 5 small variables: 1 + blocks * 49 nodes.
std::shared_ptr<Trackable> wideProgram(int blocks, float fill) {
    auto root = Trackable::makeObject();
    for (int b = 0; b < blocks; ++b) {
        auto block = Trackable::makeObject();
        for (int l = 0; l < 8; ++l) {
            auto layer = Trackable::makeObject();
            for (int v = 0; v < 5; ++v)
                (void)layer->addChild("w" + std::to_string(v), Variable::fromTensor(testing::floatTensor({{2}}, fill)));
            (void)block->addChild("layer_" + std::to_string(l), layer);
        }
        (void)root->addChild("block_" + std::to_string(b), block);
    }
    return root;
}

// Writes 'count' float tensors of 'bytesEach' as root -> v_i, streaming the data file.
Status writeBigCheckpoint(const std::string& prefix, int count, size_t bytesEach) {
    tensorflow::TrackableObjectGraph g;
    g.add_nodes();
    std::map<std::string, tensorflow::BundleEntryProto> entries;
    const std::string dataPath = prefix + ".data-00000-of-00001";
    std::FILE* data = std::fopen(dataPath.c_str(), "wb");
    if (!data) return internalError("cannot create " + dataPath);
    std::vector<uint8_t> buf(bytesEach);
    int64_t offset = 0;
    for (int i = 0; i < count; ++i) {
        for (size_t k = 0; k < buf.size(); k += 4) {
            const float f = static_cast<float>(i) + static_cast<float>(k) * 1e-6f;
            std::memcpy(buf.data() + k, &f, 4);
        }
        char name[16];
        std::snprintf(name, sizeof name, "v%03d", i);
        const std::string key = std::string(name) + "/.ATTRIBUTES/VARIABLE_VALUE";
        auto* child = g.mutable_nodes(0)->add_children();
        child->set_node_id(g.nodes_size());
        child->set_local_name(name);
        auto* attr = g.add_nodes()->add_attributes();
        attr->set_name("VARIABLE_VALUE");
        attr->set_checkpoint_key(key);
        if (std::fwrite(buf.data(), 1, buf.size(), data) != buf.size()) {
            std::fclose(data);
            return internalError("short write");
        }
        tensorflow::BundleEntryProto e;
        e.set_dtype(tensorflow::DT_FLOAT);
        e.mutable_shape()->add_dim()->set_size(static_cast<int64_t>(bytesEach / 4));
        e.set_offset(offset);
        e.set_size(static_cast<int64_t>(bytesEach));
        e.set_crc32c(platform::crc32cMask(platform::crc32c(buf.data(), buf.size())));
        offset += static_cast<int64_t>(bytesEach);
        entries[key] = e;
    }
    auto [region, crc] = testing::encodeRegion(testing::scalarString(g.SerializeAsString()));
    std::fwrite(region.data(), 1, region.size(), data);
    tensorflow::BundleEntryProto ge;
    ge.set_dtype(tensorflow::DT_STRING);
    ge.set_offset(offset);
    ge.set_size(static_cast<int64_t>(region.size()));
    ge.set_crc32c(crc);
    entries[std::string(kObjectGraphKey)] = ge;
    std::fclose(data);
    CKPT_ASSIGN_OR_RETURN(auto index, format::IndexTableWriter::create(prefix + ".index"));
    tensorflow::BundleHeaderProto header;
    header.set_num_shards(1);
    CKPT_RETURN_IF_ERROR(index->add("", header.SerializeAsString()));
    for (const auto& [key, e] : entries) CKPT_RETURN_IF_ERROR(index->add(key, e.SerializeAsString()));
    return index->finish();
}

double catSeconds(const std::string& path) {
    const auto t = Clock::now();
    const std::string cmd = "cat '" + path + "' > /dev/null";
    if (std::system(cmd.c_str()) != 0) return -1;
    return secondsSince(t);
}

}  // namespace

int main(int argc, char** argv) {
    std::string dir;
    int64_t mib = 2048;
    int blocks = 2040;  // 1 + 2040 * 49 = 99,961 nodes
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--mib" && i + 1 < argc) mib = std::atoll(argv[++i]);
        else if (a == "--nodes" && i + 1 < argc) blocks = std::max(1, std::atoi(argv[++i]) / 49);
        else dir = a;
    }
    const bool ownDir = dir.empty();
    if (ownDir) dir = (std::filesystem::temp_directory_path() / ("bench_restore_" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    nlohmann::json out;

    // 1. Matching.
    {
        const std::string prefix = dir + "/wide";
        auto saved = wideProgram(blocks, 1.0f);
        if (Status s = testing::writeProgramCheckpoint(prefix, saved); !s.isOk()) {
            std::cerr << s.toString() << "\n";
            return 1;
        }
        auto t = Clock::now();
        auto ckpt = Checkpoint::open(prefix);
        const double openSeconds = secondsSince(t);
        if (!ckpt) {
            std::cerr << ckpt.status().toString() << "\n";
            return 1;
        }
        auto program = wideProgram(blocks, 0.0f);
        RestoreOptions options;
        options.readValues = false;
        t = Clock::now();
        auto status = restoreCheckpoint(*ckpt, program, options);
        const double matchSeconds = secondsSince(t);
        t = Clock::now();
        const bool consumed = status.ok() && status->assertConsumed().isOk();
        const double assertSeconds = secondsSince(t);
        auto program2 = wideProgram(blocks, 0.0f);
        t = Clock::now();
        auto withValues = restoreCheckpoint(*ckpt, program2);
        const double valuesSeconds = secondsSince(t);
        out["matching"] = {{"nodes", (*ckpt)->objectGraph()->size()},
                           {"open_ms", openSeconds * 1e3},
                           {"match_ms", matchSeconds * 1e3},
                           {"assert_consumed_ms", assertSeconds * 1e3},
                           {"restore_with_values_ms", valuesSeconds * 1e3},
                           {"assert_consumed_passed", consumed && withValues.ok()},
                           {"target_ms", 200},
                           {"ok", consumed && matchSeconds < 0.2}};
    }

    // 2. Throughput.
    {
        const std::string prefix = dir + "/big";
        const int count = 256;
        const size_t each = static_cast<size_t>(mib) * (1 << 20) / count / 4 * 4;
        if (Status s = writeBigCheckpoint(prefix, count, each); !s.isOk()) {
            std::cerr << s.toString() << "\n";
            return 1;
        }
        const std::string dataPath = prefix + ".data-00000-of-00001";
        const double bytes = static_cast<double>(std::filesystem::file_size(dataPath));
        catSeconds(dataPath);  // warm the page cache for both sides
        double catBest = 1e9, restoreBest = 1e9;
        bool consumed = false;
        for (int round = 0; round < 3; ++round) {
            catBest = std::min(catBest, catSeconds(dataPath));
            auto ckpt = Checkpoint::open(prefix);
            auto root = Trackable::makeObject();
            for (int i = 0; i < count; ++i) {
                char name[16];
                std::snprintf(name, sizeof name, "v%03d", i);
                (void)root->addChild(name, Variable::make(DataType::Float, TensorShape{{static_cast<int64_t>(each / 4)}}));
            }
            const auto t = Clock::now();
            auto status = restoreCheckpoint(*ckpt, root);
            restoreBest = std::min(restoreBest, secondsSince(t));
            consumed = status.ok() && status->assertConsumed().isOk();
        }
        const double ratio = catBest / restoreBest;
        out["throughput"] = {{"bytes", bytes},
                             {"tensors", count},
                             {"cat_gib_per_s", bytes / catBest / (1 << 30)},
                             {"restore_gib_per_s", bytes / restoreBest / (1 << 30)},
                             {"ratio", ratio},
                             {"target_ratio", 0.8},
                             {"assert_consumed_passed", consumed},
                             {"ok", consumed && ratio >= 0.8}};
    }
    if (ownDir) std::filesystem::remove_all(dir);
    std::cout << out.dump(1) << "\n";
    return 0;
}

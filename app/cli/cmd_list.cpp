// ckpt list DIR: every checkpoint (*.index) in a directory.

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>
#include <tuple>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/checkpoint_state.h"
#include "output.h"

namespace ckpt::cli {
namespace {

struct Row {
    std::string prefix;
    std::optional<int64_t> number;  // after the last '-'
    std::optional<int64_t> step;    // stored in the checkpoint, else the number
    std::string stepSource;         // the key it was read from, or "checkpoint number"
    double mtime = 0;
    uint64_t bytes = 0;
    int64_t tensors = -1;
    int shards = 0;
    bool inState = false;
    bool latest = false;
    std::string error;
};

} // namespace

void registerList(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("list", "List every checkpoint in DIR: number, step, time, size, tensors, state-file membership");
    auto dir = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("DIR", *dir, "Directory to scan")->required();
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, dir, json] {
        namespace fs = std::filesystem;
        std::error_code ec;
        if (!fs::is_directory(*dir, ec)) {
            ctx.exitCode = reportError(notFound("no directory " + *dir), *json);
            return;
        }
        auto state = readCheckpointState(*dir);
        std::set<std::string> listed;
        std::string latest;
        if (state.ok() && *state) {
            for (const auto& p : (*state)->allModelCheckpointPaths) listed.insert(resolveStatePath(*dir, p));
            latest = resolveStatePath(*dir, (*state)->modelCheckpointPath);
        }
        std::vector<Row> rows;
        for (const auto& e : fs::directory_iterator(*dir, ec)) {
            const std::string name = e.path().filename().string();
            if (!name.ends_with(".index") || !e.is_regular_file(ec)) continue;
            Row r;
            const std::string base = name.substr(0, name.size() - 6);
            r.prefix = (fs::path(*dir) / base).string();
            r.mtime = std::chrono::duration<double>(fs::last_write_time(e.path(), ec).time_since_epoch()).count();
            // file_clock's epoch is not the Unix epoch; convert through now().
            r.mtime += std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() -
                       std::chrono::duration<double>(fs::file_time_type::clock::now().time_since_epoch()).count();
            r.inState = listed.count(r.prefix) > 0;
            r.latest = r.prefix == latest;
            auto reader = BundleReader::open(r.prefix);
            const CheckpointStep step = checkpointStep(r.prefix, reader.ok() ? reader->get() : nullptr);
            r.number = step.number;
            r.step = step.step;
            r.stepSource = step.source;
            if (reader) {
                r.tensors = static_cast<int64_t>((*reader)->tensors().size());
                r.shards = (*reader)->header().numShards;
                r.bytes = fs::file_size(e.path(), ec);
                for (int32_t s = 0; s < r.shards; ++s) {
                    const auto size = fs::file_size((*reader)->dataPath(s), ec);
                    if (!ec) r.bytes += size;
                }
            } else {
                r.error = reader.status().toString();
            }
            rows.push_back(std::move(r));
        }
        std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
            return std::tuple(a.number.value_or(-1), a.step.value_or(-1), a.prefix) <
                   std::tuple(b.number.value_or(-1), b.step.value_or(-1), b.prefix);
        });
        if (*json) {
            nlohmann::json out = nlohmann::json::array();
            for (const Row& r : rows) {
                nlohmann::json j = {{"prefix", r.prefix},
                                    {"number", r.number ? nlohmann::json(*r.number) : nlohmann::json(nullptr)},
                                    {"step", r.step ? nlohmann::json(*r.step) : nlohmann::json(nullptr)},
                                    {"step_source", r.stepSource.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.stepSource)},
                                    {"mtime", r.mtime},
                                    {"bytes", r.bytes},
                                    {"tensors", r.tensors},
                                    {"shards", r.shards},
                                    {"in_state_file", r.inState},
                                    {"latest", r.latest}};
                if (!r.error.empty()) j["error"] = r.error;
                out.push_back(j);
            }
            printJson({{"directory", *dir}, {"checkpoints", out}});
            return;
        }
        for (const Row& r : rows) {
            std::cout << (r.latest ? "* " : r.inState ? "+ " : "  ") << r.prefix << "  step "
                      << (r.step ? std::to_string(*r.step) : std::string("-")) << "  " << r.bytes << " bytes  "
                      << r.tensors << " tensors  " << r.shards << " shard(s)";
            if (!r.error.empty()) std::cout << "  ERROR: " << r.error;
            std::cout << "\n";
        }
        if (rows.empty()) std::cout << "no checkpoints in " << *dir << "\n";
    });
}

} // namespace ckpt::cli

#include "surgery_output.h"

#include <iostream>

#include "diff_format.h"
#include "output.h"
#include "terminal_progress.h"

namespace ckpt::cli {

void addShardingFlags(CLI::App& cmd, ShardingFlags& flags) {
    auto* shards = cmd.add_option("--shards", flags.shards, "N data files of similar size")->check(CLI::PositiveNumber);
    auto* max = cmd.add_option("--max-shard-bytes", flags.maxShardBytes, "Data files of at most B bytes (tensors split)")
                    ->check(CLI::PositiveNumber);
    auto* byTask = cmd.add_flag("--by-task", flags.byTask, "One data file per task (TensorFlow's default)");
    shards->excludes(max)->excludes(byTask);
    max->excludes(byTask);
}

std::shared_ptr<const ShardingPolicy> shardingPolicy(const ShardingFlags& flags) {
    if (flags.shards > 0) return std::make_shared<FixedShardCountPolicy>(flags.shards);
    if (flags.maxShardBytes > 0) return std::make_shared<MaxShardSizePolicy>(flags.maxShardBytes);
    if (flags.byTask) return std::make_shared<ShardByTaskPolicy>();
    return nullptr;
}

SurgeryOptions surgeryOptions(const ShardingFlags& flags, bool overwrite, bool progress, const CancellationToken& cancel) {
    SurgeryOptions options;
    options.save.policy = shardingPolicy(flags);
    options.overwrite = overwrite;
    options.cancel = &cancel;
    if (progress) options.progress = terminalProgress({});
    return options;
}

void printSurgeryResult(const SurgeryResult& result, bool json, const nlohmann::json& extra) {
    if (json) {
        nlohmann::json j = {{"prefix", result.stats.prefix},
                            {"shards", result.stats.shards},
                            {"tensors", result.stats.tensors},
                            {"bytes", result.stats.dataBytes},
                            {"seconds", result.stats.seconds},
                            {"verified", result.verify.ok()},
                            {"notes", result.notes}};
        j.update(extra);
        printJson(j);
        return;
    }
    std::cout << "wrote " << result.stats.prefix << ": " << result.stats.tensors << " entries, "
              << byteText(result.stats.dataBytes) << " in " << result.stats.shards << " data file(s), verified\n";
    for (const std::string& note : result.notes) std::cout << "  note: " << note << "\n";
}

}  // namespace ckpt::cli

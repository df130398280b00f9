// ckpt reshard SRC DST: the save pipeline applied to an existing checkpoint.

#include <iostream>

#include "ckpt/reshard.h"
#include "output.h"

namespace ckpt::cli {

void registerReshard(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("reshard",
                                   "Rewrite checkpoint SRC at prefix DST with another sharding (values kept, "
                                   "DST verified)");
    auto src = std::make_shared<std::string>();
    auto dst = std::make_shared<std::string>();
    auto shards = std::make_shared<int>(0);
    auto maxBytes = std::make_shared<int64_t>(0);
    auto byTask = std::make_shared<bool>(false);
    auto json = std::make_shared<bool>(false);
    cmd->add_option("SRC", *src, "Source checkpoint prefix, directory or SavedModel")->required();
    cmd->add_option("DST", *dst, "Destination prefix")->required();
    auto* o1 = cmd->add_option("--shards", *shards, "N data files of similar size")->check(CLI::PositiveNumber);
    auto* o2 = cmd->add_option("--max-shard-bytes", *maxBytes, "Data files of at most B bytes (tensors split)")
                   ->check(CLI::PositiveNumber);
    auto* o3 = cmd->add_flag("--by-task", *byTask, "One data file per task (TensorFlow's default)");
    o1->excludes(o2)->excludes(o3);
    o2->excludes(o3);
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, src, dst, shards, maxBytes, byTask, json] {
        SaveOptions options;
        if (*shards > 0) options.policy = std::make_shared<FixedShardCountPolicy>(*shards);
        else if (*maxBytes > 0) options.policy = std::make_shared<MaxShardSizePolicy>(*maxBytes);
        else if (*byTask) options.policy = std::make_shared<ShardByTaskPolicy>();
        else {
            std::cerr << "reshard: one of --shards, --max-shard-bytes or --by-task is required\n";
            ctx.exitCode = kExitUsage;
            return;
        }
        auto stats = reshardCheckpoint(*src, *dst, options);
        if (!stats) {
            ctx.exitCode = reportError(stats.status(), *json);
            return;
        }
        if (*json) {
            printJson({{"source", *src},
                       {"prefix", stats->prefix},
                       {"shards", stats->shards},
                       {"entries", stats->tensors},
                       {"seconds", stats->seconds}});
            return;
        }
        std::cout << "wrote " << stats->prefix << ": " << stats->shards << " data file(s), " << stats->tensors
                  << " entries, verified\n";
    });
}

}  // namespace ckpt::cli

// ckpt reshard SRC DST: the save pipeline applied to an existing checkpoint.

#include <iostream>

#include "ckpt/reshard.h"
#include "output.h"
#include "surgery_output.h"

namespace ckpt::cli {

void registerReshard(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("reshard",
                                   "Rewrite checkpoint SRC at prefix DST with another sharding (values kept, "
                                   "DST verified)");
    auto src = std::make_shared<std::string>();
    auto dst = std::make_shared<std::string>();
    auto sharding = std::make_shared<ShardingFlags>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("SRC", *src, "Source checkpoint prefix, directory or SavedModel")->required();
    cmd->add_option("DST", *dst, "Destination prefix")->required();
    addShardingFlags(*cmd, *sharding);
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, src, dst, sharding, json] {
        SaveOptions options;
        options.policy = shardingPolicy(*sharding);
        if (!options.policy) {
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

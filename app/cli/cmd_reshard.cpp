// ckpt reshard SRC DST: the save pipeline applied to an existing checkpoint
// (the engine's saveCheckpointAs, which ckpt/reshard.h wraps).

#include <iostream>

#include "ckpt/surgery.h"
#include "destination_output.h"
#include "diff_format.h"
#include "output.h"
#include "schedule_output.h"
#include "surgery_output.h"
#include "terminal_progress.h"

namespace ckpt::cli {

void registerReshard(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("reshard",
                                   "Rewrite checkpoint SRC at prefix DST with another sharding (values kept, "
                                   "DST verified)");
    struct Args {
        std::string src, dst;
        ShardingFlags sharding;
        bool overwrite = false, json = false;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("SRC", a->src, "Source checkpoint prefix, directory or SavedModel")->required();
    cmd->add_option("DST", a->dst, "Destination prefix (must not exist, unless --overwrite)")->required();
    addShardingFlags(*cmd, a->sharding);
    addOverwriteFlag(*cmd, a->overwrite);
    cmd->add_flag("--json", a->json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, a] {
        if (!shardingPolicy(a->sharding)) {
            std::cerr << "reshard: one of --shards, --max-shard-bytes or --by-task is required\n";
            ctx.exitCode = kExitUsage;
            return;
        }
        if (!allowDestination({.path = a->dst, .sources = {a->src}, .overwrite = a->overwrite}, a->json, ctx)) return;
        CancelOnSignal signals;
        const SurgeryOptions options = surgeryOptions(a->sharding, a->overwrite, !a->json, signals.token());
        auto done = saveCheckpointAs(a->src, a->dst, options);
        clearTerminalProgress(options.progress);
        if (!done) {
            ctx.exitCode = reportError(done.status(), a->json);
            return;
        }
        recordWritten(done->stats.prefix, &done->verify);
        if (a->json) {
            printJson({{"source", a->src},
                       {"prefix", done->stats.prefix},
                       {"shards", done->stats.shards},
                       {"entries", done->stats.tensors},
                       {"replaced", done->replaced},
                       {"seconds", done->stats.seconds}});
            return;
        }
        std::cout << (done->replaced ? "replaced " : "wrote ") << done->stats.prefix << ": " << done->stats.shards
                  << " data file(s), " << done->stats.tensors << " entries, verified\n";
    });
}

}  // namespace ckpt::cli

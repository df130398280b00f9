// ckpt import IN DST --spec SPEC.json: a .safetensors or .npz file as a
// TensorFlow checkpoint shaped by a model spec (docs/convert.md).

#include <iostream>

#include "ckpt/convert.h"
#include "diff_format.h"
#include "output.h"
#include "schedule_output.h"
#include "surgery_output.h"
#include "terminal_progress.h"

namespace ckpt::cli {

void registerImport(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("import",
                                   "Write the arrays of IN (.safetensors or .npz) as checkpoint DST shaped by a "
                                   "model spec (verified, compared back)");
    struct Args {
        std::string in, dst, spec;
        ShardingFlags sharding;
        bool overwrite = false, json = false;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("IN", a->in, "A .safetensors or .npz file")->required();
    cmd->add_option("DST", a->dst, "Destination checkpoint prefix")->required();
    cmd->add_option("--spec", a->spec, "Model spec JSON (docs/model-spec.md)")->required();
    addShardingFlags(*cmd, a->sharding);
    cmd->add_flag("--overwrite", a->overwrite, "Replace a checkpoint already at DST");
    cmd->add_flag("--json", a->json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, a] {
        ImportOptions options;
        options.save.policy = shardingPolicy(a->sharding);
        options.overwrite = a->overwrite;
        CancelOnSignal signals;
        options.cancel = &signals.token();
        if (!a->json) options.progress = terminalProgress("importing");
        auto done = importArrays(a->in, a->dst, a->spec, options);
        clearTerminalProgress(options.progress);
        if (!done) {
            ctx.exitCode = reportError(done.status(), a->json);
            return;
        }
        if (a->json) {
            printJson({{"ok", true},
                       {"input", a->in},
                       {"format", arrayFormatName(done->format)},
                       {"prefix", done->stats.prefix},
                       {"arrays", done->arrays},
                       {"shards", done->stats.shards},
                       {"entries", done->stats.tensors},
                       {"seconds", done->stats.seconds},
                       {"notes", done->notes}});
            return;
        }
        std::cout << "wrote " << done->stats.prefix << ": " << done->arrays << " array(s) from " << a->in << ", "
                  << done->stats.shards << " data file(s), verified and identical to the input\n";
    });
}

}  // namespace ckpt::cli

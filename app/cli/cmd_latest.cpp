// ckpt latest DIR: TensorFlow's latest_checkpoint(DIR).

#include <iostream>

#include "ckpt/checkpoint_state.h"
#include "output.h"

namespace ckpt::cli {

void registerLatest(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("latest", "Print the latest checkpoint prefix named by DIR/checkpoint (exit 1 if none)");
    auto dir = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("DIR", *dir, "Directory holding a `checkpoint` state file")->required();
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, dir, json] {
        auto latest = latestCheckpoint(*dir);
        if (!latest) {
            ctx.exitCode = reportError(latest.status(), *json);
            return;
        }
        if (!*latest) {
            ctx.exitCode = reportError(notFound("no latest checkpoint in " + *dir), *json);
            return;
        }
        if (*json) printJson({{"directory", *dir}, {"latest", **latest}});
        else std::cout << **latest << "\n";
    });
}

}  // namespace ckpt::cli

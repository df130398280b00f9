// ckpt: the headless face of ckpt-explorer. Every subcommand takes --json.
// Exit codes: 0 ok, 1 checkpoint problem, 2 usage error.

#include <CLI/CLI.hpp>

#include <iostream>

#include "output.h"

int main(int argc, char** argv) {
    using namespace ckpt::cli;
    CLI::App app{"ckpt: inspect, verify and manage TensorFlow checkpoints", "ckpt"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "ckpt 0.1.0");
    CommandContext ctx;
    registerInspect(app, ctx);
    registerVerify(app, ctx);
    registerCat(app, ctx);
    registerTree(app, ctx);
    registerStats(app, ctx);
    registerHistogram(app, ctx);
    registerPreview(app, ctx);
    registerRestore(app, ctx);
    registerSpec(app, ctx);
    registerDemoTrain(app, ctx);
    registerLatest(app, ctx);
    registerList(app, ctx);
    registerReshard(app, ctx);
    registerMerge(app, ctx);
    registerEdit(app, ctx);
    registerExport(app, ctx);
    registerImport(app, ctx);
    registerDiff(app, ctx);
    registerHistory(app, ctx);
    registerRetention(app, ctx);
    registerSchedule(app, ctx);
    registerScheduler(app, ctx);
    registerCatalog(app, ctx);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kExitUsage;
    }
    return ctx.exitCode;
}

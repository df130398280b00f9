// ckpt: the headless face of ckpt-explorer. Every subcommand takes --json.
// Exit codes: 0 ok, 1 checkpoint problem, 2 usage error.

#include <CLI/CLI.hpp>

#include <iostream>

#include "ckpt/object_store.h"
#include "cli_app.h"
#include "output.h"

int main(int argc, char** argv) {
    using namespace ckpt::cli;
    CommandContext ctx;
    ctx.arguments.assign(argv + 1, argv + argc);
    const std::unique_ptr<CLI::App> app = makeCliApp(ctx);
    try {
        app->parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app->exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app->exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app->exit(e);
    } catch (const CLI::ParseError& e) {
        app->exit(e);
        return kExitUsage;
    }
    if (ctx.printObjectStoreStats) printObjectStoreStats();
    if (const std::string w = ckpt::objectCacheWarning(); !w.empty()) std::cerr << "ckpt: warning: " << w << "\n";
    return ctx.exitCode;
}

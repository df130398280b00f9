#pragma once
// The ckpt command line as one CLI11 tree: main() parses with it, and
// ckpt-docgen walks it to write ckpt(1) and the bash completion, so the
// documentation lists exactly the subcommands and options ckpt accepts.
//   CommandContext ctx;
//   auto app = makeCliApp(ctx);
//   app->parse(argc, argv);

#include <CLI/CLI.hpp>

#include <memory>

#include "output.h"

namespace ckpt::cli {

// Every subcommand registered; their callbacks report through 'ctx', which
// must outlive the app.
std::unique_ptr<CLI::App> makeCliApp(CommandContext& ctx);

}  // namespace ckpt::cli

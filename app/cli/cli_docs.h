#pragma once
// ckpt(1) and ckpt's bash completion, written from the CLI11 tree that ckpt
// parses with (cli_app.h), so neither can list a subcommand or option that
// ckpt lacks, or miss one it has. Hidden options and subcommands (an empty
// CLI11 group) are left out of both.
//   auto app = makeCliApp(ctx);
//   std::string roff = manPage(*app, templateText, "0.1.0", "2026-11-26");

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace ckpt::cli {

// The template is hand-written roff (NAME, DESCRIPTION, EXAMPLES, ...) with
// @VERSION@ and @DATE@ replaced by the arguments and a line @COMMANDS@ by
// one subsection per subcommand, nested ones included: synopsis, description,
// arguments and options with their values and choices.
std::string manPage(const CLI::App& app, std::string_view manTemplate, std::string_view version, std::string_view date);

// A bash script defining _ckpt and `complete -F _ckpt ckpt`: subcommands at
// every level, each command's options, the choices of options that have
// them, no completion for numbers, file names for other values and for
// arguments (directory names where the argument is a DIR).
std::string bashCompletion(const CLI::App& app);

}  // namespace ckpt::cli

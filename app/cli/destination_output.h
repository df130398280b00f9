#pragma once
// What every command that writes a checkpoint or a file shares about its
// destination: the --overwrite flag with the same words everywhere, the
// engine's destination rule (ckpt/destination.h) applied before anything
// runs and its refusal worded for the command line, and the record of the
// write in the user's catalog.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "ckpt/destination.h"
#include "ckpt/verify.h"
#include "output.h"

namespace ckpt::cli {

// --overwrite, worded identically in every writer's --help.
CLI::Option* addOverwriteFlag(CLI::App& cmd, bool& overwrite);

// The refusal in the CLI's words on stderr ("ckpt: AlreadyExists: ..." and
// what would allow it: --overwrite, or writing elsewhere first), and as
// {"ok": false, "error": {...}} on stdout with 'json'; the exit code (2 for
// a path that can never be written, 1 for one that exists).
int reportDestination(const DestinationCheck& check, bool json);
// The CLI's advice for a refusal ("--overwrite replaces it ..."); empty when none.
std::string destinationAdvice(const DestinationCheck& check);
// {"problem", "message", "existing": {...}} for JSON outputs.
nlohmann::json destinationJson(const DestinationCheck& check);

// checkDestination before a command writes: the check when it may write,
// nullopt after reporting the refusal (exit code set).
std::optional<DestinationCheck> allowDestination(const DestinationRequest& request, bool json, CommandContext& ctx);

// Rescans a checkpoint just written in the user's catalog (--catalog PATH,
// else the default one when it exists), recording 'verified'. Never fails
// the command: a catalog that cannot be written is a warning.
void recordWritten(const std::string& prefix, const VerifyReport* verified, const std::string& catalogFlag = {});

}  // namespace ckpt::cli

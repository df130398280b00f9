#pragma once
// Shared plumbing for CLI commands: exit codes, error reporting in text or
// JSON, and the common --json flag. Engine messages are printed verbatim.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "ckpt/bundle_reader.h"
#include "ckpt/catalog.h"
#include "ckpt/status.h"

namespace ckpt::cli {

enum ExitCode : int { kExitOk = 0, kExitCheckpointProblem = 1, kExitUsage = 2 };

struct CommandContext {
    int exitCode = kExitOk;
    bool printObjectStoreStats = false;  // --stats
    std::vector<std::string> arguments;  // argv[1..]: what `demo-train --world N` passes on to its ranks
};

// --stats: the object-store counters of this run, one line on stderr.
void printObjectStoreStats();

// Prints the status to stderr, and as {"ok": false, "error": {...}} to stdout
// when json is set; returns the exit code for it (2 for InvalidArgument from
// the user's own options is the caller's decision, not ours).
int reportError(const Status& status, bool json);

// Opens the bundle a user path names (prefix, .index, directory, SavedModel).
Result<std::unique_ptr<BundleReader>> openBundleAt(const std::string& path);
// The same, holding only the tensor 'key' (BundleReader::openKeys): a
// command about one tensor reads a few blocks of a huge index, not all of it.
Result<std::unique_ptr<BundleReader>> openBundleAt(const std::string& path, std::string_view key);
// Opens the bundle and reads one tensor, checksum verified.
Result<Tensor> readTensorAt(const std::string& path, const std::string& key);

// --catalog PATH, else the user's catalog (Catalog::defaultPath()).
Result<std::string> catalogPathFor(const std::string& flag);

// The catalog a command uses on the side (the results cache, recording a
// verification): --catalog PATH, else the user's when it exists (nothing
// creates one on the side). Null when there is none or it cannot be opened,
// with a warning on stderr: a side use never fails the command.
std::unique_ptr<Catalog> sideCatalog(const std::string& flag);

// Writes JSON to stdout, replacing invalid UTF-8 rather than failing.
void printJson(const nlohmann::json& j);

// For people, not scripts: "2026-11-25 09:00:00" in local time; "1.2 MiB".
std::string localTimeText(double unixSeconds);
std::string byteText(uint64_t bytes);

// Registration functions, one per subcommand (cmd_*.cpp).
void registerInspect(CLI::App& app, CommandContext& ctx);
void registerVerify(CLI::App& app, CommandContext& ctx);
void registerCat(CLI::App& app, CommandContext& ctx);
void registerTree(CLI::App& app, CommandContext& ctx);
void registerStats(CLI::App& app, CommandContext& ctx);
void registerHistogram(CLI::App& app, CommandContext& ctx);
void registerPreview(CLI::App& app, CommandContext& ctx);
void registerRestore(CLI::App& app, CommandContext& ctx);  // restore + spec (cmd_restore.cpp)
void registerSpec(CLI::App& app, CommandContext& ctx);
void registerDemoTrain(CLI::App& app, CommandContext& ctx);
void registerLatest(CLI::App& app, CommandContext& ctx);
void registerList(CLI::App& app, CommandContext& ctx);
void registerReshard(CLI::App& app, CommandContext& ctx);
void registerMerge(CLI::App& app, CommandContext& ctx);      // cmd_merge.cpp
void registerEdit(CLI::App& app, CommandContext& ctx);       // cmd_edit.cpp
void registerExport(CLI::App& app, CommandContext& ctx);     // cmd_export.cpp
void registerImport(CLI::App& app, CommandContext& ctx);     // cmd_import.cpp
void registerDiff(CLI::App& app, CommandContext& ctx);       // cmd_diff.cpp
void registerHistory(CLI::App& app, CommandContext& ctx);    // cmd_history.cpp
void registerRetention(CLI::App& app, CommandContext& ctx);  // cmd_retention.cpp
void registerSchedule(CLI::App& app, CommandContext& ctx);   // cmd_schedule.cpp
void registerScheduler(CLI::App& app, CommandContext& ctx);  // cmd_schedule.cpp
void registerCatalog(CLI::App& app, CommandContext& ctx);    // cmd_catalog.cpp
void registerGc(CLI::App& app, CommandContext& ctx);         // cmd_gc.cpp

}  // namespace ckpt::cli

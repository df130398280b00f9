// ckpt list PATH: every checkpoint in a directory (or in the directory of a
// prefix or SavedModel), as the engine lists it (ckpt/checkpoint_listing.h).

#include <iostream>
#include <sstream>

#include "ckpt/checkpoint_listing.h"
#include "output.h"

namespace ckpt::cli {
namespace {

nlohmann::json orNull(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json toJson(const CheckpointListEntry& c) {
    nlohmann::json j = {{"prefix", c.prefix},
                        {"number", orNull(c.step.number)},
                        {"step", orNull(c.step.step)},
                        {"step_source", c.step.source.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.step.source)},
                        {"mtime", c.modified},
                        {"bytes", c.bytes},
                        {"tensors", c.tensors},
                        {"shards", c.shards},
                        {"in_state_file", c.inStateFile},
                        {"latest", c.isLatest}};
    if (c.missingShards > 0) j["missing_shards"] = c.missingShards;
    if (c.staleDataFiles > 0) j["stale_data_files"] = c.staleDataFiles;
    if (!c.error.isOk()) j["error"] = c.error.toString();
    // ckpt-explorer's metadata: null for a checkpoint without it (foreign).
    if (c.metadata) {
        const CheckpointMetadata& m = *c.metadata;
        j["metadata"] = {{"step", orNull(m.step)}, {"saved_at", m.savedAt},  {"owner", m.owner},  {"tags", m.tags},
                         {"metrics", m.metrics},   {"schedule", m.schedule}, {"writer", m.writer}};
    } else {
        j["metadata"] = nullptr;
    }
    if (!c.metadataError.isOk()) j["metadata_error"] = c.metadataError.toString();
    return j;
}

// "  owner run-a  tags pin,best  val_loss=0.41": what the metadata adds to a row.
std::string metadataText(const CheckpointListEntry& c) {
    if (!c.metadataError.isOk()) return "  METADATA: " + c.metadataError.toString();
    if (!c.metadata) return "";
    std::string out = "  owner " + (c.metadata->owner.empty() ? std::string("-") : c.metadata->owner);
    if (!c.metadata->tags.empty()) {
        out += "  tags ";
        for (size_t i = 0; i < c.metadata->tags.size(); ++i) out += (i ? "," : "") + c.metadata->tags[i];
    }
    for (const auto& [name, value] : c.metadata->metrics) {
        std::ostringstream v;
        v << value;
        out += "  " + name + "=" + v.str();
    }
    return out;
}

void printText(const CheckpointListing& listing) {
    for (const CheckpointListEntry& c : listing.checkpoints) {
        std::cout << (c.isLatest      ? "* "
                      : c.inStateFile ? "+ "
                                      : "  ")
                  << c.prefix << "  step " << (c.step.step ? std::to_string(*c.step.step) : std::string("-")) << "  " << c.bytes
                  << " bytes  " << c.tensors << " tensors  " << c.shards << " shard(s)";
        if (c.missingShards > 0) std::cout << "  " << c.missingShards << " data file(s) MISSING";
        if (c.staleDataFiles > 0) std::cout << "  (" << c.staleDataFiles << " stale data file(s) of another shard count)";
        if (!c.error.isOk()) std::cout << "  ERROR: " << c.error.toString();
        std::cout << metadataText(c) << "\n";
    }
    if (listing.checkpoints.empty()) std::cout << "no checkpoints in " << listing.dir << "\n";
    if (!listing.stateFileError.isOk()) std::cout << "state file: " << listing.stateFileError.toString() << "\n";
}

}  // namespace

void registerList(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand(
        "list",
        "List every checkpoint in a directory: step, number, time, size, tensors, state-file membership, owner, tags, "
        "metrics");
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("PATH", *path, "Directory to list (a prefix or SavedModel lists its directory)")->required();
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, path, json] {
        auto listing = listCheckpoints(checkpointDirectoryFor(*path));
        if (!listing.ok()) {
            ctx.exitCode = reportError(listing.status(), *json);
            return;
        }
        if (!*json) return printText(*listing);
        nlohmann::json rows = nlohmann::json::array();
        for (const CheckpointListEntry& c : listing->checkpoints) rows.push_back(toJson(c));
        nlohmann::json out = {{"directory", listing->dir}, {"checkpoints", rows}};
        if (!listing->stateFileError.isOk()) out["state_file_error"] = listing->stateFileError.toString();
        printJson(out);
    });
}

}  // namespace ckpt::cli

#pragma once
// What the commands that write a new checkpoint share (reshard, merge,
// edit, import): the sharding flags, progress on a terminal, and how a
// verified result is reported.

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "ckpt/save.h"
#include "ckpt/surgery.h"

namespace ckpt::cli {

struct ShardingFlags {
    int shards = 0;
    int64_t maxShardBytes = 0;
    bool byTask = false;
    bool any() const { return shards > 0 || maxShardBytes > 0 || byTask; }
};
// --shards N | --max-shard-bytes B | --by-task, mutually exclusive.
void addShardingFlags(CLI::App& cmd, ShardingFlags& flags);
// Null (the pipeline's default, one data file per task) when none is set.
std::shared_ptr<const ShardingPolicy> shardingPolicy(const ShardingFlags& flags);

// The options a writing command runs with: its sharding and --overwrite,
// progress on a terminal (when 'progress'; clearTerminalProgress after),
// cancelled by 'cancel'.
SurgeryOptions surgeryOptions(const ShardingFlags& flags, bool overwrite, bool progress, const CancellationToken& cancel);

// "wrote DST: N tensors in S data file(s), verified" plus the notes, or the
// JSON object {prefix, shards, tensors, bytes, seconds, verified, notes} with 'extra' merged in.
void printSurgeryResult(const SurgeryResult& result, bool json, const nlohmann::json& extra = nlohmann::json::object());

}  // namespace ckpt::cli

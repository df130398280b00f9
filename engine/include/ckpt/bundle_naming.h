#pragma once
// How the files of one bundle are named, in one place: <prefix>.index and
// <prefix>.data-<shard>-of-<count>, shard and count zero-padded to five
// digits (printf's %05d: wider numbers are written in full).
//   dataFileName("/runs/ckpt-3", 1, 4)            -> "/runs/ckpt-3.data-00001-of-00004"
//   parseDataFileName("ckpt-3.data-00001-of-00004") -> {"ckpt-3", 1, 4}
//   bundlePrefixOf("/runs/ckpt-3.index")           -> "/runs/ckpt-3"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

inline constexpr std::string_view kIndexSuffix = ".index";

std::string indexFileName(std::string_view prefix);
std::string dataFileName(std::string_view prefix, int32_t shardId, int32_t numShards);

struct DataFileName {
    std::string prefix;  // everything before ".data-"
    int32_t shardId = 0;
    int32_t numShards = 0;
};

// The parts of a data file's name or path; nullopt for anything else,
// including a shard id not below the shard count.
std::optional<DataFileName> parseDataFileName(std::string_view path);

// The bundle prefix a path names: without ".index" or ".data-N-of-M";
// any other path is returned unchanged.
std::string bundlePrefixOf(std::string_view path);

// The name a save gives shard 'shardId' of 'numShards' in its temp
// directory before merging (docs/format.md, "Temporary names"):
// "part-00001-of-00004".
std::string tempShardName(int32_t shardId, int32_t numShards);

// Whether a checkpoint name stays one entry of its directory: not empty,
// not "." or "..", no '/' and no NUL. Anything that deletes by name checks
// this first, so a crafted name can never reach outside the directory.
bool isPlainCheckpointName(std::string_view name);

}  // namespace ckpt

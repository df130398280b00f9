#pragma once
// The name of a bundle's data file: <prefix>.data-00001-of-00004.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace ckpt::format {

inline std::string dataShardPath(std::string_view prefix, int32_t shardId, int32_t numShards) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".data-%05d-of-%05d", shardId, numShards);
    return std::string(prefix) + suffix;
}

} // namespace ckpt::format

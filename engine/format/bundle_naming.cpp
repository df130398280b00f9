#include "ckpt/bundle_naming.h"

#include <charconv>
#include <cstdio>

namespace ckpt {
namespace {

constexpr std::string_view kDataInfix = ".data-";
constexpr std::string_view kOf = "-of-";

// At least five digits (the zero padding), at most what an int32 holds.
std::optional<int32_t> paddedNumber(std::string_view digits) {
    if (digits.size() < 5 || digits.size() > 10) return std::nullopt;
    if (digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    int64_t n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size() || n > INT32_MAX) return std::nullopt;
    return static_cast<int32_t>(n);
}

}  // namespace

std::string indexFileName(std::string_view prefix) { return std::string(prefix) + std::string(kIndexSuffix); }

std::string dataFileName(std::string_view prefix, int32_t shardId, int32_t numShards) {
    char suffix[48];
    std::snprintf(suffix, sizeof suffix, ".data-%05d-of-%05d", shardId, numShards);
    return std::string(prefix) + suffix;
}

std::string tempShardName(int32_t shardId, int32_t numShards) {
    char name[48];
    std::snprintf(name, sizeof name, "part-%05d-of-%05d", shardId, numShards);
    return name;
}

std::optional<DataFileName> parseDataFileName(std::string_view path) {
    const size_t infix = path.rfind(kDataInfix);
    if (infix == std::string_view::npos) return std::nullopt;
    const std::string_view numbers = path.substr(infix + kDataInfix.size());
    const size_t of = numbers.find(kOf);
    if (of == std::string_view::npos) return std::nullopt;
    const auto shard = paddedNumber(numbers.substr(0, of));
    const auto count = paddedNumber(numbers.substr(of + kOf.size()));
    if (!shard || !count || *shard >= *count) return std::nullopt;
    return DataFileName{std::string(path.substr(0, infix)), *shard, *count};
}

std::string bundlePrefixOf(std::string_view path) {
    if (path.size() > kIndexSuffix.size() && path.ends_with(kIndexSuffix))
        return std::string(path.substr(0, path.size() - kIndexSuffix.size()));
    if (auto data = parseDataFileName(path)) return std::move(data->prefix);
    return std::string(path);
}

bool isPlainCheckpointName(std::string_view name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

}  // namespace ckpt

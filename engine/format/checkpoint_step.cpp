#include "ckpt/checkpoint_step.h"

#include <cstring>
#include <span>

#include "ckpt/bundle_naming.h"
#include "format/index_table.h"
#include "platform/crc32c.h"
#include "platform/file.h"
#include "tensor_bundle.pb.h"
#include "format/bundle_reader_access.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

// Where a step is stored, in order of preference (see checkpointStep).
constexpr std::string_view kStepKeys[] = {"step/.ATTRIBUTES/VARIABLE_VALUE", "global_step/.ATTRIBUTES/VARIABLE_VALUE",
                                          "global_step", "optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE",
                                          "optimizer/iterations/.ATTRIBUTES/VARIABLE_VALUE"};

// The first key 'readStep' (index, key -> optional step) finds a step
// under; else the checkpoint number stands in.
template <typename ReadStep>
CheckpointStep firstStoredStep(std::string_view prefix, ReadStep readStep) {
    CheckpointStep out;
    out.number = checkpointNumber(prefix);
    for (size_t i = 0; i < std::size(kStepKeys); ++i) {
        if (const std::optional<int64_t> step = readStep(i, kStepKeys[i])) {
            out.step = step;
            out.source = std::string(kStepKeys[i]);
            return out;
        }
    }
    out.step = out.number;
    if (out.number) out.source = "checkpoint number";
    return out;
}

// The value of a step entry: an int32/int64 scalar, checksum verified.
// nullopt when the entry is not such a scalar or its bytes are unreadable
// or damaged, as checkpointStep skips a value it cannot read.
std::optional<int64_t> readStepValue(std::string_view prefix, int32_t numShards, const std::string& serializedEntry) {
    tensorflow::BundleEntryProto entry;
    if (!entry.ParseFromString(serializedEntry)) return std::nullopt;
    const bool is64 = entry.dtype() == tensorflow::DT_INT64;
    if ((!is64 && entry.dtype() != tensorflow::DT_INT32) || entry.shape().unknown_rank() || entry.shape().dim_size() != 0 ||
        entry.slices_size() != 0 || entry.shard_id() < 0 || entry.shard_id() >= numShards || entry.offset() < 0)
        return std::nullopt;
    // The size is checked against the scalar's width before it is used.
    const size_t width = is64 ? 8 : 4;
    if (entry.size() != static_cast<int64_t>(width)) return std::nullopt;
    auto file = storage::openRandomAccess(dataFileName(prefix, entry.shard_id(), numShards));
    if (!file) return std::nullopt;
    const auto offset = static_cast<uint64_t>(entry.offset());
    if (offset > (*file)->size() || width > (*file)->size() - offset) return std::nullopt;
    uint8_t bytes[8] = {};
    if (!(*file)->read(offset, width, bytes).isOk()) return std::nullopt;
    if (platform::crc32cMask(platform::crc32c(bytes, width)) != entry.crc32c()) return std::nullopt;
    if (is64) {
        int64_t v = 0;
        std::memcpy(&v, bytes, sizeof v);
        return v;
    }
    int32_t v = 0;
    std::memcpy(&v, bytes, sizeof v);
    return v;
}

}  // namespace

std::optional<int64_t> checkpointNumber(std::string_view prefix) {
    prefix.remove_prefix(prefix.rfind('/') + 1);  // npos + 1 == 0: no directory part
    const size_t dash = prefix.rfind('-');
    if (dash == std::string_view::npos || dash + 1 == prefix.size() || prefix.size() - dash > 19) return std::nullopt;
    int64_t n = 0;
    for (char c : prefix.substr(dash + 1)) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

std::string numberedCheckpointPrefix(std::string_view base, int64_t number) {
    return std::string(base) + "-" + std::to_string(number);
}

CheckpointStep checkpointStep(std::string_view prefix, const BundleReader* reader) {
    return firstStoredStep(prefix, [&](size_t, std::string_view key) -> std::optional<int64_t> {
        const TensorInfo* info = reader ? reader->find(key) : nullptr;
        if (!info || info->shape.rank() != 0 || (info->dtype != DataType::Int64 && info->dtype != DataType::Int32))
            return std::nullopt;
        auto value = reader->read(*info);
        if (!value.ok()) return std::nullopt;
        return info->dtype == DataType::Int64 ? value->as<int64_t>()[0] : value->as<int32_t>()[0];
    });
}

Result<CheckpointStep> readCheckpointStep(std::string_view prefix, BundleHeader* headerOut) {
    const std::string index = indexFileName(prefix);
    if (!storage::exists(index)) return notFound("no checkpoint index at " + index);
    // The bundle header (key "") first: it holds num_shards, which names the data files.
    std::vector<std::string_view> keys = {""};
    keys.insert(keys.end(), std::begin(kStepKeys), std::end(kStepKeys));
    CKPT_ASSIGN_OR_RETURN(const auto values, format::lookupIndexEntries(index, keys));
    if (!values[0]) return dataLoss("corrupt index " + index + ": no bundle header");
    CKPT_ASSIGN_OR_RETURN(const BundleHeader header, format::parseBundleHeader(*values[0], index));
    if (headerOut) *headerOut = header;
    return firstStoredStep(prefix, [&](size_t i, std::string_view) -> std::optional<int64_t> {
        const std::optional<std::string>& entry = values[i + 1];
        return entry ? readStepValue(prefix, header.numShards, *entry) : std::nullopt;
    });
}

}  // namespace ckpt

#include "ckpt/checkpoint_step.h"

#include <span>

namespace ckpt {

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

CheckpointStep checkpointStep(std::string_view prefix, const BundleReader* reader) {
    static constexpr std::string_view kKeys[] = {
        "step/.ATTRIBUTES/VARIABLE_VALUE",           "global_step/.ATTRIBUTES/VARIABLE_VALUE",
        "global_step",                               "optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE",
        "optimizer/iterations/.ATTRIBUTES/VARIABLE_VALUE"};
    CheckpointStep out;
    out.number = checkpointNumber(prefix);
    for (std::string_view key : reader ? std::span(kKeys) : std::span<const std::string_view>()) {
        const TensorInfo* info = reader->find(key);
        if (!info || info->shape.rank() != 0 || (info->dtype != DataType::Int64 && info->dtype != DataType::Int32)) continue;
        auto value = reader->read(*info);
        if (!value.ok()) continue;
        out.step = info->dtype == DataType::Int64 ? value->as<int64_t>()[0] : value->as<int32_t>()[0];
        out.source = std::string(key);
        return out;
    }
    out.step = out.number;
    if (out.number) out.source = "checkpoint number";
    return out;
}

} // namespace ckpt

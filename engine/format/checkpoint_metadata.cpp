// <prefix>.info.json: see ckpt/checkpoint_metadata.h. The file carries a
// "format" number; a reader meets files from newer writers (a shared run
// directory, a downgraded tool), so fields it does not know are skipped and
// a newer format is read as far as it is understood. A known field with
// the wrong type is damage, not a newer format: DataLoss naming the field.
// Reading and the JSON text live here, with the other on-disk formats;
// writing is the save pipeline's (pipeline/checkpoint_metadata_writer.cpp).

#include "ckpt/checkpoint_metadata.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "platform/file.h"
#include "platform/json_type.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;  // fields in a stable, readable order

constexpr int kFormat = 1;
// Metadata is a few hundred bytes; anything near this is not ours.
constexpr size_t kMaxMetadataBytes = 1u << 20;

Status fieldError(std::string_view source, std::string_view field, std::string_view expected, const json& got) {
    return dataLoss("invalid checkpoint metadata " + std::string(source) + ": field \"" + std::string(field) + "\" must be " +
                    std::string(expected) + ", got " + std::string(platform::jsonTypeName(got)));
}

Status readString(const json& object, std::string_view source, const char* field, std::string& out) {
    const auto it = object.find(field);
    if (it == object.end() || it->is_null()) return okStatus();
    if (!it->is_string()) return fieldError(source, field, "a string", *it);
    out = it->get<std::string>();
    return okStatus();
}

}  // namespace

std::string checkpointMetadataFileName(std::string_view prefix) { return std::string(prefix).append(kCheckpointMetadataSuffix); }

std::string checkpointMetadataToJson(const CheckpointMetadata& m) {
    ojson j;
    j["format"] = kFormat;
    j["step"] = m.step ? ojson(*m.step) : ojson(nullptr);
    j["saved_at"] = m.savedAt;
    ojson metrics = ojson::object();
    // JSON has no NaN or infinity: a diverged loss is recorded as null,
    // which readers treat as "not measured".
    for (const auto& [name, value] : m.metrics) metrics[name] = std::isfinite(value) ? ojson(value) : ojson(nullptr);
    j["metrics"] = std::move(metrics);
    j["tags"] = m.tags;
    j["owner"] = m.owner;
    j["schedule"] = m.schedule;
    j["writer"] = m.writer;
    // Replace, not throw, on a tag or owner that is not UTF-8.
    return j.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

Result<CheckpointMetadata> parseCheckpointMetadata(std::string_view text, std::string_view source) {
    json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return dataLoss("invalid checkpoint metadata " + std::string(source) + ": not valid JSON");
    if (!j.is_object())
        return dataLoss("invalid checkpoint metadata " + std::string(source) + ": expected a JSON object, got " +
                        std::string(platform::jsonTypeName(j)));
    CheckpointMetadata m;
    if (const auto it = j.find("format"); it != j.end()) {
        if (!it->is_number_integer()) return fieldError(source, "format", "an integer", *it);
        if (it->get<int64_t>() < 1)
            return dataLoss("invalid checkpoint metadata " + std::string(source) + ": format " +
                            std::to_string(it->get<int64_t>()) + " is not a format version");
    }
    if (const auto it = j.find("step"); it != j.end() && !it->is_null()) {
        if (!it->is_number_integer()) return fieldError(source, "step", "an integer", *it);
        if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            return dataLoss("invalid checkpoint metadata " + std::string(source) + ": field \"step\" is out of range");
        m.step = it->get<int64_t>();
    }
    if (const auto it = j.find("saved_at"); it != j.end() && !it->is_null()) {
        if (!it->is_number()) return fieldError(source, "saved_at", "a number", *it);
        m.savedAt = it->get<double>();
    }
    if (const auto it = j.find("metrics"); it != j.end() && !it->is_null()) {
        if (!it->is_object()) return fieldError(source, "metrics", "an object", *it);
        for (const auto& [name, value] : it->items()) {
            if (value.is_null()) continue;  // written for a non-finite value
            if (!value.is_number()) return fieldError(source, "metrics." + name, "a number", value);
            m.metrics[name] = value.get<double>();
        }
    }
    if (const auto it = j.find("tags"); it != j.end() && !it->is_null()) {
        if (!it->is_array()) return fieldError(source, "tags", "an array of strings", *it);
        for (const json& tag : *it) {
            if (!tag.is_string()) return fieldError(source, "tags", "an array of strings", tag);
            m.tags.push_back(tag.get<std::string>());
        }
    }
    CKPT_RETURN_IF_ERROR(readString(j, source, "owner", m.owner));
    CKPT_RETURN_IF_ERROR(readString(j, source, "schedule", m.schedule));
    CKPT_RETURN_IF_ERROR(readString(j, source, "writer", m.writer));
    return m;
}

Result<std::optional<CheckpointMetadata>> readCheckpointMetadata(std::string_view prefix) {
    const std::string path = checkpointMetadataFileName(prefix);
    // One open, no stat first: most foreign checkpoints have no sidecar and
    // a listing of thousands pays for each probe.
    auto file = storage::openRandomAccess(path);
    if (!file.ok()) {
        if (file.status().code() == StatusCode::NotFound) return std::optional<CheckpointMetadata>{};
        return file.status();
    }
    if ((*file)->size() > kMaxMetadataBytes)
        return dataLoss("invalid checkpoint metadata " + path + ": " + std::to_string((*file)->size()) +
                        " bytes, more than the " + std::to_string(kMaxMetadataBytes) + " a metadata file may have");
    std::string text((*file)->size(), '\0');
    CKPT_RETURN_IF_ERROR((*file)->read(0, text.size(), text.data()));
    CKPT_ASSIGN_OR_RETURN(CheckpointMetadata m, parseCheckpointMetadata(text, path));
    return std::optional<CheckpointMetadata>{std::move(m)};
}

}  // namespace ckpt

#include "convert/safetensors.h"

#include <algorithm>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

namespace ckpt::convert {
namespace {

struct DtypeName {
    DataType dtype;
    std::string_view name;
};
// The safetensors names of the dtypes numpy (and so load_file) can hold;
// BF16 has no numpy type but the package and torch read it.
constexpr DtypeName kDtypes[] = {
    {DataType::Bool, "BOOL"},  {DataType::UInt8, "U8"},  {DataType::Int8, "I8"},       {DataType::Int16, "I16"},
    {DataType::UInt16, "U16"}, {DataType::Int32, "I32"}, {DataType::UInt32, "U32"},    {DataType::Int64, "I64"},
    {DataType::UInt64, "U64"}, {DataType::Half, "F16"},  {DataType::BFloat16, "BF16"}, {DataType::Float, "F32"},
    {DataType::Double, "F64"},
};

Status bad(std::string_view source, const std::string& why) {
    return invalidArgument("not a readable safetensors file " + std::string(source) + ": " + why);
}

}  // namespace

std::string_view safetensorsDtype(DataType dtype) {
    for (const auto& d : kDtypes)
        if (d.dtype == dtype) return d.name;
    return {};
}

std::optional<DataType> dataTypeFromSafetensors(std::string_view name) {
    for (const auto& d : kDtypes)
        if (d.name == name) return d.dtype;
    return std::nullopt;
}

Result<std::string> encodeSafetensorsHeader(std::vector<SafetensorsEntry>& entries,
                                            const std::map<std::string, std::string>& metadata) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    uint64_t offset = 0;
    for (SafetensorsEntry& e : entries) {
        const std::string_view dtype = safetensorsDtype(e.dtype);
        if (dtype.empty())
            return invalidArgument("safetensors cannot hold " + std::string(dataTypeName(e.dtype)) + " tensor \"" + e.name +
                                   "\"");
        if (e.name == "__metadata__" || header.contains(e.name))
            return invalidArgument("two tensors would be named \"" + e.name + "\" in a safetensors file");
        const auto elements = e.shape.numElements();
        if (!elements) return invalidArgument("shape of \"" + e.name + "\" overflows");
        e.begin = offset;
        e.end = offset + static_cast<uint64_t>(*elements) * dataTypeSize(e.dtype);
        offset = e.end;
        header[e.name] = {{"dtype", dtype}, {"shape", e.shape.dims}, {"data_offsets", {e.begin, e.end}}};
    }
    std::string text = header.dump();
    // The package pads with spaces so that the data area starts 8-aligned.
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
    return out + text;
}

Result<SafetensorsHeader> parseSafetensorsHeader(std::string_view head, uint64_t fileSize, std::string_view source) {
    if (fileSize < 8 || head.size() < 8) return bad(source, "shorter than the 8-byte header length");
    uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= static_cast<uint64_t>(static_cast<uint8_t>(head[static_cast<size_t>(i)])) << (8 * i);
    if (length > kMaxSafetensorsHeaderBytes)
        return bad(source, "header length " + std::to_string(length) + " is over the 100 MB limit");
    if (length > fileSize - 8)
        return bad(source, "header length " + std::to_string(length) + " runs past the end of the file (" +
                               std::to_string(fileSize) + " bytes): truncated");
    if (head.size() - 8 < length) return internalError("parseSafetensorsHeader given too few bytes");

    const auto json = nlohmann::json::parse(head.substr(8, length), nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) return bad(source, "the header is not a JSON object");
    SafetensorsHeader out;
    out.dataStart = 8 + length;
    const uint64_t dataBytes = fileSize - out.dataStart;
    for (const auto& [name, value] : json.items()) {
        if (name == "__metadata__") {
            if (!value.is_object()) return bad(source, "__metadata__ is not an object");
            for (const auto& [k, v] : value.items()) {
                if (!v.is_string()) return bad(source, "__metadata__[\"" + k + "\"] is not a string");
                out.metadata[k] = v.get<std::string>();
            }
            continue;
        }
        const std::string where = "tensor \"" + name + "\"";
        if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") || !value.contains("data_offsets"))
            return bad(source, where + " lacks dtype, shape or data_offsets");
        const auto& dtype = value["dtype"];
        const auto& shape = value["shape"];
        const auto& offsets = value["data_offsets"];
        if (!dtype.is_string()) return bad(source, where + ": dtype is not a string");
        SafetensorsEntry e;
        e.name = name;
        const auto mapped = dataTypeFromSafetensors(dtype.get<std::string>());
        if (!mapped) return bad(source, where + ": unsupported dtype " + dtype.get<std::string>());
        e.dtype = *mapped;
        if (!shape.is_array() || shape.size() > 64) return bad(source, where + ": shape is not a list of at most 64 dims");
        for (const auto& d : shape) {
            if (!d.is_number_unsigned()) return bad(source, where + ": shape holds something other than sizes");
            const auto dim = d.get<uint64_t>();
            if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                return bad(source, where + ": dimension " + std::to_string(dim) + " overflows");
            e.shape.dims.push_back(static_cast<int64_t>(dim));
        }
        if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
            return bad(source, where + ": data_offsets is not [begin, end]");
        e.begin = offsets[0].get<uint64_t>();
        e.end = offsets[1].get<uint64_t>();
        if (e.begin > e.end || e.end > dataBytes)
            return bad(source, where + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                                   "] lie outside the " + std::to_string(dataBytes) + " data bytes");
        // Bounded by the file before anything is allocated for it.
        const auto elements = e.shape.numElements();
        const uint64_t size = dataTypeSize(e.dtype);
        if (!elements || static_cast<uint64_t>(*elements) > dataBytes / size)
            return bad(source, where + ": shape " + e.shape.toString() + " is larger than the file");
        if (static_cast<uint64_t>(*elements) * size != e.end - e.begin)
            return bad(source, where + ": shape " + e.shape.toString() + " of " + dtype.get<std::string>() + " needs " +
                                   std::to_string(static_cast<uint64_t>(*elements) * size) + " bytes, data_offsets give " +
                                   std::to_string(e.end - e.begin));
        out.entries.push_back(std::move(e));
    }
    std::sort(out.entries.begin(), out.entries.end(), [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
        return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
    });
    // The tensors must tile the data area: no overlap, no hole, nothing after.
    uint64_t expected = 0;
    for (const SafetensorsEntry& e : out.entries) {
        if (e.begin != expected)
            return bad(source, "tensor \"" + e.name + "\" starts at " + std::to_string(e.begin) + ", expected " +
                                   std::to_string(expected) + (e.begin < expected ? " (overlapping offsets)" : " (a hole)"));
        expected = e.end;
    }
    if (expected != dataBytes) return bad(source, std::to_string(dataBytes - expected) + " bytes after the last tensor");
    return out;
}

}  // namespace ckpt::convert

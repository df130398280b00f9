#include "json_output.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace ckpt::cli {
namespace {

using nlohmann::json;

json floatJson(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

// Well-formed UTF-8 as Unicode defines it (and Python's strict decoder
// reads it): no overlong forms, no surrogates, nothing above U+10FFFF.
// Anything else would not survive a JSON string unchanged.
bool validUtf8(const std::string& s) {
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t extra = 0;
        unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
        if (c >= 0xc2 && c <= 0xdf) {
            extra = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            extra = 2;
            if (c == 0xe0) lo = 0xa0;  // overlong
            if (c == 0xed) hi = 0x9f;  // surrogates
        } else if (c >= 0xf0 && c <= 0xf4) {
            extra = 3;
            if (c == 0xf0) lo = 0x90;  // overlong
            if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
        } else {
            return false;
        }
        if (extra > s.size() - i - 1) return false;
        for (size_t k = 1; k <= extra; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf)) return false;
        }
        i += extra + 1;
    }
    return true;
}

// RFC 4648 base64 with padding.
std::string base64(const std::string& bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        const size_t n = std::min<size_t>(3, bytes.size() - i);
        uint32_t v = 0;
        for (size_t k = 0; k < 3; ++k) v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
        for (size_t k = 0; k < 4; ++k) out.push_back(k <= n ? kAlphabet[(v >> (18 - 6 * k)) & 0x3f] : '=');
    }
    return out;
}

}  // namespace

std::string displayableString(const std::string& s) {
    if (validUtf8(s)) return s;
    std::string out;
    for (char ch : s) {
        const auto b = static_cast<unsigned char>(ch);
        if (b >= 0x20 && b < 0x7f && b != '\\') {
            out.push_back(ch);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", b);
            out += buf;
        }
    }
    return out;
}

// A string element as JSON: text when it is UTF-8, else {"base64": ...},
// so every byte string round-trips (docs/cli.md, `ckpt cat`).
static json stringElementJson(const std::string& bytes) {
    if (validUtf8(bytes)) return bytes;
    return json{{"base64", base64(bytes)}};
}

static json elementJson(const Tensor& t, int64_t i) {
    const auto idx = static_cast<size_t>(i);
    switch (t.dtype) {
    case DataType::String: return stringElementJson(t.strings[idx]);
    case DataType::Bool: return t.as<uint8_t>()[idx] != 0;
    case DataType::Int64: return t.as<int64_t>()[idx];
    case DataType::UInt64: return t.as<uint64_t>()[idx];
    case DataType::Complex64: return json::array({floatJson(t.as<float>()[2 * idx]), floatJson(t.as<float>()[2 * idx + 1])});
    case DataType::Complex128: return json::array({floatJson(t.as<double>()[2 * idx]), floatJson(t.as<double>()[2 * idx + 1])});
    default:
        if (isFloating(t.dtype)) return floatJson(t.elementAsDouble(i));
        return static_cast<int64_t>(t.elementAsDouble(i));
    }
}

json tensorValuesJson(const Tensor& t, int64_t limit) {
    const int64_t n = t.numElements();
    const int64_t shown = limit < 0 ? n : std::min(n, limit);
    json values = json::array();
    for (int64_t i = 0; i < shown; ++i) values.push_back(elementJson(t, i));
    return values;
}

std::string elementText(const Tensor& t, int64_t i) {
    if (t.dtype == DataType::String) return "\"" + displayableString(t.strings[static_cast<size_t>(i)]) + "\"";
    const json j = elementJson(t, i);
    if (j.is_string()) return j.get<std::string>();
    if (j.is_number_float()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g", j.get<double>());
        return buf;
    }
    if (j.is_array()) return "(" + j[0].dump() + (j[1].is_number() && j[1].get<double>() < 0 ? "" : "+") + j[1].dump() + "j)";
    return j.dump();
}

void writeJsonValue(JsonWriter& out, const nlohmann::json& value) {
    using Type = nlohmann::json::value_t;
    switch (value.type()) {
    case Type::object:
        out.beginObject();
        for (const auto& [key, member] : value.items()) {
            out.key(key);
            writeJsonValue(out, member);
        }
        out.endObject();
        return;
    case Type::array:
        out.beginArray();
        for (const nlohmann::json& element : value) writeJsonValue(out, element);
        out.endArray();
        return;
    case Type::string: out.string(value.get_ref<const std::string&>()); return;
    case Type::boolean: out.boolean(value.get<bool>()); return;
    case Type::number_integer: out.integer(value.get<int64_t>()); return;
    case Type::number_unsigned: out.integer(value.get<uint64_t>()); return;
    case Type::null: out.null(); return;
    default: out.formatted(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)); return;
    }
}

}  // namespace ckpt::cli

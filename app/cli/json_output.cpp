#include "json_output.h"

#include <cmath>
#include <cstdio>

namespace ckpt::cli {
namespace {

using nlohmann::json;

json floatJson(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

bool validUtf8(const std::string& s) {
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        const size_t extra = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 4;
        if (extra == 4 || extra > s.size() - i - 1) return false;
        for (size_t k = 1; k <= extra; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
        i += extra + 1;
    }
    return true;
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

static json elementJson(const Tensor& t, int64_t i) {
    const auto idx = static_cast<size_t>(i);
    switch (t.dtype) {
    case DataType::String: return displayableString(t.strings[idx]);
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
    const json j = elementJson(t, i);
    if (j.is_string()) return t.dtype == DataType::String ? "\"" + j.get<std::string>() + "\"" : j.get<std::string>();
    if (j.is_number_float()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g", j.get<double>());
        return buf;
    }
    if (j.is_array()) return "(" + j[0].dump() + (j[1].is_number() && j[1].get<double>() < 0 ? "" : "+") + j[1].dump() + "j)";
    return j.dump();
}

}  // namespace ckpt::cli

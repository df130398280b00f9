#pragma once
// How a JSON value's type is named in error messages ("field \"step\" must
// be an integer, got a string"), for the engine's JSON readers.

#include <nlohmann/json.hpp>

#include <string_view>

namespace ckpt::platform {

inline std::string_view jsonTypeName(const nlohmann::json& j) {
    switch (j.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_float: return "a number";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    default: return "a value";
    }
}

}  // namespace ckpt::platform

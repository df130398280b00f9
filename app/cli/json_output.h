#pragma once
// Tensor values in `ckpt … --json` (docs/cli.md), and strings made
// displayable. Keep the shapes stable: users' scripts rely on them.
// `ckpt inspect --json` streams its document (inspect_json.h).

#include <nlohmann/json.hpp>

#include <cstdint>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/json_writer.h"
#include "ckpt/object_graph.h"
#include "ckpt/tensor.h"

namespace ckpt::cli {

// Values of the first 'limit' elements (all when limit < 0), row-major:
// numbers for numeric types (NaN and infinities as "nan", "inf", "-inf"),
// [re, im] for complex, true/false for bool, text for strings that are
// UTF-8 and {"base64": "..."} for the others (every byte string
// round-trips; docs/cli.md shows a decoder).
nlohmann::json tensorValuesJson(const Tensor& tensor, int64_t limit);
// One element as display text (same rules, for the human-readable output).
std::string elementText(const Tensor& tensor, int64_t index);
// For display, not for round trips: strings that are valid UTF-8 are
// kept; others are escaped as \xNN.
std::string displayableString(const std::string& s);
// A small document built with nlohmann, streamed into a larger one.
void writeJsonValue(JsonWriter& out, const nlohmann::json& value);

}  // namespace ckpt::cli

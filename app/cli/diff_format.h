#pragma once
// How `ckpt diff` and `ckpt history` print figures: one place for number
// formatting, element indices, colour and the JSON shapes (docs/cli.md).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/cancellation.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/tensor_info.h"

namespace ckpt::cli {

// Figures in JSON: numbers; null where undefined (NaN); "inf" / "-inf".
nlohmann::json figureJson(double v);
// Short human form: "3.2e-05", "0.9994", "inf", "-".
std::string figureText(double v);
// figureText(v) appended to 'out' (rows of 100,000 values build one string each).
void appendFigure(std::string& out, double v);
// A flat row-major index as "[3, 1]" for 'shape' ("[]" for scalars).
std::string indexText(int64_t flat, const TensorShape& shape);
nlohmann::json indexJson(int64_t flat, const TensorShape& shape);

// ANSI colour for a status letter when 'enabled'.
std::string coloredLetter(DiffStatus status, bool enabled);
// --color auto|always|never against stdout being a terminal and NO_COLOR.
bool colorEnabled(std::string_view mode);

nlohmann::json tensorDiffJson(const TensorDiff& d, const TensorShape& shape);
nlohmann::json diffEntryJson(const DiffEntry& e);
nlohmann::json checkpointDiffJson(const CheckpointDiff& diff, bool includeUnchanged);

}  // namespace ckpt::cli

#pragma once
// Small engine value -> Python conversions shared by the binding files.

#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"
#include "ckpt/tensor_info.h"
#include "ckpt/verify.h"

namespace ckpt::python {

nanobind::object optionalInt(const std::optional<int64_t>& value);
// None for OK, else "Code: message" as the CLI's JSON prints it.
nanobind::object statusOrNone(const Status& status);
nanobind::list stringList(const std::vector<std::string>& items);
nanobind::list dims(const TensorShape& shape);
// A verify report's problems as `ckpt verify --json` lists them.
nanobind::list verifyProblems(const VerifyReport& report);
// JSON text the engine produced (policies, reports) as Python objects.
nanobind::object jsonToPython(std::string_view json);

}  // namespace ckpt::python

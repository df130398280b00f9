#pragma once
// Engine Status -> Python exception: each StatusCode raises the class of the
// same name in ckpt.errors (NotFoundError, DataLossError, ...), named like
// tf.errors, with the engine's message verbatim. Call with the GIL held.

#include <nanobind/nanobind.h>

#include <string_view>

#include "ckpt/status.h"

namespace ckpt::python {

// Raises (throws nanobind::python_error) unless 'status' is OK.
void throwIfError(const Status& status);

// The value, or raises its status.
template <typename T>
T valueOrThrow(Result<T>&& result) {
    if (!result.ok()) throwIfError(result.status());
    return std::move(result).value();
}

// Raises the ckpt.errors class for 'code' with 'message'.
[[noreturn]] void raise(StatusCode code, std::string_view message);

}  // namespace ckpt::python

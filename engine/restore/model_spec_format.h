#pragma once
// The "format" a model spec declares (docs/model-spec.md): written by
// modelSpecJson, required by parseModelSpec. Internal to the engine.

#include <string_view>

namespace ckpt {

inline constexpr std::string_view kModelSpecFormat = "ckpt-model-spec";

}  // namespace ckpt

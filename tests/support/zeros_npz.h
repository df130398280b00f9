#pragma once
// Test data for import's bounds (issue #29, finding 2): an .npz whose one
// member is a float32 array of zeros, deflated, so that a few KiB on disk
// inflate to gigabytes, the shape of a zip bomb. Built in no time: the
// deflate stream repeats one independently compressed MiB of zeros (each
// piece ends in a full flush, so the pieces concatenate), with ZIP64 sizes
// when the member needs them.
//   writeZerosNpz(dir + "/bomb.npz", "model.kernel", {1 << 20, 1024});  // 4 GiB once read

#include <cstdint>
#include <string>

#include "ckpt/tensor.h"

namespace ckpt::testing {

// Returns an empty string, or what went wrong.
std::string writeZerosNpz(const std::string& path, const std::string& memberName, const TensorShape& shape);

}  // namespace ckpt::testing

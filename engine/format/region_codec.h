#pragma once
// A stored region's encoding, checksum and string decoding (docs/format.md, "Checksum of a
// numeric tensor", "String tensors", "Variant tensors"),
// shared by the reader, the writer's round-trip check and the fixtures of
// tests and benchmarks. Internal: not part of the installed API.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/dtype.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"

namespace ckpt {

// Verifies a raw region's checksum for 'dtype' and, for strings, decodes it.
Status verifyRegionChecksum(std::span<const uint8_t> bytes, uint32_t maskedCrc, DataType dtype, int64_t numElements,
                            std::string_view what);
Result<std::vector<std::string>> decodeStringRegion(std::span<const uint8_t> bytes, int64_t numElements, std::string_view what);
// The masked crc32c TensorFlow stores for a region of 'dtype' (docs/format.md, "Data files").
Result<uint32_t> regionChecksum(std::span<const uint8_t> bytes, DataType dtype, int64_t numElements, std::string_view what);
// TF's region encoding of a tensor's values (docs/format.md, "Numeric tensors", "String
// tensors"): the bytes as-is
// for fixed-size types, lengths + length checksum + bytes for strings.
std::vector<uint8_t> encodeTensorRegion(const Tensor& value);

}  // namespace ckpt

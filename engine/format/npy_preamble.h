#pragma once
// The raw .npy preamble as written, before its descr is mapped to one of our
// dtypes: npz reading needs the descr itself for the side entry ("<U..."),
// which no DataType describes. Internal to the engine; ckpt/npy.h is the API.

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "ckpt/tensor_info.h"

namespace ckpt::format {

struct NpyPreamble {
    std::string descr;  // "<f4", "|b1", "<U12", ...
    TensorShape shape;
    bool fortranOrder = false;
    uint64_t dataOffset = 0;
};

// Longest header dict accepted (numpy's own default limit is 10000 bytes;
// files written by hand with long shapes get some slack).
inline constexpr uint64_t kMaxNpyHeaderBytes = 1u << 20;

// Parses magic, version (1.0, 2.0, 3.0), length and the header dict at the
// start of 'bytes'. InvalidArgument naming 'source' for anything truncated
// or not shaped like numpy's dict; the shape is checked for negative dims
// and element-count overflow only.
Result<NpyPreamble> parseNpyPreamble(std::string_view bytes, std::string_view source);

}  // namespace ckpt::format

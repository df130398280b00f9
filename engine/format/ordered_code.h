#pragma once
// Slice keys of partitioned tensors: TensorFlow's OrderedCode encoding of
// (0, full key, rank, start/length per dim). docs/format.md, "Partitioned (sliced) tensors".

#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "ckpt/tensor_info.h"

namespace ckpt::format {

struct SliceKey {
    std::string fullKey;
    TensorSlice slice;
};

// True for index keys that name a slice (they start with byte 0x00).
inline bool isSliceKey(std::string_view key) { return !key.empty() && key.front() == '\0'; }

std::string encodeSliceKey(std::string_view fullKey, const TensorSlice& slice);
// Fails with DataLoss on malformed bytes; 'where' names the file for the message.
Result<SliceKey> decodeSliceKey(std::string_view key, std::string_view where);

// Printable form of a binary key for messages: escapes non-printing bytes as \xNN.
std::string printableKey(std::string_view key);

}  // namespace ckpt::format

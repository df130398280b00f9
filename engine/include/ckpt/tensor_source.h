#pragma once
// A fixed-size tensor's bytes produced on demand instead of held in memory:
// the save pipeline writes them into a shard as they come (SaveTensor::source,
// BundleWriter::addFromSource), so a tensor larger than memory can be saved
// in memory bounded by a chunk. `ckpt import` streams each array out of its
// .npz or .safetensors file this way.
// A source may be read from several threads at once (a sharding policy may
// cut its tensor into pieces written in parallel), and more than once.
//   class Zeros final : public TensorSource {
//       Status read(uint64_t offset, uint64_t length, const ByteSink& sink) const override {
//           std::vector<uint8_t> chunk(std::min<uint64_t>(length, 1 << 20));
//           for (uint64_t done = 0; done < length; done += chunk.size()) ...
//       }
//   };

#include <cstdint>
#include <functional>
#include <span>

#include "ckpt/status.h"

namespace ckpt {

class TensorSource {
public:
    // Takes consecutive pieces of the bytes; an error it returns stops the read.
    using ByteSink = std::function<Status(std::span<const uint8_t> bytes)>;

    virtual ~TensorSource() = default;
    // Hands 'sink' the value bytes [offset, offset + length), in order and in
    // pieces of any size (a few MiB at most, so callers stay bounded). The
    // range lies inside the value; a source that cannot produce it (a read
    // error, a file that changed) returns the error naming its file.
    virtual Status read(uint64_t offset, uint64_t length, const ByteSink& sink) const = 0;
};

}  // namespace ckpt

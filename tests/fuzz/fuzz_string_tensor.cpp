// A DT_STRING region (docs/format.md, "String tensors"): the first two input bytes give
// the element count (as an entry's shape would), the rest is the region.
// Whatever decodes must survive a round trip through the writer's encoding.
// Counts stay below 65536 here: a count comes from an entry's shape, and
// shapes that claim more than their region holds are fuzz_index's part.

#include <cstddef>
#include <cstdint>
#include <span>

#include "ckpt/bundle_writer.h"
#include "format/region_codec.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    const int64_t count = data[0] | (data[1] << 8);
    const std::span<const uint8_t> region(data + 2, size - 2);
    (void)ckpt::regionChecksum(region, ckpt::DataType::String, count, "fuzz input");
    auto strings = ckpt::decodeStringRegion(region, count, "fuzz input");
    if (!strings) return 0;
    ckpt::fuzz::require(strings->size() == static_cast<size_t>(count), "decoded a different element count");

    const ckpt::Tensor tensor{.dtype = ckpt::DataType::String, .shape = {{count}}, .bytes = {}, .strings = *strings};
    const std::vector<uint8_t> encoded = ckpt::encodeTensorRegion(tensor);
    auto again = ckpt::decodeStringRegion(encoded, count, "re-encoded input");
    ckpt::fuzz::require(again.ok() && *again == *strings, "strings do not survive encode + decode");
    auto checksum = ckpt::regionChecksum(encoded, ckpt::DataType::String, count, "re-encoded input");
    ckpt::fuzz::require(checksum.ok(), "the writer's encoding has no checksum");
    ckpt::fuzz::require(ckpt::verifyRegionChecksum(encoded, *checksum, ckpt::DataType::String, count, "re-encoded").isOk(),
                        "the writer's encoding fails its own checksum");
    return 0;
}

// The headers of the array files ckpt import reads (docs/convert.md): the
// input as a whole safetensors file and as the start of a .npy. A header
// that parses must describe tensors inside the input, tiling its data area,
// and must survive being written again by our own encoder; a .npy header
// that parses must come back the same from npyPreamble.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/npy.h"
#include "convert/safetensors.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);

    if (auto st = ckpt::convert::parseSafetensorsHeader(input, size, "fuzz input")) {
        uint64_t end = 0;
        for (const auto& e : st->entries) {
            ckpt::fuzz::require(e.begin == end && e.end >= e.begin, "safetensors entries do not tile the data");
            end = e.end;
        }
        ckpt::fuzz::require(st->dataStart + end == size, "safetensors entries do not fill the file");
        auto entries = st->entries;
        auto again = ckpt::convert::encodeSafetensorsHeader(entries, st->metadata);
        ckpt::fuzz::require(again.ok(), "a parsed safetensors header does not encode");
        std::string file = *again;
        file.append(end, '\0');
        auto reparsed = ckpt::convert::parseSafetensorsHeader(file, file.size(), "re-encoded");
        ckpt::fuzz::require(reparsed.ok() && reparsed->metadata == st->metadata && reparsed->entries.size() == st->entries.size(),
                            "a re-encoded safetensors header does not parse back the same");
    }

    if (auto npy = ckpt::parseNpyHeader(input, "fuzz input")) {
        ckpt::fuzz::require(npy->dataOffset <= size, "a .npy header ends past its input");
        const std::string pre = ckpt::npyPreamble(ckpt::npyDescr(npy->dtype), npy->shape);
        auto back = ckpt::parseNpyHeader(pre, "npyPreamble");
        ckpt::fuzz::require(back.ok() && back->dtype == npy->dtype && back->shape == npy->shape,
                            "npyPreamble of a parsed header does not parse back the same");
    }
    return 0;
}

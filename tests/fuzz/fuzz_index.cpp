// A whole .index file's bytes, opened as a checkpoint next to a fixed data
// file (the sample bundle's, so seed indexes point at valid regions): the
// table, the header and every entry are parsed, tensors are read and
// checked, the object graph is decoded and shown as a tree. Block
// checksums are recomputed first (index_checksums.h): otherwise nearly
// every mutation would stop at the first checksum.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/display_tree.h"
#include "fuzz_support.h"
#include "index_checksums.h"
#include "platform/file.h"

namespace {

// Enough to touch every entry kind of the sample; each read is bounded by
// the data file (a few hundred bytes), not by what an entry claims.
constexpr size_t kMaxReads = 32;

const std::string& samplePrefix() {
    static const std::string prefix = [] {
        std::string p = ckpt::platform::joinPath(ckpt::fuzz::scratchDir(), "sample");
        ckpt::fuzz::requireOk(ckpt::fuzz::writeSampleBundle(p), "cannot write the sample bundle");
        return p;
    }();
    return prefix;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string& prefix = samplePrefix();
    std::string table(reinterpret_cast<const char*>(data), size);
    ckpt::fuzz::refreshBlockChecksums(table);
    ckpt::fuzz::writeInput(ckpt::indexFileName(prefix), table);

    auto reader = ckpt::BundleReader::open(prefix);
    if (!reader) return 0;
    // The reader refuses unsorted keys and bounds the shard table by the
    // files present (regressions/index/keys-out-of-order, huge-shard-count).
    const auto& tensors = (*reader)->tensors();
    size_t reads = 0;
    for (const ckpt::TensorInfo& info : tensors) {
        ckpt::fuzz::require((*reader)->find(info.key) == &info, "find() misses a listed tensor");
        if (reads++ < kMaxReads) (void)(*reader)->read(info);
    }

    auto checkpoint = ckpt::Checkpoint::open(prefix);
    if (!checkpoint) return 0;
    const ckpt::DisplayTree tree = ckpt::buildDisplayTree(**checkpoint);
    ckpt::fuzz::require(!tree.entries.empty(), "a display tree without a root");
    return 0;
}

#pragma once
// Checksummed reads of many stored regions at once, shared by verify
// (checksum only) and restore (checksum and copy into the variable), so both
// split, schedule, join and word their errors one way. Regions become parts
// (region_read.h) that workers take in order; give regions largest first
// for workers to finish together.

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/status.h"
#include "ckpt/tensor_info.h"
#include "storage/files.h"

namespace ckpt::format {

struct ScannedRegion {
    const storage::RandomAccessFile* file = nullptr;  // holds the region
    std::string_view key;                             // the tensor's key, for messages
    StoredRegion region;                              // where, how long, the stored checksum
    // Also copy the bytes here (region.size of them). On failure it holds
    // zeros wherever bytes may have landed: never unverified bytes.
    uint8_t* copyTo = nullptr;
    // Set for regions that need decoding (strings, variants): one work item
    // that reads and checks the region itself, in place of the above.
    std::function<Status()> readWhole;
};

struct ScanOptions {
    size_t threads = 1;                               // at most; no more than there are parts
    const CancellationToken* cancel = nullptr;        // polled before each part
    std::function<void(int64_t bytesDone)> progress;  // after each part, on its worker's thread
};

struct ScanResult {
    std::vector<Status> regions;  // one per region, in order
    int64_t bytesScanned = 0;
};

// A region failing its checks gets a DataLoss that names its key, its data
// file, the offset and both checksums. The Result fails only on
// cancellation or a failed worker (platform/parallel.h).
Result<ScanResult> scanRegions(std::span<const ScannedRegion> regions, const ScanOptions& options);

// Whether the region lies inside its file; a DataLoss naming the key, the
// file and the sizes when not. (Every scan checks this before reading.)
Status checkBounds(const ScannedRegion& region);

// One region mapped in place (no copy out of the page cache) and verified
// whole, for readers that keep it while they work on it (ckpt history).
// Bounds and checksum failures are worded as scanRegions words them;
// FailedPrecondition when the system cannot map it (read it instead).
Result<storage::MappedView> mapVerifiedRegion(const ScannedRegion& region);

// One region read front to back a window at a time, for readers that
// compute as the bytes arrive and discard their figures when finish() fails
// (ckpt history: checksum, statistics and change in one pass). Chunks of
// kStreamChunkBytes are mapped in place where the system allows, else each
// window is read into a buffer; a chunk is unmapped when the reader moves
// past it, so a stream holds about one chunk of memory.
inline constexpr uint64_t kStreamChunkBytes = 4u << 20;

class RegionStream {
public:
    RegionStream() = default;
    // Bounds checked as checkBounds() checks them. Without 'checksum' the
    // bytes are only read (another reader verifies them); finish() then
    // reports only an unfinished stream.
    static Result<RegionStream> open(const ScannedRegion& region, bool checksum = true);
    // The next 'length' bytes of the region, valid until the next call. A
    // window may not cross a multiple of kStreamChunkBytes.
    Result<std::span<const uint8_t>> next(uint64_t length);
    // Every byte read and, with a checksum, matching it: a DataLoss worded as
    // scanRegions words it otherwise.
    Status finish() const;
    uint64_t position() const { return m_position; }

private:
    ScannedRegion m_region;
    bool m_checksum = true;
    bool m_mapping = true;  // until the system refuses a mapping; never for a small region
    uint64_t m_position = 0;
    uint32_t m_crc = 0;
    storage::MappedView m_chunk;
    uint64_t m_chunkBegin = 0, m_chunkEnd = 0;
    std::vector<uint8_t> m_buffer;
};

// Pairs of regions of equal size read side by side (a diff): each part of
// A's region arrives with the same part of B's, on a worker thread, before
// their checksums are joined; the bytes are valid during the call only.
// Parts are splitRegion()'s, 'part' counts from 0 within the pair.
struct RegionPairPart {
    size_t pair = 0;
    size_t part = 0;
    uint64_t begin = 0;  // offset inside both regions
    std::span<const uint8_t> a, b;
};
using RegionPairConsumer = std::function<void(const RegionPairPart&)>;

struct PairScanResult {
    std::vector<Status> a, b;  // per pair, as scanRegions words them
    int64_t bytesScanned = 0;  // both sides
};

// 'a' and 'b' have one region each per pair, of equal sizes, without
// copyTo or readWhole. A pair whose bounds check fails on either side is not
// read. Progress counts the bytes of both sides.
Result<PairScanResult> scanRegionPairs(std::span<const ScannedRegion> a, std::span<const ScannedRegion> b,
                                       const ScanOptions& options, const RegionPairConsumer& consume);

}  // namespace ckpt::format

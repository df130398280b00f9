#pragma once
// Reads one TensorFlow V2 tensor bundle: <prefix>.index plus its
// <prefix>.data-NNNNN-of-NNNNN shards (docs/format.md, "Overview" to "CRC-32C").
// open() reads and validates the index only; tensor data is read on demand
// with pread and every read is checked against the entry's crc32c.
// Safe to share between threads once open.
//   auto reader = BundleReader::open("/runs/a/ckpt-3");
//   if (!reader) return reader.status();
//   auto kernel = (*reader)->read("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE");

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

struct BundleHeader {
    int32_t numShards = 0;
    bool bigEndian = false;
    int32_t producer = 0;
    int32_t minConsumer = 0;
    std::vector<int32_t> badConsumers;
};

// One tensor's values to be read into memory the caller owns (a numpy
// array, a mapped output file): 'out' holds exactly info->storedBytes()
// bytes, and 'info' is one of the reader's own tensors.
struct TensorReadTarget {
    const TensorInfo* info = nullptr;
    std::span<uint8_t> out;
};

struct ReadIntoOptions {
    int threads = 0;        // 0: one per hardware thread; small batches stay on the calling thread
    ProgressSink progress;  // bytes read / total, phase "read"
    const CancellationToken* cancel = nullptr;
};

// What a listing needs of an index: its header and how many tensors it
// holds (slice entries of partitioned tensors not counted).
struct BundleIndexSummary {
    BundleHeader header;
    int64_t tensors = 0;
};

namespace format {
struct BundleReaderAccess;
}  // namespace format

class BundleReader {
public:
    // Fails with DataLoss if the index is damaged or any entry is
    // inconsistent (bad dtype, shape, shard id, size); the message names the
    // file and the key. Never touches the data files.
    [[nodiscard]] static Result<std::unique_ptr<BundleReader>> open(std::string_view prefix);
    // The same checks of every entry as open(), keeping none of them: memory
    // stays flat however many tensors the index holds.
    [[nodiscard]] static Result<BundleIndexSummary> summarize(std::string_view prefix);
    // A reader that keeps only the tensors 'keys' name: every entry is
    // checked as open() checks it, in the same words (a damaged index is
    // refused whatever tensor is asked for), but memory stays flat however
    // many tensors the index holds. tensors() and find() know only those
    // (keys the index lacks are absent); isObjectBased() answers for the
    // whole index.
    [[nodiscard]] static Result<std::unique_ptr<BundleReader>> openKeys(std::string_view prefix,
                                                                        std::span<const std::string_view> keys);
    ~BundleReader();
    BundleReader(const BundleReader&) = delete;
    BundleReader& operator=(const BundleReader&) = delete;

    const std::string& prefix() const;
    std::string indexPath() const;
    std::string dataPath(int32_t shardId) const;
    const BundleHeader& header() const;

    // Every tensor, sorted by key; slice entries appear inside their
    // partitioned tensor's 'slices', not on their own.
    const std::vector<TensorInfo>& tensors() const;
    // nullptr when the key does not exist.
    const TensorInfo* find(std::string_view key) const;
    // The exact key, else the first key that starts with it: object-graph
    // attributes of legacy multi-spec saveables name only a key prefix (docs/format.md, "Keys").
    const TensorInfo* findKeyOrExtension(std::string_view key) const;
    bool isObjectBased() const;

    // Reads and verifies the whole tensor (partitioned ones are assembled).
    // DT_RESOURCE / DT_VARIANT and other types without a value decoding fail
    // with Unimplemented ("unsupported dtype").
    Result<Tensor> read(std::string_view key) const;
    Result<Tensor> read(const TensorInfo& info) const;
    // The same, stopped by 'cancel' (Cancelled): on a store its transfers
    // end mid-flight, so a Cancel of a large remote read returns at once.
    Result<Tensor> read(const TensorInfo& info, const CancellationToken* cancel) const;
    // The same into 'out', reusing its buffer: reading many tensors one
    // after another (ckpt history) then costs no fresh memory each time.
    Status readInto(const TensorInfo& info, Tensor& out) const;

    // Reads many tensors straight into the caller's memory, each verified
    // against its checksum while the bytes are still in cache, large ones
    // in parts on several threads: no intermediate copy (partitioned
    // tensors are assembled through read() first). Fixed-size decodable
    // dtypes only; strings go through read(). One Status per target, in
    // order: InvalidArgument for a dtype or size that does not fit,
    // DataLoss for damage; a failed target's 'out' holds no unverified
    // bytes. The Result itself fails only on Cancelled.
    Result<std::vector<Status>> readTensorsInto(std::span<const TensorReadTarget> targets,
                                                const ReadIntoOptions& options = {}) const;
    // Rows [rowBegin, rowEnd) of the outermost dimension into 'out'
    // (exactly their bytes), reading only those bytes: NOT checked against
    // the stored checksum, which covers the whole tensor (only the bounds
    // are). Partitioned tensors are read whole, verified, then copied.
    // Fixed-size decodable dtypes of rank >= 1; InvalidArgument otherwise
    // or for rows outside the shape.
    Status readRowsInto(const TensorInfo& info, int64_t rowBegin, int64_t rowEnd, std::span<uint8_t> out) const;

    // The raw bytes of one stored region, verified against its checksum
    // with the rule for 'dtype' (docs/format.md, "Data files"). 'key' is only for messages.
    Result<std::vector<uint8_t>> readRegion(const StoredRegion& region, DataType dtype, int64_t numElements,
                                            std::string_view key) const;
    // The same into 'bytes' (resized, its capacity reused). On failure
    // 'bytes' holds no unverified data.
    Status readRegionInto(const StoredRegion& region, DataType dtype, int64_t numElements, std::string_view key,
                          std::vector<uint8_t>& bytes) const;

    // Data file size, or an error when it is missing; cached after the first call.
    Result<uint64_t> dataFileSize(int32_t shardId) const;

private:
    // The open shard files and parsed index live in the .cpp, so the
    // installed header stays free of the engine's internal types and the
    // class can change without breaking code built against it.
    struct Impl;
    friend struct format::BundleReaderAccess;

    explicit BundleReader(std::string prefix);
    Status load();
    Result<Tensor> readBounded(const TensorInfo& info) const;

    std::unique_ptr<Impl> m_impl;
};

}  // namespace ckpt

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

namespace format {
struct BundleReaderAccess;
}  // namespace format

class BundleReader {
public:
    // Fails with DataLoss if the index is damaged or any entry is
    // inconsistent (bad dtype, shape, shard id, size); the message names the
    // file and the key. Never touches the data files.
    [[nodiscard]] static Result<std::unique_ptr<BundleReader>> open(std::string_view prefix);
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
    // The same into 'out', reusing its buffer: reading many tensors one
    // after another (ckpt history) then costs no fresh memory each time.
    Status readInto(const TensorInfo& info, Tensor& out) const;

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

#pragma once
// Writes one TensorFlow V2 tensor bundle with a single data file:
// <prefix>.data-00000-of-00001 and <prefix>.index, byte-for-byte as
// TensorFlow's BundleWriter does (docs/format.md, "Writer options and algorithm",
// "Protocol buffer messages", "Data files").
// Data regions are appended in the order tensors are added; the index is
// written in key order by finish(). The data file is written under a temp
// name and renamed before the index, which is renamed last: an existing
// index at the prefix is never half-written.
// Not thread-safe; use one writer per shard.
//   auto w = BundleWriter::create("/runs/a_temp/part-00000-of-00001");
//   CKPT_RETURN_IF_ERROR((*w)->add("model/w/.ATTRIBUTES/VARIABLE_VALUE", tensor));
//   CKPT_RETURN_IF_ERROR((*w)->finish());

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

struct BundleWriterOptions {
    // Where the data goes; empty: "<prefix>.data-00000-of-00001". The save
    // pipeline names a shard's final data file here when its storage cannot
    // rename (an object store), so nothing moves when the shards merge.
    std::string dataFile;
};

class BundleWriter {
public:
    // Creates the data file (under a temp name where the storage can rename;
    // in place on an object store, where it appears only once complete).
    // Parent directories must exist.
    [[nodiscard]] static Result<std::unique_ptr<BundleWriter>> create(std::string_view prefix);
    [[nodiscard]] static Result<std::unique_ptr<BundleWriter>> create(std::string_view prefix,
                                                                      const BundleWriterOptions& options);
    ~BundleWriter();  // abandons (deletes temp files) unless finish() succeeded
    BundleWriter(const BundleWriter&) = delete;
    BundleWriter& operator=(const BundleWriter&) = delete;

    const std::string& prefix() const;

    // Adds a whole tensor under 'key'. AlreadyExists for a duplicate key.
    Status add(std::string_view key, const Tensor& value);
    // Adds one slice of a partitioned tensor of 'fullShape'. A slice that
    // covers the whole tensor is stored as a plain entry (docs/format.md,
    // "Partitioned (sliced) tensors").
    Status addSlice(std::string_view fullKey, const TensorShape& fullShape, const TensorSlice& slice, const Tensor& sliceValue);
    // Adds an already encoded region (as a reader returns it: raw bytes for
    // fixed-size types, the encoding of docs/format.md, "String tensors" and
    // "Variant tensors" for strings and variants); the checksum is computed here. Used to copy tensors between bundles.
    Status addEncoded(std::string_view key, DataType dtype, const TensorShape& shape, std::span<const uint8_t> region);

    // Bytes of tensor data appended so far.
    uint64_t dataBytes() const;
    // Writes the index; renames data then index to their final names (on an
    // object store both were written at them).
    Status finish();

private:
    // The open data file and the pending index entries live in the .cpp
    // (see BundleReader).
    struct Entry;
    struct Impl;

    explicit BundleWriter(std::string prefix);
    Status appendRegion(std::string_view key, DataType dtype, const TensorShape& shape, std::span<const uint8_t> region,
                        std::string* serializedOut);

    std::unique_ptr<Impl> m_impl;
};

}  // namespace ckpt

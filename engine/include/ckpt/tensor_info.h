#pragma once
// Metadata of one tensor as the index describes it; no data is read to
// produce these. docs/format.md, "BundleEntryProto" to
// "TensorSliceProto", and "Partitioned (sliced) tensors".

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/dtype.h"

namespace ckpt {

struct TensorShape {
    std::vector<int64_t> dims;  // outermost first; empty = scalar

    int rank() const { return static_cast<int>(dims.size()); }
    // Product of dims; nullopt when it overflows int64.
    std::optional<int64_t> numElements() const;
    std::string toString() const;  // "[3, 4]", "[]"
    bool operator==(const TensorShape&) const = default;
};

// A flat row-major element index as one index per dimension ({} for a
// scalar); dimensions of size 0 count as 1. How diffs report positions.
std::vector<int64_t> unravelIndex(int64_t flat, const TensorShape& shape);

// One dimension's extent in a slice; length -1 means "the whole dimension".
struct SliceExtent {
    int64_t start = 0;
    int64_t length = -1;
    bool isFull() const { return length < 0; }
    bool operator==(const SliceExtent&) const = default;
};

struct TensorSlice {
    std::vector<SliceExtent> extents;  // one per dimension
    // TF's spec text: "0,5:-" (start,length per dim, '-' for full).
    std::string toString() const;
    bool operator==(const TensorSlice&) const = default;
};

// Where the bytes of one stored (non-partitioned) region live.
// (The 32-bit fields last: a million of these are held at once.)
struct StoredRegion {
    int64_t offset = 0;
    int64_t size = 0;
    int32_t shardId = 0;
    uint32_t maskedCrc32c = 0;  // as stored in the entry
};

// A slice of a partitioned tensor, with its own stored region.
struct StoredSlice {
    TensorSlice slice;
    TensorShape shape;       // the slice's own shape
    std::string encodedKey;  // the OrderedCode slice key in the index
    StoredRegion region;
};

// Fields ordered to pack: an index of a million tensors is a million of these.
struct TensorInfo {
    std::string key;
    DataType dtype = DataType::Invalid;
    // The entry named a *_REF dtype (base + 100): read as its base type, but
    // TensorFlow never stores one and its readers cannot (verify says so).
    bool storedAsReference = false;
    TensorShape shape;
    // For ordinary tensors. For partitioned tensors the entry's own fields
    // (TF leaves them 0) are kept here as stored.
    StoredRegion region;
    // Non-empty for a partitioned tensor: every slice and where it is stored.
    std::vector<StoredSlice> slices;

    bool isPartitioned() const { return !slices.empty(); }
    // Bytes the values occupy on disk (sum over slices for partitioned ones).
    int64_t storedBytes() const;
};

// In 'sorted' (by key): the exact key, else the first key that starts with
// it (object-graph attributes of legacy multi-spec saveables name only a
// key prefix, docs/format.md, "Keys"); nullptr for none or an empty key.
const TensorInfo* findKeyOrExtension(std::span<const TensorInfo> sorted, std::string_view key);

}  // namespace ckpt

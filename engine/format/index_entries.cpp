#include "format/index_entries.h"

#include <map>

#include "format/bundle_reader_access.h"
#include "format/index_table.h"
#include "format/ordered_code.h"
#include "platform/file.h"
#include "tensor_bundle.pb.h"

namespace ckpt::format {
namespace {

constexpr int kMaxRank = 254;  // TensorShape's limit

// An index of a million tensors is held as a million of these (libstdc++, 64-bit).
static_assert(sizeof(void*) != 8 || sizeof(TensorInfo) <= 112, "TensorInfo grew: reorder its fields to pack");

std::string quoted(std::string_view key) { return printableKey(key); }

// Names an index entry in messages. Formatted only when a message is: doing
// it for every entry was a tenth of listing a 100,000-tensor checkpoint.
struct EntryName {
    std::string_view key;
    std::string_view file;
};
std::string operator+(const EntryName& e, std::string_view rest) {
    std::string out = "entry " + quoted(e.key) + " in " + std::string(e.file);
    out += rest;
    return out;
}

bool mulOverflows(int64_t a, int64_t b, int64_t& out) { return __builtin_mul_overflow(a, b, &out); }

Result<TensorShape> parseShape(const tensorflow::TensorShapeProto& proto, const EntryName& where) {
    if (proto.unknown_rank()) return dataLoss(where + ": shape has unknown rank");
    if (proto.dim_size() > kMaxRank) return dataLoss(where + ": shape has " + std::to_string(proto.dim_size()) + " dimensions");
    TensorShape shape;
    for (const auto& d : proto.dim()) {
        if (d.size() < 0) return dataLoss(where + ": invalid tensor shape (dimension " + std::to_string(d.size()) + ")");
        shape.dims.push_back(d.size());
    }
    if (!shape.numElements())
        return dataLoss(where + ": invalid tensor shape " + shape.toString() + " (element count overflows)");
    return shape;
}

// Checks that the stored region can hold numElements of dtype.
Status checkRegionSize(DataType dtype, int64_t numElements, const StoredRegion& r, const EntryName& where) {
    if (r.offset < 0 || r.size < 0 || r.offset > INT64_MAX - r.size)
        return dataLoss(where + ": invalid offset " + std::to_string(r.offset) + " / size " + std::to_string(r.size));
    if (isFixedSize(dtype)) {
        int64_t expected = 0;
        if (mulOverflows(numElements, static_cast<int64_t>(dataTypeSize(dtype)), expected) || r.size != expected)
            return dataLoss(where + ": invalid size in bundle entry: stored size " + std::to_string(r.size) + ", expected " +
                            std::to_string(expected) + " for " + std::string(dataTypeName(dtype)) + " with " +
                            std::to_string(numElements) + " elements");
    } else if (numElements > 0 && (dtype == DataType::String || dtype == DataType::Variant)) {
        // Each string needs a length byte, then the 4-byte length checksum;
        // each variant a length byte and a 4-byte checksum. TensorFlow never
        // writes a zero-size region for them, and without this bound a shape
        // alone could make a reader allocate one element per claimed entry.
        const bool isString = dtype == DataType::String;
        const int64_t perElement = isString ? 1 : 5;
        const int64_t fixed = isString ? 4 : 0;
        if (r.size < fixed || (r.size - fixed) / perElement < numElements)
            return dataLoss(where + ": invalid size in bundle entry: " + std::to_string(r.size) + " bytes cannot hold " +
                            std::to_string(numElements) + (isString ? " strings" : " variant elements"));
    }
    return okStatus();
}

Status checkSlice(const TensorSlice& slice, const TensorShape& full, const EntryName& where) {
    if (static_cast<int>(slice.extents.size()) != full.rank())
        return dataLoss(where + ": slice " + slice.toString() + " has " + std::to_string(slice.extents.size()) +
                        " extents for a rank-" + std::to_string(full.rank()) + " tensor");
    for (int d = 0; d < full.rank(); ++d) {
        const SliceExtent& e = slice.extents[d];
        if (!e.isFull() && (e.start < 0 || e.length < 0 || e.start > full.dims[d] - e.length))
            return dataLoss(where + ": slice " + slice.toString() + " lies outside shape " + full.toString());
    }
    return okStatus();
}

}  // namespace

TensorShape sliceShape(const TensorSlice& slice, const TensorShape& full) {
    TensorShape s;
    for (int d = 0; d < full.rank(); ++d) s.dims.push_back(slice.extents[d].isFull() ? full.dims[d] : slice.extents[d].length);
    return s;
}

Result<BundleHeader> decodeIndexEntries(const storage::RandomAccessFile* openIndex, const std::string& path,
                                        const TensorSink& keep, const std::function<std::span<TensorInfo>()>& kept,
                                        const HeaderSink& onHeader) {
    BundleHeader header;
    const std::string file = platform::baseName(path);
    bool first = true;
    // Slice entries by encoded key; 'listed' once a full entry names them.
    struct OrphanableSlice {
        StoredSlice slice;
        std::string fullKey;
        bool listed = false;
    };
    std::map<std::string, OrphanableSlice, std::less<>> sliceEntries;
    tensorflow::BundleEntryProto entry;

    auto parseEntry = [&](std::string_view value, const EntryName& where) -> Status {
        if (!entry.ParseFromArray(value.data(), static_cast<int>(value.size())))
            return dataLoss(where + ": the entry is not a valid BundleEntryProto");
        if (!dataTypeFromEnum(entry.dtype())) return dataLoss(where + ": unknown dtype " + std::to_string(entry.dtype()));
        if (entry.shard_id() < 0 || entry.shard_id() >= header.numShards)
            return dataLoss(where + ": shard id " + std::to_string(entry.shard_id()) + " is not below num_shards " +
                            std::to_string(header.numShards));
        return okStatus();
    };

    const IndexVisitor visit = [&](std::string_view key, std::string_view value) -> Status {
        if (first) {
            first = false;
            if (!key.empty()) return dataLoss("corrupt index " + path + ": no bundle header (first key is " + quoted(key) + ")");
            CKPT_ASSIGN_OR_RETURN(header, parseBundleHeader(value, path));
            if (onHeader) onHeader(header);
            return okStatus();
        }
        const EntryName where{key, file};
        CKPT_RETURN_IF_ERROR(parseEntry(value, where));
        const DataType dtype = *dataTypeFromEnum(entry.dtype());
        CKPT_ASSIGN_OR_RETURN(TensorShape shape, parseShape(entry.shape(), where));
        StoredRegion region{
            .offset = entry.offset(), .size = entry.size(), .shardId = entry.shard_id(), .maskedCrc32c = entry.crc32c()};
        if (isSliceKey(key)) {
            CKPT_ASSIGN_OR_RETURN(SliceKey sk, decodeSliceKey(key, file));
            CKPT_RETURN_IF_ERROR(checkRegionSize(dtype, *shape.numElements(), region, where));
            sliceEntries.emplace(std::string(key),
                                 OrphanableSlice{StoredSlice{std::move(sk.slice), std::move(shape), std::string(key), region},
                                                 std::move(sk.fullKey), false});
            return okStatus();
        }
        TensorInfo info;
        info.key = std::string(key);
        info.dtype = dtype;
        info.shape = std::move(shape);
        info.region = region;
        info.storedAsReference = entry.dtype() > 100;
        if (entry.slices_size() == 0) {
            CKPT_RETURN_IF_ERROR(checkRegionSize(dtype, *info.shape.numElements(), region, where));
        }
        for (const auto& sp : entry.slices()) {
            StoredSlice s;
            for (const auto& e : sp.extent()) {
                if (e.has_length_case() == tensorflow::TensorSliceProto::Extent::kLength)
                    s.slice.extents.push_back({e.start(), e.length()});
                else s.slice.extents.push_back({0, -1});
            }
            CKPT_RETURN_IF_ERROR(checkSlice(s.slice, info.shape, where));
            s.shape = sliceShape(s.slice, info.shape);
            s.encodedKey = encodeSliceKey(info.key, s.slice);
            info.slices.push_back(std::move(s));
        }
        return keep(std::move(info));
    };
    CKPT_RETURN_IF_ERROR(openIndex ? scanIndexTable(*openIndex, path, visit) : scanIndexTable(path, visit));
    if (first) return dataLoss("corrupt index " + path + ": the table is empty (no bundle header)");

    for (TensorInfo& t : kept()) {
        for (StoredSlice& s : t.slices) {
            auto it = sliceEntries.find(s.encodedKey);
            if (it == sliceEntries.end())
                return dataLoss("partitioned tensor " + quoted(t.key) + " in " + file + " lists slice " + s.slice.toString() +
                                " but the index has no entry for it");
            const StoredSlice& stored = it->second.slice;
            if (stored.shape != s.shape)
                return dataLoss("slice " + s.slice.toString() + " of " + quoted(t.key) + " in " + file + " has shape " +
                                stored.shape.toString() + ", expected " + s.shape.toString());
            s.region = stored.region;
            it->second.listed = true;
        }
    }
    // A slice no full entry lists has no shape to assemble into: readers
    // that enumerate the index fail on it.
    for (const auto& [key, orphan] : sliceEntries)
        if (!orphan.listed)
            return dataLoss("slice entry " + quoted(key) + " in " + file + " has no full entry: " + quoted(orphan.fullKey) +
                            " is not a partitioned tensor listing slice " + orphan.slice.slice.toString());
    return header;
}

}  // namespace ckpt::format

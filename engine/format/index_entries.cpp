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

namespace {

// One entry at a time, with every check: the scan of a whole index and the
// lookup of a few keys share it. Slice entries are held until the tensors
// that list them are attached.
class EntryDecoder {
public:
    explicit EntryDecoder(const std::string& path) : m_path(path), m_file(platform::baseName(path)) {}

    // The value of the index's "" key.
    Status header(std::string_view value) {
        CKPT_ASSIGN_OR_RETURN(m_header, parseBundleHeader(value, m_path));
        return okStatus();
    }
    const BundleHeader& bundleHeader() const { return m_header; }

    // A tensor entry goes to 'keep'; a slice entry is held for attachSlices.
    Status entry(std::string_view key, std::string_view value, const TensorSink& keep) {
        const EntryName where{key, m_file};
        if (!m_entry.ParseFromArray(value.data(), static_cast<int>(value.size())))
            return dataLoss(where + ": the entry is not a valid BundleEntryProto");
        if (!dataTypeFromEnum(m_entry.dtype())) return dataLoss(where + ": unknown dtype " + std::to_string(m_entry.dtype()));
        if (m_entry.shard_id() < 0 || m_entry.shard_id() >= m_header.numShards)
            return dataLoss(where + ": shard id " + std::to_string(m_entry.shard_id()) + " is not below num_shards " +
                            std::to_string(m_header.numShards));
        const DataType dtype = *dataTypeFromEnum(m_entry.dtype());
        CKPT_ASSIGN_OR_RETURN(TensorShape shape, parseShape(m_entry.shape(), where));
        StoredRegion region{
            .offset = m_entry.offset(), .size = m_entry.size(), .shardId = m_entry.shard_id(), .maskedCrc32c = m_entry.crc32c()};
        if (isSliceKey(key)) {
            CKPT_ASSIGN_OR_RETURN(SliceKey sk, decodeSliceKey(key, m_file));
            CKPT_RETURN_IF_ERROR(checkRegionSize(dtype, *shape.numElements(), region, where));
            m_slices.emplace(std::string(key),
                             HeldSlice{StoredSlice{std::move(sk.slice), std::move(shape), std::string(key), region},
                                       std::move(sk.fullKey), false});
            return okStatus();
        }
        TensorInfo info;
        info.key = std::string(key);
        info.dtype = dtype;
        info.shape = std::move(shape);
        info.region = region;
        info.storedAsReference = m_entry.dtype() > 100;
        if (m_entry.slices_size() == 0) {
            CKPT_RETURN_IF_ERROR(checkRegionSize(dtype, *info.shape.numElements(), region, where));
        }
        for (const auto& sp : m_entry.slices()) {
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
    }

    // Fills the regions of the slices 'tensors' list from the held slice
    // entries; each must exist with the shape its tensor implies, and no
    // held slice may be left unlisted.
    Status attachSlices(std::span<TensorInfo> tensors) {
        for (TensorInfo& t : tensors) {
            for (StoredSlice& s : t.slices) {
                auto it = m_slices.find(s.encodedKey);
                if (it == m_slices.end())
                    return dataLoss("partitioned tensor " + quoted(t.key) + " in " + m_file + " lists slice " +
                                    s.slice.toString() + " but the index has no entry for it");
                const StoredSlice& stored = it->second.slice;
                if (stored.shape != s.shape)
                    return dataLoss("slice " + s.slice.toString() + " of " + quoted(t.key) + " in " + m_file + " has shape " +
                                    stored.shape.toString() + ", expected " + s.shape.toString());
                s.region = stored.region;
                it->second.listed = true;
            }
        }
        // A slice no full entry lists has no shape to assemble into: readers
        // that enumerate the index fail on it.
        for (const auto& [key, orphan] : m_slices)
            if (!orphan.listed)
                return dataLoss("slice entry " + quoted(key) + " in " + m_file + " has no full entry: " + quoted(orphan.fullKey) +
                                " is not a partitioned tensor listing slice " + orphan.slice.slice.toString());
        return okStatus();
    }

private:
    struct HeldSlice {
        StoredSlice slice;
        std::string fullKey;
        bool listed = false;  // once a full entry names it
    };

    const std::string& m_path;
    const std::string m_file;
    BundleHeader m_header;
    std::map<std::string, HeldSlice, std::less<>> m_slices;  // by encoded key
    tensorflow::BundleEntryProto m_entry;                    // reused: one allocation for every entry
};

}  // namespace

Result<BundleHeader> decodeIndexEntries(const storage::RandomAccessFile* openIndex, const std::string& path,
                                        const TensorSink& keep, const std::function<std::span<TensorInfo>()>& kept,
                                        const HeaderSink& onHeader) {
    EntryDecoder decoder(path);
    bool first = true;
    const IndexVisitor visit = [&](std::string_view key, std::string_view value) -> Status {
        if (!first) return decoder.entry(key, value, keep);
        first = false;
        if (!key.empty()) return dataLoss("corrupt index " + path + ": no bundle header (first key is " + quoted(key) + ")");
        CKPT_RETURN_IF_ERROR(decoder.header(value));
        if (onHeader) onHeader(decoder.bundleHeader());
        return okStatus();
    };
    CKPT_RETURN_IF_ERROR(openIndex ? scanIndexTable(*openIndex, path, visit) : scanIndexTable(path, visit));
    if (first) return dataLoss("corrupt index " + path + ": the table is empty (no bundle header)");
    CKPT_RETURN_IF_ERROR(decoder.attachSlices(kept()));
    return decoder.bundleHeader();
}

}  // namespace ckpt::format

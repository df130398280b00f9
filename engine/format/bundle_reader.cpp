#include "ckpt/bundle_reader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>

#include "ckpt/bundle_naming.h"
#include "format/bundle_reader_access.h"
#include "format/index_entries.h"
#include "format/index_table.h"
#include "format/region_codec.h"
#include "format/ordered_code.h"
#include "platform/cancellation_scope.h"
#include "platform/crc32c.h"
#include "platform/file.h"
#include "tensor_bundle.pb.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

constexpr std::string_view kObjectGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH";
constexpr int32_t kBundleConsumerVersion = 1;  // TF's BundleReader consumer version

std::string quoted(std::string_view key) { return format::printableKey(key); }

// What every way of opening asks of an index before reading it.
Status checkIndexPresent(const std::string& index) {
    CKPT_RETURN_IF_ERROR(storage::checkLocation(index));
    if (!storage::exists(index)) return notFound("no checkpoint index at " + index);
    return okStatus();
}

// Calls run(firstElement, count) for each row-major run of the full tensor
// that 'slice' (already checked to lie inside 'full') covers, in the order
// the slice stores its values.
template <typename Run>
void forEachSliceRun(const TensorShape& full, const TensorSlice& slice, Run run) {
    const int rank = full.rank();
    if (rank == 0) {
        run(int64_t{0}, int64_t{1});
        return;
    }
    std::vector<int64_t> start(rank), len(rank), strides(rank);
    for (int d = 0; d < rank; ++d) {
        start[d] = slice.extents[d].isFull() ? 0 : slice.extents[d].start;
        len[d] = slice.extents[d].isFull() ? full.dims[d] : slice.extents[d].length;
    }
    strides[rank - 1] = 1;
    for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * full.dims[d + 1];
    for (int d = 0; d < rank; ++d)
        if (len[d] == 0) return;
    std::vector<int64_t> idx(rank, 0);  // position inside the slice, last dim handled as a run
    for (;;) {
        int64_t first = start[rank - 1];
        for (int d = 0; d < rank - 1; ++d) first += (start[d] + idx[d]) * strides[d];
        run(first, len[rank - 1]);
        int d = rank - 2;
        for (; d >= 0; --d) {
            if (++idx[d] < len[d]) break;
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}

}  // namespace

struct BundleReader::Impl {
    std::string prefix;
    BundleHeader header;
    std::vector<TensorInfo> tensors;
    std::optional<bool> objectBased;  // set by openKeys, whose tensors may leave out the graph

    std::mutex filesMutex;
    // Opened on first use, by shard id: a header may claim billions of
    // shards, so nothing is sized by num_shards. Guarded by filesMutex.
    std::map<int32_t, std::unique_ptr<storage::RandomAccessFile>> files;
    // The index already open (BundleReaderAccess::openWithIndex), during load() only.
    const storage::RandomAccessFile* openIndex = nullptr;
};

BundleReader::BundleReader(std::string prefix) : m_impl(std::make_unique<Impl>()) { m_impl->prefix = std::move(prefix); }
BundleReader::~BundleReader() = default;

Result<std::unique_ptr<BundleReader>> BundleReader::open(std::string_view prefix) {
    std::unique_ptr<BundleReader> reader(new BundleReader(std::string(prefix)));
    CKPT_RETURN_IF_ERROR(checkIndexPresent(reader->indexPath()));
    CKPT_RETURN_IF_ERROR(reader->load());
    return reader;
}

Result<std::unique_ptr<BundleReader>> BundleReader::openKeys(std::string_view prefix, std::span<const std::string_view> keys) {
    std::unique_ptr<BundleReader> reader(new BundleReader(std::string(prefix)));
    CKPT_RETURN_IF_ERROR(checkIndexPresent(reader->indexPath()));
    std::vector<std::string_view> wanted(keys.begin(), keys.end());
    std::sort(wanted.begin(), wanted.end());
    auto isWanted = [&](std::string_view key) { return std::binary_search(wanted.begin(), wanted.end(), key); };
    // The named tensors, and every partitioned one: the decoder checks all
    // their slices, as open() does, so a damaged index fails here too.
    std::vector<TensorInfo> held;
    bool objectBased = false;
    CKPT_ASSIGN_OR_RETURN(reader->m_impl->header, format::decodeIndexEntries(
                                                      nullptr, reader->indexPath(),
                                                      [&](TensorInfo&& t) {
                                                          objectBased = objectBased || t.key == kObjectGraphKey;
                                                          if (isWanted(t.key) || t.isPartitioned()) held.push_back(std::move(t));
                                                          return okStatus();
                                                      },
                                                      [&] { return std::span<TensorInfo>(held); }));
    for (TensorInfo& t : held)
        if (isWanted(t.key)) reader->m_impl->tensors.push_back(std::move(t));
    reader->m_impl->objectBased = objectBased;
    return reader;
}

Result<BundleHeader> format::parseBundleHeader(std::string_view value, const std::string& indexPath) {
    tensorflow::BundleHeaderProto header;
    if (!header.ParseFromArray(value.data(), static_cast<int>(value.size())))
        return dataLoss("corrupt index " + indexPath + ": the bundle header is not a valid BundleHeaderProto");
    if (header.num_shards() < 1)
        return dataLoss("corrupt index " + indexPath + ": num_shards is " + std::to_string(header.num_shards()));
    if (header.endianness() != tensorflow::BundleHeaderProto::LITTLE && header.endianness() != tensorflow::BundleHeaderProto::BIG)
        return dataLoss("corrupt index " + indexPath + ": unknown endianness " + std::to_string(header.endianness()) +
                        " (0 is little-endian, 1 big-endian)");
    if (header.endianness() == tensorflow::BundleHeaderProto::BIG)
        return unimplemented(indexPath + ": big-endian bundles are not supported");
    const auto& v = header.version();
    if (v.producer() < 0 || v.min_consumer() > kBundleConsumerVersion ||
        std::find(v.bad_consumers().begin(), v.bad_consumers().end(), kBundleConsumerVersion) != v.bad_consumers().end())
        return dataLoss(indexPath + ": bundle version (producer " + std::to_string(v.producer()) + ", min_consumer " +
                        std::to_string(v.min_consumer()) + ") cannot be read by consumer version 1");
    BundleHeader out;
    out.numShards = header.num_shards();
    out.producer = v.producer();
    out.minConsumer = v.min_consumer();
    out.badConsumers.assign(v.bad_consumers().begin(), v.bad_consumers().end());
    return out;
}

const std::string& BundleReader::prefix() const { return m_impl->prefix; }

const BundleHeader& BundleReader::header() const { return m_impl->header; }

const std::vector<TensorInfo>& BundleReader::tensors() const { return m_impl->tensors; }

std::string BundleReader::indexPath() const { return indexFileName(m_impl->prefix); }

std::string BundleReader::dataPath(int32_t shardId) const {
    return dataFileName(m_impl->prefix, shardId, m_impl->header.numShards);
}

Status BundleReader::load() {
    std::vector<TensorInfo>& tensors = m_impl->tensors;
    CKPT_ASSIGN_OR_RETURN(m_impl->header, format::decodeIndexEntries(
                                              m_impl->openIndex, indexPath(),
                                              [&](TensorInfo&& t) {
                                                  tensors.push_back(std::move(t));
                                                  return okStatus();
                                              },
                                              [&] { return std::span<TensorInfo>(tensors); }));
    return okStatus();
}

Result<BundleIndexSummary> BundleReader::summarize(std::string_view prefix) {
    const std::string index = indexFileName(prefix);
    CKPT_RETURN_IF_ERROR(checkIndexPresent(index));
    BundleIndexSummary summary;
    std::vector<TensorInfo> partitioned;  // rare: kept to check their slices
    CKPT_ASSIGN_OR_RETURN(summary.header, format::decodeIndexEntries(
                                              nullptr, index,
                                              [&](TensorInfo&& t) {
                                                  ++summary.tensors;
                                                  if (t.isPartitioned()) partitioned.push_back(std::move(t));
                                                  return okStatus();
                                              },
                                              [&] { return std::span<TensorInfo>(partitioned); }));
    return summary;
}

const TensorInfo* BundleReader::find(std::string_view key) const {
    auto it = std::lower_bound(m_impl->tensors.begin(), m_impl->tensors.end(), key,
                               [](const TensorInfo& t, std::string_view k) { return t.key < k; });
    return it != m_impl->tensors.end() && it->key == key ? &*it : nullptr;
}

const TensorInfo* findKeyOrExtension(std::span<const TensorInfo> sorted, std::string_view key) {
    if (key.empty()) return nullptr;  // names nothing, rather than the first key
    auto it =
        std::lower_bound(sorted.begin(), sorted.end(), key, [](const TensorInfo& t, std::string_view k) { return t.key < k; });
    return it != sorted.end() && std::string_view(it->key).starts_with(key) ? &*it : nullptr;
}

const TensorInfo* BundleReader::findKeyOrExtension(std::string_view key) const {
    return ckpt::findKeyOrExtension(m_impl->tensors, key);
}

bool BundleReader::isObjectBased() const { return m_impl->objectBased.value_or(find(kObjectGraphKey) != nullptr); }

Result<std::unique_ptr<BundleReader>> format::BundleReaderAccess::openWithIndex(std::string_view prefix,
                                                                                const storage::RandomAccessFile& index) {
    std::unique_ptr<BundleReader> reader(new BundleReader(std::string(prefix)));
    CKPT_RETURN_IF_ERROR(storage::checkLocation(reader->indexPath()));
    reader->m_impl->openIndex = &index;
    const Status loaded = reader->load();
    reader->m_impl->openIndex = nullptr;
    CKPT_RETURN_IF_ERROR(loaded);
    return reader;
}

std::unique_ptr<BundleReader> format::BundleReaderAccess::dataReader(std::string_view prefix, const BundleHeader& header) {
    std::unique_ptr<BundleReader> reader(new BundleReader(std::string(prefix)));
    reader->m_impl->header = header;
    return reader;
}

Result<const storage::RandomAccessFile*> format::BundleReaderAccess::shardFile(const BundleReader& reader, int32_t shardId) {
    BundleReader::Impl& impl = *reader.m_impl;
    if (shardId < 0 || shardId >= impl.header.numShards)
        return outOfRange("shard " + std::to_string(shardId) + " does not exist in " + reader.indexPath());
    std::lock_guard lock(impl.filesMutex);
    auto& slot = impl.files[shardId];
    if (!slot) {
        const std::string path = reader.dataPath(shardId);
        auto file = storage::openRandomAccess(path);
        if (!file) {
            if (file.status().code() == StatusCode::NotFound) return notFound("missing data shard " + path);
            return file.status();
        }
        slot = std::move(*file);
    }
    return slot.get();
}

Result<uint64_t> BundleReader::dataFileSize(int32_t shardId) const {
    CKPT_ASSIGN_OR_RETURN(const storage::RandomAccessFile* file, format::shardFile(*this, shardId));
    return file->size();
}

Status format::checkSliceCoverage(const BundleReader& reader, const TensorInfo& info) {
    const int64_t n = *info.shape.numElements();
    auto notCovered = [&] {
        return dataLoss("partitioned tensor " + quoted(info.key) + " in " + reader.indexPath() +
                        " does not have sufficient slices to cover shape " + info.shape.toString());
    };
    // Bound the shape by what is stored before allocating per element:
    // every element must come from some slice, and every slice from bytes
    // in a data file (one byte at least per string element).
    const uint64_t minBytes = isFixedSize(info.dtype) ? dataTypeSize(info.dtype) : 1;
    int64_t sliceElements = 0;
    uint64_t storedBytes = 0;
    std::vector<int32_t> shards;
    for (const StoredSlice& s : info.slices) {
        CKPT_ASSIGN_OR_RETURN(const uint64_t fileSize, reader.dataFileSize(s.region.shardId));
        if (static_cast<uint64_t>(s.region.offset) > fileSize ||
            static_cast<uint64_t>(s.region.size) > fileSize - static_cast<uint64_t>(s.region.offset))
            return dataLoss("entry " + quoted(s.encodedKey) + " in " + platform::baseName(reader.dataPath(s.region.shardId)) +
                            " points past the end of the file (offset " + std::to_string(s.region.offset) + " + size " +
                            std::to_string(s.region.size) + " > " + std::to_string(fileSize) + " bytes)");
        if (std::find(shards.begin(), shards.end(), s.region.shardId) == shards.end()) {
            shards.push_back(s.region.shardId);
            storedBytes += fileSize;
        }
        if (__builtin_add_overflow(sliceElements, *s.shape.numElements(), &sliceElements)) sliceElements = INT64_MAX;
    }
    if (sliceElements < n || static_cast<uint64_t>(n) > storedBytes / minBytes) return notCovered();
    std::vector<bool> covered(static_cast<size_t>(n), false);
    for (const StoredSlice& s : info.slices)
        forEachSliceRun(info.shape, s.slice,
                        [&](int64_t first, int64_t count) { std::fill_n(covered.begin() + first, count, true); });
    if (std::find(covered.begin(), covered.end(), false) != covered.end()) return notCovered();
    return okStatus();
}

Result<std::vector<uint8_t>> BundleReader::readRegion(const StoredRegion& region, DataType dtype, int64_t numElements,
                                                      std::string_view key) const {
    std::vector<uint8_t> bytes;
    CKPT_RETURN_IF_ERROR(readRegionInto(region, dtype, numElements, key, bytes));
    return bytes;
}

Status BundleReader::readRegionInto(const StoredRegion& region, DataType dtype, int64_t numElements, std::string_view key,
                                    std::vector<uint8_t>& bytes) const {
    CKPT_ASSIGN_OR_RETURN(const storage::RandomAccessFile* file, format::shardFile(*this, region.shardId));
    const std::string what = quoted(key) + " in " + platform::baseName(file->location());
    if (static_cast<uint64_t>(region.offset) > file->size() ||
        static_cast<uint64_t>(region.size) > file->size() - static_cast<uint64_t>(region.offset))
        return dataLoss("entry " + what + " points past the end of the file (offset " + std::to_string(region.offset) +
                        " + size " + std::to_string(region.size) + " > " + std::to_string(file->size()) + " bytes)");
    bytes.resize(static_cast<size_t>(region.size));
    if (Status s = file->read(static_cast<uint64_t>(region.offset), bytes.size(), bytes.data()); !s.isOk()) {
        bytes.clear();
        return s;
    }
    if (Status s = verifyRegionChecksum(bytes, region.maskedCrc32c, dtype, numElements, what); !s.isOk()) {
        std::fill(bytes.begin(), bytes.end(), uint8_t{0});  // never leave unverified bytes behind
        return s;
    }
    return okStatus();
}

Status BundleReader::readInto(const TensorInfo& info, Tensor& out) const {
    if (info.isPartitioned() || !isFixedSize(info.dtype) || !isDecodable(info.dtype)) {
        CKPT_ASSIGN_OR_RETURN(out, read(info));
        return okStatus();
    }
    out.dtype = info.dtype;
    out.shape = info.shape;
    out.strings.clear();
    return readRegionInto(info.region, info.dtype, *info.shape.numElements(), info.key, out.bytes);
}

Result<Tensor> BundleReader::read(std::string_view key) const {
    const TensorInfo* info = find(key);
    if (!info) return notFound("no tensor " + quoted(key) + " in " + indexPath());
    return read(*info);
}

Result<Tensor> BundleReader::read(const TensorInfo& info) const {
    // Every size is bounded by the files before it is allocated; should one
    // still fail, the caller gets a Status, not an exception.
    try {
        return readBounded(info);
    } catch (const std::bad_alloc&) {
        return Status(StatusCode::ResourceExhausted, "not enough memory to read " + quoted(info.key) + " from " + indexPath() +
                                                         " (" + info.shape.toString() + " " +
                                                         std::string(dataTypeName(info.dtype)) + ")");
    } catch (const std::length_error&) {
        return dataLoss("entry " + quoted(info.key) + " in " + indexPath() + " is too large to read");
    }
}

Result<Tensor> BundleReader::read(const TensorInfo& info, const CancellationToken* cancel) const {
    return platform::runCancellable(cancel, "reading " + quoted(info.key), [&] { return read(info); });
}

Result<Tensor> BundleReader::readBounded(const TensorInfo& info) const {
    if (!isDecodable(info.dtype))
        return unimplemented("unsupported dtype " + std::string(dataTypeName(info.dtype)) + " for " + quoted(info.key) +
                             ": its values cannot be decoded");
    Tensor out;
    out.dtype = info.dtype;
    out.shape = info.shape;
    const int64_t n = *info.shape.numElements();
    if (!info.isPartitioned()) {
        CKPT_ASSIGN_OR_RETURN(auto bytes, readRegion(info.region, info.dtype, n, info.key));
        if (info.dtype == DataType::String) {
            CKPT_ASSIGN_OR_RETURN(out.strings, decodeStringRegion(bytes, n, quoted(info.key)));
        } else {
            out.bytes = std::move(bytes);
        }
        return out;
    }
    // Partitioned: check coverage first, so the full buffer is only
    // allocated for a shape the stored slices can fill; then assemble
    // element-wise, strings through an index buffer.
    CKPT_RETURN_IF_ERROR(format::checkSliceCoverage(*this, info));
    const bool isString = info.dtype == DataType::String;
    const size_t elemSize = isString ? sizeof(uint64_t) : dataTypeSize(info.dtype);
    std::vector<uint8_t> full(static_cast<size_t>(n) * elemSize);
    std::vector<std::string> pool;
    for (const StoredSlice& s : info.slices) {
        const int64_t sn = *s.shape.numElements();
        // The runs below copy as many elements as the slice covers of the
        // full shape: the entry's own shape must store exactly that many.
        if (const auto covered = format::sliceShape(s.slice, info.shape).numElements(); !covered || *covered != sn)
            return dataLoss("partitioned tensor " + quoted(info.key) + " in " + indexPath() + ": slice " + s.slice.toString() +
                            " covers " + (covered ? std::to_string(*covered) : std::string("too many")) + " elements of " +
                            info.shape.toString() + " but its entry stores " + std::to_string(sn));
        CKPT_ASSIGN_OR_RETURN(auto bytes, readRegion(s.region, info.dtype, sn, s.encodedKey));
        if (isString) {
            CKPT_ASSIGN_OR_RETURN(auto strs, decodeStringRegion(bytes, sn, quoted(info.key)));
            bytes.resize(static_cast<size_t>(sn) * sizeof(uint64_t));
            for (int64_t i = 0; i < sn; ++i) {
                const uint64_t slot = pool.size();
                std::memcpy(bytes.data() + i * sizeof(uint64_t), &slot, sizeof slot);
                pool.push_back(std::move(strs[static_cast<size_t>(i)]));
            }
        }
        if (bytes.size() != static_cast<size_t>(sn) * elemSize)
            return dataLoss("partitioned tensor " + quoted(info.key) + " in " + indexPath() + ": slice " + s.slice.toString() +
                            " stores " + std::to_string(bytes.size()) + " bytes, but " + std::to_string(sn) + " elements need " +
                            std::to_string(static_cast<size_t>(sn) * elemSize));
        const uint8_t* src = bytes.data();
        forEachSliceRun(info.shape, s.slice, [&](int64_t first, int64_t count) {
            const size_t runBytes = static_cast<size_t>(count) * elemSize;
            std::memcpy(full.data() + static_cast<size_t>(first) * elemSize, src, runBytes);
            src += runBytes;
        });
    }
    if (isString) {
        out.strings.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
            uint64_t slot = 0;
            std::memcpy(&slot, full.data() + i * sizeof(uint64_t), sizeof slot);
            out.strings[static_cast<size_t>(i)] = std::move(pool[slot]);
        }
    } else {
        out.bytes = std::move(full);
    }
    return out;
}

}  // namespace ckpt

#include "ckpt/bundle_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "format/index_table.h"
#include "format/ordered_code.h"
#include "format/region_codec.h"
#include "storage/dispatch.h"
#include "platform/crc32c.h"
#include "tensor_bundle.pb.h"

namespace ckpt {
namespace {

constexpr size_t kWriteChunk = 1u << 20;  // fits in L2 between the crc and the write

void setShape(tensorflow::TensorShapeProto* proto, const TensorShape& shape) {
    for (int64_t d : shape.dims) proto->add_dim()->set_size(d);  // size 0 stays an empty Dim
}

std::string tempSuffix() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    return ".tempstate" + std::to_string(rng());
}

bool coversWhole(const TensorSlice& slice, const TensorShape& full) {
    for (size_t d = 0; d < slice.extents.size(); ++d) {
        const SliceExtent& e = slice.extents[d];
        if (!e.isFull() && !(e.start == 0 && e.length == full.dims[d])) return false;
    }
    return true;
}

}  // namespace

struct BundleWriter::Entry {
    tensorflow::BundleEntryProto proto;
};

namespace {

// Keys the index gives another meaning (docs/format.md, "BundleHeaderProto", "Partitioned (sliced) tensors"): the
// reader would take such a tensor for the header or a slice and refuse the
// bundle, so it is refused here.
Status checkTensorKey(std::string_view key) {
    if (key.empty()) return invalidArgument("the empty key is reserved for the bundle header");
    if (key.front() == '\0')
        return invalidArgument("tensor key " + format::printableKey(key) +
                               " starts with a NUL byte, which marks slices of partitioned tensors");
    return okStatus();
}

}  // namespace

struct BundleWriter::Impl {
    std::string prefix;
    std::string dataFinal;
    std::string dataTemp;  // dataFinal when written in place
    bool inPlace = false;  // the storage has no rename: final names from the start
    std::unique_ptr<storage::WritableFile> data;
    // key -> serialized BundleEntryProto, in bytewise key order.
    std::map<std::string, std::string> entries;
    // Full entries of partitioned tensors, finished in finish().
    std::map<std::string, std::unique_ptr<Entry>> partitioned;
    bool finished = false;
};

BundleWriter::BundleWriter(std::string prefix) : m_impl(std::make_unique<Impl>()) { m_impl->prefix = std::move(prefix); }

const std::string& BundleWriter::prefix() const { return m_impl->prefix; }

BundleWriter::~BundleWriter() {
    if (!m_impl->finished) {
        m_impl->data.reset();
        (void)storage::remove(m_impl->dataTemp);
    }
}

Result<std::unique_ptr<BundleWriter>> BundleWriter::create(std::string_view prefix) { return create(prefix, {}); }

Result<std::unique_ptr<BundleWriter>> BundleWriter::create(std::string_view prefix, const BundleWriterOptions& options) {
    std::unique_ptr<BundleWriter> w(new BundleWriter(std::string(prefix)));
    Impl& impl = *w->m_impl;
    impl.dataFinal = options.dataFile.empty() ? dataFileName(prefix, 0, 1) : options.dataFile;
    impl.inPlace = !storage::capabilitiesFor(impl.dataFinal).rename;
    impl.dataTemp = impl.inPlace ? impl.dataFinal : impl.dataFinal + tempSuffix();
    storage::CreateOptions create;
    create.mode = storage::WriteMode::Direct;
    CKPT_ASSIGN_OR_RETURN(impl.data, storage::create(impl.dataTemp, create));
    return w;
}

uint64_t BundleWriter::dataBytes() const { return m_impl->data ? m_impl->data->position() : 0; }

Status BundleWriter::appendRegion(std::string_view key, DataType dtype, const TensorShape& shape, std::span<const uint8_t> region,
                                  std::string* serializedOut) {
    if (m_impl->finished || !m_impl->data) return failedPrecondition("bundle " + m_impl->prefix + " is already finished");
    const auto n = shape.numElements();
    if (!n) return invalidArgument("tensor " + format::printableKey(key) + " has an invalid shape " + shape.toString());
    if (isFixedSize(dtype) && region.size() != static_cast<size_t>(*n) * dataTypeSize(dtype))
        return invalidArgument("tensor " + format::printableKey(key) + ": " + std::to_string(region.size()) +
                               " bytes do not hold " + std::to_string(*n) + " " + std::string(dataTypeName(dtype)) + " elements");
    tensorflow::BundleEntryProto entry;
    entry.set_dtype(static_cast<tensorflow::DataType>(dtype));
    setShape(entry.mutable_shape(), shape);
    entry.set_offset(static_cast<int64_t>(m_impl->data->position()));
    entry.set_size(static_cast<int64_t>(region.size()));
    uint32_t crc = 0;
    if (isFixedSize(dtype)) {
        // docs/format.md, "Checksum of a numeric tensor": a plain crc of the stored bytes; computing it chunk by chunk
        // while writing reads each chunk once from cache instead of twice from memory.
        uint32_t raw = 0;
        for (size_t off = 0; off < region.size(); off += kWriteChunk) {
            const size_t len = std::min(kWriteChunk, region.size() - off);
            raw = platform::crc32cExtend(raw, region.data() + off, len);
            CKPT_RETURN_IF_ERROR(m_impl->data->append(region.data() + off, len));
        }
        crc = platform::crc32cMask(raw);
    } else {
        CKPT_ASSIGN_OR_RETURN(crc, regionChecksum(region, dtype, *n, format::printableKey(key)));
        CKPT_RETURN_IF_ERROR(m_impl->data->append(region.data(), region.size()));
    }
    entry.set_crc32c(crc);
    entry.SerializeToString(serializedOut);
    return okStatus();
}

Status BundleWriter::addEncoded(std::string_view key, DataType dtype, const TensorShape& shape, std::span<const uint8_t> region) {
    CKPT_RETURN_IF_ERROR(checkTensorKey(key));
    std::string k(key);
    if (m_impl->entries.count(k) || m_impl->partitioned.count(k))
        return {StatusCode::AlreadyExists, "duplicate tensor " + format::printableKey(key) + " in bundle " + m_impl->prefix};
    std::string serialized;
    CKPT_RETURN_IF_ERROR(appendRegion(key, dtype, shape, region, &serialized));
    m_impl->entries.emplace(std::move(k), std::move(serialized));
    return okStatus();
}

Status BundleWriter::add(std::string_view key, const Tensor& value) {
    if (value.dtype == DataType::String) {
        const std::vector<uint8_t> region = encodeTensorRegion(value);
        return addEncoded(key, value.dtype, value.shape, region);
    }
    return addEncoded(key, value.dtype, value.shape, value.bytes);
}

Status BundleWriter::addSlice(std::string_view fullKey, const TensorShape& fullShape, const TensorSlice& slice,
                              const Tensor& sliceValue) {
    if (static_cast<int>(slice.extents.size()) != fullShape.rank())
        return invalidArgument("slice " + slice.toString() + " does not match the rank of " + fullShape.toString());
    CKPT_RETURN_IF_ERROR(checkTensorKey(fullKey));
    if (coversWhole(slice, fullShape)) return add(fullKey, sliceValue);
    std::string k(fullKey);
    if (m_impl->entries.count(k))
        return {StatusCode::AlreadyExists, "tensor " + format::printableKey(fullKey) + " is both whole and sliced"};
    auto& full = m_impl->partitioned[k];
    if (!full) {
        full = std::make_unique<Entry>();
        full->proto.set_dtype(static_cast<tensorflow::DataType>(sliceValue.dtype));
        setShape(full->proto.mutable_shape(), fullShape);
    } else if (full->proto.dtype() != static_cast<int>(sliceValue.dtype)) {
        return invalidArgument("slices of " + format::printableKey(fullKey) + " have different dtypes");
    }
    const std::string sliceKey = format::encodeSliceKey(fullKey, slice);
    if (m_impl->entries.count(sliceKey))
        return {StatusCode::AlreadyExists, "duplicate slice " + slice.toString() + " of " + format::printableKey(fullKey)};
    std::string serialized;
    const std::vector<uint8_t> region = encodeTensorRegion(sliceValue);
    CKPT_RETURN_IF_ERROR(appendRegion(fullKey, sliceValue.dtype, sliceValue.shape, region, &serialized));
    m_impl->entries.emplace(sliceKey, std::move(serialized));
    auto* sp = full->proto.add_slices();
    for (const SliceExtent& e : slice.extents) {
        auto* ext = sp->add_extent();
        if (!e.isFull()) {
            ext->set_start(e.start);
            ext->set_length(e.length);
        }
    }
    return okStatus();
}

Status BundleWriter::finish() {
    if (m_impl->finished) return failedPrecondition("bundle " + m_impl->prefix + " is already finished");
    for (auto& [key, full] : m_impl->partitioned) full->proto.SerializeToString(&m_impl->entries[key]);
    CKPT_RETURN_IF_ERROR(m_impl->data->close());
    const std::string indexFinal = indexFileName(m_impl->prefix);
    const std::string indexTemp = m_impl->inPlace ? indexFinal : indexFinal + tempSuffix();
    {
        CKPT_ASSIGN_OR_RETURN(auto index, format::IndexTableWriter::create(indexTemp));
        tensorflow::BundleHeaderProto header;
        header.set_num_shards(1);
        header.mutable_version()->set_producer(1);  // TF's bundle format version
        std::string headerBytes;
        header.SerializeToString(&headerBytes);
        Status s = index->add("", headerBytes);
        for (auto it = m_impl->entries.begin(); s.isOk() && it != m_impl->entries.end(); ++it)
            s = index->add(it->first, it->second);
        if (s.isOk()) s = index->finish();
        if (!s.isOk()) {
            index.reset();
            (void)storage::remove(indexTemp);
            return s;
        }
    }
    if (!m_impl->inPlace) {
        Status s = storage::rename(m_impl->dataTemp, m_impl->dataFinal);
        if (s.isOk()) s = storage::rename(indexTemp, indexFinal);
        if (!s.isOk()) {
            (void)storage::remove(indexTemp);
            return s;
        }
    }
    m_impl->finished = true;
    return okStatus();
}

}  // namespace ckpt

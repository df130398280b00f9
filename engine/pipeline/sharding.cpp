// Sharding policies (docs/format.md, "Sharding policies").

#include <algorithm>
#include <cstring>

#include "ckpt/object_graph.h"
#include "ckpt/save.h"

namespace ckpt {
namespace {

struct SizeInfo {
    int64_t bytes = 0;
    int64_t elementBytes = 0;  // per element; the longest element for strings
};

// docs/format.md, "MaxShardSizePolicy": strings count their characters only; the graph and variants count 0.
SizeInfo sizeOf(const SaveTensor& t) {
    if (t.key == kObjectGraphKey || t.data().dtype == DataType::Variant) return {};
    if (t.data().dtype == DataType::String) {
        SizeInfo s;
        for (const std::string& e : t.data().strings) {
            s.bytes += static_cast<int64_t>(e.size());
            s.elementBytes = std::max<int64_t>(s.elementBytes, static_cast<int64_t>(e.size()));
        }
        return s;
    }
    const int64_t es = static_cast<int64_t>(dataTypeSize(t.data().dtype));
    return {t.data().numElements() * es, es};
}

// Elements [start, start+length) along 'axis' with full extents elsewhere.
Tensor cutAlongAxis(const Tensor& full, int axis, int64_t start, int64_t length) {
    const auto& dims = full.shape.dims;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= dims[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
    const int64_t dim = dims[static_cast<size_t>(axis)];
    Tensor out;
    out.dtype = full.dtype;
    out.shape = full.shape;
    out.shape.dims[static_cast<size_t>(axis)] = length;
    if (full.dtype == DataType::String) {
        out.strings.reserve(static_cast<size_t>(outer * length * inner));
        for (int64_t o = 0; o < outer; ++o) {
            auto first = full.strings.begin() + (o * dim + start) * inner;
            out.strings.insert(out.strings.end(), first, first + length * inner);
        }
        return out;
    }
    const size_t es = dataTypeSize(full.dtype);
    const size_t run = static_cast<size_t>(length * inner) * es;
    out.bytes.resize(static_cast<size_t>(outer) * run);
    for (int64_t o = 0; o < outer; ++o)
        std::memcpy(out.bytes.data() + static_cast<size_t>(o) * run,
                    full.bytes.data() + static_cast<size_t>((o * dim + start) * inner) * es, run);
    return out;
}

SaveTensor piece(const SaveTensor& t, int axis, int64_t start, int64_t length) {
    SaveTensor p;
    p.key = t.key;
    p.device = t.device;
    p.fullShape = t.data().shape;
    if (t.source) {
        // Streamed values are cut along their first axis only (see
        // shard()): a piece is one range of the source's bytes.
        const int64_t rowBytes = t.data().numElements() / std::max<int64_t>(t.data().shape.dims[0], 1) *
                                 static_cast<int64_t>(dataTypeSize(t.data().dtype));
        p.value.dtype = t.data().dtype;
        p.value.shape = t.data().shape;
        p.value.shape.dims[0] = length;
        p.source = t.source;
        p.sourceOffset = t.sourceOffset + static_cast<uint64_t>(start * rowBytes);
    } else {
        p.value = cutAlongAxis(t.data(), axis, start, length);
    }
    TensorSlice s;
    for (int d = 0; d < t.data().shape.rank(); ++d)
        s.extents.push_back(d == axis ? SliceExtent{start, length} : SliceExtent{0, -1});
    p.slice = std::move(s);
    return p;
}

// Whether TensorFlow can read a tensor written in slices: its bundle reader
// assembles slices only of these types and answers "Dtype half not
// supported" for the others (strings, half, uint16/32/64, qint16, quint16,
// float8, ...; checked with TensorFlow 2.20 by tests/interop/parity_cases.py).
// Tensors of other types are always written whole.
bool tensorFlowReadsSlices(DataType t) {
    switch (t) {
    case DataType::Float:
    case DataType::Double:
    case DataType::BFloat16:
    case DataType::Int8:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64:
    case DataType::UInt8:
    case DataType::Bool:
    case DataType::Complex64:
    case DataType::Complex128:
    case DataType::QInt8:
    case DataType::QUInt8:
    case DataType::QInt32: return true;
    default: return false;
    }
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

Result<std::vector<std::vector<SaveTensor>>> ShardByTaskPolicy::shard(std::vector<SaveTensor> tensors) const {
    std::vector<std::vector<SaveTensor>> out;
    out.push_back(std::move(tensors));
    return out;
}

Result<std::vector<std::vector<SaveTensor>>> FixedShardCountPolicy::shard(std::vector<SaveTensor> tensors) const {
    if (m_shards < 1) return invalidArgument("the shard count must be at least 1, not " + std::to_string(m_shards));
    std::vector<std::vector<SaveTensor>> out(static_cast<size_t>(m_shards));
    std::vector<int64_t> load(out.size(), 0);
    // Largest first onto the least-loaded shard, then restore the input order inside each shard.
    std::vector<size_t> order(tensors.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return sizeOf(tensors[a]).bytes > sizeOf(tensors[b]).bytes; });
    std::vector<size_t> target(tensors.size());
    for (size_t i : order) {
        const size_t s = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        target[i] = s;
        load[s] += std::max<int64_t>(sizeOf(tensors[i]).bytes, 1);
    }
    for (size_t i = 0; i < tensors.size(); ++i) out[target[i]].push_back(std::move(tensors[i]));
    std::erase_if(out, [](const auto& s) { return s.empty(); });
    return out;
}

Result<std::vector<std::vector<SaveTensor>>> MaxShardSizePolicy::shard(std::vector<SaveTensor> tensors) const {
    if (m_max < 1) return invalidArgument("max shard size must be positive, not " + std::to_string(m_max));
    std::vector<std::vector<SaveTensor>> regular(1), oversized;
    int64_t remaining = m_max;
    auto newShard = [&] {
        if (!regular.back().empty()) regular.emplace_back();
        remaining = m_max;
    };
    for (SaveTensor& t : tensors) {
        const SizeInfo size = sizeOf(t);
        if (t.slice) return invalidArgument("tensor \"" + t.key + "\" is already a slice; reshard whole tensors");
        if (t.data().shape.rank() == 0 || size.bytes == 0 || !tensorFlowReadsSlices(t.data().dtype)) {
            // Whole: alone in a shard of its own when it is over the limit.
            if (size.bytes > m_max) {
                oversized.push_back({});
                oversized.back().push_back(std::move(t));
                continue;
            }
            if (size.bytes > remaining) newShard();
            remaining -= size.bytes;
            regular.back().push_back(std::move(t));
            continue;
        }
        // The axis is chosen when the first cut is needed and kept for the
        // rest of the tensor, so every piece stays a hyper-rectangle.
        int axis = -1;
        int64_t offset = 0;
        const auto& dims = t.data().shape.dims;
        auto unplacedBytes = [&] {
            const int a = axis < 0 ? 0 : axis;
            return size.bytes / dims[static_cast<size_t>(a)] * (dims[static_cast<size_t>(a)] - offset);
        };
        while (unplacedBytes() > remaining) {
            const int64_t total = t.data().numElements();
            int64_t partLen = 0;
            auto partsFor = [&](int a, int64_t& lenOut) {
                const int64_t sliceBytes = total / dims[static_cast<size_t>(a)] * size.elementBytes;
                const int64_t perShard = sliceBytes > 0 ? remaining / sliceBytes : 0;
                const int64_t left = dims[static_cast<size_t>(a)] - (a == axis ? offset : 0);
                if (perShard == 0) {
                    lenOut = 0;
                    return INT64_MAX;
                }
                const int64_t parts = ceilDiv(left, perShard);
                lenOut = ceilDiv(left, parts);
                return parts;
            };
            if (axis < 0) {
                int best = 0;
                int64_t bestLen = 0;
                int64_t bestParts = partsFor(0, bestLen);
                // A streamed value (SaveTensor::source) is cut along its first
                // axis only, so every piece is one contiguous range of it.
                for (int a = 1; a < (t.source ? 1 : t.data().shape.rank()); ++a) {
                    int64_t len = 0;
                    const int64_t parts = partsFor(a, len);
                    if (parts < bestParts && len > 0) {
                        best = a;
                        bestParts = parts;
                        bestLen = len;
                    }
                }
                partLen = bestLen;
                if (partLen > 0) axis = best;
            } else {
                partsFor(axis, partLen);
            }
            if (partLen == 0) {
                if (regular.back().empty()) {
                    // Not even one hyper-slice fits an empty shard: it goes alone, oversized.
                    if (axis < 0) axis = 0;
                    oversized.push_back({});
                    oversized.back().push_back(piece(t, axis, offset, 1));
                    offset += 1;
                    if (offset >= dims[static_cast<size_t>(axis)]) break;
                    continue;
                }
                newShard();
                continue;
            }
            const int64_t bytes = size.bytes / dims[static_cast<size_t>(axis)] * partLen;
            regular.back().push_back(piece(t, axis, offset, partLen));
            remaining -= bytes;
            offset += partLen;
            if (remaining == 0) newShard();
        }
        if (axis < 0) {
            remaining -= size.bytes;
            regular.back().push_back(std::move(t));
        } else if (offset < dims[static_cast<size_t>(axis)]) {
            remaining -= unplacedBytes();
            regular.back().push_back(piece(t, axis, offset, dims[static_cast<size_t>(axis)] - offset));
        }
    }
    std::vector<std::vector<SaveTensor>> out;
    for (auto& s : regular)
        if (!s.empty()) out.push_back(std::move(s));
    for (auto& s : oversized) out.push_back(std::move(s));
    return out;
}

}  // namespace ckpt

// _ckpt.Reader: one open checkpoint (ckpt/checkpoint.h) for ckpt.Checkpoint.
// Values come back as numpy arrays whose memory is the buffer the engine
// read into: allocated here, filled by BundleReader::readTensorsInto
// (checksummed on the way), and handed to numpy with a capsule that frees
// it. No second copy is ever made.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "bindings.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/convert.h"
#include "ckpt/display_tree.h"
#include "engine_call.h"
#include "python_errors.h"
#include "python_text.h"

namespace nb = nanobind;

namespace ckpt::python {
namespace {

// Reads above this go through runCancellable (a worker thread, Ctrl-C);
// smaller ones are quicker than starting the thread.
constexpr int64_t kCancellableBytes = 16 << 20;
// Buffers are aligned for any element type and for vector loads.
constexpr size_t kBufferAlignment = 64;
constexpr size_t kHugePageBytes = 2u << 20;  // x86-64's transparent huge page

// A numpy dtype the buffer maps to directly, or the unsigned integer of
// the element's size for types numpy lacks (bfloat16, float8, int4, ...),
// which Python views through ml_dtypes (ckpt/_dtypes.py).
nb::dlpack::dtype storageDtype(DataType type) {
    using nb::dlpack::dtype_code;
    auto make = [](dtype_code code, int bits) {
        nb::dlpack::dtype d;
        d.code = static_cast<uint8_t>(code);
        d.bits = static_cast<uint8_t>(bits);
        d.lanes = 1;
        return d;
    };
    switch (type) {
    case DataType::Float: return make(dtype_code::Float, 32);
    case DataType::Double: return make(dtype_code::Float, 64);
    case DataType::Half: return make(dtype_code::Float, 16);
    case DataType::Complex64: return make(dtype_code::Complex, 64);
    case DataType::Complex128: return make(dtype_code::Complex, 128);
    case DataType::Bool: return make(dtype_code::Bool, 8);
    case DataType::Int8:
    case DataType::QInt8: return make(dtype_code::Int, 8);
    case DataType::Int16:
    case DataType::QInt16: return make(dtype_code::Int, 16);
    case DataType::Int32:
    case DataType::QInt32: return make(dtype_code::Int, 32);
    case DataType::Int64: return make(dtype_code::Int, 64);
    case DataType::UInt8:
    case DataType::QUInt8: return make(dtype_code::UInt, 8);
    case DataType::UInt16:
    case DataType::QUInt16: return make(dtype_code::UInt, 16);
    case DataType::UInt32: return make(dtype_code::UInt, 32);
    case DataType::UInt64: return make(dtype_code::UInt, 64);
    default: return make(dtype_code::UInt, static_cast<int>(8 * dataTypeSize(type)));
    }
}

// Memory for one tensor's values; freed by the numpy array's capsule, or
// here when no array was made.
struct Buffer {
    uint8_t* data = nullptr;
    size_t size = 0;
};

size_t roundUp(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

Buffer allocate(size_t size) {
    // aligned_alloc wants a multiple of the alignment; never 0 bytes.
    size_t alignment = kBufferAlignment;
    size_t rounded = roundUp(std::max<size_t>(size, 1), kBufferAlignment);
    // Large buffers in 2 MiB pages where the kernel offers them on request
    // (transparent huge pages in "madvise" mode, Debian's default): filling
    // 1 GiB of fresh memory then takes 512 page faults instead of 262,144,
    // and the faults are most of a warm read's cost. Only where rounding up
    // to whole huge pages wastes under 1/16 of the buffer.
    const size_t huge = roundUp(size, kHugePageBytes);
    if (size >= kHugePageBytes && huge - size <= size / 16) {
        alignment = kHugePageBytes;
        rounded = huge;
    }
    // Uninitialised on purpose: the engine writes every byte (or zeroes
    // them on failure), and large blocks come as fresh pages from mmap.
    auto* data = static_cast<uint8_t*>(std::aligned_alloc(alignment, rounded));
    if (!data) throw std::bad_alloc();
    if (alignment == kHugePageBytes) (void)madvise(data, rounded, MADV_HUGEPAGE);  // a hint: failure is harmless
    return {data, size};
}

// The array over 'buffer' in 'shape', owning it from now on.
nb::object arrayOwning(Buffer buffer, const TensorShape& shape, DataType type) {
    nb::capsule owner(buffer.data, [](void* p) noexcept { std::free(p); });
    std::vector<size_t> dims(shape.dims.begin(), shape.dims.end());
    nb::ndarray<nb::numpy> array(buffer.data, dims.size(), dims.data(), owner, nullptr, storageDtype(type));
    return nb::cast(array, nb::rv_policy::reference);
}

class Reader {
public:
    Reader(ResolvedCheckpoint resolved, std::shared_ptr<const BundleReader> bundle)
        : m_resolved(std::move(resolved)), m_bundle(std::move(bundle)) {}

    // Opens the index only: listing and reading need nothing more, and
    // decoding a large object graph costs several times the index (about
    // 300 ms against 70 ms CPU for 100,000 variables). The graph is decoded
    // when names or the tree are first asked for (withGraph).
    static Reader open(const std::string& path) {
        auto opened = runReleased([&]() -> Result<std::pair<ResolvedCheckpoint, std::unique_ptr<BundleReader>>> {
            CKPT_ASSIGN_OR_RETURN(ResolvedCheckpoint resolved, resolveCheckpoint(path));
            CKPT_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> bundle, BundleReader::open(resolved.prefix));
            return std::make_pair(std::move(resolved), std::move(bundle));
        });
        auto [resolved, bundle] = valueOrThrow(std::move(opened));
        return Reader(std::move(resolved), std::move(bundle));
    }

    void close() {
        m_bundle.reset();
        m_checkpoint.reset();
    }
    bool closed() const { return !m_bundle; }

    const BundleReader& bundle() const { return *hold(); }
    // A reference that keeps the bundle alive while the GIL is released:
    // another thread may close() it meanwhile.
    std::shared_ptr<const BundleReader> hold() const {
        if (!m_bundle) raise(StatusCode::FailedPrecondition, "the checkpoint is closed");
        return m_bundle;
    }
    const ResolvedCheckpoint& resolved() const { return m_resolved; }

    // The checkpoint with its object graph, decoded on first use (its
    // errors are raised then). Reads go through its bundle from then on, so
    // tensor indices and names refer to one decoded index.
    const Checkpoint& withGraph() {
        hold();
        if (!m_checkpoint) {
            auto opened = runReleased([&] { return Checkpoint::open(m_resolved.prefix); });
            std::shared_ptr<const Checkpoint> checkpoint = valueOrThrow(std::move(opened));
            // The GIL was released: another thread may have closed the
            // reader, or decoded the graph first (keep that one).
            hold();
            if (!m_checkpoint) {
                if (checkpoint->bundle().tensors().size() != m_bundle->tensors().size())
                    raise(StatusCode::FailedPrecondition,
                          "the checkpoint " + m_resolved.prefix + " changed on disk since it was opened; open it again");
                m_checkpoint = std::move(checkpoint);
                m_bundle = std::shared_ptr<const BundleReader>(m_checkpoint, &m_checkpoint->bundle());
            }
        }
        return *m_checkpoint;
    }

    const std::vector<TensorInfo>& tensors() const { return bundle().tensors(); }
    const TensorInfo& tensor(int64_t index) const {
        const auto& all = tensors();
        if (index < 0 || static_cast<size_t>(index) >= all.size())
            raise(StatusCode::OutOfRange, "tensor index " + std::to_string(index) + " is out of range");
        return all[static_cast<size_t>(index)];
    }

    nb::list keys() const {
        nb::list out;
        for (const TensorInfo& t : tensors()) out.append(toPython(t.key));
        return out;
    }

    // (names, indices, optimizer flags) of namedTensors, in key order.
    nb::tuple names() {
        const Checkpoint& checkpoint = withGraph();
        const auto& all = tensors();
        nb::list names, indices, optimizer;
        for (const NamedTensor& n : namedTensors(checkpoint)) {
            names.append(toPython(n.name));
            indices.append(n.info - all.data());
            optimizer.append(n.optimizerState);
        }
        return nb::make_tuple(names, indices, optimizer);
    }

    // The index of a raw key, or -1.
    int64_t find(nb::handle key) const {
        const TensorInfo* t = bundle().find(fromPython(key));
        return t ? t - tensors().data() : -1;
    }

    // (key, dtype short name, DT_ name, shape, stored bytes, masked crc32c,
    // shard id, offset, slices)
    nb::tuple info(int64_t index) const {
        const TensorInfo& t = tensor(index);
        nb::list shape;
        for (int64_t d : t.shape.dims) shape.append(d);
        nb::list slices;
        for (const StoredSlice& s : t.slices)
            slices.append(
                nb::make_tuple(s.slice.toString(), s.region.shardId, s.region.offset, s.region.size, s.region.maskedCrc32c));
        return nb::make_tuple(toPython(t.key), dataTypeShortName(t.dtype), dataTypeName(t.dtype), nb::tuple(shape),
                              t.storedBytes(), t.region.maskedCrc32c, t.region.shardId, t.region.offset, slices);
    }

    // One tensor's value: an array (numpy dtype or its storage type) or,
    // for strings, a list of bytes.
    nb::object read(int64_t index) {
        nb::list one;
        one.append(index);
        return readMany(one, nb::none(), 0)[0];
    }

    nb::list readMany(const nb::list& indices, nb::object progress, int threads) {
        const std::shared_ptr<const BundleReader> held = hold();
        const BundleReader& bundle = *held;
        std::vector<const TensorInfo*> infos;
        for (nb::handle h : indices) infos.push_back(&tensor(nb::cast<int64_t>(h)));
        // Fixed-size values into fresh buffers in one parallel, checksummed
        // pass; everything else through read() one at a time.
        std::vector<TensorReadTarget> targets;
        std::vector<Buffer> buffers(infos.size());
        std::vector<size_t> targetOf;
        int64_t bytes = 0;
        struct Freer {
            std::vector<Buffer>& buffers;
            ~Freer() {
                for (Buffer& b : buffers) std::free(b.data);
            }
        } freer{buffers};
        for (size_t i = 0; i < infos.size(); ++i) {
            const TensorInfo& t = *infos[i];
            if (!isFixedSize(t.dtype) || !isDecodable(t.dtype)) continue;
            buffers[i] = allocate(static_cast<size_t>(t.storedBytes()));
            targets.push_back({&t, {buffers[i].data, buffers[i].size}});
            targetOf.push_back(i);
            bytes += t.storedBytes();
        }
        ReadIntoOptions options;
        options.threads = threads;
        std::vector<Status> statuses;
        if (bytes >= kCancellableBytes || !progress.is_none()) {
            statuses = runCancellable<std::vector<Status>>(
                [&](const CallContext& call) {
                    ReadIntoOptions o = options;
                    o.cancel = call.cancel;
                    o.progress = call.progress;
                    auto r = bundle.readTensorsInto(targets, o);
                    return r.ok() ? std::move(r).value() : std::vector<Status>{r.status()};
                },
                progress);
            if (statuses.size() == 1 && targets.size() != 1) throwIfError(statuses.front());
        } else {
            auto r = runReleased([&] { return bundle.readTensorsInto(targets, options); });
            statuses = valueOrThrow(std::move(r));
        }
        for (const Status& s : statuses) throwIfError(s);

        nb::list out;
        size_t next = 0;
        for (size_t i = 0; i < infos.size(); ++i) {
            const TensorInfo& t = *infos[i];
            if (next < targetOf.size() && targetOf[next] == i) {
                ++next;
                Buffer b = buffers[i];
                buffers[i] = {};
                out.append(arrayOwning(b, t.shape, t.dtype));
                continue;
            }
            auto value = runReleased([&] { return bundle.read(t); });
            Tensor tensor = valueOrThrow(std::move(value));
            nb::list strings;
            for (const std::string& s : tensor.strings) strings.append(nb::bytes(s.data(), s.size()));
            out.append(strings);
        }
        return out;
    }

    nb::object readRows(int64_t index, int64_t begin, int64_t end) {
        const TensorInfo& t = tensor(index);
        const int64_t rows = t.shape.rank() > 0 ? t.shape.dims[0] : 0;
        const int64_t rowBytes = rows > 0 ? t.storedBytes() / rows : 0;
        const int64_t count = std::max<int64_t>(0, end - begin);
        Buffer b = allocate(static_cast<size_t>(count * rowBytes));
        const std::shared_ptr<const BundleReader> held = hold();
        Status s = runReleased([&] { return held->readRowsInto(t, begin, end, {b.data, b.size}); });
        if (!s.isOk()) {
            std::free(b.data);
            throwIfError(s);
        }
        TensorShape shape = t.shape;
        shape.dims[0] = count;
        return arrayOwning(b, shape, t.dtype);
    }

    // The number after the prefix's last '-', the stored step, and where
    // it came from (ckpt/checkpoint_step.h).
    nb::tuple step() const {
        const CheckpointStep s = checkpointStep(bundle().prefix(), &bundle());
        auto opt = [](const std::optional<int64_t>& v) { return v ? nb::object(nb::int_(*v)) : nb::none(); };
        return nb::make_tuple(opt(s.number), opt(s.step), s.source.empty() ? nb::none() : nb::object(toPython(s.source)));
    }

    // The display tree (ckpt/display_tree.h) as nested tuples:
    // (kind, name, path, key or None, children).
    nb::object tree() {
        const DisplayTree tree = buildDisplayTree(withGraph());
        std::vector<nb::list> children(tree.entries.size());
        std::vector<nb::object> built(tree.entries.size());
        // Entries are in pre-order: build children before parents by
        // walking backwards (no recursion, whatever the depth).
        for (size_t i = tree.entries.size(); i-- > 0;) {
            const DisplayEntry& e = tree.entries[i];
            nb::list kids;
            for (int32_t c : e.children) kids.append(built[static_cast<size_t>(c)]);
            nb::object key = e.tensor ? nb::object(toPython(e.tensor->key)) : nb::none();
            built[i] = nb::make_tuple(displayKindName(e.kind), toPython(e.name), toPython(e.path), key, kids);
            for (int32_t c : e.children) built[static_cast<size_t>(c)] = nb::object();
        }
        return built.empty() ? nb::none() : built[0];
    }

private:
    static const char* displayKindName(DisplayKind kind) {
        switch (kind) {
        case DisplayKind::Root: return "root";
        case DisplayKind::Object: return "object";
        case DisplayKind::Variable: return "variable";
        case DisplayKind::ReplicatedVariable: return "replicated_variable";
        case DisplayKind::SlotVariable: return "slot";
        case DisplayKind::Optimizer: return "optimizer";
        case DisplayKind::Attribute: return "attribute";
        case DisplayKind::Alias: return "alias";
        case DisplayKind::KeyGroup: return "key_group";
        case DisplayKind::Key: return "key";
        }
        return "object";
    }

    ResolvedCheckpoint m_resolved;
    std::shared_ptr<const BundleReader> m_bundle;    // null once closed
    std::shared_ptr<const Checkpoint> m_checkpoint;  // with the graph, once decoded
};

}  // namespace

void bindReader(nb::module_& m) {
    nb::class_<Reader>(m, "Reader", "An open checkpoint; ckpt.Checkpoint wraps it (use ckpt.open).")
        .def_static("open", &Reader::open, nb::arg("path"),
                    "Opens a prefix, a .index file, a directory (its latest) or a SavedModel.")
        .def("close", &Reader::close, "Releases the index and the open data files.")
        .def_prop_ro("closed", &Reader::closed)
        .def_prop_ro("prefix", [](const Reader& r) { return toPython(r.bundle().prefix()); })
        .def_prop_ro("resolved_by", [](const Reader& r) { return r.resolved().how; })
        .def_prop_ro("object_based", [](const Reader& r) { return r.bundle().isObjectBased(); })
        .def_prop_ro("size", [](const Reader& r) { return r.tensors().size(); })
        .def("keys", &Reader::keys, "Every checkpoint key, sorted.")
        .def("names", &Reader::names, "(names, tensor indices, optimizer-state flags) as ckpt export names arrays.")
        .def("find", &Reader::find, nb::arg("key"), "The index of a checkpoint key, or -1.")
        .def("info", &Reader::info, nb::arg("index"),
             "(key, dtype, DT_ name, shape, stored bytes, masked crc32c, shard id, offset, slices) of one tensor.")
        .def("read", &Reader::read, nb::arg("index"),
             "One value, checksum verified: an array owning the engine's buffer, or a list of bytes for strings.")
        .def("read_many", &Reader::readMany, nb::arg("indices"), nb::arg("progress") = nb::none(), nb::arg("threads") = 0,
             "Several values in one checksummed pass (parallel parts for large ones); Ctrl-C cancels.")
        .def("read_rows", &Reader::readRows, nb::arg("index"), nb::arg("begin"), nb::arg("end"),
             "Rows [begin, end) of the outermost dimension, reading only their bytes (bounds-checked, not checksummed).")
        .def("step", &Reader::step, "(number, stored step, where it came from), each possibly None.")
        .def("tree", &Reader::tree, "The display tree as nested (kind, name, path, key, children) tuples.");
}

}  // namespace ckpt::python

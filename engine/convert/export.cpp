// exportCheckpoint: the plan (export_plan.h) written as safetensors or npz
// into a temp file, read back and compared with the source bit for bit,
// then renamed into place (output_file.h).

#include "ckpt/convert.h"

#include <chrono>
#include <cstring>
#include <future>

#include <nlohmann/json.hpp>

#include "ckpt/checkpoint.h"
#include "ckpt/destination.h"
#include "ckpt/npy.h"
#include "convert/export_plan.h"
#include "convert/npz.h"
#include "convert/output_file.h"
#include "convert/safetensors.h"
#include "storage/dispatch.h"
#include "platform/cancellation_scope.h"
#include "platform/file.h"
#include "format/bundle_reader_access.h"

namespace ckpt {

std::string_view arrayFormatName(ArrayFormat format) { return format == ArrayFormat::Npz ? "npz" : "safetensors"; }

std::optional<ArrayFormat> arrayFormatFromPath(std::string_view path) {
    auto endsWith = [&](std::string_view s) { return path.size() >= s.size() && path.substr(path.size() - s.size()) == s; };
    if (endsWith(".safetensors")) return ArrayFormat::Safetensors;
    if (endsWith(".npz")) return ArrayFormat::Npz;
    return std::nullopt;
}

namespace convert {
namespace {

struct Progress {
    const ExportOptions& options;
    int64_t total = 0;
    int64_t done = 0;
    void add(uint64_t n, std::string_view phase) {
        done += static_cast<int64_t>(n);
        if (options.progress) options.progress(done, total, phase);
    }
    Status checkCancel() const {
        return options.cancel && options.cancel->isCancelled() ? cancelled("export cancelled") : okStatus();
    }
};

// Checked reads of the planned tensors in order, one tensor ahead on
// another thread: the next value is read (and checked against its crc32c)
// while the current one is written or compared. Small tensors are read in
// place, where a thread would cost more than it saves.
class SourceStream {
public:
    SourceStream(const BundleReader& reader, const std::vector<PlannedArray>& arrays) : m_reader(reader), m_arrays(arrays) {}
    ~SourceStream() {
        if (m_pending.valid()) m_pending.wait();
    }
    SourceStream(const SourceStream&) = delete;
    SourceStream& operator=(const SourceStream&) = delete;

    // The value of the next array; valid until the call after the next one.
    Result<const Tensor*> next() {
        const size_t i = m_next++;
        Tensor& value = m_buffers[i % 2];
        Status st = m_pending.valid() ? m_pending.get() : m_reader.readInto(*m_arrays[i].info, value);
        if (!st.isOk()) return st;
        if (m_next < m_arrays.size() && m_arrays[m_next].info->storedBytes() >= kPrefetchBytes) {
            Tensor* ahead = &m_buffers[m_next % 2];
            const TensorInfo* info = m_arrays[m_next].info;
            m_pending = std::async(std::launch::async, [this, info, ahead] { return m_reader.readInto(*info, *ahead); });
        }
        return &value;
    }

private:
    static constexpr int64_t kPrefetchBytes = 256 << 10;
    const BundleReader& m_reader;
    const std::vector<PlannedArray>& m_arrays;
    Tensor m_buffers[2];
    size_t m_next = 0;
    std::future<Status> m_pending;  // the read of m_arrays[m_next] when set
};

// The bit-exact check of one array: the bytes the output holds against the
// source's. An ordinary tensor's stored region is compared in place, mapped
// (its bytes passed the crc32c check when they were read for writing; equal
// bytes need no second checksum); a partitioned one, or where nothing can
// be mapped, is read again through the checked path into 'scratch'.
Status compareWritten(const BundleReader& reader, const PlannedArray& a, const uint8_t* written, size_t n,
                      const std::string& output, Tensor& scratch) {
    const auto differs = [&] {
        return dataLoss("the value of \"" + a.name + "\" read back from " + output + " differs from \"" + a.info->key + "\" in " +
                        reader.prefix());
    };
    if (n == 0) return a.info->storedBytes() == 0 ? okStatus() : differs();
    if (!a.info->isPartitioned()) {
        if (static_cast<uint64_t>(a.info->region.size) != n) return differs();
        auto file = format::shardFile(reader, a.info->region.shardId);
        if (file.ok()) {
            auto view = (*file)->map(static_cast<uint64_t>(a.info->region.offset), n);
            if (view.ok()) return std::memcmp(view->data(), written, n) == 0 ? okStatus() : differs();
        }
    }
    CKPT_RETURN_IF_ERROR(reader.readInto(*a.info, scratch));
    return scratch.bytes.size() == n && std::memcmp(scratch.bytes.data(), written, n) == 0 ? okStatus() : differs();
}

Status writeSafetensors(const BundleReader& reader, const ExportPlan& plan, const std::string& temp, const std::string& output,
                        Progress& progress) {
    std::vector<SafetensorsEntry> entries;
    entries.reserve(plan.arrays.size());
    for (const PlannedArray& a : plan.arrays) entries.push_back({a.name, a.info->dtype, a.info->shape, 0, 0});
    CKPT_ASSIGN_OR_RETURN(std::string header, encodeSafetensorsHeader(entries, plan.metadata));
    {
        // Through the page cache: the check below reads it all back at once.
        CKPT_ASSIGN_OR_RETURN(auto file, storage::create(temp));
        CKPT_RETURN_IF_ERROR(file->append(header));
        SourceStream source(reader, plan.arrays);
        for (size_t i = 0; i < plan.arrays.size(); ++i) {
            CKPT_RETURN_IF_ERROR(progress.checkCancel());
            CKPT_ASSIGN_OR_RETURN(const Tensor* value, source.next());
            CKPT_RETURN_IF_ERROR(file->append(value->bytes.data(), value->bytes.size()));
            progress.add(value->bytes.size(), "write");
        }
        CKPT_RETURN_IF_ERROR(file->close());
    }
    // Read back through our own parser: the header must say what we meant.
    CKPT_ASSIGN_OR_RETURN(auto in, storage::openRandomAccess(temp));
    std::string head(header.size(), '\0');
    CKPT_RETURN_IF_ERROR(in->read(0, head.size(), head.data()));
    CKPT_ASSIGN_OR_RETURN(SafetensorsHeader parsed, parseSafetensorsHeader(head, in->size(), output));
    if (parsed.entries.size() != plan.arrays.size() || parsed.metadata != plan.metadata)
        return dataLoss("the header read back from " + output + " differs from the one written");
    std::map<std::string, const SafetensorsEntry*> byName;
    for (const SafetensorsEntry& e : parsed.entries) byName[e.name] = &e;
    std::vector<uint8_t> copy;
    Tensor scratch;
    for (const PlannedArray& a : plan.arrays) {
        CKPT_RETURN_IF_ERROR(progress.checkCancel());
        const auto it = byName.find(a.name);
        if (it == byName.end() || it->second->dtype != a.info->dtype || it->second->shape != a.info->shape)
            return dataLoss("\"" + a.name + "\" read back from " + output + " has another dtype or shape");
        const uint64_t offset = parsed.dataStart + it->second->begin;
        const size_t n = it->second->end - it->second->begin;
        // Mapped, where the file system allows: the page-cache pages are
        // compared in place instead of copied out first.
        auto view = n > 0 ? in->map(offset, n) : Result<storage::MappedView>(internalError("empty"));
        if (view.ok()) {
            CKPT_RETURN_IF_ERROR(compareWritten(reader, a, view->data(), n, output, scratch));
        } else {
            copy.resize(n);
            CKPT_RETURN_IF_ERROR(in->read(offset, n, copy.data()));
            CKPT_RETURN_IF_ERROR(compareWritten(reader, a, copy.data(), n, output, scratch));
        }
        progress.add(n, "check");
    }
    return okStatus();
}

Status writeNpz(const BundleReader& reader, const ExportPlan& plan, const std::string& temp, const std::string& output,
                Progress& progress, const ExportOptions& options) {
    std::vector<NpzMember> members;
    members.reserve(plan.arrays.size() + 1);
    for (const PlannedArray& a : plan.arrays) {
        NpzMember m;
        m.name = a.name;
        m.preamble = npyPreamble(npyDescr(a.info->dtype), a.info->shape);
        m.dataBytes = static_cast<uint64_t>(*a.info->shape.numElements()) * dataTypeSize(a.info->dtype);
        m.fill = [&reader, info = a.info](std::vector<uint8_t>& bytes) {
            Tensor t;
            t.bytes.swap(bytes);  // reuse the buffer
            Status st = reader.readInto(*info, t);
            bytes.swap(t.bytes);
            return st;
        };
        members.push_back(std::move(m));
    }
    const nlohmann::json metadata(plan.metadata);
    members.push_back(npzStringMember(std::string(kNpzMetadataName), metadata.dump(-1, ' ', true)));
    CKPT_RETURN_IF_ERROR(writeNpzFile(temp, members,
                                      options.progress ? ProgressSink([&](int64_t done, int64_t, std::string_view) {
                                          progress.done = done;
                                          progress.add(0, "write");
                                      })
                                                       : ProgressSink(),
                                      options.cancel));

    CKPT_ASSIGN_OR_RETURN(auto in, NpzReader::open(temp));
    if (in->members().size() != members.size())
        return dataLoss(output + " read back holds " + std::to_string(in->members().size()) + " members, " +
                        std::to_string(members.size()) + " were written");
    std::map<std::string, const NpzReader::Member*> byName;
    for (const NpzReader::Member& m : in->members()) byName[m.name] = &m;
    const auto meta = byName.find(std::string(kNpzMetadataName));
    if (meta == byName.end()) return dataLoss(output + " read back lacks its metadata member");
    CKPT_ASSIGN_OR_RETURN(std::string text, in->readString(*meta->second));
    if (text != metadata.dump(-1, ' ', true)) return dataLoss("the metadata read back from " + output + " differs");
    Tensor scratch;
    for (const PlannedArray& a : plan.arrays) {
        CKPT_RETURN_IF_ERROR(progress.checkCancel());
        const auto it = byName.find(a.name);
        if (it == byName.end()) return dataLoss("\"" + a.name + "\" is missing from " + output + " read back");
        CKPT_ASSIGN_OR_RETURN(Tensor written, in->read(*it->second));
        if (written.dtype != a.info->dtype || written.shape != a.info->shape)
            return dataLoss("\"" + a.name + "\" read back from " + output + " has another dtype or shape");
        CKPT_RETURN_IF_ERROR(compareWritten(reader, a, written.bytes.data(), written.bytes.size(), output, scratch));
        progress.add(written.bytes.size(), "check");
    }
    return okStatus();
}

}  // namespace
}  // namespace convert

Result<ExportResult> exportCheckpoint(const std::string& source, const std::string& output, const ExportOptions& options) {
    const platform::CancellationScope scope(options.cancel);  // stops object-store transfers in flight
    const auto start = std::chrono::steady_clock::now();
    CKPT_ASSIGN_OR_RETURN(auto checkpoint, Checkpoint::open(source));
    CKPT_RETURN_IF_ERROR(storage::checkLocation(output));
    const DestinationCheck destination = checkDestination({.path = output,
                                                           .kind = DestinationKind::File,
                                                           .sources = {source},
                                                           .open = options.open,
                                                           .overwrite = options.overwrite});
    CKPT_RETURN_IF_ERROR(destination.status());
    CKPT_ASSIGN_OR_RETURN(convert::ExportPlan plan, convert::planExport(*checkpoint, options));

    // Built beside its name and renamed into place (libzip writes .npz
    // archives itself); for a store, built locally and uploaded.
    convert::TempOutput temp(output, options.overwrite);
    CKPT_RETURN_IF_ERROR(temp.status());
    convert::Progress progress{options, static_cast<int64_t>(2 * plan.dataBytes)};
    if (options.format == ArrayFormat::Safetensors) {
        CKPT_RETURN_IF_ERROR(convert::writeSafetensors(checkpoint->bundle(), plan, temp.path(), output, progress));
        CKPT_RETURN_IF_ERROR(temp.commit(/*sync=*/false));
    } else {
        CKPT_RETURN_IF_ERROR(convert::writeNpz(checkpoint->bundle(), plan, temp.path(), output, progress, options));
        CKPT_RETURN_IF_ERROR(temp.commit(/*sync=*/true));
    }

    ExportResult result;
    result.output = output;
    result.sourcePrefix = checkpoint->prefix();
    result.tensors = static_cast<int64_t>(plan.arrays.size());
    result.dataBytes = plan.dataBytes;
    if (auto size = storage::fileSize(output); size.ok()) result.fileBytes = *size;
    result.notes = std::move(plan.notes);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace ckpt

// importArrays: a model spec's variables filled from a .safetensors or .npz
// file, written through the save pipeline, verified, and compared back. The
// values stream (issue #29, finding 2): each array goes from its file into
// its shard in bounded pieces (SaveTensor::source), the spec's variables
// are declared, not allocated, and the comparison reads both sides piece
// by piece, so memory stays bounded whatever the arrays' sizes.

#include "ckpt/convert.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "ckpt/bundle_reader.h"
#include "ckpt/convert.h"
#include "ckpt/destination.h"
#include "ckpt/model_spec.h"
#include "ckpt/object_graph.h"
#include "ckpt/verify.h"
#include "convert/array_file.h"
#include "convert/array_names.h"
#include "pipeline/staged_checkpoint.h"
#include "convert/output_file.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

std::string listed(const std::vector<std::string>& items, size_t limit = 20) {
    std::string out;
    for (size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? "; " : "") + items[i];
    if (items.size() > limit) out += "; and " + std::to_string(items.size() - limit) + " more";
    return out;
}

std::string describe(DataType dtype, const TensorShape& shape) {
    return std::string(dataTypeShortName(dtype)) + " " + shape.toString();
}

struct Match {
    size_t tensor = 0;  // index into the snapshot
    size_t array = 0;   // index into the file's arrays
};

// docs/convert.md, "Import": what an input may inflate to unless the
// caller says more.
constexpr uint64_t kInflatedBase = 64u << 20;
constexpr uint64_t kInflatedPerInputByte = 16;

Status checkInflatedSize(const convert::ArrayFile& file, const std::string& input, uint64_t limit) {
    const bool byDefault = limit == 0;
    if (byDefault) limit = kInflatedBase + kInflatedPerInputByte * file.fileBytes();
    const uint64_t values = file.valueBytes();
    if (values <= limit) return okStatus();
    return invalidArgument(
        "the arrays of " + input + " (" + std::to_string(file.fileBytes()) + " bytes) would inflate to " +
        std::to_string(values) + " bytes, more than the " + std::to_string(limit) + " allowed" +
        (byDefault ? " (64 MiB plus 16 times the input's size; --max-inflated-bytes allows more for an honest file)" : "") +
        "; nothing was written");
}

// An array streamed into the save pipeline, counting its bytes for the
// progress sink and stopping at a cancel. Shards are written in parallel,
// so the count is shared and the sink called under a lock.
class ImportedSource final : public TensorSource {
public:
    struct Shared {
        const ImportOptions& options;
        std::mutex lock;
        int64_t done = 0;
        int64_t total = 0;
    };
    ImportedSource(std::shared_ptr<const TensorSource> array, Shared& shared) : m_array(std::move(array)), m_shared(shared) {}
    Status read(uint64_t offset, uint64_t length, const ByteSink& sink) const override {
        return m_array->read(offset, length, [&](std::span<const uint8_t> piece) -> Status {
            if (m_shared.options.cancel && m_shared.options.cancel->isCancelled()) return cancelled("import cancelled");
            CKPT_RETURN_IF_ERROR(sink(piece));
            if (m_shared.options.progress) {
                const std::lock_guard lock(m_shared.lock);
                m_shared.done += static_cast<int64_t>(piece.size());
                m_shared.options.progress(m_shared.done, m_shared.total, "read");
            }
            return okStatus();
        });
    }

private:
    std::shared_ptr<const TensorSource> m_array;
    Shared& m_shared;
};

// The bit-exact check: the bytes 'info' stores in the written checkpoint
// against a fresh read of the array, piece by piece. A tensor the sharding
// policy cut has slices along its first axis only (SaveTensor::source),
// each one range of the array.
Status compareWritten(const BundleReader& written, const TensorInfo& info, const convert::ArrayInfo& array,
                      const TensorSource& source, const std::string& input, int64_t& checked) {
    const std::string what = "\"" + info.key + "\" read back from " + written.prefix();
    const std::string differs = what + " differs from array " + array.name + " of " + input;
    if (info.dtype != array.dtype || info.shape != array.shape) return dataLoss(differs + " (dtype or shape)");
    struct Part {
        StoredRegion region;
        uint64_t offset;  // in the array's bytes
    };
    std::vector<Part> parts;
    if (!info.isPartitioned()) {
        parts.push_back({info.region, 0});
    } else {
        const auto& dims = info.shape.dims;
        const uint64_t rowBytes =
            dims.empty() || dims[0] == 0
                ? 0
                : static_cast<uint64_t>(info.shape.numElements().value_or(0) / dims[0]) * dataTypeSize(info.dtype);
        for (const StoredSlice& s : info.slices) {
            for (size_t d = 1; d < s.slice.extents.size(); ++d) {
                const SliceExtent& e = s.slice.extents[d];
                if (!e.isFull() && !(e.start == 0 && e.length == dims[d]))
                    return internalError(what + ": slice " + s.slice.toString() + " is not one range of the array");
            }
            const SliceExtent& first = s.slice.extents.at(0);
            parts.push_back({s.region, first.isFull() ? 0 : static_cast<uint64_t>(first.start) * rowBytes});
        }
    }
    std::map<int32_t, std::unique_ptr<storage::RandomAccessFile>> files;
    std::vector<uint8_t> stored;
    for (const Part& part : parts) {
        auto& file = files[part.region.shardId];
        if (!file) {
            CKPT_ASSIGN_OR_RETURN(file, storage::openRandomAccess(written.dataPath(part.region.shardId)));
        }
        uint64_t at = static_cast<uint64_t>(part.region.offset);
        const Status compared =
            source.read(part.offset, static_cast<uint64_t>(part.region.size), [&](std::span<const uint8_t> piece) -> Status {
                stored.resize(piece.size());
                CKPT_RETURN_IF_ERROR(file->read(at, piece.size(), stored.data()));
                if (!std::equal(piece.begin(), piece.end(), stored.begin())) return dataLoss(differs);
                at += piece.size();
                checked += static_cast<int64_t>(piece.size());
                return okStatus();
            });
        CKPT_RETURN_IF_ERROR(compared);
    }
    return okStatus();
}

}  // namespace

Result<ImportResult> importArrays(const std::string& input, const std::string& dstPrefix, const std::string& specPath,
                                  const ImportOptions& options) {
    auto checkCancel = [&] {
        return options.cancel && options.cancel->isCancelled() ? cancelled("import cancelled") : okStatus();
    };
    const DestinationCheck destination =
        checkDestination({.path = dstPrefix, .sources = {input, specPath}, .overwrite = options.overwrite});
    CKPT_RETURN_IF_ERROR(destination.status());
    CKPT_ASSIGN_OR_RETURN(auto file, convert::ArrayFile::open(input));
    CKPT_RETURN_IF_ERROR(checkInflatedSize(*file, input, options.maxInflatedBytes));
    // Declared variables: the spec's shapes allocate nothing; the values come from the file.
    CKPT_ASSIGN_OR_RETURN(auto root, loadModelSpec(specPath, {.values = false}));
    // The spec's variables named the way an export names them.
    CKPT_ASSIGN_OR_RETURN(std::string graphBytes, serializeObjectGraph(*root));
    CKPT_ASSIGN_OR_RETURN(ObjectGraph graph, ObjectGraph::parse(graphBytes, specPath));
    const std::map<std::string, convert::ArrayName> paths = convert::objectPathNames(graph);
    CKPT_ASSIGN_OR_RETURN(std::vector<SaveTensor> tensors, snapshotForSave(*root));

    std::map<std::string, size_t> arrayByName;
    for (size_t i = 0; i < file->arrays().size(); ++i) arrayByName.emplace(file->arrays()[i].name, i);
    std::vector<Match> matches;
    std::set<size_t> taken;
    std::vector<std::string> problems;
    for (size_t t = 0; t < tensors.size(); ++t) {
        const SaveTensor& st = tensors[t];
        if (st.key == kObjectGraphKey) continue;
        const auto named = paths.find(st.key);
        const std::string path = named != paths.end() ? named->second.name : st.key;
        // As named, or as an export names them (names that could leave a
        // directory rewritten), so whatever an export wrote imports back.
        auto found = arrayByName.end();
        for (const std::string& name : {path, convert::containedName(path), st.key, convert::containedName(st.key)})
            if (found == arrayByName.end()) found = arrayByName.find(name);
        if (found == arrayByName.end()) {
            problems.push_back("no array for " + path + " (key " + st.key + ", " + describe(st.value.dtype, st.fullShape) + ")");
            continue;
        }
        if (st.slice) return unimplemented("spec variable " + path + " is partitioned; import writes whole tensors");
        const convert::ArrayInfo& a = file->arrays()[found->second];
        if (!taken.insert(found->second).second) {
            problems.push_back("array " + a.name + " would fill two variables");
            continue;
        }
        if (a.dtype != st.value.dtype || a.shape != st.value.shape) {
            problems.push_back(path + ": the spec has " + describe(st.value.dtype, st.value.shape) + ", array " + a.name +
                               " is " + describe(a.dtype, a.shape));
            continue;
        }
        matches.push_back({t, found->second});
    }
    for (size_t i = 0; i < file->arrays().size(); ++i)
        if (!taken.count(i)) problems.push_back("array " + file->arrays()[i].name + " matches no variable of the spec");
    if (!problems.empty())
        return invalidArgument("the arrays of " + input + " do not fit the spec " + specPath + ": " + listed(problems));

    ImportedSource::Shared shared{options, {}, 0, 0};
    std::vector<std::string> keys;
    for (const Match& m : matches) {
        SaveTensor& t = tensors[m.tensor];
        t.source = std::make_shared<ImportedSource>(file->source(m.array), shared);
        keys.push_back(t.key);
    }
    for (const Match& m : matches) shared.total += static_cast<int64_t>(tensors[m.tensor].byteSize());
    const int64_t valueBytes = shared.total;
    shared.total *= 2;  // read (and written), then checked
    CKPT_RETURN_IF_ERROR(checkCancel());

    ImportResult result;
    result.format = file->format();
    result.arrays = static_cast<int64_t>(matches.size());
    // Written beside the destination, moved in once it verified and compared equal.
    CKPT_ASSIGN_OR_RETURN(auto staged, pipeline::StagedCheckpoint::begin(destination.path, options.overwrite));
    const std::string& written = staged->stagingPrefix();
    CKPT_ASSIGN_OR_RETURN(result.stats, writeTensors(written, std::move(tensors), options.save));
    result.stats.prefix = destination.path;
    CKPT_ASSIGN_OR_RETURN(VerifyReport report, verifyBundle(written, VerifyOptions{0, {}, options.cancel}));
    if (!report.ok())
        return dataLoss("the imported checkpoint " + dstPrefix + " does not verify: " + report.problems.front().message);
    result.verify = report;
    result.verify.prefix = destination.path;

    // Every value read back from the checkpoint against a fresh read of the input.
    CKPT_ASSIGN_OR_RETURN(auto reader, BundleReader::open(written));
    int64_t checked = 0;
    for (size_t i = 0; i < matches.size(); ++i) {
        const Match& m = matches[i];
        CKPT_RETURN_IF_ERROR(checkCancel());
        const TensorInfo* info = reader->find(keys[i]);
        if (!info) return dataLoss("the imported checkpoint " + dstPrefix + " lacks \"" + keys[i] + "\"");
        CKPT_RETURN_IF_ERROR(compareWritten(*reader, *info, file->arrays()[m.array], *file->source(m.array), input, checked));
        if (options.progress) options.progress(valueBytes + checked, 2 * valueBytes, "check");
    }
    reader.reset();
    CKPT_RETURN_IF_ERROR(staged->commit());
    return result;
}

}  // namespace ckpt

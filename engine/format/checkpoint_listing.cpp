#include "ckpt/checkpoint_listing.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_state.h"
#include "platform/cancellation_scope.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

using DataFile = CheckpointDataFile;

// Checkpoints described at once when the directory is on an object store.
constexpr size_t kParallelRemoteDescriptions = 16;

std::string normalised(const std::string& path) { return platform::lexicallyNormal(path); }

// Size and mtime in one stat; a file that vanished since the directory was
// read counts as empty.
std::pair<uint64_t, double> sizeAndTime(const std::string& path) {
    auto info = storage::stat(path);
    if (!info.ok() || !*info) return {0, 0};
    return {(*info)->size, static_cast<double>((*info)->modifiedNs) * 1e-9};
}

// The header and the step from lookups of the few keys they need; the
// tensor count, when asked, from a pass over the whole index that checks
// every entry and keeps none.
Result<BundleHeader> readIndex(CheckpointListEntry& e, bool countTensors) {
    BundleHeader header;
    auto step = readCheckpointStep(e.prefix, &header);
    e.step = step.ok() ? *step : checkpointStep(e.prefix, nullptr);
    if (!countTensors) {
        if (!step.ok()) return step.status();
        return header;
    }
    CKPT_ASSIGN_OR_RETURN(const BundleIndexSummary summary, BundleReader::summarize(e.prefix));
    e.tensors = summary.tensors;
    return summary.header;
}

// The data files of the prefix 'name' in 'dir', by one listing.
Result<std::vector<DataFile>> dataFilesOf(const std::string& dir, const std::string& name) {
    std::vector<DataFile> out;
    storage::ListOptions options;
    options.namePrefix = name;
    options.followSymlinks = true;
    CKPT_RETURN_IF_ERROR(storage::list(dir, options, [&](const storage::ListEntry& entry) {
        if (entry.kind != storage::ObjectKind::File) return true;
        if (auto data = parseDataFileName(entry.name); data && data->prefix == name)
            out.push_back({data->shardId, data->numShards, entry.size});
        return true;
    }));
    return out;
}

}  // namespace

uint64_t listedCheckpointBytes(uint64_t indexBytes, const std::vector<DataFile>& dataFiles, std::optional<int32_t> numShards) {
    uint64_t bytes = indexBytes;
    for (const DataFile& d : dataFiles)
        if (!numShards || d.numShards == *numShards) bytes += d.bytes;
    return bytes;
}

void describeCheckpoint(CheckpointListEntry& e, bool countTensors) {
    const std::vector<DataFile>& dataFiles = e.dataFiles;
    e.described = true;
    auto metadata = readCheckpointMetadata(e.prefix);
    if (metadata.ok()) {
        e.metadata = std::move(*metadata);
    } else {
        e.metadataError = metadata.status();
    }
    const auto [indexBytes, indexTime] = sizeAndTime(indexFileName(e.prefix));
    e.modified = indexTime;
    auto header = readIndex(e, countTensors);
    if (!header.ok()) {
        // Without a header nothing says which data files belong: count them all.
        e.error = header.status();
        e.bytes = listedCheckpointBytes(indexBytes, dataFiles, std::nullopt);
        return;
    }
    e.shards = header->numShards;
    e.bytes = listedCheckpointBytes(indexBytes, dataFiles, e.shards);
    std::set<int32_t> present;
    for (const DataFile& d : dataFiles) {
        if (d.numShards != e.shards) ++e.staleDataFiles;
        else present.insert(d.shardId);
    }
    e.missingShards = e.shards - static_cast<int32_t>(present.size());
}

namespace {

Result<CheckpointListing> listUnderScope(std::string_view dirView, const CheckpointListOptions& options) {
    CheckpointListing out;
    out.dir = std::string(dirView);
    CKPT_RETURN_IF_ERROR(storage::checkLocation(out.dir));
    // On a store, where directories are only prefixes, an empty one lists as empty.
    if (storage::capabilitiesFor(out.dir).directories && !storage::isDirectory(out.dir))
        return notFound("no directory " + out.dir);

    std::set<std::string> stated;
    std::string latest;
    auto state = readCheckpointState(out.dir);
    if (!state.ok()) {
        out.stateFileError = state.status();
    } else if (*state) {
        latest = normalised(resolveStatePath(out.dir, (*state)->modelCheckpointPath));
        for (const std::string& p : (*state)->allModelCheckpointPaths) stated.insert(normalised(resolveStatePath(out.dir, p)));
    }

    // One pass over the directory: index names, and data files by prefix.
    std::vector<std::string> names;
    std::map<std::string, std::vector<DataFile>, std::less<>> dataFiles;
    storage::ListOptions listOptions;
    listOptions.followSymlinks = true;
    CKPT_RETURN_IF_ERROR(storage::list(out.dir, listOptions, [&](const storage::ListEntry& entry) {
        if (entry.kind != storage::ObjectKind::File) return true;
        const std::string& file = entry.name;
        if (file.size() > kIndexSuffix.size() && file.ends_with(kIndexSuffix)) {
            names.push_back(file.substr(0, file.size() - kIndexSuffix.size()));
        } else if (auto data = parseDataFileName(file)) {
            dataFiles[data->prefix].push_back({data->shardId, data->numShards, entry.size});
        }
        return true;
    }));

    out.checkpoints.reserve(names.size());
    for (std::string& name : names) {
        CheckpointListEntry e;
        e.prefix = platform::joinPath(out.dir, name);
        e.name = std::move(name);
        if (auto data = dataFiles.find(e.name); data != dataFiles.end()) e.dataFiles = std::move(data->second);
        const std::string p = normalised(e.prefix);
        e.isLatest = !latest.empty() && p == latest;
        e.inStateFile = e.isLatest || stated.count(p) > 0;
        out.checkpoints.push_back(std::move(e));
    }
    // Each checkpoint's reads are a few requests on a store, whose latency
    // is what they cost: several checkpoints at once there.
    const size_t workers = storage::locationScheme(out.dir).empty() ? 1 : kParallelRemoteDescriptions;
    CKPT_RETURN_IF_ERROR(platform::forEachItem(out.checkpoints.size(), workers, [&](size_t, size_t i) {
        CheckpointListEntry& e = out.checkpoints[i];
        if (options.cancel != nullptr && options.cancel->isCancelled()) return;
        if (options.describe) {
            describeCheckpoint(e, options.countTensors);
        } else {
            const auto [indexBytes, indexTime] = sizeAndTime(indexFileName(e.prefix));
            e.modified = indexTime;
            e.bytes = listedCheckpointBytes(indexBytes, e.dataFiles, std::nullopt);
        }
    }));
    // Checkpoints without any step come last, in name order.
    std::sort(out.checkpoints.begin(), out.checkpoints.end(), [](const CheckpointListEntry& a, const CheckpointListEntry& b) {
        auto key = [](const CheckpointListEntry& e) {
            return std::tuple(!e.step.step.has_value(), e.step.step.value_or(0), !e.step.number.has_value(),
                              e.step.number.value_or(0), std::string_view(e.name));
        };
        return key(a) < key(b);
    });
    return out;
}

}  // namespace

Result<CheckpointListing> listCheckpoints(std::string_view dir, const CheckpointListOptions& options) {
    return platform::runCancellable(options.cancel, "listing " + std::string(dir), [&] { return listUnderScope(dir, options); });
}

uint64_t checkpointBytesOnDisk(std::string_view prefixView) {
    const std::string prefix(prefixView);
    const auto index = storage::stat(indexFileName(prefix));
    if (!index.ok() || !*index) return 0;
    const auto dataFiles = dataFilesOf(platform::dirName(prefix), platform::baseName(prefix));
    BundleHeader header;
    const bool known = readCheckpointStep(prefix, &header).ok();
    return listedCheckpointBytes((*index)->size, dataFiles.ok() ? *dataFiles : std::vector<DataFile>{},
                                 known ? std::optional<int32_t>(header.numShards) : std::nullopt);
}

std::string checkpointDirectoryFor(std::string_view openedPath) {
    // A URL keeps its "scheme://" (the listing refuses one no storage serves).
    std::string path =
        storage::locationScheme(openedPath).empty() ? platform::lexicallyNormal(openedPath) : std::string(openedPath);
    if (storage::isDirectory(path)) {
        // A SavedModel keeps its bundle in variables/.
        if (auto savedModel = savedModelVariablesPrefix(path)) return platform::dirName(*savedModel);
        if (path.size() > 1 && path.ends_with('/')) path.pop_back();
        return path;
    }
    // Only a path that names a file or a checkpoint prefix stands for its
    // directory; anything else is returned as it is, for the listing to report.
    const bool namesCheckpoint = storage::exists(path) || storage::exists(indexFileName(path));
    if (!namesCheckpoint) return path;
    return path.find('/') == std::string::npos ? std::string(".") : platform::dirName(path);
}

}  // namespace ckpt

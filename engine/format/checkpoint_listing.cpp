#include "ckpt/checkpoint_listing.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_state.h"
#include "platform/file.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

struct DataFile {
    int32_t shardId = 0;
    int32_t numShards = 0;
    uint64_t bytes = 0;
};

std::string normalised(const std::string& path) { return fs::path(path).lexically_normal().string(); }

// Size and mtime in one stat; a file that vanished since the directory was
// read counts as empty.
std::pair<uint64_t, double> sizeAndTime(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return {0, 0};
    return {static_cast<uint64_t>(st.st_size), static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9};
}

// The header (and the tensor count, when asked) and the step: from the
// whole index, or from lookups of the few keys they need.
Result<BundleHeader> readIndex(CheckpointListEntry& e, bool countTensors) {
    if (countTensors) {
        auto reader = BundleReader::open(e.prefix);
        e.step = checkpointStep(e.prefix, reader.ok() ? reader->get() : nullptr);
        if (!reader.ok()) return reader.status();
        e.tensors = static_cast<int64_t>((*reader)->tensors().size());
        return (*reader)->header();
    }
    BundleHeader header;
    auto step = readCheckpointStep(e.prefix, &header);
    e.step = step.ok() ? *step : checkpointStep(e.prefix, nullptr);
    if (!step.ok()) return step.status();
    return header;
}

void describe(CheckpointListEntry& e, const std::vector<DataFile>& dataFiles, bool countTensors) {
    auto metadata = readCheckpointMetadata(e.prefix);
    if (metadata.ok()) {
        e.metadata = std::move(*metadata);
    } else {
        e.metadataError = metadata.status();
    }
    double indexTime = 0;
    std::tie(e.bytes, indexTime) = sizeAndTime(indexFileName(e.prefix));
    e.modified = indexTime;
    auto header = readIndex(e, countTensors);
    if (!header.ok()) {
        // Without a header nothing says which data files belong: count them all.
        e.error = header.status();
        for (const DataFile& d : dataFiles) e.bytes += d.bytes;
        return;
    }
    e.shards = header->numShards;
    std::set<int32_t> present;
    for (const DataFile& d : dataFiles) {
        if (d.numShards != e.shards) {
            ++e.staleDataFiles;
            continue;
        }
        present.insert(d.shardId);
        e.bytes += d.bytes;
    }
    e.missingShards = e.shards - static_cast<int32_t>(present.size());
}

}  // namespace

Result<CheckpointListing> listCheckpoints(std::string_view dirView, const CheckpointListOptions& options) {
    CheckpointListing out;
    out.dir = std::string(dirView);
    std::error_code ec;
    if (!fs::is_directory(out.dir, ec)) return notFound("no directory " + out.dir);

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
    for (fs::directory_iterator it(out.dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string file = it->path().filename().string();
        if (file.size() > kIndexSuffix.size() && file.ends_with(kIndexSuffix)) {
            names.push_back(file.substr(0, file.size() - kIndexSuffix.size()));
        } else if (auto data = parseDataFileName(file)) {
            dataFiles[data->prefix].push_back({data->shardId, data->numShards, sizeAndTime(it->path().string()).first});
        }
    }
    if (ec) return platform::statusFromErrno(ec.value(), "cannot list " + out.dir);

    for (std::string& name : names) {
        CheckpointListEntry e;
        e.prefix = platform::joinPath(out.dir, name);
        e.name = std::move(name);
        const auto data = dataFiles.find(e.name);
        describe(e, data == dataFiles.end() ? std::vector<DataFile>{} : data->second, options.countTensors);
        const std::string p = normalised(e.prefix);
        e.isLatest = !latest.empty() && p == latest;
        e.inStateFile = e.isLatest || stated.count(p) > 0;
        out.checkpoints.push_back(std::move(e));
    }
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

std::string checkpointDirectoryFor(std::string_view openedPath) {
    std::error_code ec;
    const fs::path path = fs::path(openedPath).lexically_normal();
    if (fs::is_directory(path, ec)) {
        // A SavedModel keeps its bundle in variables/.
        if (fs::exists(path / "variables" / "variables.index", ec)) return (path / "variables").string();
        std::string dir = path.string();
        if (dir.size() > 1 && dir.ends_with('/')) dir.pop_back();
        return dir;
    }
    // Only a path that names a file or a checkpoint prefix stands for its
    // directory; anything else is returned as it is, for the listing to report.
    const bool namesCheckpoint = fs::exists(path, ec) || fs::exists(indexFileName(path.string()), ec);
    if (!namesCheckpoint) return path.string();
    return path.has_parent_path() ? path.parent_path().string() : std::string(".");
}

}  // namespace ckpt

// Merge of shard bundles (docs/format.md, "Merge"; docs/semantics.md, "Save").

#include "pipeline/bundle_merge.h"

#include <map>
#include <string_view>

#include "ckpt/bundle_naming.h"
#include "format/index_table.h"
#include "format/ordered_code.h"
#include "pipeline/temp_files.h"
#include "platform/file.h"
#include "storage/directory_lock.h"
#include "storage/dispatch.h"
#include "tensor_bundle.pb.h"

namespace ckpt::pipeline {
namespace {

// Data files left at 'base' in 'dir' by an earlier checkpoint with another
// shard count: the merged result would otherwise sit beside them.
void removeOtherShardCounts(const std::string& dir, const std::string& base, int32_t numShards) {
    std::vector<std::string> stale;
    storage::ListOptions options;
    options.namePrefix = base;
    if (!storage::list(dir, options, [&](const storage::ListEntry& e) {
             if (e.kind == storage::ObjectKind::Directory) return true;
             if (auto data = parseDataFileName(e.name); data && data->prefix == base && data->numShards != numShards)
                 stale.push_back(e.name);
             return true;
         }).isOk())
        return;
    for (const std::string& name : stale) (void)storage::remove(platform::joinPath(dir, name));
}

}  // namespace

Result<MergedIndex> mergeIndexEntries(const std::vector<std::string>& inputs, const std::vector<std::string>& inputData) {
    MergedIndex out;
    auto& merged = out.entries;
    auto& dataFiles = out.dataFiles;
    for (size_t k = 0; k < inputs.size(); ++k) {
        const std::string& input = inputs[k];
        const auto inputDataFile = [&](int32_t shard, int32_t count) {
            return inputData[k].empty() ? dataFileName(input, shard, count) : inputData[k];
        };
        const std::string index = indexFileName(input);
        int32_t inputShards = 1;
        bool first = true;
        std::map<int32_t, int32_t> remap;
        CKPT_RETURN_IF_ERROR(format::scanIndexTable(index, [&](std::string_view key, std::string_view value) -> Status {
            if (first) {
                first = false;
                tensorflow::BundleHeaderProto h;
                if (!h.ParseFromArray(value.data(), static_cast<int>(value.size())))
                    return dataLoss("shard index " + index + " has no valid header");
                inputShards = h.num_shards();
                return okStatus();
            }
            tensorflow::BundleEntryProto e;
            if (!e.ParseFromArray(value.data(), static_cast<int>(value.size())))
                return dataLoss("shard index " + index + " has an invalid entry " + format::printableKey(key));
            auto it = merged.find(std::string(key));
            if (it != merged.end()) {
                if (it->second.slices_size() == 0 || e.slices_size() == 0)
                    return invalidArgument("duplicate tensor " + format::printableKey(key) + " while merging " + index);
                for (const auto& s : e.slices()) *it->second.add_slices() = s;
                return okStatus();
            }
            // Every new key's shard id is renumbered, a sliced tensor's
            // full entry too (its id names no bytes, but TensorFlow's merge
            // sets it, and the index is byte for byte TensorFlow's).
            auto r = remap.find(e.shard_id());
            if (r == remap.end()) {
                dataFiles.push_back(inputDataFile(e.shard_id(), inputShards));
                r = remap.emplace(e.shard_id(), static_cast<int32_t>(dataFiles.size() - 1)).first;
            }
            e.set_shard_id(r->second);
            merged.emplace(std::string(key), std::move(e));
            return okStatus();
        }));
        // A shard without entries still owns a data file; keep it so num_shards matches the files.
        if (remap.empty()) dataFiles.push_back(inputDataFile(0, inputShards));
    }
    return out;
}

Status writeMergedIndex(const std::string& prefix, const MergedIndex& index) {
    const int32_t numShards = static_cast<int32_t>(index.dataFiles.size());
    const std::string dir = platform::dirName(prefix);
    const std::string indexFinal = indexFileName(prefix);
    // Without rename the index is written at its name, created only if
    // absent (a store's If-None-Match: *); it appears complete or not at all.
    const bool inPlace = !storage::capabilitiesFor(indexFinal).rename;
    const std::string indexTemp = inPlace ? indexFinal : pipeline::tempName(indexFinal, pipeline::kIndexTempMarker);
    {
        storage::CreateOptions create;
        if (inPlace) create.condition = storage::WriteCondition::ifAbsent();
        CKPT_ASSIGN_OR_RETURN(auto w, format::IndexTableWriter::create(indexTemp, create));
        tensorflow::BundleHeaderProto header;
        header.set_num_shards(numShards);
        header.mutable_version()->set_producer(1);
        std::string bytes;
        header.SerializeToString(&bytes);
        Status s = w->add("", bytes);
        for (auto it = index.entries.begin(); s.isOk() && it != index.entries.end(); ++it) {
            it->second.SerializeToString(&bytes);
            s = w->add(it->first, bytes);
        }
        if (s.isOk()) s = w->finish();
        if (!s.isOk()) {
            w.reset();
            if (!inPlace) (void)storage::remove(indexTemp);
            return s;
        }
    }
    // The commit point: create-only, as on an object store (an index
    // already there wins, and this save fails rather than replace it).
    if (!inPlace) CKPT_RETURN_IF_ERROR(storage::rename(indexTemp, indexFinal, storage::WriteCondition::ifAbsent()));
    return storage::syncDirectory(dir);
}

// docs/format.md, "Merge", with two differences that make a crash safe: the old index at the
// destination is removed before any data file is renamed over its shards,
// and the new index is written to a temp name and renamed last, never over
// another (the commit point: docs/architecture.md, "Storage").
Status mergeShards(const std::vector<std::string>& inputs, const std::vector<std::string>& inputData, const std::string& prefix) {
    CKPT_ASSIGN_OR_RETURN(const MergedIndex merged, mergeIndexEntries(inputs, inputData));
    const std::vector<std::string>& dataFiles = merged.dataFiles;
    const int32_t numShards = static_cast<int32_t>(dataFiles.size());
    const std::string dir = platform::dirName(prefix);
    const std::string indexFinal = indexFileName(prefix);
    // From the first rename to the commit, the data files stand without
    // their index: the directory's lock keeps the garbage collector (which
    // removes index-less data files under it) from mistaking them for a
    // dead save's. The index's create-only rename below takes the same lock
    // again on this thread (storage/directory_lock.h: reentrant).
    CKPT_ASSIGN_OR_RETURN(auto lock, storage::DirectoryLock::acquire(dir));
    CKPT_RETURN_IF_ERROR(storage::remove(indexFinal));
    removeOtherShardCounts(dir, platform::baseName(prefix), numShards);
    for (int32_t i = 0; i < numShards; ++i) {
        const std::string& from = dataFiles[static_cast<size_t>(i)];
        if (from != dataFileName(prefix, i, numShards))
            CKPT_RETURN_IF_ERROR(storage::rename(from, dataFileName(prefix, i, numShards)));
    }
    CKPT_RETURN_IF_ERROR(storage::syncDirectory(dir));
    return writeMergedIndex(prefix, merged);
}

}  // namespace ckpt::pipeline

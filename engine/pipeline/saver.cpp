// Sharded save + merge (docs/format.md, "Temporary names" and "Merge"; docs/semantics.md, "Save").

#include "ckpt/save.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/checkpoint_step.h"
#include "pipeline/bundle_merge.h"
#include "pipeline/save_claim.h"
#include "pipeline/temp_files.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

std::string shardPrefix(const std::string& tempDir, int i, int n) { return platform::joinPath(tempDir, tempShardName(i, n)); }

// Bytes written across the shard writers, for SaveOptions::progress:
// reported in increasing order whatever order the writers finish their
// tensors in.
struct SaveProgress {
    explicit SaveProgress(const SaveOptions& saveOptions) : options(saveOptions) {}

    const SaveOptions& options;
    int64_t total = 0;
    std::mutex mutex;
    int64_t done = 0;      // Guarded by mutex.
    int64_t reported = 0;  // Guarded by mutex.

    Status check(const std::string& prefix) const {
        if (options.cancel && options.cancel->isCancelled()) return cancelled("save of " + prefix + " cancelled");
        return okStatus();
    }
    void add(int64_t bytes) {
        if (!options.progress) return;
        std::lock_guard lock(mutex);
        done += bytes;
        if (done <= reported) return;
        reported = done;
        options.progress(done, total, "writing");
    }
};

Status writeShard(const std::string& prefix, const BundleWriterOptions& options, std::vector<SaveTensor>& tensors,
                  SaveProgress& progress, const std::string& checkpoint) {
    CKPT_ASSIGN_OR_RETURN(auto writer, BundleWriter::create(prefix, options));
    for (SaveTensor& t : tensors) {
        CKPT_RETURN_IF_ERROR(progress.check(checkpoint));
        if (t.source && t.slice)
            CKPT_RETURN_IF_ERROR(writer->addSliceFromSource(t.key, t.fullShape, *t.slice, t.value.dtype, t.value.shape, *t.source,
                                                            t.sourceOffset));
        else if (t.source)
            CKPT_RETURN_IF_ERROR(writer->addFromSource(t.key, t.value.dtype, t.value.shape, *t.source, t.sourceOffset));
        else if (t.slice) CKPT_RETURN_IF_ERROR(writer->addSlice(t.key, t.fullShape, *t.slice, t.data()));
        else CKPT_RETURN_IF_ERROR(writer->add(t.key, t.data()));
        progress.add(static_cast<int64_t>(t.byteSize()));
    }
    return writer->finish();
}

// writeTensors without the recycling: groups, shards, writes, merges.
Result<SaveStats> writeShardsAndMerge(const std::string& prefix, std::vector<SaveTensor>& tensors,
                                      std::vector<std::vector<SaveTensor>>& shards, const SaveOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    if (prefix.empty() || prefix.back() == '/') return invalidArgument("invalid checkpoint prefix \"" + prefix + "\"");
    const std::string dir = platform::dirName(prefix);
    CKPT_RETURN_IF_ERROR(storage::createDirectories(dir));
    const ShardByTaskPolicy byTask;
    const ShardingPolicy& policy = options.policy ? *options.policy : byTask;

    // Group by task in order of first appearance.
    std::vector<std::string> tasks;
    std::map<std::string, std::vector<SaveTensor>> byTaskTensors;
    for (SaveTensor& t : tensors) {
        std::string task = taskOfDevice(t.device);
        if (!byTaskTensors.count(task)) tasks.push_back(task);
        byTaskTensors[task].push_back(std::move(t));
    }
    for (const std::string& task : tasks) {
        CKPT_ASSIGN_OR_RETURN(auto taskShards, policy.shard(std::move(byTaskTensors[task])));
        for (auto& s : taskShards)
            if (!s.empty()) shards.push_back(std::move(s));
    }
    if (shards.empty()) shards.emplace_back();  // still a valid, empty bundle

    // The shard directory carries this process's owner token: a save
    // elsewhere in the directory never mistakes it for an interrupted one's
    // (pipeline/temp_files.h), and those interrupted ones go now.
    pipeline::collectGarbageFor(dir.empty() ? "." : dir, {});
    const std::string tempDir = pipeline::tempName(prefix, pipeline::kSaveTempMarker);
    CKPT_RETURN_IF_ERROR(storage::createDirectories(tempDir));
    const int n = static_cast<int>(shards.size());
    // Storage without rename (an object store) gets each shard's data at its
    // final name from the start, under a claim on the prefix (two savers of
    // one step never write over each other's shards) and never over a
    // committed checkpoint: its data files would change under its index.
    const bool inPlace = !storage::capabilitiesFor(prefix).rename;
    std::unique_ptr<pipeline::SaveClaim> claim;
    if (inPlace) {
        CKPT_ASSIGN_OR_RETURN(claim, pipeline::SaveClaim::acquireForNew(prefix));
    }
    std::vector<std::string> shardPrefixes, shardData;
    for (int i = 0; i < n; ++i) {
        shardPrefixes.push_back(shardPrefix(tempDir, i, n));
        shardData.push_back(inPlace ? dataFileName(prefix, i, n) : std::string());
    }

    SaveProgress progress{options};
    for (const auto& s : shards)
        for (const SaveTensor& t : s) progress.total += static_cast<int64_t>(t.byteSize());
    std::vector<Status> results(static_cast<size_t>(n));
    const Status pool = platform::forEachItem(
        results.size(), platform::threadsOrDefault(options.maxParallelShards),
        [&](size_t, size_t i) { results[i] = writeShard(shardPrefixes[i], {shardData[i]}, shards[i], progress, prefix); });
    if (pool.isOk()) results.push_back(progress.check(prefix));
    if (!pool.isOk()) results.push_back(pool);
    SaveStats stats;
    stats.prefix = prefix;
    stats.shards = n;
    for (const auto& s : shards) {
        stats.tensors += static_cast<int64_t>(s.size());
        for (const SaveTensor& t : s) stats.dataBytes += t.byteSize();
    }
    // Data written at final names belongs to no checkpoint once the save
    // fails: it goes with the temp directory.
    const auto abandon = [&] {
        (void)storage::removeAll(tempDir);
        for (const std::string& data : shardData)
            if (!data.empty()) (void)storage::remove(data);
    };
    for (const Status& s : results) {
        if (!s.isOk()) {
            abandon();
            return s;
        }
    }
    if (options.progress) options.progress(progress.total, progress.total, "committing");
    Status merged = pipeline::mergeShards(shardPrefixes, shardData, prefix);
    if (!merged.isOk() && inPlace && !storage::exists(indexFileName(prefix))) abandon();
    (void)storage::removeAll(tempDir);
    CKPT_RETURN_IF_ERROR(merged);
    // Committed: a claim that cannot be removed now is stale once this process ends.
    if (claim) (void)claim->release();
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return stats;
}

}  // namespace

uint64_t SaveTensor::byteSize() const {
    const Tensor& t = data();
    if (t.dtype == DataType::String) return 0;
    if (source) return static_cast<uint64_t>(t.numElements()) * dataTypeSize(t.dtype);
    return t.bytes.size();
}

std::string taskOfDevice(const std::string& device) {
    if (device.empty()) return {};
    // Keep /job:, /replica:, /task: parts; the device becomes the task's CPU:0.
    std::string task;
    size_t pos = 0;
    while (pos < device.size()) {
        size_t next = device.find('/', pos + 1);
        if (next == std::string::npos) next = device.size();
        const std::string part = device.substr(pos, next - pos);
        if (part.starts_with("/job:") || part.starts_with("/replica:") || part.starts_with("/task:")) task += part;
        pos = next;
    }
    if (task.empty()) return {};
    return task + "/device:CPU:0";
}

Result<SaveStats> writeTensors(const std::string& prefix, std::vector<SaveTensor> tensors, const SaveOptions& options,
                               SnapshotBuffers* recycle) {
    std::vector<std::vector<SaveTensor>> shards;
    // Runs last on every return path: the buffers outlive this save.
    struct Recycler {
        SnapshotBuffers* to;
        std::vector<std::vector<SaveTensor>>& shards;
        std::vector<SaveTensor>& unsharded;
        ~Recycler() {
            if (!to) return;
            for (auto& shard : shards)
                for (SaveTensor& t : shard) to->give(std::move(t.value.bytes));
            for (SaveTensor& t : unsharded) to->give(std::move(t.value.bytes));
        }
    } recycler{recycle, shards, tensors};
    return writeShardsAndMerge(prefix, tensors, shards, options);
}

Result<SaveStats> writeCheckpoint(const Trackable& root, const std::string& prefix, const SaveOptions& options) {
    CKPT_ASSIGN_OR_RETURN(auto tensors, borrowForSave(root));
    return writeTensors(prefix, std::move(tensors), options);
}

Result<std::shared_ptr<Variable>> saveCounter(Trackable& root) {
    if (auto existing = root.child("save_counter")) {
        Variable* v = existing->asVariable();
        if (!v || v->dtype() != DataType::Int64 || v->shape().rank() != 0)
            return invalidArgument("the root's save_counter child is not an int64 scalar variable");
        return std::static_pointer_cast<Variable>(existing);
    }
    auto v = Variable::make(DataType::Int64, TensorShape{});
    CKPT_RETURN_IF_ERROR(root.addChild("save_counter", v));
    return v;
}

Result<std::string> saveCheckpoint(Trackable& root, const std::string& prefix, const SaveOptions& options) {
    CKPT_ASSIGN_OR_RETURN(auto counter, saveCounter(root));
    int64_t n = 0;
    std::memcpy(&n, counter->value().bytes.data(), 8);
    ++n;
    for (int r = 0; r < counter->replicas(); ++r) std::memcpy(counter->mutableValue(r).bytes.data(), &n, 8);
    const std::string path = numberedCheckpointPrefix(prefix, n);
    CKPT_RETURN_IF_ERROR(writeCheckpoint(root, path, options).status());
    CheckpointState state;
    state.modelCheckpointPath = platform::baseName(path);
    state.allModelCheckpointPaths = {state.modelCheckpointPath};
    CKPT_RETURN_IF_ERROR(writeCheckpointState(platform::dirName(path), state));
    return path;
}

}  // namespace ckpt

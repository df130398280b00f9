#pragma once
// The save pipeline (docs/semantics.md, "Save"; docs/format.md, "Temporary names",
// "Merge", "Sharding policies"):
// snapshot a trackable graph into tensors plus _CHECKPOINTABLE_OBJECT_GRAPH,
// group them by task, shard them with a ShardingPolicy, write every shard
// in parallel to <prefix>_temp/part-NNNNN-of-NNNNN, then merge into
// <prefix>.index + <prefix>.data-NNNNN-of-NNNNN. Data files are fsynced and
// renamed first; the index rename is the commit point, so a crash at any
// moment leaves either no index at the prefix or a complete checkpoint.
// Functions here may be called from any thread, one save per prefix at a time.
//   SaveOptions opts;                       // by-task sharding
//   CKPT_RETURN_IF_ERROR(writeCheckpoint(*root, "/runs/a/final", opts).status());
//   auto path = saveCheckpoint(*root, "/runs/a/ckpt", opts);   // "/runs/a/ckpt-1"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/snapshot_buffers.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_info.h"
#include "ckpt/trackable.h"

namespace ckpt {

// One tensor (or one slice of one) to store under a checkpoint key.
struct SaveTensor {
    std::string key;
    Tensor value;        // the slice's values when 'slice' is set
    std::string device;  // the variable's device; empty = local host
    std::optional<TensorSlice> slice;
    TensorShape fullShape;  // the whole tensor's shape (== value.shape unless sliced)
    // When set, the values are read from here and 'value' is unused: a
    // synchronous save writes straight from the variables (borrowForSave).
    const Tensor* borrowed = nullptr;

    const Tensor& data() const { return borrowed ? *borrowed : value; }
};

// The task a device string belongs to: the device part replaced by CPU:0
// ("/job:w/replica:0/task:1/device:GPU:3" -> "/job:w/replica:0/task:1/device:CPU:0");
// empty for local devices.
std::string taskOfDevice(const std::string& device);

// Every tensor the graph saves, in TensorFlow's data order (BFS nodes and
// their attributes, then slot variables, the object graph tensor last).
// Values are copied: the result is independent of later training steps.
Result<std::vector<SaveTensor>> snapshotForSave(const Trackable& root);
// The same tensors borrowing the variables' values (SaveTensor::borrowed):
// no copy and no extra memory, for a save that finishes before the graph
// changes again (a synchronous one).
Result<std::vector<SaveTensor>> borrowForSave(const Trackable& root);
// The same snapshot copied into 'buffers' (reused from an earlier snapshot
// where sizes match) on all cores: what an asynchronous save blocks on.
Result<std::vector<SaveTensor>> snapshotForSave(const Trackable& root, SnapshotBuffers& buffers);
// The serialized TrackableObjectGraph alone (docs/format.md, "TrackableObjectGraph").
Result<std::string> serializeObjectGraph(const Trackable& root);

// Splits one task's tensors into shards (each becomes one data file).
// Implementations must be stateless/const so saves may run concurrently.
class ShardingPolicy {
public:
    virtual ~ShardingPolicy() = default;
    virtual std::string description() const = 0;
    virtual Result<std::vector<std::vector<SaveTensor>>> shard(std::vector<SaveTensor> tensors) const = 0;
};

// docs/format.md, "ShardByTaskPolicy (default)": one shard per task (the default).
class ShardByTaskPolicy final : public ShardingPolicy {
public:
    std::string description() const override { return "by task"; }
    Result<std::vector<std::vector<SaveTensor>>> shard(std::vector<SaveTensor> tensors) const override;
};

// docs/format.md, "MaxShardSizePolicy": shards of at most maxShardBytes; larger tensors are split into
// slices along one axis (a piece that cannot fit goes alone into an
// oversized shard).
class MaxShardSizePolicy final : public ShardingPolicy {
public:
    explicit MaxShardSizePolicy(int64_t maxShardBytes) : m_max(maxShardBytes) {}
    std::string description() const override { return "max " + std::to_string(m_max) + " bytes per shard"; }
    Result<std::vector<std::vector<SaveTensor>>> shard(std::vector<SaveTensor> tensors) const override;

private:
    int64_t m_max;
};

// N shards of roughly equal bytes (whole tensors, greedy by size); fewer
// when there are fewer tensors. Used by `ckpt reshard --shards N`.
class FixedShardCountPolicy final : public ShardingPolicy {
public:
    explicit FixedShardCountPolicy(int shards) : m_shards(shards) {}
    std::string description() const override { return std::to_string(m_shards) + " shards"; }
    Result<std::vector<std::vector<SaveTensor>>> shard(std::vector<SaveTensor> tensors) const override;

private:
    int m_shards;
};

struct SaveOptions {
    std::shared_ptr<const ShardingPolicy> policy;  // null = ShardByTaskPolicy
    int maxParallelShards = 0;                     // 0 = one thread per core
    // Polled before each tensor is written and once more before the merge:
    // a cancelled save fails with Cancelled, its temp directory removed and
    // nothing committed (a checkpoint already at the prefix is untouched).
    // Once the merge has begun the save runs to its end. Not owned; may be null.
    const CancellationToken* cancel = nullptr;
    // (bytes written, bytes to write, "writing") from the shard writers'
    // threads as tensors are appended, then (total, total, "committing").
    ProgressSink progress;
};

struct SaveStats {
    std::string prefix;
    int shards = 0;
    int64_t tensors = 0;
    uint64_t dataBytes = 0;
    double seconds = 0;
};

// Writes 'tensors' as a bundle at 'prefix' (sharded temp dir + merge).
// Creates missing parent directories; removes stale *_temp dirs left by
// interrupted saves in the same directory. With 'recycle', the tensors'
// byte buffers go back to it afterwards, whether or not the write worked.
Result<SaveStats> writeTensors(const std::string& prefix, std::vector<SaveTensor> tensors, const SaveOptions& options,
                               SnapshotBuffers* recycle = nullptr);
// tf.train.Checkpoint.write(prefix): exact prefix, no counter, no state file.
Result<SaveStats> writeCheckpoint(const Trackable& root, const std::string& prefix, const SaveOptions& options);
// The root's save_counter (int64 scalar child), created at 0 when missing.
Result<std::shared_ptr<Variable>> saveCounter(Trackable& root);
// tf.train.Checkpoint.save(prefix): increments save_counter, writes
// "<prefix>-<counter>" and points <dir>/checkpoint at it. Returns the path.
Result<std::string> saveCheckpoint(Trackable& root, const std::string& prefix, const SaveOptions& options);

}  // namespace ckpt

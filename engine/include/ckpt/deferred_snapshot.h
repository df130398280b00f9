#pragma once
// A save's snapshot that copies while the caller goes on: a training step
// reads its variables long before it writes them, so the copy can overlap
// the next step's compute (the CheckFreq observation). start() collects the
// tensors and pins every variable without copying; finish(), on the writer
// thread, copies whatever is still pinned. A pinned variable's first
// mutable access (Variable::mutableValue, assign, setReplicaCount, its
// destructor) copies that variable first, or waits while finish() does, so
// the checkpoint holds the values as of start().
// The caller's contract (trackable.h): after each save, change values only
// through a fresh mutableValue()/assign(); a reference or pointer kept from
// before start() writes around the pin and tears the snapshot.
//   auto snap = DeferredSnapshot::start(*root, buffers);       // pins, copies nothing
//   writer.submit([snap = *snap] { auto tensors = snap->finish(); ... });
//   floatsOf(kernel->mutableValue())[0] += 1;                   // copies 'kernel' first

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ckpt/save.h"
#include "ckpt/snapshot_buffers.h"
#include "ckpt/status.h"
#include "ckpt/trackable.h"

namespace ckpt {

class DeferredSnapshot final : public VariablePin {
public:
    // Buffers come from (and, after the write, go back to) 'buffers'.
    [[nodiscard]] static Result<std::shared_ptr<DeferredSnapshot>> start(const Trackable& root,
                                                                         std::shared_ptr<SnapshotBuffers> buffers);
    ~DeferredSnapshot() override;

    int64_t tensorCount() const { return m_tensorCount; }
    uint64_t bytes() const { return m_bytes; }
    // Copies every variable not copied yet and returns the tensors. Once.
    std::vector<SaveTensor> finish();
    // Time spent in beforeChange() copying or waiting: what the deferred copy
    // cost the caller after start() returned.
    double stallSeconds() const;

    void beforeChange(const Variable& variable) override;

private:
    enum : uint8_t { kPending, kCopying, kCopied };
    struct Entry {
        std::vector<size_t> tensors;  // indexes into m_tensors / m_sources
        std::atomic<uint8_t> state{kPending};
    };
    DeferredSnapshot() = default;
    // Copies the entry's tensors unless another thread has; then waits until they are.
    void settle(Entry& entry);

    std::shared_ptr<SnapshotBuffers> m_buffers;
    std::vector<SaveTensor> m_tensors;
    std::vector<const Tensor*> m_sources;
    std::vector<Entry> m_entries;  // sized once in start(): atomics do not move
    std::unordered_map<const Variable*, size_t> m_entryOf;
    int64_t m_tensorCount = 0;
    uint64_t m_bytes = 0;
    std::atomic<int64_t> m_stallNanoseconds{0};
};

}  // namespace ckpt

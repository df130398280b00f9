#pragma once
// Host buffers that asynchronous saves snapshot variables into, kept from
// one save to the next. Fresh memory costs a page fault per 4 KiB on first
// write, several times the copy itself (2 GiB: ~0.9 s against ~0.1 s into
// buffers already mapped), so a save reuses the buffers its predecessor
// wrote from. The price: between saves the manager holds one snapshot's
// worth of host memory. Thread-safe.
//   SnapshotBuffers pool;
//   auto tensors = snapshotForSave(*root, pool);          // copies into pool buffers
//   writeTensors(prefix, std::move(*tensors), opts, &pool);  // hands them back

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace ckpt {

class SnapshotBuffers {
public:
    // A buffer of exactly n bytes, reused when one of that size is free
    // (contents unspecified), else newly allocated.
    std::vector<uint8_t> take(size_t n);
    void give(std::vector<uint8_t> buffer);
    // Frees the buffers nobody took. A snapshot calls it once it has taken
    // what it needs, so sizes that stopped appearing (a model that changed
    // shape) are not kept.
    void releaseUnused();
    size_t bytesHeld() const;

private:
    mutable std::mutex m_mutex;
    std::multimap<size_t, std::vector<uint8_t>> m_free;
};

}  // namespace ckpt

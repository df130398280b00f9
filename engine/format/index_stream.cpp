#include "format/index_stream.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <span>
#include <system_error>
#include <thread>

#include "format/index_entries.h"
#include "platform/cancellation_scope.h"

namespace ckpt::format {
namespace {

// Tensors per hand-over and hand-overs in flight: a queue lock per 1,024
// entries costs nothing measurable, and 4 x 1,024 TensorInfo (~0.2 KB each
// with key and shape) keep a side's stream under a megabyte.
constexpr size_t kBatch = 1024;
constexpr size_t kDepth = 4;

}  // namespace

struct IndexStream::Shared {
    std::mutex mutex;
    std::condition_variable changed;
    // Guarded by mutex.
    std::deque<std::vector<TensorInfo>> batches;
    std::optional<BundleHeader> header;
    bool done = false;     // the worker has finished (status says how)
    bool stopped = false;  // the consumer has gone: the worker drops out
    Status status;
    std::vector<TensorInfo> partitioned;
    std::thread worker;
};

IndexStream::IndexStream() : m_shared(std::make_shared<Shared>()) {}

IndexStream::~IndexStream() {
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->stopped = true;
    }
    m_shared->changed.notify_all();
    if (m_shared->worker.joinable()) m_shared->worker.join();
}

std::unique_ptr<IndexStream> IndexStream::start(const std::string& indexPath, const CancellationToken* cancel) {
    std::unique_ptr<IndexStream> stream(new IndexStream());
    // A thread of its own, not platform::runWorkers: the consumer waits on
    // this producer, so it cannot run in line after the consumer.
    try {
        stream->m_shared->worker = std::thread([shared = stream->m_shared, path = indexPath, cancel] {
            const platform::CancellationScope scope(cancel);  // a remote index's transfers stop on Cancel
            Shared& s = *shared;
            std::vector<TensorInfo> batch, partitioned;
            batch.reserve(kBatch);
            // Hands a batch over, waiting while the queue is full; false once
            // the consumer has gone.
            auto handOver = [&](std::vector<TensorInfo>&& full) {
                std::unique_lock lock(s.mutex);
                s.changed.wait(lock, [&] { return s.batches.size() < kDepth || s.stopped; });
                if (s.stopped) return false;
                s.batches.push_back(std::move(full));
                s.changed.notify_all();
                return true;
            };
            // Nothing may escape the thread (std::bad_alloc): it ends the decode.
            Result<BundleHeader> decoded = internalError("index stream of " + path + " failed");
            try {
                decoded = decodeIndexEntries(
                    nullptr, path,
                    [&](TensorInfo&& t) -> Status {
                        if (t.isPartitioned()) {
                            partitioned.push_back(std::move(t));
                            return okStatus();
                        }
                        batch.push_back(std::move(t));
                        if (batch.size() < kBatch) return okStatus();
                        if (!handOver(std::move(batch))) return cancelled("index stream closed");
                        batch = {};
                        batch.reserve(kBatch);
                        return okStatus();
                    },
                    [&] { return std::span<TensorInfo>(partitioned); },
                    [&](const BundleHeader& h) {
                        std::lock_guard lock(s.mutex);
                        s.header = h;
                        s.changed.notify_all();
                    });
            } catch (const std::exception& e) {
                decoded = internalError("index stream of " + path + " failed: " + e.what());
            }
            if (decoded.ok() && !batch.empty()) handOver(std::move(batch));
            std::lock_guard lock(s.mutex);
            s.done = true;
            s.status = decoded.status();
            if (decoded.ok()) s.partitioned = std::move(partitioned);
            s.changed.notify_all();
        });
    } catch (const std::system_error&) {
        stream->m_shared->done = true;
        stream->m_shared->status = Status(StatusCode::ResourceExhausted, "no thread to decode " + indexPath);
    }
    return stream;
}

Result<BundleHeader> IndexStream::header() {
    Shared& s = *m_shared;
    std::unique_lock lock(s.mutex);
    s.changed.wait(lock, [&] { return s.header.has_value() || s.done; });
    if (s.header) return *s.header;
    return s.status;
}

bool IndexStream::nextBatch() {
    Shared& s = *m_shared;
    std::unique_lock lock(s.mutex);
    s.changed.wait(lock, [&] { return !s.batches.empty() || s.done; });
    if (s.batches.empty()) return false;
    m_batch = std::move(s.batches.front());
    s.batches.pop_front();
    m_next = 0;
    s.changed.notify_all();
    return true;
}

TensorInfo* IndexStream::peek() {
    while (m_next >= m_batch.size())
        if (!nextBatch()) return nullptr;
    return &m_batch[m_next];
}

void IndexStream::pop() { ++m_next; }

Status IndexStream::status() {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->done ? m_shared->status : okStatus();
}

std::vector<TensorInfo>& IndexStream::partitioned() {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->partitioned;
}

}  // namespace ckpt::format

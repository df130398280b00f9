#pragma once
// Cooperative cancellation and progress for long engine operations.
// A UI thread or signal handler calls cancel(); the worker polls
// isCancelled() between units of work and returns StatusCode::Cancelled.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string_view>

namespace ckpt {

class CancellationToken {
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return m_cancelled.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled{false};
};

// Receives (done, total) in work units (bytes or items) and a short phase
// name. Called on the worker's thread; implementations must be thread-safe
// if they touch shared state.
using ProgressSink = std::function<void(int64_t done, int64_t total, std::string_view phase)>;

}  // namespace ckpt

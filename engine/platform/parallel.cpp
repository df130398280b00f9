#include "platform/parallel.h"

#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "platform/cancellation_scope.h"

namespace ckpt::platform {

size_t hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

size_t threadsOrDefault(int requested) { return requested > 0 ? static_cast<size_t>(requested) : hardwareThreads(); }

Status runWorkers(size_t workers, const std::function<void(size_t worker)>& body) {
    workers = std::max<size_t>(1, workers);
    std::mutex failureMutex;
    Status failure;
    auto fail = [&](std::string what) {
        std::lock_guard lock(failureMutex);
        if (failure.isOk()) failure = internalError("worker " + std::move(what));
    };
    // Workers stop their object-store requests when the caller's call is
    // cancelled, as the caller's own thread does.
    const CancellationToken* inherited = currentCancellation();
    auto guarded = [&](size_t worker) {
        const CancellationScope scope(inherited);
        try {
            body(worker);
        } catch (const std::exception& e) {
            fail(std::string("failed: ") + e.what());
        } catch (...) {
            fail("failed with an unknown exception");
        }
    };
    // threads[w - 1] runs worker w; a thread left unjoinable never started.
    std::vector<std::thread> threads;
    try {
        threads.resize(workers - 1);
    } catch (const std::bad_alloc&) {
        threads.clear();
    }
    for (size_t w = 1; w <= threads.size(); ++w) {
        try {
            threads[w - 1] = std::thread(guarded, w);
        } catch (const std::system_error&) {
            // no thread to be had: worker w runs in line below
        }
    }
    guarded(0);
    for (size_t w = 1; w < workers; ++w)
        if (w > threads.size() || !threads[w - 1].joinable()) guarded(w);
    for (std::thread& t : threads)
        if (t.joinable()) t.join();
    return failure;
}

}  // namespace ckpt::platform

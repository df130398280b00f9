#pragma once
// How the bindings call the engine: with the GIL released, cancellable by
// Ctrl-C, reporting progress to a Python callable.
//
// Work that may take long runs on a worker thread while the calling thread
// waits without the GIL and, every kPollInterval, takes it to let Python
// run its signal handlers (PyErr_CheckSignals). When a handler raises
// (KeyboardInterrupt from SIGINT), the engine's CancellationToken is
// cancelled, the worker is waited for (the engine polls the token between
// units of work), and the exception is raised from the call. Python runs
// signal handlers only on its main thread, so elsewhere the call simply
// runs to the end. Nothing on the worker touches Python objects except the
// progress callback, which takes the GIL.

#include <nanobind/nanobind.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

#include "ckpt/cancellation.h"

namespace ckpt::python {

inline constexpr std::chrono::milliseconds kPollInterval{50};

// A Python callable progress(done, total, phase) as an engine ProgressSink:
// called at most every 100 ms (and at the end), with the GIL taken. An
// exception it raises cancels the work and is raised from the call.
class PythonProgress {
public:
    PythonProgress(nanobind::object callback, CancellationToken& token) : m_callback(std::move(callback)), m_token(token) {}
    ~PythonProgress();
    PythonProgress(const PythonProgress&) = delete;
    PythonProgress& operator=(const PythonProgress&) = delete;

    // Empty when there is no callback (None).
    ProgressSink sink();
    // Raises what the callback raised, if it did. GIL held.
    void rethrow();

private:
    void report(int64_t done, int64_t total, std::string_view phase);

    nanobind::object m_callback;
    CancellationToken& m_token;
    std::mutex m_mutex;
    std::chrono::steady_clock::time_point m_last{};  // Guarded by m_mutex.
    std::optional<nanobind::python_error> m_error;   // Guarded by the GIL.
};

// What the engine call gets: the token to pass as options.cancel, the sink
// to pass as options.progress.
struct CallContext {
    const CancellationToken* cancel = nullptr;
    ProgressSink progress;
};

// Runs work(context) on a worker thread, cancellable as described above.
// Call with the GIL held; 'progress' is a callable or None.
template <typename R>
R runCancellable(const std::function<R(const CallContext&)>& work, nanobind::object progress = nanobind::none()) {
    CancellationToken token;
    PythonProgress reporter(std::move(progress), token);
    const CallContext context{&token, reporter.sink()};
    std::optional<R> result;
    std::exception_ptr failure;
    std::optional<nanobind::python_error> interrupt;
    {
        nanobind::gil_scoped_release release;
        std::mutex mutex;
        std::condition_variable finished;
        bool done = false;
        std::thread worker([&] {
            try {
                result.emplace(work(context));
            } catch (...) {
                failure = std::current_exception();
            }
            std::lock_guard lock(mutex);
            done = true;
            finished.notify_all();
        });
        std::unique_lock lock(mutex);
        while (!finished.wait_for(lock, kPollInterval, [&] { return done; })) {
            if (interrupt) continue;
            lock.unlock();
            {
                nanobind::gil_scoped_acquire gil;
                if (PyErr_CheckSignals() != 0) {
                    interrupt.emplace();  // takes the raised exception
                    token.cancel();
                }
            }
            lock.lock();
        }
        lock.unlock();
        worker.join();
    }
    if (interrupt) throw std::move(*interrupt);
    reporter.rethrow();
    if (failure) std::rethrow_exception(failure);
    return std::move(*result);
}

// Short work: the GIL released around it, on this thread (no cancellation).
template <typename F>
auto runReleased(F&& work) {
    nanobind::gil_scoped_release release;
    return work();
}

}  // namespace ckpt::python

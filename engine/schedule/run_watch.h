#pragma once
// While one scheduled run executes: forwards the caller's cancellation and
// the store's cancel requests to the run's own token, and writes the run's
// progress to its row at most every progressSeconds. A thread of its own
// because runs report progress only now and then (the demo trainer every
// ~1% of its steps, a copy before and after) while a cancel request must be seen
// within a fraction of a second. The watch's store is used only by its
// thread (a store object is for one thread). Engine-internal.
//   RunWatch watch(store, {scheduleId, runId, cancel, progress});
//   outcome = runSomething(..., &watch.token(), watch.sink());
//   watch.stop();   // then watch.cancelRequest() says who asked to cancel

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "ckpt/cancellation.h"
#include "ckpt/schedule_store.h"

namespace ckpt::schedule {

struct RunWatchOptions {
    int64_t scheduleId = 0;
    int64_t runId = 0;
    const CancellationToken* cancel = nullptr;  // the caller's; may be null
    ProgressSink progress;                      // the caller's; may be empty
    double pollSeconds = 0.25;
    double progressSeconds = 0.5;
};

class RunWatch {
public:
    RunWatch(ScheduleStore& store, RunWatchOptions options);
    ~RunWatch();  // stops
    RunWatch(const RunWatch&) = delete;
    RunWatch& operator=(const RunWatch&) = delete;

    // The run's token: cancelled by the caller's token or a cancel request.
    const CancellationToken& token() const { return m_token; }
    // Records progress for the store and forwards it to the caller's sink.
    // Valid while the watch lives.
    const ProgressSink& sink() const { return m_sink; }
    // Joins the thread after a last progress write. Idempotent.
    void stop();
    // The cancel request the watch took, if any (read after stop()).
    const std::optional<ScheduleRequest>& cancelRequest() const { return m_request; }
    // The first store failure of the thread (the run goes on without it).
    const Status& storeError() const { return m_storeError; }

private:
    void loop();
    void writeProgress();

    ScheduleStore& m_store;
    RunWatchOptions m_options;
    CancellationToken m_token;
    ProgressSink m_sink;
    std::optional<ScheduleRequest> m_request;  // written by the thread; read after stop()
    Status m_storeError;                       // likewise

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;  // Guarded by m_mutex.
    // The latest progress and whether the store has it. Guarded by m_mutex.
    int64_t m_done = 0;
    int64_t m_total = 0;
    std::string m_phase;
    bool m_dirty = false;
    std::thread m_thread;
};

}  // namespace ckpt::schedule

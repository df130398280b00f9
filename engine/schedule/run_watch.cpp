#include "schedule/run_watch.h"
#include "platform/clock.h"

#include <unistd.h>

#include <chrono>

namespace ckpt::schedule {
namespace {

// How often the thread looks at the caller's token (an atomic: free).
constexpr auto kTick = std::chrono::milliseconds(50);

}  // namespace

RunWatch::RunWatch(ScheduleStore& store, RunWatchOptions options) : m_store(store), m_options(std::move(options)) {
    m_sink = [this](int64_t done, int64_t total, std::string_view phase) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_done = done;
            m_total = total;
            m_phase.assign(phase);
            m_dirty = true;
        }
        if (m_options.progress) m_options.progress(done, total, phase);
    };
    // Already cancelled: the run must see it before its first step, not a tick later.
    if (m_options.cancel && m_options.cancel->isCancelled()) m_token.cancel();
    m_thread = std::thread([this] { loop(); });
}

RunWatch::~RunWatch() { stop(); }

void RunWatch::stop() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void RunWatch::writeProgress() {
    int64_t done = 0, total = 0;
    std::string phase;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_dirty) return;
        m_dirty = false;
        done = m_done;
        total = m_total;
        phase = m_phase;
    }
    const Status st = m_store.setRunProgress(m_options.runId, done, total, phase);
    if (!st.isOk() && m_storeError.isOk()) m_storeError = st;
}

void RunWatch::loop() {
    using Clock = std::chrono::steady_clock;
    const auto poll = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_options.pollSeconds));
    const auto write = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_options.progressSeconds));
    // The first check at once: a cancel sent before the run began applies.
    auto nextPoll = Clock::now();
    auto nextWrite = Clock::now() + write;
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_stopping) {
        lock.unlock();
        if (m_options.cancel && m_options.cancel->isCancelled()) m_token.cancel();
        const auto now = Clock::now();
        if (!m_request && now >= nextPoll) {
            nextPoll = now + poll;
            auto taken = m_store.takeCancelRequest(m_options.scheduleId, m_options.runId, platform::unixSeconds(), ::getpid());
            if (!taken.ok() && m_storeError.isOk()) m_storeError = taken.status();
            if (taken.ok() && *taken) {
                m_request = std::move(**taken);
                m_token.cancel();
            }
        }
        if (now >= nextWrite) {
            nextWrite = now + write;
            writeProgress();
        }
        lock.lock();
        m_wake.wait_for(lock, kTick, [this] { return m_stopping; });
    }
    lock.unlock();
    writeProgress();
}

}  // namespace ckpt::schedule

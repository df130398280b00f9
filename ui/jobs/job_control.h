#pragma once
// Progress and cancellation of one background operation, shared between the
// worker (which writes progress and polls the token) and the GUI (which
// polls progress on a timer and may cancel). Lock-free so a worker reporting
// per tensor never waits on the GUI thread.

#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>

#include "ckpt/cancellation.h"

namespace ckpt::ui {

class JobControl {
public:
    explicit JobControl(QString title) : m_title(std::move(title)) {}

    const QString& title() const { return m_title; }
    const CancellationToken& token() const { return m_token; }
    void cancel() { m_token.cancel(); }
    bool isCancelled() const { return m_token.isCancelled(); }

    // A sink for engine calls; captures a shared_ptr so it outlives the GUI's copy.
    static ProgressSink sinkFor(const std::shared_ptr<JobControl>& job) {
        return [job](int64_t done, int64_t total, std::string_view) { job->setProgress(done, total); };
    }
    void setProgress(int64_t done, int64_t total) {
        m_total.store(total, std::memory_order_relaxed);
        m_done.store(done, std::memory_order_relaxed);
    }
    int64_t done() const { return m_done.load(std::memory_order_relaxed); }
    int64_t total() const { return m_total.load(std::memory_order_relaxed); }

private:
    QString m_title;
    CancellationToken m_token;
    std::atomic<int64_t> m_done{0};
    std::atomic<int64_t> m_total{0};
};

}  // namespace ckpt::ui

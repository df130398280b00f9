#include "schedule/program_runs.h"

#include <unistd.h>

#include <iostream>
#include <utility>

namespace ckpt::schedule {

ProgramRunRecorder::ProgramRunRecorder(std::string storePath, Schedule schedule)
    : m_path(std::move(storePath)), m_schedule(std::move(schedule)) {
    // Registered before training starts, on the caller's thread, so the
    // schedule is in the store (or its error printed) once create() returns;
    // the store object then moves to the writer thread for good.
    open();
    m_thread = std::thread([this] { loop(); });
}

ProgramRunRecorder::~ProgramRunRecorder() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_cv.notify_all();
    m_thread.join();
}

void ProgramRunRecorder::begin(RunTrigger trigger, std::string note, double at) {
    Event e;
    e.begin = true;
    e.trigger = trigger;
    e.text = std::move(note);
    e.at = at;
    push(std::move(e));
}

void ProgramRunRecorder::finish(Status saved, std::string checkpoint, uint64_t bytes, double at) {
    Event e;
    e.text = std::move(checkpoint);
    e.bytes = bytes;
    e.at = at;
    e.saved = std::move(saved);
    push(std::move(e));
}

void ProgramRunRecorder::push(Event event) {
    if (!active()) return;
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(event));
    }
    m_cv.notify_all();
}

void ProgramRunRecorder::flush() {
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [this] { return m_queue.empty() && !m_writing; });
}

void ProgramRunRecorder::loop() {
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_cv.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
        if (m_queue.empty()) return;  // stopping with everything written
        Event e = std::move(m_queue.front());
        m_queue.pop_front();
        m_writing = true;
        lock.unlock();
        write(e);
        lock.lock();
        m_writing = false;
        m_cv.notify_all();  // flush() may be waiting
    }
}

void ProgramRunRecorder::open() {
    auto store = ScheduleStore::open(m_path);
    if (!store.ok()) return stop(store.status());
    // A directory or demo schedule of the same name belongs to someone else.
    auto existing = (*store)->schedule(m_schedule.name);
    if (existing.ok() && existing->source != ScheduleSource::Program)
        return stop(failedPrecondition("schedule \"" + m_schedule.name + "\" is a " +
                                       std::string(scheduleSourceName(existing->source)) +
                                       " schedule, not this program's; it is left as it is"));
    if (!existing.ok() && existing.status().code() != StatusCode::NotFound) return stop(existing.status());
    auto id = (*store)->upsertSchedule(m_schedule);
    if (!id.ok()) return stop(id.status());
    m_store = std::move(*store);
    m_scheduleId = *id;
}

void ProgramRunRecorder::write(const Event& e) {
    if (!m_store) return;  // stopped: what is still queued is dropped
    if (e.begin) {
        auto run = m_store->beginRun(m_scheduleId, e.trigger, e.at, ::getpid());
        if (!run.ok()) return stop(run.status());
        m_run = *run;
        m_note = e.text;
        return;
    }
    if (!m_run) return;
    RunOutcome outcome;
    outcome.endedAt = e.at;
    outcome.note = m_note;
    outcome.checkpoint = e.text;
    if (e.saved.isOk()) {
        outcome.result = RunResult::Ok;
        outcome.bytes = e.bytes;
    } else {
        outcome.result = RunResult::Failed;
        outcome.error = e.saved.toString();
    }
    const Status st = m_store->finishRun(*std::exchange(m_run, std::nullopt), outcome);
    if (!st.isOk()) stop(st);
}

void ProgramRunRecorder::stop(const Status& error) {
    // Once: a broken store must not flood a training log.
    std::cerr << "ckpt: not recording saves in the schedule store " << m_path << ": " << error.toString()
              << " (training and saving go on)\n";
    m_store.reset();
    m_run.reset();
    m_failed.store(true, std::memory_order_relaxed);
}

}  // namespace ckpt::schedule

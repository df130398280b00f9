#pragma once
// A live program's saves as runs in the schedule store (schedule_store.h):
// the ScheduledCheckpointer registers the program as a Program schedule and
// records each save as one run, so `ckpt schedule show` and the explorer's
// Schedules tab can watch a training loop. The store is a spectator: its
// writes happen on a thread of their own (each is an fsync'd transaction
// that may also wait for another process's, which a training step must not
// pay for), and any error it gives is printed once to stderr, after which
// recording stops while the training loop goes on saving. It never takes
// the scheduler's lock (a program is not a scheduler). begin() and
// finish() are called from one thread, the training loop's. Engine-internal.
//   ProgramRunRecorder recorder("/home/a/schedules.db", programSchedule);
//   recorder.begin(RunTrigger::Due, "every 100 steps (step 1200)", now);
//   recorder.finish(okStatus(), "/runs/a/ckpt-12", bytes, now);   // once the save is durable
//   recorder.flush();   // everything above is in the store

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "ckpt/schedule_store.h"
#include "ckpt/status.h"

namespace ckpt::schedule {

class ProgramRunRecorder {
public:
    // Opens the store, adds or updates 'schedule' (a Program schedule),
    // and starts the writer thread. Never fails: a store that cannot be
    // opened or written, or a schedule of that name that is not a
    // program's (never overwritten), only stops the recording.
    ProgramRunRecorder(std::string storePath, Schedule schedule);
    ~ProgramRunRecorder();  // writes what is queued, then stops the thread
    ProgramRunRecorder(const ProgramRunRecorder&) = delete;
    ProgramRunRecorder& operator=(const ProgramRunRecorder&) = delete;

    // No store error so far (the saves are worth tracking).
    bool active() const { return !m_failed.load(std::memory_order_relaxed); }
    // A save starts: a `running` run with 'note' (the trigger's reason).
    void begin(RunTrigger trigger, std::string note, double at);
    // The run begun last ended: `ok` with 'checkpoint' and 'bytes' when
    // 'saved' is ok (call only once the save is durable), else `failed`.
    void finish(Status saved, std::string checkpoint, uint64_t bytes, double at);
    // Waits until everything begun and finished so far is in the store
    // (or dropped after a store error).
    void flush();

private:
    struct Event {
        bool begin = false;
        RunTrigger trigger = RunTrigger::Due;
        std::string text;  // begin: the note; finish: the checkpoint
        uint64_t bytes = 0;
        double at = 0;
        Status saved;
    };
    void push(Event event);
    void loop();
    // The writer thread's side.
    void open();
    void write(const Event& event);
    void stop(const Status& error);

    const std::string m_path;
    Schedule m_schedule;
    std::atomic<bool> m_failed{false};

    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<Event> m_queue;  // Guarded by m_mutex.
    bool m_writing = false;     // Guarded by m_mutex.
    bool m_stopping = false;    // Guarded by m_mutex.

    // The writer thread's only, once it runs (a store object is for one thread).
    std::unique_ptr<ScheduleStore> m_store;
    int64_t m_scheduleId = 0;
    std::optional<int64_t> m_run;
    std::string m_note;

    std::thread m_thread;  // started once the store is open
};

}  // namespace ckpt::schedule

#pragma once
// What `ckpt schedule` and `ckpt scheduler` share: the store a --store flag
// names, schedules and runs as JSON and as text, and SIGINT/SIGTERM turned
// into a CancellationToken for a run in progress.

#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "ckpt/cancellation.h"
#include "ckpt/schedule_store.h"
#include "ckpt/scheduler.h"

namespace ckpt::cli {

// The --store path, else ScheduleStore::defaultPath(); the default's
// directory is created, an explicit path's must exist.
struct StoreLocation {
    std::string path;
    ScheduleStoreOptions options;
};
Result<StoreLocation> storeLocation(const std::string& storeFlag);

nlohmann::json scheduleJson(const Schedule& schedule);
nlohmann::json runJson(const ScheduleRun& run);
// One line: "run 7 (due) 2026-11-25 09:00:00 ok 1.2 MiB 0.4 s /archive/ckpt-3".
std::string runLine(const ScheduleRun& run);

// While alive, SIGINT and SIGTERM cancel token(): the first one asks the
// run to stop at a safe point; a second of the same kind kills the process
// (installPreemptionHandlers' rule, for a run that does not stop).
class CancelOnSignal {
public:
    CancelOnSignal();
    ~CancelOnSignal();
    CancelOnSignal(const CancelOnSignal&) = delete;
    CancelOnSignal& operator=(const CancelOnSignal&) = delete;
    CancellationToken& token() { return m_token; }
    int signal() const { return m_signal.load(); }

private:
    CancellationToken m_token;
    std::atomic<bool> m_done{false};
    std::atomic<int> m_signal{0};
    std::thread m_watcher;
};

}  // namespace ckpt::cli

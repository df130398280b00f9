#include "schedule_output.h"

#include <chrono>
#include <cstdio>

#include "ckpt/save_triggers.h"
#include "output.h"

namespace ckpt::cli {

Result<StoreLocation> storeLocation(const std::string& storeFlag) {
    StoreLocation location;
    if (!storeFlag.empty()) {
        location.path = storeFlag;
        return location;
    }
    CKPT_ASSIGN_OR_RETURN(location.path, ScheduleStore::defaultPath());
    location.options.createDirectory = true;
    return location;
}

nlohmann::json scheduleJson(const Schedule& schedule) { return nlohmann::json::parse(scheduleToJson(schedule)); }

nlohmann::json runJson(const ScheduleRun& run) {
    return {
        {"id", run.id},
        {"schedule", run.scheduleName},
        {"trigger", std::string(runTriggerName(run.trigger))},
        {"started_at", run.startedAt},
        {"ended_at", run.endedAt ? nlohmann::json(*run.endedAt) : nlohmann::json(nullptr)},
        {"seconds", run.endedAt ? nlohmann::json(run.seconds()) : nlohmann::json(nullptr)},
        {"result", std::string(runResultName(run.result))},
        {"bytes", run.bytes},
        {"checkpoint", run.checkpoint},
        {"source_checkpoint", run.sourceCheckpoint},
        {"error", run.error},
        {"note", run.note},
        {"pid", run.pid},
        // How far a running run is, as its scheduler last wrote it.
        {"progress", run.result == RunResult::Running
                         ? nlohmann::json{{"done", run.progressDone}, {"total", run.progressTotal}, {"phase", run.progressPhase}}
                         : nlohmann::json(nullptr)}};
}

std::string runLine(const ScheduleRun& run) {
    char seconds[32] = "";
    if (run.endedAt) std::snprintf(seconds, sizeof seconds, " %.1f s", run.seconds());
    std::string line = "run " + std::to_string(run.id) + " (" + std::string(runTriggerName(run.trigger)) + ") " +
                       localTimeText(run.startedAt) + " " + std::string(runResultName(run.result)) + seconds;
    if (run.result == RunResult::Running && run.progressTotal > 0)
        line += " " + std::to_string(100 * run.progressDone / run.progressTotal) + "%";
    if (run.result == RunResult::Running && !run.progressPhase.empty()) line += " " + run.progressPhase;
    if (run.bytes) line += " " + byteText(run.bytes);
    if (!run.checkpoint.empty()) line += " " + run.checkpoint;
    if (!run.error.empty()) line += "\n    error: " + run.error;
    if (!run.note.empty()) line += "\n    " + run.note;
    return line;
}

CancelOnSignal::CancelOnSignal() {
    // The handlers only record the signal (async-signal-safe); this thread
    // turns it into a cancellation the running save polls.
    (void)installPreemptionHandlers();
    m_watcher = std::thread([this] {
        while (!m_done.load()) {
            if (const int sig = pendingPreemption(); sig != 0 && !m_token.isCancelled()) {
                m_signal.store(sig);
                m_token.cancel();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
}

CancelOnSignal::~CancelOnSignal() {
    m_done.store(true);
    m_watcher.join();
}

}  // namespace ckpt::cli

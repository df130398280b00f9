#include "ckpt/scheduled_checkpointer.h"

#include <iostream>
#include <utility>

#include <nlohmann/json.hpp>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/schedule.h"
#include "platform/file.h"
#include "platform/json_type.h"
#include "schedule/program_runs.h"
#include "platform/clock.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

// What the store shows as the program when the caller does not say.
std::string selfExecutable() {
    std::string exe = platform::executablePath();
    return exe.empty() ? std::string("(unknown program)") : exe;
}

// The Program schedule a checkpointer registers: what it saves where,
// when, and what it keeps (the manager's max_to_keep in retention's terms).
Schedule programSchedule(const ScheduledCheckpointerOptions& options, const std::string& directory) {
    Schedule s;
    s.name = options.schedule;
    s.source = ScheduleSource::Program;
    s.sourcePath = options.program.empty() ? selfExecutable() : options.program;
    s.destination = storage::normalizeLocation(directory);
    s.triggers = options.triggers;
    if (options.manager.retention) {
        s.retention = *options.manager.retention;
    } else {
        s.retention.keepLatest = options.manager.maxToKeep;
        s.retention.keepOnePerHours = options.manager.keepCheckpointEveryNHours;
    }
    s.async = options.manager.async;
    return s;
}

}  // namespace

Result<CheckpointPolicy> parseCheckpointPolicy(std::string_view json, std::string_view source) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(json);
    } catch (const nlohmann::json::exception& e) {
        return invalidArgument(std::string(source) + ": not valid JSON: " + e.what());
    }
    if (!doc.is_object())
        return invalidArgument(std::string(source) + ": a checkpoint policy must be a JSON object, got " +
                               std::string(platform::jsonTypeName(doc)));
    CheckpointPolicy policy;
    for (const auto& [key, value] : doc.items()) {
        // Each part is parsed by its own reader, which names its fields.
        if (key == "triggers") {
            CKPT_ASSIGN_OR_RETURN(policy.triggers, parseSaveTriggers(value.dump(), std::string(source) + " triggers"));
        } else if (key == "retention") {
            CKPT_ASSIGN_OR_RETURN(policy.retention, parseRetentionPolicy(value.dump(), std::string(source) + " retention"));
        } else {
            return invalidArgument(std::string(source) + ": unknown field \"" + key +
                                   "\" in a checkpoint policy (expected \"triggers\" and \"retention\")");
        }
    }
    return policy;
}

Result<CheckpointPolicy> readCheckpointPolicy(const std::string& path) {
    // A policy is a few hundred bytes; 1 MiB bounds a wrong file.
    CKPT_ASSIGN_OR_RETURN(const std::string text, storage::readSmallFile(path, 1u << 20));
    return parseCheckpointPolicy(text, path);
}

std::string checkpointPolicyToJson(const CheckpointPolicy& policy) {
    nlohmann::ordered_json doc;
    doc = nlohmann::ordered_json::object();
    if (policy.triggers) doc["triggers"] = nlohmann::ordered_json::parse(saveTriggersToJson(*policy.triggers));
    if (policy.retention) doc["retention"] = nlohmann::ordered_json::parse(retentionPolicyToJson(*policy.retention));
    return doc.dump(2);
}

ScheduledCheckpointer::ScheduledCheckpointer(std::unique_ptr<CheckpointManager> manager, TriggerState triggers,
                                             std::string schedule, std::function<double()> clock)
    : m_manager(std::move(manager)), m_triggers(std::move(triggers)), m_schedule(std::move(schedule)), m_clock(std::move(clock)) {
}

ScheduledCheckpointer::~ScheduledCheckpointer() {
    if (!m_pendingCheckpoint) return;
    // The manager would print an unreported write error when destroyed;
    // settling the run takes that error, so it is printed here instead.
    const Status st = settlePendingRun(true);
    if (!st.isOk()) std::cerr << "ckpt: " << st.toString() << "\n";
}

Result<std::unique_ptr<ScheduledCheckpointer>> ScheduledCheckpointer::create(std::shared_ptr<Trackable> root,
                                                                             std::string directory,
                                                                             ScheduledCheckpointerOptions options) {
    CKPT_RETURN_IF_ERROR(validateSaveTriggers(options.triggers));
    if (options.storePath) {
        if (options.schedule.empty()) return invalidArgument("recording saves in a schedule store needs a schedule name");
        CKPT_RETURN_IF_ERROR(validateScheduleName(options.schedule));
    }
    // The triggers decide when to save; an interval on top would silently drop saves.
    options.manager.checkpointInterval.reset();
    std::function<double()> clock = options.manager.clock ? options.manager.clock : platform::unixSeconds;
    CKPT_ASSIGN_OR_RETURN(auto manager, CheckpointManager::create(std::move(root), std::move(directory), options.manager));
    const auto latest = manager->latestCheckpoint();
    const PreviousRunReport& found = manager->previousRun();
    const bool haveCheckpoint =
        (latest && storage::exists(indexFileName(*latest))) || !found.own.empty() || !found.adopted.empty();
    if (options.triggers.onPreemption) CKPT_RETURN_IF_ERROR(installPreemptionHandlers());
    std::unique_ptr<schedule::ProgramRunRecorder> recorder;
    if (options.storePath)
        recorder =
            std::make_unique<schedule::ProgramRunRecorder>(*options.storePath, programSchedule(options, manager->directory()));
    const bool async = options.manager.async;
    TriggerState triggers(std::move(options.triggers), haveCheckpoint, clock());
    auto checkpointer = std::unique_ptr<ScheduledCheckpointer>(
        new ScheduledCheckpointer(std::move(manager), std::move(triggers), std::move(options.schedule), std::move(clock)));
    checkpointer->m_recorder = std::move(recorder);
    checkpointer->m_async = async;
    return checkpointer;
}

double ScheduledCheckpointer::now() const { return m_clock(); }

Result<StepOutcome> ScheduledCheckpointer::onStep(int64_t step, const std::map<std::string, double>& metrics) {
    m_lastStep = step;
    // Only while an async save's run is open: one look at the writer, so
    // the run ends soon after the commit, not at the next save.
    if (m_pendingCheckpoint) CKPT_RETURN_IF_ERROR(settlePendingRun(false));
    if (m_preemptionSaved) return StepOutcome{};  // saved once; the loop is stopping
    TriggerInput input{.step = step, .now = now()};
    if (m_triggers.triggers().onPreemption) input.preemptionSignal = pendingPreemption();
    TriggerDecision decision = m_triggers.evaluate(input);
    // Ask the writer only when something is due: the common step stays lock-free.
    if (decision.save && m_triggers.triggers().skipWhileInFlight && m_manager->saveInFlight()) {
        input.saveInFlight = true;
        decision = m_triggers.evaluate(input);
    }
    if (!decision.save) {
        StepOutcome idle;
        idle.reason = std::move(decision.reason);
        return idle;
    }
    CKPT_ASSIGN_OR_RETURN(StepOutcome outcome, save(step, std::move(decision.reason), metrics, false));
    if (input.preemptionSignal != 0) {
        // The program is about to stop: the save must be on disk first.
        CKPT_RETURN_IF_ERROR(m_pendingCheckpoint ? settlePendingRun(true) : m_manager->sync());
        m_preemptionSaved = true;
        m_stopRequested = true;
    }
    return outcome;
}

Result<StepOutcome> ScheduledCheckpointer::saveNow(std::string reason, const std::map<std::string, double>& metrics) {
    return save(m_lastStep, std::move(reason), metrics, true);
}

Result<StepOutcome> ScheduledCheckpointer::save(int64_t step, std::string reason, const std::map<std::string, double>& metrics,
                                                bool forced) {
    // The manager's save() would wait for the previous write anyway and
    // return its error; waiting here first ends that write's run.
    if (m_pendingCheckpoint) CKPT_RETURN_IF_ERROR(settlePendingRun(true));
    const bool record = m_recorder && m_recorder->active();
    if (record)
        m_recorder->begin(forced ? RunTrigger::RunNow : RunTrigger::Due, reason + " (step " + std::to_string(step) + ")", now());
    SaveRequest request;
    request.metrics = metrics;
    request.step = step;
    request.checkInterval = false;
    request.schedule = m_schedule;
    Result<SaveReport> saved = m_manager->save(request);
    if (record) {
        if (!saved.ok()) {
            m_recorder->finish(saved.status(), "", 0, now());
        } else if (m_async) {
            m_pendingCheckpoint = saved->path.value_or("");  // ok only once the writer has committed it
        } else {
            const std::string path = saved->path.value_or("");
            m_recorder->finish(okStatus(), path, checkpointBytesOnDisk(path), now());
        }
    }
    CKPT_ASSIGN_OR_RETURN(SaveReport report, std::move(saved));
    m_triggers.recordSave(step, now());
    ++m_saves;
    StepOutcome outcome;
    outcome.saved = true;
    outcome.reason = std::move(reason);
    outcome.report = std::move(report);
    return outcome;
}

Status ScheduledCheckpointer::settlePendingRun(bool wait) {
    if (!m_pendingCheckpoint) return okStatus();
    if (!wait && m_manager->saveInFlight()) return okStatus();
    // The write has finished (or is waited for): sync() returns at once
    // with its result, which the run records and the caller gets.
    Status written = m_manager->sync();
    const std::string path = *std::exchange(m_pendingCheckpoint, std::nullopt);
    m_recorder->finish(written, path, written.isOk() ? checkpointBytesOnDisk(path) : 0, now());
    return written;
}

Status ScheduledCheckpointer::close() {
    const Status pending = settlePendingRun(true);
    const Status closed = m_manager->close();
    if (m_recorder) m_recorder->flush();  // the runs are in the store when close() returns
    return pending.isOk() ? closed : pending;
}

}  // namespace ckpt

#include "ckpt/scheduled_checkpointer.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "ckpt/bundle_naming.h"
#include "platform/file.h"
#include "platform/json_type.h"

namespace ckpt {
namespace {

double systemNow() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

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
    CKPT_ASSIGN_OR_RETURN(const std::string text, platform::readSmallFile(path, 1u << 20));
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

ScheduledCheckpointer::~ScheduledCheckpointer() = default;

Result<std::unique_ptr<ScheduledCheckpointer>> ScheduledCheckpointer::create(std::shared_ptr<Trackable> root,
                                                                             std::string directory,
                                                                             ScheduledCheckpointerOptions options) {
    CKPT_RETURN_IF_ERROR(validateSaveTriggers(options.triggers));
    // The triggers decide when to save; an interval on top would silently drop saves.
    options.manager.checkpointInterval.reset();
    std::function<double()> clock = options.manager.clock ? options.manager.clock : systemNow;
    CKPT_ASSIGN_OR_RETURN(auto manager, CheckpointManager::create(std::move(root), std::move(directory), options.manager));
    const auto latest = manager->latestCheckpoint();
    const PreviousRunReport& found = manager->previousRun();
    const bool haveCheckpoint =
        (latest && platform::pathExists(indexFileName(*latest))) || !found.own.empty() || !found.adopted.empty();
    if (options.triggers.onPreemption) CKPT_RETURN_IF_ERROR(installPreemptionHandlers());
    TriggerState triggers(std::move(options.triggers), haveCheckpoint, clock());
    return std::unique_ptr<ScheduledCheckpointer>(
        new ScheduledCheckpointer(std::move(manager), std::move(triggers), std::move(options.schedule), std::move(clock)));
}

double ScheduledCheckpointer::now() const { return m_clock(); }

Result<StepOutcome> ScheduledCheckpointer::onStep(int64_t step, const std::map<std::string, double>& metrics) {
    m_lastStep = step;
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
    CKPT_ASSIGN_OR_RETURN(StepOutcome outcome, save(step, std::move(decision.reason), metrics));
    if (input.preemptionSignal != 0) {
        // The program is about to stop: the save must be on disk first.
        CKPT_RETURN_IF_ERROR(m_manager->sync());
        m_preemptionSaved = true;
        m_stopRequested = true;
    }
    return outcome;
}

Result<StepOutcome> ScheduledCheckpointer::saveNow(std::string reason, const std::map<std::string, double>& metrics) {
    return save(m_lastStep, std::move(reason), metrics);
}

Result<StepOutcome> ScheduledCheckpointer::save(int64_t step, std::string reason, const std::map<std::string, double>& metrics) {
    SaveRequest request;
    request.metrics = metrics;
    request.step = step;
    request.checkInterval = false;
    request.schedule = m_schedule;
    CKPT_ASSIGN_OR_RETURN(SaveReport report, m_manager->save(request));
    m_triggers.recordSave(step, now());
    ++m_saves;
    StepOutcome outcome;
    outcome.saved = true;
    outcome.reason = std::move(reason);
    outcome.report = std::move(report);
    return outcome;
}

Status ScheduledCheckpointer::close() { return m_manager->close(); }

}  // namespace ckpt

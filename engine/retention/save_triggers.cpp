// Save triggers: JSON, the any-of decision and the preemption signal flag.
// See ckpt/save_triggers.h.

#include "ckpt/save_triggers.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>

#include <nlohmann/json.hpp>

#include "ckpt/retention.h"
#include "platform/file.h"
#include "platform/json_type.h"

namespace ckpt {
namespace {

// A policy file listing more explicit steps than this is a mistake, not a plan.
constexpr size_t kMaxAtSteps = 100000;

std::string formatSeconds(double seconds) {
    std::string s = std::to_string(seconds);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

Status fieldError(std::string_view source, std::string_view field, const std::string& what) {
    return invalidArgument(std::string(source) + ": field \"" + std::string(field) + "\" " + what);
}

Result<int64_t> readInteger(const nlohmann::json& value, std::string_view source, std::string_view field) {
    if (!value.is_number_integer())
        return fieldError(source, field, "must be an integer, got " + std::string(platform::jsonTypeName(value)));
    if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
        return fieldError(source, field, "is too large");
    return value.get<int64_t>();
}

Result<bool> readBool(const nlohmann::json& value, std::string_view source, std::string_view field) {
    if (!value.is_boolean())
        return fieldError(source, field, "must be true or false, got " + std::string(platform::jsonTypeName(value)));
    return value.get<bool>();
}

Result<double> readSeconds(const nlohmann::json& value, std::string_view source, std::string_view field) {
    if (value.is_number()) return value.get<double>();
    if (value.is_string()) {
        auto seconds = parseDuration(value.get<std::string>());
        if (!seconds.ok()) return fieldError(source, field, "is not a duration: " + seconds.status().message());
        return *seconds;
    }
    return fieldError(source, field,
                      "must be seconds or a duration such as \"10m\", got " + std::string(platform::jsonTypeName(value)));
}

Result<SaveTriggers> triggersFromJson(const nlohmann::json& doc, std::string_view source) {
    if (!doc.is_object())
        return invalidArgument(std::string(source) + ": save triggers must be a JSON object, got " +
                               std::string(platform::jsonTypeName(doc)));
    SaveTriggers t;
    for (const auto& [key, value] : doc.items()) {
        if (key == "every_steps") {
            CKPT_ASSIGN_OR_RETURN(t.everySteps, readInteger(value, source, key));
        } else if (key == "every_seconds") {
            CKPT_ASSIGN_OR_RETURN(t.everySeconds, readSeconds(value, source, key));
        } else if (key == "at_steps") {
            if (!value.is_array())
                return fieldError(source, key, "must be an array of steps, got " + std::string(platform::jsonTypeName(value)));
            if (value.size() > kMaxAtSteps)
                return fieldError(source, key,
                                  "lists " + std::to_string(value.size()) + " steps, more than " + std::to_string(kMaxAtSteps));
            for (size_t i = 0; i < value.size(); ++i) {
                CKPT_ASSIGN_OR_RETURN(const int64_t step, readInteger(value[i], source, key + "[" + std::to_string(i) + "]"));
                t.atSteps.push_back(step);
            }
        } else if (key == "on_preemption") {
            CKPT_ASSIGN_OR_RETURN(t.onPreemption, readBool(value, source, key));
        } else if (key == "initial") {
            CKPT_ASSIGN_OR_RETURN(t.initial, readBool(value, source, key));
        } else if (key == "skip_while_in_flight") {
            CKPT_ASSIGN_OR_RETURN(t.skipWhileInFlight, readBool(value, source, key));
        } else {
            // A typo must not silently turn a trigger off.
            return invalidArgument(std::string(source) + ": unknown field \"" + key + "\" in save triggers");
        }
    }
    const Status valid = validateSaveTriggers(t);
    if (!valid.isOk()) return invalidArgument(std::string(source) + ": " + valid.message());
    return t;
}

// Preemption: the handler only stores the signal number (async-signal-safe).
std::atomic<int> g_pendingSignal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the preemption flag must be usable from a signal handler");

extern "C" void onPreemptionSignal(int signal) {
    int expected = 0;
    if (g_pendingSignal.compare_exchange_strong(expected, signal)) return;
    if (expected != signal) return;  // another kind already pending: that one decides
    // The same signal again while the save is still pending: the program may
    // be stuck, so let the default action (termination) happen.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(signal, &dfl, nullptr);
    ::raise(signal);
}

}  // namespace

Status validateSaveTriggers(const SaveTriggers& triggers) {
    if (triggers.everySteps && *triggers.everySteps < 1)
        return invalidArgument("field \"every_steps\" must be a positive number of steps, not " +
                               std::to_string(*triggers.everySteps));
    if (triggers.everySeconds && !(*triggers.everySeconds > 0 && std::isfinite(*triggers.everySeconds)))
        return invalidArgument("field \"every_seconds\" must be a positive duration, not " +
                               formatSeconds(*triggers.everySeconds));
    for (const int64_t step : triggers.atSteps)
        if (step < 0) return invalidArgument("field \"at_steps\" holds a negative step " + std::to_string(step));
    return okStatus();
}

Result<SaveTriggers> parseSaveTriggers(std::string_view json, std::string_view source) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(json);
    } catch (const nlohmann::json::exception& e) {
        return invalidArgument(std::string(source) + ": not valid JSON: " + e.what());
    }
    return triggersFromJson(doc, source);
}

std::string saveTriggersToJson(const SaveTriggers& triggers) {
    nlohmann::json doc = nlohmann::json::object();
    if (triggers.everySteps) doc["every_steps"] = *triggers.everySteps;
    if (triggers.everySeconds) doc["every_seconds"] = *triggers.everySeconds;
    if (!triggers.atSteps.empty()) doc["at_steps"] = triggers.atSteps;
    doc["on_preemption"] = triggers.onPreemption;
    doc["initial"] = triggers.initial;
    doc["skip_while_in_flight"] = triggers.skipWhileInFlight;
    return doc.dump(2);
}

TriggerState::TriggerState(SaveTriggers triggers, bool haveCheckpoint, double now)
    : m_triggers(std::move(triggers)), m_haveCheckpoint(haveCheckpoint), m_lastTime(now) {
    std::sort(m_triggers.atSteps.begin(), m_triggers.atSteps.end());
}

TriggerDecision TriggerState::evaluate(const TriggerInput& input) const {
    TriggerDecision d;
    if (input.forced) {
        d.save = true;
        d.reason = "forced";
        return d;
    }
    // Preemption is not skipped for an in-flight save: the manager waits for
    // that write, and the program is about to stop.
    if (m_triggers.onPreemption && input.preemptionSignal != 0) {
        d.save = true;
        d.reason = "preemption (" + std::string(signalName(input.preemptionSignal)) + ")";
        return d;
    }
    // This step is already saved.
    if (m_lastStep && input.step == *m_lastStep) return d;
    std::string fired;
    if (m_triggers.initial && !m_haveCheckpoint && !m_lastStep) {
        fired = "initial save";
    } else if (std::binary_search(m_triggers.atSteps.begin(), m_triggers.atSteps.end(), input.step)) {
        fired = "at step " + std::to_string(input.step);
    } else if (m_triggers.everySteps &&
               (m_lastStep ? input.step >= *m_lastStep + *m_triggers.everySteps : input.step % *m_triggers.everySteps == 0)) {
        fired = "every " + std::to_string(*m_triggers.everySteps) + " steps";
    } else if (m_triggers.everySeconds && input.now - m_lastTime >= *m_triggers.everySeconds) {
        fired = formatSeconds(*m_triggers.everySeconds) + " s since the last save";
    }
    if (fired.empty()) return d;
    if (input.saveInFlight && m_triggers.skipWhileInFlight) {
        d.reason = "skipped: a save is in flight";
        return d;
    }
    d.save = true;
    d.reason = std::move(fired);
    return d;
}

void TriggerState::recordSave(int64_t step, double now) {
    m_lastStep = step;
    m_lastTime = now;
    m_haveCheckpoint = true;
}

std::optional<double> TriggerState::nextDueTime() const {
    if (!m_triggers.everySeconds) return std::nullopt;
    return m_lastTime + *m_triggers.everySeconds;
}

Status installPreemptionHandlers() {
    struct sigaction action {};
    action.sa_handler = onPreemptionSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (const int signal : {SIGTERM, SIGINT})
        if (::sigaction(signal, &action, nullptr) != 0)
            return platform::statusFromErrno(errno, "cannot install the " + std::string(signalName(signal)) + " handler");
    return okStatus();
}

int pendingPreemption() { return g_pendingSignal.load(std::memory_order_relaxed); }

void clearPreemption() { g_pendingSignal.store(0, std::memory_order_relaxed); }

std::string_view signalName(int signal) {
    switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGQUIT: return "SIGQUIT";
    default: return "signal";
    }
}

}  // namespace ckpt

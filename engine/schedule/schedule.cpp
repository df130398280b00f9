// The Schedule value: validation a user reads as they type, and its JSON.
// See ckpt/schedule.h.

#include "ckpt/schedule.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "platform/file.h"
#include "platform/json_type.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr size_t kMaxNameLength = 100;
// Beyond this a "fixed shard count" is a typo, not a sharding.
constexpr int kMaxShardCount = 65536;
// The scheduler wakes on a seconds scale; a shorter interval cannot be kept.
constexpr double kMinIntervalSeconds = 1;

std::string secondsText(double s) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%g s", s);
    return buffer;
}

// A destination can be created when its nearest existing ancestor is a
// directory this process may write into (and every existing part is one).
Status checkCreatable(const std::string& destination) {
    CKPT_RETURN_IF_ERROR(storage::checkLocation(destination));
    // A store's prefixes exist as soon as an object is written under them.
    if (!storage::capabilitiesFor(destination).directories) return okStatus();
    std::string p = storage::normalizeLocation(destination);
    for (std::string probe = p;;) {
        auto info = storage::stat(probe);
        if (info.ok() && *info) {
            if ((*info)->kind != storage::ObjectKind::Directory) {
                if (probe == p) return invalidArgument("destination " + destination + " exists and is not a directory");
                return invalidArgument("destination " + destination + " cannot be created: " + probe + " is not a directory");
            }
            if (!platform::canWriteInto(probe))
                return invalidArgument("destination " + destination + " cannot be " + (probe == p ? "written: " : "created: ") +
                                       probe + " is not writable");
            return okStatus();
        }
        const std::string parent = platform::dirName(probe);
        if (parent == probe) break;
        probe = parent;
    }
    return invalidArgument("destination " + destination + " cannot be created: no existing parent directory");
}

Status checkTriggers(const Schedule& s) {
    const SaveTriggers& t = s.triggers;
    if (s.source == ScheduleSource::Program) {
        if (!t.any()) return invalidArgument("a program schedule needs at least one trigger (every steps, every seconds, ...)");
    } else {
        const std::string kind = s.source == ScheduleSource::Directory ? "a directory schedule" : "a demo schedule";
        if (!t.everySeconds) return invalidArgument(kind + " needs an interval (how often it runs, e.g. --every 1h)");
        if (!std::isfinite(*t.everySeconds)) return invalidArgument("the interval must be a finite number of seconds");
        if (*t.everySeconds <= 0) return invalidArgument("the interval must be positive, got " + secondsText(*t.everySeconds));
        if (*t.everySeconds < kMinIntervalSeconds)
            return invalidArgument("the interval " + secondsText(*t.everySeconds) +
                                   " is shorter than the scheduler's 1 s resolution");
    }
    if (s.source == ScheduleSource::Directory) {
        // The source's own training loop decides its steps; a copy runs on time only.
        if (t.everySteps) return invalidArgument("a directory schedule copies on a timer: every_steps has no meaning for it");
        if (!t.atSteps.empty()) return invalidArgument("a directory schedule copies on a timer: at_steps has no meaning for it");
        if (t.onPreemption) return invalidArgument("a directory schedule copies on a timer: on_preemption has no meaning for it");
    }
    if (s.source == ScheduleSource::DemoTrainer) {
        if (s.demoSteps < 1) return invalidArgument("the demo run needs at least 1 step, got " + std::to_string(s.demoSteps));
        if (t.everySteps && *t.everySteps > s.demoSteps)
            return invalidArgument("every " + std::to_string(*t.everySteps) + " steps never fires in a " +
                                   std::to_string(s.demoSteps) + "-step demo run");
        for (int64_t step : t.atSteps)
            if (step > s.demoSteps)
                return invalidArgument("at step " + std::to_string(step) + " is after the demo run's last step (" +
                                       std::to_string(s.demoSteps) + "): it would never fire");
    }
    return validateSaveTriggers(t);
}

Status checkPaths(const Schedule& s) {
    if (s.destination.empty()) return invalidArgument("the destination directory is empty");
    if (s.source == ScheduleSource::Directory) {
        if (s.sourcePath.empty()) return invalidArgument("the source directory is empty");
        CKPT_RETURN_IF_ERROR(storage::checkLocation(s.sourcePath));
        if (!storage::isDirectory(s.sourcePath))
            return invalidArgument("source " + s.sourcePath +
                                   (storage::exists(s.sourcePath) ? " is not a directory" : " does not exist"));
        const std::string source = platform::canonicalPath(s.sourcePath);
        const std::string destination = platform::canonicalPath(s.destination);
        if (source == destination) return invalidArgument("the destination " + s.destination + " is the source directory itself");
        if (platform::isInsideDirectory(destination, source))
            return invalidArgument("the destination " + s.destination + " is inside the source " + s.sourcePath +
                                   ": the copies would become checkpoints of the source");
        if (platform::isInsideDirectory(source, destination))
            return invalidArgument("the source " + s.sourcePath + " is inside the destination " + s.destination +
                                   ": the destination's retention could delete the source's checkpoints");
    }
    return checkCreatable(s.destination);
}

Status fieldError(std::string_view source, std::string_view field, std::string_view expected, const json& got) {
    return invalidArgument("invalid schedule " + std::string(source) + ": field \"" + std::string(field) + "\" must be " +
                           std::string(expected) + ", got " + std::string(platform::jsonTypeName(got)));
}

template <typename Int>
Status readInt(const json& j, std::string_view source, const char* field, Int& out) {
    if (!j.is_number_integer()) return fieldError(source, field, "an integer", j);
    if (j.is_number_unsigned()
            ? j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<Int>::max())
            : (j.get<int64_t>() < std::numeric_limits<Int>::min() || j.get<int64_t>() > std::numeric_limits<Int>::max()))
        return invalidArgument("invalid schedule " + std::string(source) + ": field \"" + field + "\" is out of range");
    out = static_cast<Int>(j.get<int64_t>());
    return okStatus();
}

}  // namespace

std::string_view scheduleSourceName(ScheduleSource source) {
    switch (source) {
    case ScheduleSource::Directory: return "directory";
    case ScheduleSource::DemoTrainer: return "demo";
    case ScheduleSource::Program: return "program";
    }
    return "directory";
}

std::optional<ScheduleSource> scheduleSourceFromName(std::string_view name) {
    for (ScheduleSource s : {ScheduleSource::Directory, ScheduleSource::DemoTrainer, ScheduleSource::Program})
        if (scheduleSourceName(s) == name) return s;
    return std::nullopt;
}

SaveOptions saveOptionsFor(const ScheduleSharding& sharding) {
    SaveOptions options;
    if (sharding.maxShardBytes) options.policy = std::make_shared<MaxShardSizePolicy>(*sharding.maxShardBytes);
    else if (sharding.shardCount) options.policy = std::make_shared<FixedShardCountPolicy>(*sharding.shardCount);
    return options;
}

std::string scheduleOwner(std::string_view scheduleName) { return "schedule:" + std::string(scheduleName); }

std::optional<double> scheduleInterval(const Schedule& schedule) {
    if (schedule.source == ScheduleSource::Program) return std::nullopt;
    if (!schedule.triggers.everySeconds || !(*schedule.triggers.everySeconds > 0)) return std::nullopt;
    return schedule.triggers.everySeconds;
}

Status validateScheduleName(std::string_view name) {
    if (name.empty()) return invalidArgument("the schedule needs a name");
    if (name.size() > kMaxNameLength)
        return invalidArgument("the schedule name is " + std::to_string(name.size()) + " characters long; at most " +
                               std::to_string(kMaxNameLength) + " are allowed");
    for (char c : name) {
        const bool ok =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok)
            return invalidArgument("the schedule name \"" + std::string(name) +
                                   "\" may contain only letters, digits, '.', '_' and '-'");
    }
    if (name.front() == '-' || name.front() == '.')
        return invalidArgument("the schedule name \"" + std::string(name) + "\" must not start with '-' or '.'");
    return okStatus();
}

Status validateSchedule(const Schedule& schedule) {
    CKPT_RETURN_IF_ERROR(validateScheduleName(schedule.name));
    CKPT_RETURN_IF_ERROR(checkTriggers(schedule));
    const ScheduleSharding& sharding = schedule.sharding;
    if (sharding.maxShardBytes && sharding.shardCount)
        return invalidArgument("choose a maximum shard size or a shard count, not both");
    if (sharding.maxShardBytes && *sharding.maxShardBytes <= 0)
        return invalidArgument("the maximum shard size must be positive, got " + std::to_string(*sharding.maxShardBytes));
    if (sharding.shardCount && (*sharding.shardCount < 1 || *sharding.shardCount > kMaxShardCount))
        return invalidArgument("the shard count must be between 1 and " + std::to_string(kMaxShardCount) + ", got " +
                               std::to_string(*sharding.shardCount));
    if (schedule.source == ScheduleSource::DemoTrainer && sharding.shardCount)
        return invalidArgument("the demo trainer shards by size only: use a maximum shard size, not a shard count");
    CKPT_RETURN_IF_ERROR(validateRetentionPolicy(schedule.retention));
    return checkPaths(schedule);
}

std::string scheduleToJson(const Schedule& s) {
    ojson j;
    if (s.id != 0) j["id"] = s.id;
    j["name"] = s.name;
    j["source"] = std::string(scheduleSourceName(s.source));
    j["source_path"] = s.sourcePath;
    j["destination"] = s.destination;
    // The nested policies keep their own documented JSON forms.
    j["triggers"] = ojson::parse(saveTriggersToJson(s.triggers), nullptr, false);
    j["retention"] = ojson::parse(retentionPolicyToJson(s.retention), nullptr, false);
    ojson sharding = ojson::object();
    if (s.sharding.maxShardBytes) sharding["max_shard_bytes"] = *s.sharding.maxShardBytes;
    if (s.sharding.shardCount) sharding["shards"] = *s.sharding.shardCount;
    j["sharding"] = std::move(sharding);
    j["async"] = s.async;
    j["enabled"] = s.enabled;
    j["demo_steps"] = s.demoSteps;
    j["created_at"] = s.createdAt;
    return j.dump(2, ' ', false, ojson::error_handler_t::replace);
}

Result<Schedule> parseSchedule(std::string_view text, std::string_view source) {
    const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return invalidArgument("invalid schedule " + std::string(source) + ": not valid JSON");
    if (!j.is_object())
        return invalidArgument("invalid schedule " + std::string(source) + ": expected a JSON object, got " +
                               std::string(platform::jsonTypeName(j)));
    Schedule s;
    for (const auto& [key, value] : j.items()) {
        if (key == "id") {
            CKPT_RETURN_IF_ERROR(readInt(value, source, "id", s.id));
        } else if (key == "name" || key == "source_path" || key == "destination") {
            if (!value.is_string()) return fieldError(source, key, "a string", value);
            (key == "name" ? s.name : key == "source_path" ? s.sourcePath : s.destination) = value.get<std::string>();
        } else if (key == "source") {
            if (!value.is_string()) return fieldError(source, key, "a string", value);
            const auto kind = scheduleSourceFromName(value.get<std::string>());
            if (!kind)
                return invalidArgument("invalid schedule " + std::string(source) +
                                       ": field \"source\" must be \"directory\", \"demo\" or \"program\", got \"" +
                                       value.get<std::string>() + "\"");
            s.source = *kind;
        } else if (key == "triggers" || key == "retention") {
            if (!value.is_object()) return fieldError(source, key, "an object", value);
            const std::string inner = std::string(source) + " field \"" + key + "\"";
            if (key == "triggers") {
                CKPT_ASSIGN_OR_RETURN(s.triggers, parseSaveTriggers(value.dump(), inner));
            } else {
                CKPT_ASSIGN_OR_RETURN(s.retention, parseRetentionPolicy(value.dump(), inner));
            }
        } else if (key == "sharding") {
            if (!value.is_object()) return fieldError(source, key, "an object", value);
            for (const auto& [shardKey, shardValue] : value.items()) {
                if (shardKey == "max_shard_bytes") {
                    int64_t bytes = 0;
                    CKPT_RETURN_IF_ERROR(readInt(shardValue, source, "sharding.max_shard_bytes", bytes));
                    s.sharding.maxShardBytes = bytes;
                } else if (shardKey == "shards") {
                    int count = 0;
                    CKPT_RETURN_IF_ERROR(readInt(shardValue, source, "sharding.shards", count));
                    s.sharding.shardCount = count;
                } else {
                    return invalidArgument("invalid schedule " + std::string(source) + ": unknown field \"sharding." + shardKey +
                                           "\"");
                }
            }
        } else if (key == "async" || key == "enabled") {
            if (!value.is_boolean()) return fieldError(source, key, "true or false", value);
            (key == "async" ? s.async : s.enabled) = value.get<bool>();
        } else if (key == "demo_steps") {
            CKPT_RETURN_IF_ERROR(readInt(value, source, "demo_steps", s.demoSteps));
        } else if (key == "created_at") {
            if (!value.is_number()) return fieldError(source, key, "a number", value);
            s.createdAt = value.get<double>();
        } else {
            return invalidArgument("invalid schedule " + std::string(source) + ": unknown field \"" + key + "\"");
        }
    }
    return s;
}

}  // namespace ckpt

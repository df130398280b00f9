// Retention policies as JSON, durations and sizes as people write them:
// see ckpt/retention.h. Every error names the field and the file, because a
// policy that is read wrongly deletes checkpoints: an unknown field (a typo
// such as "keep_lastest") is refused rather than ignored.

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "ckpt/retention.h"
#include "platform/json_type.h"
#include "retention/retention_text.h"

namespace ckpt {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;  // serialised policies keep the documented order
using schedule::durationText;
using schedule::sizeText;

struct Unit {
    std::string_view suffix;
    double factor;
};

// Longest suffixes first, so "MiB" is not read as "B" after "Mi".
constexpr Unit kDurationUnits[] = {{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}, {"w", 604800}};
constexpr Unit kSizeUnits[] = {{"KiB", 1024.0},
                               {"MiB", 1024.0 * 1024},
                               {"GiB", 1024.0 * 1024 * 1024},
                               {"TiB", 1024.0 * 1024 * 1024 * 1024},
                               {"KB", 1e3},
                               {"MB", 1e6},
                               {"GB", 1e9},
                               {"TB", 1e12},
                               {"K", 1024.0},
                               {"M", 1024.0 * 1024},
                               {"G", 1024.0 * 1024 * 1024},
                               {"T", 1024.0 * 1024 * 1024 * 1024},
                               {"B", 1}};

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// A plain decimal number ("12", "1.5"), nothing else: strtod alone would
// also take "inf", "nan", hex and exponents.
std::optional<double> plainNumber(std::string_view s) {
    if (s.empty() || s.size() > 40) return std::nullopt;
    bool digit = false, dot = false;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c >= '0' && c <= '9') {
            digit = true;
        } else if (c == '.' && !dot) {
            dot = true;
        } else if (c == '-' && i == 0) {
        } else {
            return std::nullopt;
        }
    }
    if (!digit) return std::nullopt;
    return std::strtod(std::string(s).c_str(), nullptr);
}

template <size_t N>
std::optional<double> withUnit(std::string_view text, const Unit (&units)[N]) {
    text = trimmed(text);
    if (auto n = plainNumber(text)) return n;
    for (const Unit& u : units) {
        if (!text.ends_with(u.suffix)) continue;
        if (auto n = plainNumber(trimmed(text.substr(0, text.size() - u.suffix.size())))) return *n * u.factor;
        return std::nullopt;
    }
    return std::nullopt;
}

class PolicyReader {
public:
    explicit PolicyReader(std::string_view source) : m_source(source) {}

    Status error(std::string_view field, const std::string& what) const {
        return invalidArgument("invalid retention policy " + m_source + ": field \"" + std::string(field) + "\" " + what);
    }
    Status typeError(std::string_view field, std::string_view expected, const json& got) const {
        return error(field, "must be " + std::string(expected) + ", got " + std::string(platform::jsonTypeName(got)));
    }

    Result<int64_t> integer(std::string_view field, const json& v) const {
        if (!v.is_number_integer()) return typeError(field, "an integer", v);
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            return error(field, "is out of range");
        return v.get<int64_t>();
    }
    Result<int> count(std::string_view field, const json& v) const {
        CKPT_ASSIGN_OR_RETURN(const int64_t n, integer(field, v));
        if (n > std::numeric_limits<int>::max() || n < std::numeric_limits<int>::min()) return error(field, "is out of range");
        return static_cast<int>(n);
    }
    Result<double> number(std::string_view field, const json& v) const {
        if (!v.is_number()) return typeError(field, "a number", v);
        return v.get<double>();
    }
    Result<double> duration(std::string_view field, const json& v) const {
        if (v.is_number()) return v.get<double>();
        if (!v.is_string()) return typeError(field, "a duration (seconds or a string such as \"12h\")", v);
        auto d = parseDuration(v.get<std::string>());
        if (!d.ok()) return error(field, "is not valid: " + d.status().message());
        return *d;
    }
    Result<uint64_t> size(std::string_view field, const json& v) const {
        if (v.is_number_integer()) {
            if (v.is_number_unsigned()) return v.get<uint64_t>();
            if (v.get<int64_t>() < 0) return error(field, "must be positive, got " + std::to_string(v.get<int64_t>()));
            return static_cast<uint64_t>(v.get<int64_t>());
        }
        if (!v.is_string()) return typeError(field, "a size (bytes or a string such as \"50GiB\")", v);
        auto s = parseByteSize(v.get<std::string>());
        if (!s.ok()) return error(field, "is not valid: " + s.status().message());
        return *s;
    }
    Result<std::string> string(std::string_view field, const json& v) const {
        if (!v.is_string()) return typeError(field, "a string", v);
        return v.get<std::string>();
    }

    Result<BestRule> best(const json& v) const {
        if (!v.is_object()) return typeError("keep_best", "an object", v);
        BestRule rule;
        for (const auto& [key, value] : v.items()) {
            const std::string field = "keep_best." + key;
            if (key == "metric") {
                CKPT_ASSIGN_OR_RETURN(rule.metric, string(field, value));
            } else if (key == "count") {
                CKPT_ASSIGN_OR_RETURN(rule.count, count(field, value));
            } else if (key == "mode") {
                CKPT_ASSIGN_OR_RETURN(const std::string mode, string(field, value));
                if (mode != "min" && mode != "max") return error(field, "must be \"min\" or \"max\", got \"" + mode + "\"");
                rule.mode = mode == "min" ? BestRule::Mode::Min : BestRule::Mode::Max;
            } else if (key == "if_missing") {
                CKPT_ASSIGN_OR_RETURN(const std::string what, string(field, value));
                if (what != "keep" && what != "ignore")
                    return error(field, "must be \"keep\" or \"ignore\", got \"" + what + "\"");
                rule.ifMissing = what == "keep" ? BestRule::IfMissing::Keep : BestRule::IfMissing::Ignore;
            } else {
                return invalidArgument("invalid retention policy " + m_source + ": unknown field \"" + field + "\"");
            }
        }
        return rule;
    }

    Status field(const std::string& key, const json& v, RetentionPolicy& p) const {
        if (key == "keep_latest") {
            CKPT_ASSIGN_OR_RETURN(p.keepLatest, count(key, v));
        } else if (key == "keep_one_per_hours") {
            CKPT_ASSIGN_OR_RETURN(p.keepOnePerHours, number(key, v));
        } else if (key == "keep_every_steps") {
            CKPT_ASSIGN_OR_RETURN(p.keepEverySteps, integer(key, v));
        } else if (key == "keep_within") {
            CKPT_ASSIGN_OR_RETURN(p.keepWithinSeconds, duration(key, v));
        } else if (key == "keep_hourly") {
            CKPT_ASSIGN_OR_RETURN(p.calendar.hourly, count(key, v));
        } else if (key == "keep_daily") {
            CKPT_ASSIGN_OR_RETURN(p.calendar.daily, count(key, v));
        } else if (key == "keep_weekly") {
            CKPT_ASSIGN_OR_RETURN(p.calendar.weekly, count(key, v));
        } else if (key == "keep_monthly") {
            CKPT_ASSIGN_OR_RETURN(p.calendar.monthly, count(key, v));
        } else if (key == "keep_yearly") {
            CKPT_ASSIGN_OR_RETURN(p.calendar.yearly, count(key, v));
        } else if (key == "calendar_utc") {
            if (!v.is_boolean()) return typeError(key, "true or false", v);
            p.calendar.utc = v.get<bool>();
        } else if (key == "keep_best") {
            CKPT_ASSIGN_OR_RETURN(p.best, best(v));
        } else if (key == "keep_tags") {
            if (!v.is_array()) return typeError(key, "an array of strings", v);
            for (const json& tag : v) {
                CKPT_ASSIGN_OR_RETURN(std::string t, string(key, tag));
                p.keepTags.push_back(std::move(t));
            }
        } else if (key == "min_age") {
            CKPT_ASSIGN_OR_RETURN(p.minAgeSeconds, duration(key, v));
        } else if (key == "disk_budget") {
            CKPT_ASSIGN_OR_RETURN(p.diskBudgetBytes, size(key, v));
        } else {
            return invalidArgument("invalid retention policy " + m_source + ": unknown field \"" + key + "\"");
        }
        return okStatus();
    }

    const std::string& source() const { return m_source; }

private:
    std::string m_source;
};

Status positive(std::string_view field, double value) {
    if (!std::isfinite(value) || value <= 0)
        return invalidArgument("retention policy field \"" + std::string(field) + "\" must be positive, got " +
                               std::to_string(value));
    return okStatus();
}

Status notNegative(std::string_view field, int64_t value) {
    if (value < 0)
        return invalidArgument("retention policy field \"" + std::string(field) + "\" must not be negative, got " +
                               std::to_string(value));
    return okStatus();
}

}  // namespace

bool RetentionPolicy::keepsEverything() const {
    // keep_tags, min_age and the disk budget constrain deletion; they do not
    // select what to keep, so on their own they keep everything.
    return !keepLatest && !keepOnePerHours && !keepEverySteps && !keepWithinSeconds && !calendar.any() && !best;
}

Status validateRetentionPolicy(const RetentionPolicy& p) {
    if (p.keepLatest && *p.keepLatest < 1)
        return invalidArgument("retention policy field \"keep_latest\" must be at least 1, got " + std::to_string(*p.keepLatest));
    if (p.keepOnePerHours) CKPT_RETURN_IF_ERROR(positive("keep_one_per_hours", *p.keepOnePerHours));
    if (p.keepEverySteps && *p.keepEverySteps < 1)
        return invalidArgument("retention policy field \"keep_every_steps\" must be at least 1, got " +
                               std::to_string(*p.keepEverySteps));
    if (p.keepWithinSeconds) CKPT_RETURN_IF_ERROR(positive("keep_within", *p.keepWithinSeconds));
    CKPT_RETURN_IF_ERROR(notNegative("keep_hourly", p.calendar.hourly));
    CKPT_RETURN_IF_ERROR(notNegative("keep_daily", p.calendar.daily));
    CKPT_RETURN_IF_ERROR(notNegative("keep_weekly", p.calendar.weekly));
    CKPT_RETURN_IF_ERROR(notNegative("keep_monthly", p.calendar.monthly));
    CKPT_RETURN_IF_ERROR(notNegative("keep_yearly", p.calendar.yearly));
    if (p.best) {
        if (p.best->metric.empty()) return invalidArgument("retention policy field \"keep_best.metric\" must name a metric");
        if (p.best->count < 1)
            return invalidArgument("retention policy field \"keep_best.count\" must be at least 1, got " +
                                   std::to_string(p.best->count));
    }
    for (const std::string& tag : p.keepTags)
        if (tag.empty()) return invalidArgument("retention policy field \"keep_tags\" has an empty tag");
    if (!std::isfinite(p.minAgeSeconds) || p.minAgeSeconds < 0)
        return invalidArgument("retention policy field \"min_age\" must not be negative, got " + std::to_string(p.minAgeSeconds));
    if (p.diskBudgetBytes && *p.diskBudgetBytes == 0)
        return invalidArgument("retention policy field \"disk_budget\" must be positive, got 0");
    return okStatus();
}

Result<RetentionPolicy> parseRetentionPolicy(std::string_view text, std::string_view sourceView) {
    const PolicyReader reader(sourceView);
    const json whole = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (whole.is_discarded()) return invalidArgument("invalid retention policy " + reader.source() + ": not valid JSON");
    if (!whole.is_object())
        return invalidArgument("invalid retention policy " + reader.source() + ": expected a JSON object, got " +
                               std::string(platform::jsonTypeName(whole)));
    // A whole schedule file holds the policy under "retention"; its other
    // fields are the schedule's, not ours to judge.
    const json* policy = &whole;
    if (const auto it = whole.find("retention"); it != whole.end()) {
        if (!it->is_object()) return reader.typeError("retention", "an object", *it);
        policy = &*it;
    }
    RetentionPolicy p;
    for (const auto& [key, value] : policy->items()) CKPT_RETURN_IF_ERROR(reader.field(key, value, p));
    if (Status s = validateRetentionPolicy(p); !s.isOk()) return s.withContext("invalid retention policy " + reader.source());
    return p;
}

std::string retentionPolicyToJson(const RetentionPolicy& p) {
    ojson j = ojson::object();
    if (p.keepLatest) j["keep_latest"] = *p.keepLatest;
    if (p.keepOnePerHours) j["keep_one_per_hours"] = *p.keepOnePerHours;
    if (p.keepEverySteps) j["keep_every_steps"] = *p.keepEverySteps;
    if (p.keepWithinSeconds) j["keep_within"] = durationText(*p.keepWithinSeconds);
    if (p.calendar.hourly) j["keep_hourly"] = p.calendar.hourly;
    if (p.calendar.daily) j["keep_daily"] = p.calendar.daily;
    if (p.calendar.weekly) j["keep_weekly"] = p.calendar.weekly;
    if (p.calendar.monthly) j["keep_monthly"] = p.calendar.monthly;
    if (p.calendar.yearly) j["keep_yearly"] = p.calendar.yearly;
    if (p.calendar.utc) j["calendar_utc"] = true;
    if (p.best) {
        j["keep_best"] = {{"metric", p.best->metric},
                          {"count", p.best->count},
                          {"mode", p.best->mode == BestRule::Mode::Min ? "min" : "max"},
                          {"if_missing", p.best->ifMissing == BestRule::IfMissing::Keep ? "keep" : "ignore"}};
    }
    if (!p.keepTags.empty()) j["keep_tags"] = p.keepTags;
    if (p.minAgeSeconds > 0) j["min_age"] = durationText(p.minAgeSeconds);
    if (p.diskBudgetBytes) j["disk_budget"] = sizeText(*p.diskBudgetBytes);
    return j.dump(2, ' ', false, ojson::error_handler_t::replace);
}

Result<double> parseDuration(std::string_view text) {
    const auto seconds = withUnit(text, kDurationUnits);
    if (!seconds || !std::isfinite(*seconds))
        return invalidArgument("duration \"" + std::string(text) +
                               "\" is not seconds or a number with s, m, h, d or w (\"90s\", \"12h\", \"7d\")");
    return *seconds;
}

Result<uint64_t> parseByteSize(std::string_view text) {
    const auto bytes = withUnit(text, kSizeUnits);
    if (!bytes || !std::isfinite(*bytes) || *bytes < 0 || *bytes >= 1.8e19)
        return invalidArgument("size \"" + std::string(text) +
                               "\" is not bytes or a number with B, KB, MB, GB, TB, KiB, MiB, GiB or TiB (\"500MB\", \"2GiB\")");
    return static_cast<uint64_t>(std::round(*bytes));
}

}  // namespace ckpt

namespace ckpt::schedule {

std::string durationText(double seconds) {
    for (auto it = std::rbegin(kDurationUnits); it != std::rend(kDurationUnits); ++it) {
        const double n = seconds / it->factor;
        if (n >= 1 && n == std::floor(n) && n < 1e15) return std::to_string(static_cast<int64_t>(n)) + std::string(it->suffix);
    }
    std::string s = std::to_string(seconds);
    while (s.ends_with('0')) s.pop_back();
    if (s.ends_with('.')) s.pop_back();
    return s + "s";
}

std::string sizeText(uint64_t bytes) {
    constexpr Unit kBinary[] = {
        {"TiB", 1024.0 * 1024 * 1024 * 1024}, {"GiB", 1024.0 * 1024 * 1024}, {"MiB", 1024.0 * 1024}, {"KiB", 1024.0}};
    for (const Unit& u : kBinary) {
        const auto f = static_cast<uint64_t>(u.factor);
        if (bytes >= f && bytes % f == 0) return std::to_string(bytes / f) + std::string(u.suffix);
    }
    return std::to_string(bytes) + "B";
}

}  // namespace ckpt::schedule

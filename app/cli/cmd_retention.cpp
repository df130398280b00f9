// ckpt retention plan|apply DIR: what a retention policy keeps and deletes
// in a directory, then (apply) the deletion. The engine decides
// (ckpt/retention.h); this file only turns options into a policy and prints.

#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "ckpt/retention.h"
#include "output.h"

namespace ckpt::cli {
namespace {

struct RetentionOptions {
    std::string dir;
    std::string policyFile;
    int keepLatest = 0;
    double keepHours = 0;
    int64_t keepEverySteps = 0;
    std::string keepWithin;
    CalendarRule calendar;
    std::string keepBest;
    std::vector<std::string> keepTags;
    std::string minAge;
    std::string diskBudget;
    std::string owner;
    bool adopt = false;
    std::string at;
    bool json = false;
    bool anyRuleOption = false;  // set after parsing
    // Whether each number was given: 0 is then passed on, for the engine's
    // validation to refuse with the field's name.
    bool hasKeepLatest = false, hasKeepHours = false, hasKeepEverySteps = false;
};

// "1764064800", "2026-11-25T09:00:00Z", "2026-11-25T10:00:00+01:00",
// "2026-11-25 09:00" or "2026-11-25" (local time without a zone).
Result<double> parseTime(const std::string& text) {
    char* end = nullptr;
    const double seconds = std::strtod(text.c_str(), &end);
    if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(seconds) &&
        text.find_first_of("eExXnN") == std::string::npos)
        return seconds;
    std::tm tm{};
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &consumed) != 3)
        return invalidArgument("--at " + text + ": expected Unix seconds or an ISO 8601 time such as 2026-11-25T09:00:00Z");
    std::string rest = text.substr(static_cast<size_t>(consumed));
    if (!rest.empty() && (rest[0] == 'T' || rest[0] == ' ')) {
        int n = 0;
        if (std::sscanf(rest.c_str() + 1, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &n) != 2)
            return invalidArgument("--at " + text + ": expected HH:MM after the date");
        rest = rest.substr(1 + static_cast<size_t>(n));
        if (!rest.empty() && rest[0] == ':') {
            if (std::sscanf(rest.c_str() + 1, "%2d%n", &tm.tm_sec, &n) != 1)
                return invalidArgument("--at " + text + ": expected seconds after HH:MM:");
            rest = rest.substr(1 + static_cast<size_t>(n));
        }
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    if (rest.empty()) {
        tm.tm_isdst = -1;
        return static_cast<double>(std::mktime(&tm));
    }
    int offset = 0;
    if (rest != "Z") {
        int hours = 0, minutes = 0;
        char sign = 0;
        if (std::sscanf(rest.c_str(), "%c%2d:%2d", &sign, &hours, &minutes) != 3 || (sign != '+' && sign != '-'))
            return invalidArgument("--at " + text + ": expected Z or +HH:MM after the time");
        offset = (sign == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
    }
    return static_cast<double>(timegm(&tm) - offset);
}

// METRIC[:N[:min|max]]
Result<BestRule> parseBest(const std::string& text) {
    BestRule rule;
    std::stringstream parts(text);
    std::string part;
    std::vector<std::string> fields;
    while (std::getline(parts, part, ':')) fields.push_back(part);
    if (fields.empty() || fields.size() > 3 || fields[0].empty())
        return invalidArgument("--keep-best " + text + ": expected METRIC[:N[:min|max]]");
    rule.metric = fields[0];
    if (fields.size() > 1) {
        char* end = nullptr;
        const long n = std::strtol(fields[1].c_str(), &end, 10);
        if (fields[1].empty() || *end != '\0' || n < 1 || n > 1'000'000)
            return invalidArgument("--keep-best " + text + ": the count must be a positive integer");
        rule.count = static_cast<int>(n);
    }
    if (fields.size() > 2) {
        if (fields[2] != "min" && fields[2] != "max")
            return invalidArgument("--keep-best " + text + ": the mode must be min or max");
        rule.mode = fields[2] == "min" ? BestRule::Mode::Min : BestRule::Mode::Max;
    }
    return rule;
}

Result<RetentionPolicy> policyFromOptions(const RetentionOptions& o) {
    if (!o.policyFile.empty()) {
        if (o.anyRuleOption) return invalidArgument("--policy cannot be combined with --keep-… options");
        std::ifstream in(o.policyFile, std::ios::binary);
        if (!in) return invalidArgument("cannot read policy file " + o.policyFile);
        std::string text;
        // A policy is a few hundred bytes; a huge file is a mistake.
        text.resize(1u << 20);
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<size_t>(in.gcount()));
        if (!in.eof()) return invalidArgument("policy file " + o.policyFile + " is larger than 1 MiB");
        return parseRetentionPolicy(text, o.policyFile);
    }
    if (!o.anyRuleOption)
        return invalidArgument("give a policy: --policy FILE or at least one --keep-…, --min-age or --disk-budget option");
    RetentionPolicy p;
    if (o.hasKeepLatest) p.keepLatest = o.keepLatest;
    if (o.hasKeepHours) p.keepOnePerHours = o.keepHours;
    if (o.hasKeepEverySteps) p.keepEverySteps = o.keepEverySteps;
    if (!o.keepWithin.empty()) {
        CKPT_ASSIGN_OR_RETURN(p.keepWithinSeconds, parseDuration(o.keepWithin));
    }
    p.calendar = o.calendar;
    if (!o.keepBest.empty()) {
        CKPT_ASSIGN_OR_RETURN(p.best, parseBest(o.keepBest));
    }
    p.keepTags = o.keepTags;
    if (!o.minAge.empty()) {
        CKPT_ASSIGN_OR_RETURN(p.minAgeSeconds, parseDuration(o.minAge));
    }
    if (!o.diskBudget.empty()) {
        CKPT_ASSIGN_OR_RETURN(p.diskBudgetBytes, parseByteSize(o.diskBudget));
    }
    CKPT_RETURN_IF_ERROR(validateRetentionPolicy(p));
    return p;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
    return out;
}

bool nothingOwned(const RetentionPlan& plan) {
    for (const RetentionDecision& d : plan.decisions)
        if (d.verdict != RetentionVerdict::LeaveAlone) return false;
    return !plan.decisions.empty();
}

// Names the owners present, so the user can pick the run to act for.
std::string ownershipHint(const RetentionPlan& plan) {
    std::map<std::string, int> owners;
    for (const RetentionDecision& d : plan.decisions)
        if (!d.candidate.owner.empty()) ++owners[d.candidate.owner];
    std::string hint = "pass --owner RUN to manage that run's checkpoints, or --adopt for checkpoints without an owner";
    if (owners.empty()) return hint;
    hint += "; owners here:";
    for (const auto& [owner, count] : owners) hint += " " + owner + " (" + std::to_string(count) + ")";
    return hint;
}

nlohmann::json planJson(const RetentionPlan& plan, const RetentionPolicy& policy, const RetentionContext& context) {
    nlohmann::json rows = nlohmann::json::array();
    for (const RetentionDecision& d : plan.decisions) {
        const RetentionCandidate& c = d.candidate;
        rows.push_back({{"name", c.name},
                        {"prefix", c.prefix},
                        {"step", c.step ? nlohmann::json(*c.step) : nlohmann::json(nullptr)},
                        {"time", c.time},
                        {"bytes", c.bytes},
                        {"owner", c.hasMetadata ? nlohmann::json(c.owner) : nlohmann::json(nullptr)},
                        {"complete", c.complete},
                        {"verdict", std::string(retentionVerdictName(d.verdict))},
                        {"kept_by", d.keptBy},
                        {"reason", d.reason}});
    }
    nlohmann::json notes = plan.notes;
    return {{"directory", plan.dir},
            {"owner", context.owner},
            {"adopt", context.adoptForeign},
            {"at", context.now},
            {"policy", nlohmann::json::parse(retentionPolicyToJson(policy))},
            {"checkpoints", rows},
            {"totals",
             {{"kept", plan.kept},
              {"kept_bytes", plan.keptBytes},
              {"deleted", plan.deleted},
              {"deleted_bytes", plan.deletedBytes},
              {"left_alone", plan.leftAlone},
              {"left_alone_bytes", plan.leftAloneBytes}}},
            {"notes", notes},
            {"last_preserved_timestamp",
             plan.lastPreservedTimestamp ? nlohmann::json(*plan.lastPreservedTimestamp) : nlohmann::json(nullptr)},
            {"hint", nothingOwned(plan) ? nlohmann::json(ownershipHint(plan)) : nlohmann::json(nullptr)}};
}

void printPlan(const RetentionPlan& plan, const RetentionContext& context, bool applying) {
    std::cout << "retention " << (applying ? "apply" : "plan") << " for " << plan.dir << " at " << localTimeText(context.now)
              << ", owner " << (context.owner.empty() ? "(none)" : context.owner) << (context.adoptForeign ? ", adopting" : "")
              << "\n";
    size_t width = 4, stepWidth = 1;
    auto stepText = [](const RetentionCandidate& c) { return c.step ? std::to_string(*c.step) : std::string("-"); };
    for (const RetentionDecision& d : plan.decisions) {
        width = std::max(width, d.candidate.name.size());
        stepWidth = std::max(stepWidth, stepText(d.candidate).size());
    }
    for (const RetentionDecision& d : plan.decisions) {
        const RetentionCandidate& c = d.candidate;
        char verdict[8];
        std::snprintf(verdict, sizeof verdict, "%-6s", std::string(retentionVerdictName(d.verdict)).c_str());
        std::cout << "  " << verdict << "  " << c.name << std::string(width - c.name.size(), ' ') << "  step " << stepText(c)
                  << std::string(stepWidth - stepText(c).size(), ' ') << "  " << localTimeText(c.time) << "  "
                  << byteText(c.bytes) << "  " << (d.verdict == RetentionVerdict::Keep ? joined(d.keptBy) : d.reason) << "\n";
    }
    if (plan.decisions.empty()) std::cout << "  no checkpoints\n";
    std::cout << "keep " << plan.kept << " (" << byteText(plan.keptBytes) << "), delete " << plan.deleted << " ("
              << byteText(plan.deletedBytes) << "), leave alone " << plan.leftAlone << " (" << byteText(plan.leftAloneBytes)
              << ")\n";
    for (const std::string& note : plan.notes) std::cout << "note: " << note << "\n";
    if (nothingOwned(plan)) std::cout << "hint: " << ownershipHint(plan) << "\n";
}

void run(const RetentionOptions& o, bool apply, CommandContext& ctx) {
    auto policy = policyFromOptions(o);
    if (!policy.ok()) {
        std::cerr << "ckpt retention: " << policy.status().toString() << "\n";
        if (o.json)
            printJson(
                {{"ok", false},
                 {"error",
                  {{"code", std::string(statusCodeName(policy.status().code()))}, {"message", policy.status().message()}}}});
        ctx.exitCode = kExitUsage;
        return;
    }
    RetentionContext context;
    context.owner = o.owner;
    context.adoptForeign = o.adopt;
    context.now = static_cast<double>(std::time(nullptr));
    if (!o.at.empty()) {
        auto at = parseTime(o.at);
        if (!at.ok()) {
            ctx.exitCode = reportError(at.status(), o.json);
            return;
        }
        context.now = *at;
    }
    auto plan = planDirectoryRetention(o.dir, *policy, context);
    if (!plan.ok()) {
        ctx.exitCode = reportError(plan.status(), o.json);
        return;
    }
    if (!apply) {
        if (o.json) return printJson(planJson(*plan, *policy, context));
        return printPlan(*plan, context, false);
    }
    auto report = applyRetention(*plan);
    if (!report.ok()) {
        if (!o.json) printPlan(*plan, context, true);
        ctx.exitCode = reportError(report.status(), o.json);
        return;
    }
    if (o.json) {
        nlohmann::json out = planJson(*plan, *policy, context);
        out["applied"] = {{"deleted", report->deleted}, {"bytes_freed", report->bytesFreed}, {"skipped", report->skipped}};
        return printJson(out);
    }
    printPlan(*plan, context, true);
    for (const std::string& s : report->skipped) std::cout << "skipped " << s << "\n";
    std::cout << "deleted " << report->deleted.size() << " checkpoint(s), freed " << byteText(report->bytesFreed) << "\n";
}

void addOptions(CLI::App* cmd, const std::shared_ptr<RetentionOptions>& o) {
    cmd->add_option("DIR", o->dir, "Directory of checkpoints")->required();
    cmd->add_option("--policy", o->policyFile, "Retention policy JSON (docs/cli.md); a schedule file's \"retention\" works");
    std::vector<CLI::Option*> rules = {
        cmd->add_option("--keep-latest", o->keepLatest, "Keep the newest N by step"),
        cmd->add_option("--keep-hours", o->keepHours,
                        "Keep one checkpoint per H hours (TensorFlow's keep_checkpoint_every_n_hours)"),
        cmd->add_option("--keep-every-steps", o->keepEverySteps, "Keep the first checkpoint of each N-step bucket"),
        cmd->add_option("--keep-within", o->keepWithin, "Keep what was saved within DUR (90s, 30m, 12h, 7d, 2w)"),
        cmd->add_option("--keep-hourly", o->calendar.hourly, "Newest per hour, for the last N hours that have one")
            ->check(CLI::NonNegativeNumber),
        cmd->add_option("--keep-daily", o->calendar.daily, "Newest per day, last N days")->check(CLI::NonNegativeNumber),
        cmd->add_option("--keep-weekly", o->calendar.weekly, "Newest per ISO week, last N weeks")->check(CLI::NonNegativeNumber),
        cmd->add_option("--keep-monthly", o->calendar.monthly, "Newest per month, last N months")->check(CLI::NonNegativeNumber),
        cmd->add_option("--keep-yearly", o->calendar.yearly, "Newest per year, last N years")->check(CLI::NonNegativeNumber),
        cmd->add_flag("--calendar-utc", o->calendar.utc, "Calendar periods in UTC instead of local time"),
        cmd->add_option("--keep-best", o->keepBest, "Keep the best N by a metric: METRIC[:N[:min|max]] (default 1, min)"),
        cmd->add_option("--keep-tag", o->keepTags, "Never delete checkpoints tagged T (repeatable)"),
        cmd->add_option("--min-age", o->minAge, "Delete nothing younger than DUR"),
        cmd->add_option("--disk-budget", o->diskBudget,
                        "Delete the oldest unprotected until the kept total fits SIZE (500MB, 2GiB)"),
    };
    cmd->add_option("--owner", o->owner, "The run whose checkpoints may be deleted (metadata owner)");
    cmd->add_flag("--adopt", o->adopt, "Also manage checkpoints without an owner (foreign ones included)");
    cmd->add_option("--at", o->at, "Plan as if now were TIME (Unix seconds or ISO 8601)");
    cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli.md)");
    cmd->parse_complete_callback([o, rules] {
        o->anyRuleOption = false;
        for (const CLI::Option* r : rules) o->anyRuleOption = o->anyRuleOption || r->count() > 0;
        o->hasKeepLatest = rules[0]->count() > 0;
        o->hasKeepHours = rules[1]->count() > 0;
        o->hasKeepEverySteps = rules[2]->count() > 0;
    });
}

}  // namespace

void registerRetention(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("retention", "Which checkpoints a retention policy keeps, and deleting the rest");
    cmd->require_subcommand(1);
    auto* plan = cmd->add_subcommand("plan", "Dry run: every checkpoint with the rule that keeps it or why it would go");
    auto* apply = cmd->add_subcommand("apply", "Plan, then delete what the plan deletes and print what it freed");
    auto planOptions = std::make_shared<RetentionOptions>();
    auto applyOptions = std::make_shared<RetentionOptions>();
    addOptions(plan, planOptions);
    addOptions(apply, applyOptions);
    plan->callback([&ctx, planOptions] { run(*planOptions, false, ctx); });
    apply->callback([&ctx, applyOptions] { run(*applyOptions, true, ctx); });
}

}  // namespace ckpt::cli

// ckpt schedule add|list|show|remove|run-now|cancel and ckpt scheduler run:
// the schedules of a store (ckpt/schedule_store.h) and the service that
// runs them (ckpt/scheduler.h); run-now and cancel reach a running service
// through the store (ckpt/schedule_client.h). The engine validates and runs; this file turns
// options into a Schedule and prints.

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>

#include "ckpt/location.h"
#include "ckpt/retention.h"
#include "ckpt/schedule_client.h"
#include "output.h"
#include "schedule_output.h"
#include "terminal_progress.h"

namespace ckpt::cli {
namespace {

struct AddOptions {
    std::string name, source, dest, every = "1h", policyFile, store;
    bool demo = false, async = false, disabled = false, json = false;
    int64_t maxShardBytes = 0, everySteps = 0, steps = 200;
    int shards = 0;
    // --keep-… options, passed to the engine's policy parser as JSON fields.
    nlohmann::json keep = nlohmann::json::object();
};

struct Common {
    std::string store;
    bool json = false;
};

int fail(const Status& status, bool json) { return reportError(status, json); }

Result<std::unique_ptr<ScheduleStore>> openStore(const std::string& flag) {
    CKPT_ASSIGN_OR_RETURN(StoreLocation location, storeLocation(flag));
    return ScheduleStore::open(location.path, location.options);
}

Result<std::string> readPolicyFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return invalidArgument("cannot read policy file " + path);
    std::string text(1u << 20, '\0');  // a policy is a few hundred bytes
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (!in.eof()) return invalidArgument("policy file " + path + " is larger than 1 MiB");
    return text;
}

Result<Schedule> scheduleFromOptions(const AddOptions& o) {
    Schedule s;
    s.name = o.name;
    s.source = o.demo ? ScheduleSource::DemoTrainer : ScheduleSource::Directory;
    s.sourcePath = o.source;
    s.destination = o.dest;
    CKPT_ASSIGN_OR_RETURN(double every, parseDuration(o.every));
    s.triggers.everySeconds = every;
    if (o.everySteps != 0) s.triggers.everySteps = o.everySteps;
    s.demoSteps = o.steps;
    if (!o.policyFile.empty()) {
        if (!o.keep.empty()) return invalidArgument("--policy cannot be combined with --keep-… options");
        CKPT_ASSIGN_OR_RETURN(std::string text, readPolicyFile(o.policyFile));
        CKPT_ASSIGN_OR_RETURN(s.retention, parseRetentionPolicy(text, o.policyFile));
    } else if (!o.keep.empty()) {
        CKPT_ASSIGN_OR_RETURN(s.retention, parseRetentionPolicy(o.keep.dump(), "the --keep-… options"));
    }
    if (o.maxShardBytes != 0) s.sharding.maxShardBytes = o.maxShardBytes;
    if (o.shards != 0) s.sharding.shardCount = o.shards;
    s.async = o.async;
    s.enabled = !o.disabled;
    // Relative paths mean the same thing to a scheduler started elsewhere;
    // a URL stays as it is (and is refused when no storage serves it).
    if (!s.sourcePath.empty()) s.sourcePath = normalizeLocation(s.sourcePath);
    if (!s.destination.empty()) s.destination = normalizeLocation(s.destination);
    CKPT_RETURN_IF_ERROR(validateSchedule(s));
    return s;
}

// "1d", "30m", "90s": the largest unit that divides the interval.
std::string everyText(const Schedule& s) {
    const auto interval = scheduleInterval(s);
    if (!interval) return "-";
    static const std::pair<double, const char*> units[] = {{604800, "w"}, {86400, "d"}, {3600, "h"}, {60, "m"}};
    char text[32];
    for (const auto& [seconds, suffix] : units) {
        const double n = *interval / seconds;
        if (n >= 1 && n == static_cast<double>(static_cast<int64_t>(n))) {
            std::snprintf(text, sizeof text, "%lld%s", static_cast<long long>(n), suffix);
            return text;
        }
    }
    std::snprintf(text, sizeof text, "%gs", *interval);
    return text;
}

std::string sourceText(const Schedule& s) {
    switch (s.source) {
    case ScheduleSource::Directory: return s.sourcePath;
    case ScheduleSource::DemoTrainer: return "(demo trainer)";
    case ScheduleSource::Program: return "(program " + s.sourcePath + ")";
    }
    return s.sourcePath;
}

// A schedule with its next run and last run, as list and show print it.
nlohmann::json scheduleStatusJson(ScheduleStore& store, const Schedule& s, double now, Status& error) {
    nlohmann::json j = scheduleJson(s);
    auto last = store.lastRun(s.id);
    if (!last.ok()) {
        error = last.status();
        return j;
    }
    const ScheduleDue due = s.source == ScheduleSource::Program ? ScheduleDue{} : scheduleDue(s, *last, now);
    j["next_run"] = due.nextAt ? nlohmann::json(*due.nextAt) : nlohmann::json(nullptr);
    j["last_run"] = *last ? runJson(**last) : nlohmann::json(nullptr);
    return j;
}

double wallNow() { return static_cast<double>(std::time(nullptr)); }

void addSchedule(const AddOptions& o, CommandContext& ctx) {
    auto schedule = scheduleFromOptions(o);
    if (!schedule.ok()) {
        ctx.exitCode = fail(schedule.status(), o.json);
        return;
    }
    auto store = openStore(o.store);
    if (!store.ok()) {
        ctx.exitCode = fail(store.status(), o.json);
        return;
    }
    auto id = (*store)->addSchedule(*schedule);
    if (!id.ok()) {
        ctx.exitCode = fail(id.status(), o.json);
        return;
    }
    auto stored = (*store)->scheduleById(*id);
    if (!stored.ok()) {
        ctx.exitCode = fail(stored.status(), o.json);
        return;
    }
    if (o.json) return printJson({{"ok", true}, {"store", (*store)->path()}, {"schedule", scheduleJson(*stored)}});
    std::cout << "added schedule " << stored->name << " (id " << stored->id << "): " << sourceText(*stored) << " -> "
              << stored->destination << " every " << everyText(*stored) << "\n";
}

void listSchedules(const Common& o, CommandContext& ctx) {
    auto store = openStore(o.store);
    if (!store.ok()) {
        ctx.exitCode = fail(store.status(), o.json);
        return;
    }
    auto schedules = (*store)->schedules();
    if (!schedules.ok()) {
        ctx.exitCode = fail(schedules.status(), o.json);
        return;
    }
    const double now = wallNow();
    Status error;
    nlohmann::json rows = nlohmann::json::array();
    for (const Schedule& s : *schedules) rows.push_back(scheduleStatusJson(**store, s, now, error));
    if (!error.isOk()) {
        ctx.exitCode = fail(error, o.json);
        return;
    }
    if (o.json) return printJson({{"store", (*store)->path()}, {"schedules", rows}});
    std::cout << "store " << (*store)->path() << "\n";
    if (rows.empty()) std::cout << "  no schedules (add one with ckpt schedule add)\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        const Schedule& s = (*schedules)[i];
        const nlohmann::json& r = rows[i];
        std::cout << "  " << s.name << (s.enabled ? "" : " (disabled)") << "  " << sourceText(s) << " -> " << s.destination
                  << "  every " << everyText(s);
        if (r["next_run"].is_number()) std::cout << "  next " << localTimeText(r["next_run"].get<double>());
        if (r["last_run"].is_object())
            std::cout << "  last " << r["last_run"]["result"].get<std::string>() << " "
                      << localTimeText(r["last_run"]["started_at"].get<double>());
        std::cout << "\n";
    }
}

void showSchedule(const Common& o, const std::string& name, int limit, CommandContext& ctx) {
    auto store = openStore(o.store);
    if (!store.ok()) {
        ctx.exitCode = fail(store.status(), o.json);
        return;
    }
    auto schedule = (*store)->schedule(name);
    if (!schedule.ok()) {
        ctx.exitCode = fail(schedule.status(), o.json);
        return;
    }
    Status error;
    nlohmann::json j = scheduleStatusJson(**store, *schedule, wallNow(), error);
    auto runs = (*store)->runs(schedule->id, limit);
    if (!error.isOk() || !runs.ok()) {
        ctx.exitCode = fail(error.isOk() ? runs.status() : error, o.json);
        return;
    }
    nlohmann::json runRows = nlohmann::json::array();
    for (const ScheduleRun& r : *runs) runRows.push_back(runJson(r));
    if (o.json) return printJson({{"store", (*store)->path()}, {"schedule", j}, {"runs", runRows}});
    const Schedule& s = *schedule;
    std::cout << "schedule " << s.name << " (id " << s.id << ")" << (s.enabled ? "" : ", disabled") << "\n"
              << "  source       " << scheduleSourceName(s.source) << " " << sourceText(s) << "\n"
              << "  destination  " << s.destination << "\n"
              << "  triggers     " << nlohmann::json::parse(saveTriggersToJson(s.triggers)).dump() << "\n"
              << "  retention    " << nlohmann::json::parse(retentionPolicyToJson(s.retention)).dump() << "\n"
              << "  sharding     "
              << (s.sharding.maxShardBytes
                      ? "at most " + byteText(static_cast<uint64_t>(*s.sharding.maxShardBytes)) + " per shard"
                  : s.sharding.shardCount ? std::to_string(*s.sharding.shardCount) + " shards"
                                          : std::string("one shard per task"))
              << (s.async ? ", async" : "") << "\n";
    if (j["next_run"].is_number()) std::cout << "  next run     " << localTimeText(j["next_run"].get<double>()) << "\n";
    std::cout << (runs->empty() ? "no runs yet\n" : "runs, newest first:\n");
    for (const ScheduleRun& r : *runs) std::cout << "  " << runLine(r) << "\n";
}

void removeSchedule(const Common& o, const std::string& name, CommandContext& ctx) {
    auto store = openStore(o.store);
    Status st = store.ok() ? (*store)->removeSchedule(name) : store.status();
    if (!st.isOk()) {
        ctx.exitCode = fail(st, o.json);
        return;
    }
    if (o.json) return printJson({{"ok", true}, {"removed", name}});
    std::cout << "removed schedule " << name << " and its run log (its checkpoints stay where they are)\n";
}

int runExitCode(const ScheduleRun& run) {
    return run.result == RunResult::Ok || run.result == RunResult::Skipped ? kExitOk : kExitCheckpointProblem;
}

enum class Log { None, Text, Json };

Result<std::unique_ptr<Scheduler>> openScheduler(const std::string& flag, Log log) {
    CKPT_ASSIGN_OR_RETURN(StoreLocation location, storeLocation(flag));
    SchedulerOptions options;
    options.store = location.options;
    // A service's log: each line flushed as it happens (journald reads stdout).
    if (log == Log::Text) options.log = [](std::string_view line) { std::cout << line << std::endl; };
    if (log == Log::Json)
        options.log = [](std::string_view line) {
            std::cout << nlohmann::json{{"log", line}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                      << std::endl;
        };
    return Scheduler::open(location.path, options);
}

void runNow(const Common& o, const std::string& name, bool wait, CommandContext& ctx) {
    auto location = storeLocation(o.store);
    if (!location.ok()) {
        ctx.exitCode = fail(location.status(), o.json);
        return;
    }
    CancelOnSignal signals;
    RunNowOptions options;
    options.cancel = &signals.token();
    options.progress = o.json ? ProgressSink{} : terminalProgress({});
    options.wait = wait;
    options.store = location->options;
    // On stderr: stdout stays the result (one JSON object with --json).
    options.queued = [&](int64_t pid, int64_t request) {
        std::fprintf(stderr, "%s: queued for the scheduler service (pid %lld) as request %lld%s\n", name.c_str(),
                     static_cast<long long>(pid), static_cast<long long>(request),
                     wait ? "; following its run (Ctrl+C cancels it)" : "");
    };
    auto outcome = runOrQueueSchedule(location->path, name, options);
    clearTerminalProgress(options.progress);
    if (!outcome.ok()) {
        ctx.exitCode = fail(outcome.status(), o.json);
        return;
    }
    nlohmann::json queued = nullptr;
    if (outcome->requestId) queued = {{"request", *outcome->requestId}, {"service_pid", *outcome->servicePid}};
    if (!outcome->run) {  // --no-wait with a service
        if (o.json) return printJson({{"ok", true}, {"queued", queued}, {"run", nullptr}});
        std::cout << name << ": queued for the scheduler service (pid " << *outcome->servicePid << ") as request "
                  << *outcome->requestId << "\n";
        return;
    }
    ctx.exitCode = runExitCode(*outcome->run);
    if (o.json)
        return printJson({{"ok", ctx.exitCode == kExitOk},
                          {"queued", queued},
                          {"cancel_requested", outcome->cancelRequested},
                          {"run", runJson(*outcome->run)}});
    std::cout << name << ": " << runLine(*outcome->run) << "\n";
}

void cancelRun(const Common& o, const std::string& name, CommandContext& ctx) {
    auto location = storeLocation(o.store);
    auto request =
        location.ok() ? cancelScheduleRun(location->path, name, location->options) : Result<CancelRequest>(location.status());
    if (!request.ok()) {
        ctx.exitCode = fail(request.status(), o.json);
        return;
    }
    const auto id = [](const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    if (o.json)
        return printJson(
            {{"ok", true}, {"request", id(request->requestId)}, {"run", id(request->runId)}, {"withdrawn", request->withdrawn}});
    if (request->runId)
        std::cout << name << ": asked run " << *request->runId
                  << " to stop at its next safe point (it is recorded interrupted; a directory copy finishes first)\n";
    else if (request->requestId) std::cout << name << ": asked the run that is starting to stop\n";
    if (request->withdrawn)
        std::cout << name << ": withdrew " << request->withdrawn << " queued run-now request"
                  << (request->withdrawn == 1 ? "" : "s") << " before it started\n";
}

void schedulerRun(const Common& o, bool once, CommandContext& ctx) {
    // --json: --once prints one object at the end; the loop's log lines
    // become {"log": ...} objects, one a line.
    auto scheduler = openScheduler(o.store, !o.json ? Log::Text : once ? Log::None : Log::Json);
    if (!scheduler.ok()) {
        ctx.exitCode = fail(scheduler.status(), o.json);
        return;
    }
    if (once) {
        // Queued run-now requests first, then what is due.
        auto runs = (*scheduler)->serveRequests();
        if (runs.ok()) {
            auto due = (*scheduler)->runDue((*scheduler)->now());
            if (due.ok()) runs->insert(runs->end(), due->begin(), due->end());
            else runs = due.status();
        }
        if (!runs.ok()) {
            ctx.exitCode = fail(runs.status(), o.json);
            return;
        }
        nlohmann::json rows = nlohmann::json::array();
        for (const ScheduleRun& r : *runs) {
            rows.push_back(runJson(r));
            if (runExitCode(r) != kExitOk) ctx.exitCode = kExitCheckpointProblem;
        }
        if (o.json) printJson({{"store", (*scheduler)->store().path()}, {"runs", rows}});
        else if (runs->empty()) std::cout << "no schedule is due\n";
        return;
    }
    CancelOnSignal signals;
    const Status st = (*scheduler)->run(signals.token());
    if (!st.isOk()) ctx.exitCode = fail(st, o.json);
}

void addCommon(CLI::App* cmd, const std::shared_ptr<Common>& o) {
    cmd->add_option("--store", o->store, "Schedule store (default $XDG_DATA_HOME/ckpt-explorer/catalog.db)");
    cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli.md)");
}

}  // namespace

void registerSchedule(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("schedule", "Save schedules: what to copy or train, where, how often, what to keep");
    cmd->require_subcommand(1);

    auto* add = cmd->add_subcommand("add", "Add a schedule (validated: the reason is printed when it cannot work)");
    auto a = std::make_shared<AddOptions>();
    add->add_option("NAME", a->name, "Unique name: letters, digits, '.', '_', '-'")->required();
    auto* source = add->add_option("--source", a->source, "Copy the latest checkpoint of this directory");
    auto* demo = add->add_flag("--demo", a->demo, "Run the demo trainer into the destination");
    source->excludes(demo);
    add->add_option("--dest", a->dest, "Destination directory (created on the first run)")->required();
    add->add_option("--every", a->every, "How often: 90s, 30m, 12h, 7d (default 1h)");
    add->add_option("--every-steps", a->everySteps, "Demo: save every N training steps");
    add->add_option("--steps", a->steps, "Demo: training steps per run (default 200)");
    add->add_option("--policy", a->policyFile, "Retention policy JSON for the destination (ckpt retention's format)");
    struct Keep {
        const char* flag;
        const char* field;
        const char* help;
        bool number;
    };
    static const Keep keeps[] = {
        {"--keep-latest", "keep_latest", "Keep the newest N by step", true},
        {"--keep-hours", "keep_one_per_hours", "Keep one per H hours", true},
        {"--keep-every-steps", "keep_every_steps", "Keep the first of each N-step bucket", true},
        {"--keep-within", "keep_within", "Keep what was saved within DUR", false},
        {"--keep-hourly", "keep_hourly", "Newest per hour, last N hours", true},
        {"--keep-daily", "keep_daily", "Newest per day, last N days", true},
        {"--keep-weekly", "keep_weekly", "Newest per week, last N weeks", true},
        {"--keep-monthly", "keep_monthly", "Newest per month, last N months", true},
        {"--keep-yearly", "keep_yearly", "Newest per year, last N years", true},
        {"--min-age", "min_age", "Delete nothing younger than DUR", false},
        {"--disk-budget", "disk_budget", "Keep at most SIZE in the destination", false},
    };
    for (const Keep& k : keeps) {
        add->add_option_function<std::string>(
               k.flag,
               [a, k](const std::string& value) {
                   // Numbers stay numbers for the parser's type checks; it names the field in errors.
                   const nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
                   a->keep[k.field] = k.number && parsed.is_number() ? parsed : nlohmann::json(value);
               },
               k.help)
            ->type_name(k.number ? "N" : "VALUE");
    }
    add->add_option_function<std::vector<std::string>>(
        "--keep-tag", [a](const std::vector<std::string>& tags) { a->keep["keep_tags"] = tags; },
        "Never delete checkpoints tagged T (repeatable)");
    auto* maxShard = add->add_option("--max-shard-bytes", a->maxShardBytes, "Destination data files of at most B bytes");
    auto* shards = add->add_option("--shards", a->shards, "Destination in N data files");
    maxShard->excludes(shards);
    add->add_flag("--async", a->async, "Demo: asynchronous saves");
    add->add_flag("--disabled", a->disabled, "Add it without running it yet");
    add->add_option("--store", a->store, "Schedule store (default $XDG_DATA_HOME/ckpt-explorer/catalog.db)");
    add->add_flag("--json", a->json, "Machine-readable output (docs/cli.md)");
    add->callback([&ctx, a] {
        if (a->source.empty() && !a->demo) {
            std::cerr << "ckpt schedule add: give --source DIR or --demo\n";
            ctx.exitCode = kExitUsage;
            return;
        }
        addSchedule(*a, ctx);
    });

    auto* list = cmd->add_subcommand("list", "Every schedule with its next and last run");
    auto l = std::make_shared<Common>();
    addCommon(list, l);
    list->callback([&ctx, l] { listSchedules(*l, ctx); });

    auto* show = cmd->add_subcommand("show", "One schedule and its recent runs");
    auto s = std::make_shared<Common>();
    auto showName = std::make_shared<std::string>();
    auto limit = std::make_shared<int>(20);
    show->add_option("NAME", *showName, "Schedule name")->required();
    show->add_option("--runs", *limit, "How many recent runs (default 20)")->check(CLI::NonNegativeNumber);
    addCommon(show, s);
    show->callback([&ctx, s, showName, limit] { showSchedule(*s, *showName, *limit, ctx); });

    auto* remove = cmd->add_subcommand("remove", "Remove a schedule and its run log (never its checkpoints)");
    auto r = std::make_shared<Common>();
    auto removeName = std::make_shared<std::string>();
    remove->add_option("NAME", *removeName, "Schedule name")->required();
    addCommon(remove, r);
    remove->callback([&ctx, r, removeName] { removeSchedule(*r, *removeName, ctx); });

    auto* now = cmd->add_subcommand(
        "run-now", "Run a schedule now, or queue it for the running scheduler service and follow it (Ctrl+C cancels safely)");
    auto n = std::make_shared<Common>();
    auto nowName = std::make_shared<std::string>();
    auto noWait = std::make_shared<bool>(false);
    now->add_option("NAME", *nowName, "Schedule name")->required();
    now->add_flag("--no-wait", *noWait, "With a service running: queue the run and return");
    addCommon(now, n);
    now->callback([&ctx, n, nowName, noWait] { runNow(*n, *nowName, !*noWait, ctx); });

    auto* cancel = cmd->add_subcommand("cancel", "Stop a schedule's run in progress (or withdraw a queued run-now)");
    auto c = std::make_shared<Common>();
    auto cancelName = std::make_shared<std::string>();
    cancel->add_option("NAME", *cancelName, "Schedule name")->required();
    addCommon(cancel, c);
    cancel->callback([&ctx, c, cancelName] { cancelRun(*c, *cancelName, ctx); });
}

void registerScheduler(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("scheduler", "The service that runs due schedules");
    cmd->require_subcommand(1);
    auto* run = cmd->add_subcommand("run", "Run due schedules until SIGTERM/SIGINT, logging each run to stdout");
    auto o = std::make_shared<Common>();
    auto once = std::make_shared<bool>(false);
    run->add_flag("--once", *once, "Run what is due now, then exit");
    addCommon(run, o);
    run->callback([&ctx, o, once] { schedulerRun(*o, *once, ctx); });
}

}  // namespace ckpt::cli

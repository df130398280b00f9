// ckpt demo-train DIR: trains a small MLP with Adam and saves checkpoints
// TensorFlow can restore (the README's first command). The second half of
// the run fine-tunes layer 1 only, so its checkpoints are worth diffing.
// With --schedule NAME the saves are recorded in the schedule store as a
// program schedule's runs. With --world N each checkpoint is saved by N
// writers (ckpt/distributed_save.h): this process is rank --rank (or the
// launcher's), or, with neither, it starts the N ranks as child processes.

#include <unistd.h>

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <random>
#include <system_error>

#include "ckpt/demo_trainer.h"
#include "ckpt/schedule_store.h"
#include "ckpt/scheduled_checkpointer.h"
#include "ckpt/writer_rank.h"
#include "output.h"
#include "rank_processes.h"

namespace ckpt::cli {
namespace {

struct WorldFlags {
    int world = 0;  // 0: one process saves (no --world)
    int rank = -1;  // -1: not given
    std::string runId;
    double commitTimeout = 120;
    bool noCommit = false;  // rank 0 leaves each commit to `ckpt merge --save-id`
};

std::string randomRunId() {
    std::random_device device;
    char id[32];
    std::snprintf(id, sizeof id, "%08x-%d", device(), static_cast<int>(::getpid()));
    return id;
}

// --world N without a rank or a launcher: this program once per rank, each
// told its rank and the run id. One JSON document for all with --json.
void spawnRanks(CommandContext& ctx, const WorldFlags& flags, const std::string& directory, bool json) {
    const std::string runId = flags.runId.empty() ? randomRunId() : flags.runId;
    std::vector<std::vector<std::string>> args;
    for (int r = 0; r < flags.world; ++r) {
        std::vector<std::string> a = ctx.arguments;
        a.insert(a.end(), {"--rank", std::to_string(r)});
        if (flags.runId.empty()) a.insert(a.end(), {"--run-id", runId});
        args.push_back(std::move(a));
    }
    std::error_code ec;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) {
        ctx.exitCode = reportError(internalError("cannot find this program to start its ranks: " + ec.message()), json);
        return;
    }
    if (!json) std::cout << "starting " << flags.world << " ranks (run id " << runId << ")\n" << std::flush;
    const auto grace = std::chrono::milliseconds(static_cast<int64_t>(flags.commitTimeout * 1000)) + std::chrono::seconds(10);
    const std::vector<RankExit> exits = runRankProcesses(self, args, json, grace);
    if (exits.empty()) {
        ctx.exitCode = reportError(internalError("the ranks could not be started"), json);
        return;
    }
    std::string failure;
    for (const RankExit& e : exits) {
        if (e.exitCode == 0 || !failure.empty()) continue;
        failure = "rank " + std::to_string(e.rank) +
                  (e.exitCode > 128 ? " was ended by signal " + std::to_string(e.exitCode - 128)
                                    : " exited with status " + std::to_string(e.exitCode));
    }
    // Rank 0's failure is the one that says what went wrong with the save.
    if (exits[0].exitCode != 0) failure = "rank 0 exited with status " + std::to_string(exits[0].exitCode);
    if (!failure.empty()) ctx.exitCode = kExitCheckpointProblem;
    if (!json) {
        if (!failure.empty()) std::cerr << "ckpt: " << failure << "\n";
        else if (flags.noCommit)
            std::cout << "all " << flags.world << " ranks done; nothing committed: commit each ckpt-K with ckpt merge "
                      << "--save-id ckpt-K-" << runId << " --world " << flags.world << " " << directory << "/ckpt-K\n";
        else std::cout << "all " << flags.world << " ranks done; rank 0 committed every checkpoint in " << directory << "\n";
        return;
    }
    nlohmann::json ranks = nlohmann::json::array();
    for (const RankExit& e : exits) {
        // A rank stopped before it printed anything has no result (null).
        nlohmann::json result = nlohmann::json::parse(e.output, nullptr, false, true);
        if (result.is_discarded()) result = nullptr;
        ranks.push_back({{"rank", e.rank}, {"exit_code", e.exitCode}, {"result", result}});
    }
    nlohmann::json out = {
        {"ok", failure.empty()}, {"directory", directory}, {"world", flags.world}, {"run_id", runId}, {"ranks", ranks}};
    if (!failure.empty()) {
        // Rank 0's own error, when it reported one, says what became of the save.
        std::string message = failure, code = "FailedPrecondition";
        const auto& first = ranks[0]["result"];
        if (first.is_object() && first.contains("error") && first["error"].is_object()) {
            message += ": " + first["error"].value("message", "");
            code = first["error"].value("code", code);
        }
        out["error"] = {{"code", code}, {"message", message}};
    }
    printJson(out);
}

// The writer this process is, from the flags or the launcher; nullopt with
// ctx.exitCode unset when the ranks are to be started here.
Result<std::optional<WriterRank>> writerOf(const WorldFlags& flags) {
    if (flags.rank >= 0) {
        WriterRank w{flags.rank, flags.world, {}};
        CKPT_RETURN_IF_ERROR(checkWriterRank(w));
        return std::optional<WriterRank>(w);
    }
    auto fromLauncher = writerRankFromEnvironment(flags.world);
    if (fromLauncher.ok()) return std::optional<WriterRank>(*fromLauncher);
    if (fromLauncher.status().code() == StatusCode::NotFound) return std::optional<WriterRank>();
    return fromLauncher.status().withContext("--world without --rank reads the launcher's variables; pass --rank to override");
}

}  // namespace

void registerDemoTrain(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("demo-train", "Train a small MLP regression with Adam and save checkpoints into DIR");
    auto opts = std::make_shared<DemoTrainOptions>();
    auto json = std::make_shared<bool>(false);
    auto maxShard = std::make_shared<int64_t>(0);
    auto freezeFrom = std::make_shared<int64_t>(0);
    auto noFreeze = std::make_shared<bool>(false);
    cmd->add_option("DIR", opts->directory, "Directory for the checkpoints (created)")->required();
    cmd->add_option("--steps", opts->steps, "Training steps (default 200)")->check(CLI::PositiveNumber);
    cmd->add_option("--save-every", opts->saveEvery, "Save every K steps (default 40)")->check(CLI::PositiveNumber);
    cmd->add_option("--max-to-keep", opts->maxToKeep, "Checkpoints to keep (default 5)")->check(CLI::PositiveNumber);
    auto* freezeOpt = cmd->add_option("--freeze-from", *freezeFrom,
                                      "Fine-tune phase: freeze layer 0 from step N on, only layer 1 trains "
                                      "(default: halfway, STEPS/2+1)")
                          ->check(CLI::PositiveNumber);
    cmd->add_flag("--no-freeze", *noFreeze, "Train every layer at every step (no fine-tune phase)")->excludes(freezeOpt);
    cmd->add_flag("--async", opts->async, "Write checkpoints on a background thread");
    cmd->add_option("--max-shard-bytes", *maxShard, "Split the checkpoint into data files of at most B bytes")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--replicas", opts->replicas, "Save every variable as R parallel components (default 1)")
        ->check(CLI::PositiveNumber);
    auto policyFile = std::make_shared<std::string>();
    cmd->add_option("--policy", *policyFile,
                    "JSON file with save triggers and a retention policy: {\"triggers\": {...}, \"retention\": {...}} "
                    "(docs/scheduling.md); replaces --save-every and --max-to-keep for what it sets");
    cmd->add_option("--owner", opts->owner, "Run id recorded in each checkpoint's metadata (default: ckpt@DIR)");
    auto store = std::make_shared<std::string>();
    cmd->add_option("--schedule", opts->schedule,
                    "Record this run's saves in the schedule store as the program schedule NAME "
                    "(ckpt schedule show NAME, the explorer's Schedules tab)");
    cmd->add_option("--store", *store, "Schedule store for --schedule (default $XDG_DATA_HOME/ckpt-explorer/catalog.db)");
    auto world = std::make_shared<WorldFlags>();
    auto* worldOpt = cmd->add_option("--world", world->world,
                                     "Save each checkpoint by N writer processes (docs/semantics.md, \"Saves by N writers\"); "
                                     "without --rank or a launcher's variables, start the N ranks here")
                         ->check(CLI::Range(1, kMaxWriters));
    cmd->add_option("--rank", world->rank,
                    "This process's rank of --world (default: the launcher's: RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID, "
                    "JOB_COMPLETION_INDEX)")
        ->check(CLI::NonNegativeNumber)
        ->needs(worldOpt);
    cmd->add_option("--run-id", world->runId,
                    "Id of this launch, the same for every rank (default: the launcher's job id; a new one when the ranks "
                    "are started here)")
        ->needs(worldOpt);
    cmd->add_option("--commit-timeout", world->commitTimeout,
                    "Seconds rank 0 waits for every rank's part of a checkpoint (default 120)")
        ->check(CLI::PositiveNumber)
        ->needs(worldOpt);
    cmd->add_flag("--no-commit", world->noCommit,
                  "Rank 0 does not merge: each checkpoint's parts wait for `ckpt merge --save-id ID --world N DIR/ckpt-K`")
        ->needs(worldOpt);
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, opts, json, maxShard, freezeFrom, noFreeze, policyFile, store, world] {
        if (!store->empty() && opts->schedule.empty()) {
            ctx.exitCode =
                reportError(invalidArgument("--store needs --schedule NAME (the schedule the saves are recorded in)"), *json);
            return;
        }
        if (!opts->schedule.empty()) {
            if (store->empty()) {
                // The default store's directory is created, as `ckpt schedule` does.
                auto path = ScheduleStore::defaultPath();
                if (!path.ok()) {
                    ctx.exitCode = reportError(path.status(), *json);
                    return;
                }
                std::error_code ec;
                std::filesystem::create_directories(std::filesystem::path(*path).parent_path(), ec);
                *store = *path;
            }
            opts->storePath = *store;
        }
        if (!policyFile->empty()) {
            auto policy = readCheckpointPolicy(*policyFile);
            if (!policy) {
                ctx.exitCode = reportError(policy.status(), *json);
                return;
            }
            opts->triggers = policy->triggers;
            opts->retention = policy->retention;
        }
        if (*maxShard > 0) opts->maxShardBytes = *maxShard;
        if (world->world > 0) {
            auto writer = writerOf(*world);
            if (!writer.ok()) {
                ctx.exitCode = reportError(writer.status(), *json);
                return;
            }
            if (!*writer) {
                spawnRanks(ctx, *world, opts->directory, *json);
                return;
            }
            opts->writer = **writer;
            opts->runId = world->runId.empty() ? launchIdFromEnvironment().value_or("") : world->runId;
            if (opts->runId.empty()) {
                ctx.exitCode = reportError(
                    invalidArgument(
                        "--rank needs --run-id ID, the same for every rank of this launch (no launcher's job id found)"),
                    *json);
                return;
            }
            opts->commitTimeout = std::chrono::milliseconds(static_cast<int64_t>(world->commitTimeout * 1000));
            opts->commitParts = !world->noCommit;
        }
        if (*noFreeze) opts->freezeFirstLayerFrom = opts->steps + 1;
        if (*freezeFrom > 0) opts->freezeFirstLayerFrom = *freezeFrom;
        const int64_t frozenFrom = opts->freezeFirstLayerFrom.value_or(opts->steps / 2 + 1);
        // A writer of several saves its part of each checkpoint; rank 0 also commits it.
        const std::string saved =
            !opts->writer ? "saved "
            : opts->writer->rank == 0 && opts->commitParts
                ? "saved part 0 of " + std::to_string(opts->writer->world) + " and committed "
                : "saved part " + std::to_string(opts->writer->rank) + " of " + std::to_string(opts->writer->world) + " of ";
        const bool showSaveId = opts->writer && !opts->commitParts;
        auto run = runDemoTraining(*opts, [json, saved, showSaveId](const DemoProgress& p) {
            if (*json) return;
            std::cout << "step " << std::setw(5) << p.step << "  loss " << std::fixed << std::setprecision(5) << p.loss << "  "
                      << (p.savedPath ? saved : "saved ") << p.savedPath.value_or("-") << "  (" << p.saveReason << "; blocked "
                      << std::setprecision(1) << p.saveBlockingSeconds * 1000.0 << " ms"
                      << (p.savedPath && showSaveId ? "; save id " + p.saveId : std::string()) << ")\n";
        });
        if (!run) {
            ctx.exitCode = reportError(run.status(), *json);
            return;
        }
        if (*json) {
            nlohmann::json saves = nlohmann::json::array();
            for (const DemoProgress& p : run->saves)
                saves.push_back({{"step", p.step},
                                 {"loss", p.loss},
                                 {"path", p.savedPath.value_or("")},
                                 {"reason", p.saveReason},
                                 {"blocking_ms", p.saveBlockingSeconds * 1000.0}});
            if (opts->writer)
                for (size_t i = 0; i < saves.size(); ++i) saves[i]["save_id"] = run->saves[i].saveId;
            nlohmann::json out = {{"directory", opts->directory},
                                  {"steps", opts->steps},
                                  {"first_loss", run->firstLoss},
                                  {"freeze_from", frozenFrom <= opts->steps ? nlohmann::json(frozenFrom) : nlohmann::json()},
                                  {"final_loss", run->finalLoss},
                                  {"steps_run", run->stepsRun},
                                  {"preempted", run->preempted},
                                  {"saves", saves}};
            if (opts->writer) {
                out["rank"] = opts->writer->rank;
                out["world"] = opts->writer->world;
                out["run_id"] = opts->runId;
                out["committed_by_rank_0"] = opts->commitParts;
            }
            printJson(out);
            return;
        }
        if (run->preempted) std::cout << "stopped at step " << run->stepsRun << " after the preemption save\n";
        std::cout << "loss " << std::setprecision(5) << run->firstLoss << " -> " << run->finalLoss << "\n";
        if (frozenFrom <= opts->steps)
            std::cout << "layer 0 frozen from step " << frozenFrom << " on (fine-tune phase: only layer 1 trained)\n";
    });
}

}  // namespace ckpt::cli

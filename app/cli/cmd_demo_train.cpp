// ckpt demo-train DIR: trains a small MLP with Adam and saves checkpoints
// TensorFlow can restore (the README's first command). The second half of
// the run fine-tunes layer 1 only, so its checkpoints are worth diffing.
// With --schedule NAME the saves are recorded in the schedule store as a
// program schedule's runs.

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <system_error>

#include "ckpt/demo_trainer.h"
#include "ckpt/schedule_store.h"
#include "ckpt/scheduled_checkpointer.h"
#include "output.h"

namespace ckpt::cli {

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
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, opts, json, maxShard, freezeFrom, noFreeze, policyFile, store] {
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
        if (*noFreeze) opts->freezeFirstLayerFrom = opts->steps + 1;
        if (*freezeFrom > 0) opts->freezeFirstLayerFrom = *freezeFrom;
        const int64_t frozenFrom = opts->freezeFirstLayerFrom.value_or(opts->steps / 2 + 1);
        auto run = runDemoTraining(*opts, [json](const DemoProgress& p) {
            if (*json) return;
            std::cout << "step " << std::setw(5) << p.step << "  loss " << std::fixed << std::setprecision(5) << p.loss
                      << "  saved " << p.savedPath.value_or("-") << "  (" << p.saveReason << "; blocked " << std::setprecision(1)
                      << p.saveBlockingSeconds * 1000.0 << " ms)\n";
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
            printJson({{"directory", opts->directory},
                       {"steps", opts->steps},
                       {"first_loss", run->firstLoss},
                       {"freeze_from", frozenFrom <= opts->steps ? nlohmann::json(frozenFrom) : nlohmann::json()},
                       {"final_loss", run->finalLoss},
                       {"steps_run", run->stepsRun},
                       {"preempted", run->preempted},
                       {"saves", saves}});
            return;
        }
        if (run->preempted) std::cout << "stopped at step " << run->stepsRun << " after the preemption save\n";
        std::cout << "loss " << std::setprecision(5) << run->firstLoss << " -> " << run->finalLoss << "\n";
        if (frozenFrom <= opts->steps)
            std::cout << "layer 0 frozen from step " << frozenFrom << " on (fine-tune phase: only layer 1 trained)\n";
    });
}

}  // namespace ckpt::cli

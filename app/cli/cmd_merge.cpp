// ckpt merge DST SRC...: workers' bundles into one, or (--average) several
// checkpoints of one model averaged. The engine does the work (surgery.h).
// ckpt merge --save-id ID --world N PREFIX: the merger of a save by N
// writers (distributed_save.h), run apart from the writers.

#include <iomanip>
#include <iostream>

#include "ckpt/distributed_save.h"
#include "ckpt/surgery.h"
#include "ckpt/writer_rank.h"
#include "destination_output.h"
#include "diff_format.h"
#include "output.h"
#include "schedule_output.h"
#include "surgery_output.h"
#include "terminal_progress.h"

namespace ckpt::cli {
namespace {

struct MergeFlags {
    std::string dst;
    std::vector<std::string> sources;
    bool average = false;
    std::vector<double> weights;
    double ema = 0;
    double slerp = -1;
    int last = 0;
    bool weightsOnly = false;
    bool overwrite = false;
    bool json = false;
    ShardingFlags sharding;
    // --save-id: commit the parts of a save by N writers at DST.
    std::string saveId;
    int world = 0;
    double commitTimeout = 600;
};

// Waits for the writers' done markers, merges their parts and commits DST,
// as rank 0 does (commitCheckpointParts).
void commitParts(const MergeFlags& f, CommandContext& ctx) {
    if (!f.sources.empty() || f.average || f.overwrite || f.sharding.any() || f.world < 1) {
        std::cerr << "merge: --save-id takes the checkpoint's prefix and --world N; no SRC, --average, sharding or "
                     "--overwrite (the writers chose the data files, and a committed checkpoint is never replaced)\n";
        ctx.exitCode = kExitUsage;
        return;
    }
    CancelOnSignal signals;
    PartsCommitOptions options;
    options.saveId = f.saveId;
    options.timeout = std::chrono::milliseconds(static_cast<int64_t>(f.commitTimeout * 1000));
    options.cancel = &signals.token();
    if (!f.json) options.progress = terminalProgress({});
    auto commit = commitCheckpointParts(f.dst, f.world, options);
    clearTerminalProgress(options.progress);
    if (!commit.ok()) {
        ctx.exitCode = reportError(commit.status(), f.json);
        return;
    }
    if (f.json) {
        printJson({{"prefix", commit->prefix},
                   {"save_id", f.saveId},
                   {"world", commit->world},
                   {"tensors", commit->tensors},
                   {"committed", true},
                   {"wait_seconds", commit->waitSeconds},
                   {"seconds", commit->seconds}});
        return;
    }
    std::cout << "committed " << commit->prefix << ": " << commit->tensors << " tensors from " << commit->world
              << " writers (waited " << std::fixed << std::setprecision(1) << commit->waitSeconds << " s)\n";
}

void run(const MergeFlags& f, CommandContext& ctx) {
    if (!f.saveId.empty()) {
        commitParts(f, ctx);
        return;
    }
    if (f.sources.empty()) {
        std::cerr << "merge: SRC is required (or --save-id ID --world N PREFIX to commit a save by N writers)\n";
        ctx.exitCode = kExitUsage;
        return;
    }
    const bool averaging = f.average || !f.weights.empty() || f.ema > 0 || f.slerp >= 0 || f.last > 0 || f.weightsOnly;
    if (averaging && !f.average) {
        std::cerr << "merge: --weights, --ema, --slerp, --last and --weights-only need --average\n";
        ctx.exitCode = kExitUsage;
        return;
    }
    // Checked against the arguments as given: a directory stands for its checkpoints.
    if (!allowDestination({.path = f.dst, .sources = f.sources, .overwrite = f.overwrite}, f.json, ctx)) return;
    CancelOnSignal signals;
    const SurgeryOptions options = surgeryOptions(f.sharding, f.overwrite, !f.json, signals.token());
    if (!f.average) {
        auto done = mergeCheckpoints(f.sources, f.dst, options);
        clearTerminalProgress(options.progress);
        if (!done.ok()) {
            ctx.exitCode = reportError(done.status(), f.json);
            return;
        }
        recordWritten(done->stats.prefix, &done->verify);
        printSurgeryResult(*done, f.json, {{"sources", f.sources}});
        return;
    }
    AverageSpec spec;
    spec.weights = f.weights;
    spec.weightsOnly = f.weightsOnly;
    if (f.ema > 0) spec.method = AverageMethod::Ema, spec.emaDecay = f.ema;
    if (f.slerp >= 0) spec.method = AverageMethod::Slerp, spec.slerpT = f.slerp;
    auto sources = expandAverageSources(f.sources, f.last, spec.method);
    if (!sources.ok()) {
        ctx.exitCode = reportError(sources.status(), f.json);
        return;
    }
    auto done = averageCheckpoints(*sources, f.dst, spec, options);
    clearTerminalProgress(options.progress);
    if (!done.ok()) {
        ctx.exitCode = reportError(done.status(), f.json);
        return;
    }
    recordWritten(done->stats.prefix, &done->verify);
    printSurgeryResult(*done, f.json, {{"sources", *sources}});
}

}  // namespace

void registerMerge(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("merge",
                                   "Merge bundles with disjoint keys into DST, or with --average combine same-structure "
                                   "checkpoints value by value (DST verified, sources untouched), or with --save-id commit "
                                   "the parts N writers saved of DST");
    auto f = std::make_shared<MergeFlags>();
    cmd->add_option("DST", f->dst,
                    "Destination prefix (must not exist, unless --overwrite); with --save-id, the checkpoint the writers saved")
        ->required();
    cmd->add_option("SRC", f->sources, "Source checkpoints; with --average a directory stands for every checkpoint in it");
    cmd->add_flag("--average", f->average, "Average same-structure checkpoints in float64 (equal weights by default)");
    auto* weights =
        cmd->add_option("--weights", f->weights, "Weights w1,w2,... one per source, normalized by their sum")->delimiter(',');
    auto* ema = cmd->add_option("--ema", f->ema, "Exponential moving average with DECAY over the sources in step order")
                    ->check(CLI::Range(0.0, 1.0));
    auto* slerp = cmd->add_option("--slerp", f->slerp, "Spherical interpolation at T (0 = first, 1 = second) of two sources")
                      ->check(CLI::Range(0.0, 1.0));
    weights->excludes(ema)->excludes(slerp);
    ema->excludes(slerp);
    cmd->add_option("--last", f->last, "Keep only the K highest steps of the sources")->check(CLI::PositiveNumber);
    cmd->add_flag("--weights-only", f->weightsOnly, "Leave the optimizer's state out of the average");
    auto* saveId = cmd->add_option("--save-id", f->saveId,
                                   "Commit the save ID of DST by N writers (docs/remote.md, \"Saves by N writers\"): wait for "
                                   "every rank's done marker, merge their parts and write DST's index and state file");
    cmd->add_option("--world", f->world, "With --save-id: the number of writers N")
        ->check(CLI::Range(1, kMaxWriters))
        ->needs(saveId);
    cmd->add_option("--commit-timeout", f->commitTimeout,
                    "With --save-id: seconds to wait for every rank's done marker (default 600); then exit 1 naming "
                    "the missing ranks, and abort the save")
        ->check(CLI::PositiveNumber)
        ->needs(saveId);
    addShardingFlags(*cmd, f->sharding);
    addOverwriteFlag(*cmd, f->overwrite);
    cmd->add_flag("--json", f->json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, f] { run(*f, ctx); });
}

}  // namespace ckpt::cli

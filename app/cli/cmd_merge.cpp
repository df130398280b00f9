// ckpt merge DST SRC...: workers' bundles into one, or (--average) several
// checkpoints of one model averaged. The engine does the work (surgery.h).

#include <iostream>

#include "ckpt/surgery.h"
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
};

void run(const MergeFlags& f, CommandContext& ctx) {
    const bool averaging = f.average || !f.weights.empty() || f.ema > 0 || f.slerp >= 0 || f.last > 0 || f.weightsOnly;
    if (averaging && !f.average) {
        std::cerr << "merge: --weights, --ema, --slerp, --last and --weights-only need --average\n";
        ctx.exitCode = kExitUsage;
        return;
    }
    CancelOnSignal signals;
    const SurgeryOptions options = surgeryOptions(f.sharding, f.overwrite, !f.json, signals.token());
    if (!f.average) {
        auto done = mergeCheckpoints(f.sources, f.dst, options);
        clearTerminalProgress(options.progress);
        if (!done.ok()) ctx.exitCode = reportError(done.status(), f.json);
        else printSurgeryResult(*done, f.json, {{"sources", f.sources}});
        return;
    }
    // Checked against the arguments too: a directory stands for its checkpoints.
    if (Status st = checkSurgeryDestination(f.dst, f.sources, f.overwrite); !st.isOk()) {
        ctx.exitCode = reportError(st, f.json);
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
    if (!done.ok()) ctx.exitCode = reportError(done.status(), f.json);
    else printSurgeryResult(*done, f.json, {{"sources", *sources}});
}

}  // namespace

void registerMerge(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("merge",
                                   "Merge bundles with disjoint keys into DST, or with --average combine same-structure "
                                   "checkpoints value by value (DST verified, sources untouched)");
    auto f = std::make_shared<MergeFlags>();
    cmd->add_option("DST", f->dst, "Destination prefix (must not exist, unless --overwrite)")->required();
    cmd->add_option("SRC", f->sources, "Source checkpoints; with --average a directory stands for every checkpoint in it")
        ->required();
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
    addShardingFlags(*cmd, f->sharding);
    cmd->add_flag("--overwrite", f->overwrite, "Replace a checkpoint already at DST (never a source)");
    cmd->add_flag("--json", f->json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, f] { run(*f, ctx); });
}

}  // namespace ckpt::cli

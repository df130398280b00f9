// ckpt edit SRC DST: renames, deletions, optimizer stripping and replaced
// values, planned first (--dry-run prints the plan) and written verified.

#include <iostream>

#include "ckpt/checkpoint.h"
#include "ckpt/surgery.h"
#include "diff_format.h"
#include "output.h"
#include "schedule_output.h"
#include "surgery_output.h"
#include "terminal_progress.h"

namespace ckpt::cli {
namespace {

struct EditFlags {
    std::string src, dst;
    std::vector<std::string> renames, deletes, sets;
    bool stripOptimizer = false, force = false, dryRun = false, overwrite = false, json = false;
    ShardingFlags sharding;
};

// "OLD=NEW" split at the first '='.
bool splitPair(const std::string& text, std::pair<std::string, std::string>& out) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) return false;
    out = {text.substr(0, eq), text.substr(eq + 1)};
    return true;
}

void printPlan(const EditPlan& plan, const std::string& dst, bool json) {
    if (json) {
        nlohmann::json changes = nlohmann::json::array();
        for (const KeyChange& k : plan.keys) {
            if (k.kind == KeyChangeKind::Kept) continue;
            nlohmann::json c = {{"kind", keyChangeKindName(k.kind)}, {"old_key", k.oldKey}};
            if (!k.newKey.empty()) c["new_key"] = k.newKey;
            if (!k.detail.empty()) c["file"] = k.detail;
            changes.push_back(std::move(c));
        }
        printJson({{"dry_run", true},
                   {"source", plan.source},
                   {"destination", dst},
                   {"notes", plan.notes},
                   {"kept", plan.count(KeyChangeKind::Kept)},
                   {"renamed", plan.count(KeyChangeKind::Renamed)},
                   {"deleted", plan.count(KeyChangeKind::Deleted)},
                   {"replaced", plan.count(KeyChangeKind::Replaced)},
                   {"changes", changes}});
        return;
    }
    std::cout << "plan for " << plan.source << " -> " << dst << " (nothing written):\n";
    for (const std::string& note : plan.notes) std::cout << "  " << note << "\n";
    for (const KeyChange& k : plan.keys) {
        switch (k.kind) {
        case KeyChangeKind::Kept: break;
        case KeyChangeKind::Renamed: std::cout << "  rename  " << k.oldKey << " -> " << k.newKey << "\n"; break;
        case KeyChangeKind::Deleted: std::cout << "  delete  " << k.oldKey << "\n"; break;
        case KeyChangeKind::Replaced: std::cout << "  replace " << k.newKey << " from " << k.detail << "\n"; break;
        }
    }
    std::cout << plan.count(KeyChangeKind::Kept) << " kept, " << plan.count(KeyChangeKind::Renamed) << " renamed, "
              << plan.count(KeyChangeKind::Deleted) << " deleted, " << plan.count(KeyChangeKind::Replaced) << " replaced\n";
}

void run(const EditFlags& f, CommandContext& ctx) {
    EditSpec spec;
    spec.deletes = f.deletes;
    spec.stripOptimizer = f.stripOptimizer;
    spec.force = f.force;
    for (const auto& [flag, in, out] :
         {std::tuple("--rename", &f.renames, &spec.renames), std::tuple("--set", &f.sets, &spec.sets)}) {
        for (const std::string& text : *in) {
            std::pair<std::string, std::string> pair;
            if (!splitPair(text, pair)) {
                std::cerr << "edit: " << flag << " takes A=B, got \"" << text << "\"\n";
                ctx.exitCode = kExitUsage;
                return;
            }
            out->push_back(std::move(pair));
        }
    }
    if (spec.renames.empty() && spec.deletes.empty() && spec.sets.empty() && !spec.stripOptimizer) {
        std::cerr << "edit: nothing to do; give --rename, --delete, --strip-optimizer or --set\n";
        ctx.exitCode = kExitUsage;
        return;
    }
    auto source = Checkpoint::open(f.src);
    if (!source.ok()) {
        ctx.exitCode = reportError(source.status(), f.json);
        return;
    }
    if (Status st = checkSurgeryDestination(f.dst, {f.src}, f.overwrite); !st.isOk()) {
        ctx.exitCode = reportError(st, f.json);
        return;
    }
    auto plan = planEdit(**source, spec);
    if (!plan.ok()) {
        ctx.exitCode = reportError(plan.status(), f.json);
        if (!f.json && plan.status().message().find("forcing the edit") != std::string::npos)
            std::cerr << "ckpt: pass --force to delete them too\n";
        return;
    }
    if (f.dryRun) {
        printPlan(*plan, f.dst, f.json);
        return;
    }
    CancelOnSignal signals;
    const SurgeryOptions options = surgeryOptions(f.sharding, f.overwrite, !f.json, signals.token());
    auto done = applyEdit(*plan, f.dst, options);
    clearTerminalProgress(options.progress);
    if (!done.ok()) {
        ctx.exitCode = reportError(done.status(), f.json);
        return;
    }
    printSurgeryResult(*done, f.json,
                       {{"source", plan->source},
                        {"renamed", plan->count(KeyChangeKind::Renamed)},
                        {"deleted", plan->count(KeyChangeKind::Deleted)},
                        {"replaced", plan->count(KeyChangeKind::Replaced)}});
}

}  // namespace

void registerEdit(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("edit",
                                   "Write SRC edited at DST: rename or delete objects, strip the optimizer, replace values "
                                   "(keys, children and slot references follow; DST verified, SRC untouched)");
    auto f = std::make_shared<EditFlags>();
    cmd->add_option("SRC", f->src, "Source checkpoint prefix, directory or SavedModel")->required();
    cmd->add_option("DST", f->dst, "Destination prefix (must not exist, unless --overwrite)")->required();
    cmd->add_option("--rename", f->renames, "OLD=NEW object path (or subtree), e.g. model.dense=model.dense_1");
    cmd->add_option("--delete", f->deletes, "Object PATH to remove with what only it reaches");
    cmd->add_flag("--strip-optimizer", f->stripOptimizer, "Remove every optimizer and its slot variables");
    cmd->add_option("--set", f->sets, "KEY=FILE.npy: replace a tensor's value (same dtype and shape)");
    cmd->add_flag("--force", f->force, "Also delete slot variables a deletion would leave dangling");
    cmd->add_flag("--dry-run", f->dryRun, "Print the plan and write nothing");
    addShardingFlags(*cmd, f->sharding);
    cmd->add_flag("--overwrite", f->overwrite, "Replace a checkpoint already at DST (never the source)");
    cmd->add_flag("--json", f->json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, f] { run(*f, ctx); });
}

}  // namespace ckpt::cli

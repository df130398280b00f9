// ckpt restore SRC --into TARGET [--map OLD=NEW]... [--expect-partial]
//              [--assert consumed|existing|nontrivial] [--match-only] [--json]
// Restores a checkpoint into a target (model spec or template checkpoint)
// and prints how every node matched plus TensorFlow's assertion verdicts.
// ckpt spec PATH [--values]: a checkpoint's structure as a model spec.

#include <iostream>

#include "ckpt/model_spec.h"
#include "ckpt/restore.h"
#include "json_output.h"
#include "output.h"

namespace ckpt::cli {
namespace {

std::string attributeSummary(const CheckpointNodeMatch& n) {
    std::string out;
    for (const AttributeMatch& a : n.attributes) {
        if (!out.empty()) out += ", ";
        out += a.name;
        if (a.dtype != DataType::Invalid) out += " " + std::string(dataTypeName(a.dtype)) + " " + a.shape.toString();
        if (a.unused) out += " (unused)";
    }
    return out;
}

void printReport(const MatchReport& r, const std::string& source, const std::string& target) {
    std::cout << "restore " << source << "\n   into " << target << "  (" << r.style << ")\n\n";
    std::cout << "checkpoint nodes:\n";
    for (const CheckpointNodeMatch& n : r.checkpointNodes) {
        if (!n.hasAttributes && n.state == NodeMatchState::Matched && n.programPath == n.path) continue;  // plain containers
        std::cout << "  " << nodeMatchStateName(n.state) << "  " << displayableString(n.path);
        if (!n.programPath.empty() && n.programPath != n.path) std::cout << "  -> " << displayableString(n.programPath);
        if (n.hasAttributes) std::cout << "  [" << displayableString(attributeSummary(n)) << "]";
        std::cout << "\n";
        for (const AttributeMatch& a : n.attributes)
            if (!a.error.empty()) std::cout << "      " << displayableString(a.error) << "\n";
    }
    bool header = false;
    for (const ProgramObjectMatch& o : r.programObjects) {
        if (!o.hasAttributes || o.bound) continue;
        if (!header) std::cout << "\nprogram objects with no checkpoint value:\n";
        header = true;
        std::cout << "  unbound  " << displayableString(o.path) << "  " << dataTypeName(o.dtype) << " " << o.shape.toString() << "\n";
    }
    std::cout << "\nsummary: " << r.matchedNodes << " matched, " << r.unresolvedNodes << " unresolved in checkpoint, "
              << r.unboundObjects << " unbound in program, " << r.mismatches << " mismatched\n";
    for (const AssertionVerdict& v : r.verdicts) {
        std::cout << assertionName(v.assertion) << ": " << (v.passed ? "passes" : "fails");
        if (!v.passed) std::cout << "\n    " << displayableString(v.status.message());
        std::cout << "\n";
    }
    for (const std::string& w : r.warnings) std::cout << "warning: " << displayableString(w) << "\n";
}

} // namespace

void registerRestore(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("restore", "Restore a checkpoint into a model spec or template checkpoint and "
                                              "report the match with TensorFlow's assertion verdicts");
    struct Args {
        std::string source, target, assertion;
        std::vector<std::string> maps;
        bool expectPartial = false, json = false, matchOnly = false;
    };
    auto args = std::make_shared<Args>();
    cmd->add_option("SRC", args->source, "Checkpoint prefix, .index file, directory or SavedModel")->required();
    cmd->add_option("--into", args->target, "Target: a model spec (*.json, docs/model-spec.md) or a checkpoint used as template")
        ->required();
    cmd->add_option("--map", args->maps, "Assignment map OLD=NEW of path or key prefixes (repeatable)");
    cmd->add_option("--assert", args->assertion, "Exit 1 unless this assertion holds")
        ->check(CLI::IsMember({"consumed", "existing", "nontrivial"}));
    cmd->add_flag("--expect-partial", args->expectPartial, "Silence the unrestored-value warnings (status.expect_partial())");
    cmd->add_flag("--match-only", args->matchOnly, "Match and check dtypes/shapes from the index only; read no values");
    cmd->add_flag("--json", args->json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, args] {
        RestoreOptions options;
        options.readValues = !args->matchOnly;
        for (const std::string& m : args->maps) {
            auto mapping = parsePathMapping(m);
            if (!mapping) {
                ctx.exitCode = reportError(mapping.status(), args->json);
                return;
            }
            options.assignmentMap.push_back(*mapping);
        }
        auto target = openRestoreTarget(args->target);
        if (!target) {
            ctx.exitCode = reportError(target.status(), args->json);
            return;
        }
        auto ckpt = Checkpoint::open(args->source);
        if (!ckpt) {
            ctx.exitCode = reportError(ckpt.status(), args->json);
            return;
        }
        auto status = restoreCheckpoint(*ckpt, *target, options);
        if (!status) {
            ctx.exitCode = reportError(status.status(), args->json);
            return;
        }
        if (args->expectPartial) status->expectPartial();
        const MatchReport report = status->report();

        Status failure = status->initializeOrRestore();  // the first restore error, if any
        if (failure.isOk() && !args->assertion.empty()) {
            const Assertion a = args->assertion == "consumed" ? Assertion::Consumed
                                : args->assertion == "existing" ? Assertion::ExistingObjectsMatched
                                                                : Assertion::NontrivialMatch;
            failure = status->check(a);
        }
        ctx.exitCode = failure.isOk() ? kExitOk : kExitCheckpointProblem;
        if (args->json) {
            nlohmann::json j = nlohmann::json::parse(matchReportJson(report));
            nlohmann::json out = {{"source", (*ckpt)->prefix()},
                                  {"target", args->target},
                                  {"requested_assertion", args->assertion.empty() ? nlohmann::json(nullptr) : nlohmann::json(args->assertion)},
                                  {"ok", failure.isOk()}};
            out["error"] = failure.isOk() ? nlohmann::json(nullptr)
                                          : nlohmann::json{{"code", std::string(statusCodeName(failure.code()))},
                                                           {"message", failure.message()}};
            out.update(j);
            printJson(out);
        } else {
            printReport(report, (*ckpt)->prefix(), args->target);
        }
        if (!failure.isOk()) std::cerr << "ckpt: " << displayableString(failure.toString()) << "\n";
    });
}

void registerSpec(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("spec", "Print a checkpoint's structure as a model spec (docs/model-spec.md)");
    auto path = std::make_shared<std::string>();
    auto values = std::make_shared<bool>(false);
    cmd->add_option("PATH", *path, "Checkpoint prefix, .index file, directory or SavedModel")->required();
    cmd->add_flag("--values", *values, "Include the stored values as initial_value (reads the data files)");
    cmd->callback([&ctx, path, values] {
        auto ckpt = Checkpoint::open(*path);
        if (!ckpt) {
            ctx.exitCode = reportError(ckpt.status(), false);
            return;
        }
        auto program = programFromCheckpoint(**ckpt);
        if (!program) {
            ctx.exitCode = reportError(program.status(), false);
            return;
        }
        if (*values) {
            auto status = restoreCheckpoint(*ckpt, *program);
            if (!status) {
                ctx.exitCode = reportError(status.status(), false);
                return;
            }
            if (Status s = status->initializeOrRestore(); !s.isOk()) {
                ctx.exitCode = reportError(s, false);
                return;
            }
        }
        std::cout << modelSpecJson(**program, *values);
    });
}

} // namespace ckpt::cli

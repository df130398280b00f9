// ckpt restore SRC --into TARGET [--map OLD=NEW]... [--expect-partial]
//              [--assert consumed|existing|nontrivial] [--match-only]
//              [--out NEW_PREFIX [--force] [--overwrite]] [--json]
// Restores a checkpoint into a target (model spec or template checkpoint)
// and prints how every node matched plus TensorFlow's assertion verdicts;
// --out writes the restored target as a new checkpoint and verifies it.
// ckpt spec PATH [--values]: a checkpoint's structure as a model spec.

#include <iostream>
#include <optional>

#include "ckpt/catalog.h"
#include "ckpt/json_writer.h"
#include "ckpt/match_report.h"
#include "ckpt/model_spec.h"
#include "ckpt/restore.h"
#include "ckpt/restored_write.h"
#include "destination_output.h"
#include "json_output.h"
#include "schedule_output.h"
#include "terminal_progress.h"
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

// The report as text, printed row by row as the engine streams it.
class TextReport final : public MatchReportSink {
public:
    TextReport(std::string source, std::string target) : m_source(std::move(source)), m_target(std::move(target)) {}
    void begin(const MatchReport& r) override {
        std::cout << "restore " << m_source << "\n   into " << m_target << "  (" << r.style << ")\n\n";
        std::cout << "checkpoint nodes:\n";
    }
    void checkpointNode(const CheckpointNodeMatch& n) override {
        if (!n.hasAttributes && n.state == NodeMatchState::Matched && n.programPath == n.path) return;  // plain containers
        std::cout << "  " << nodeMatchStateName(n.state) << "  " << displayableString(n.path);
        if (!n.programPath.empty() && n.programPath != n.path) std::cout << "  -> " << displayableString(n.programPath);
        if (n.hasAttributes) std::cout << "  [" << displayableString(attributeSummary(n)) << "]";
        std::cout << "\n";
        for (const AttributeMatch& a : n.attributes)
            if (!a.error.empty()) std::cout << "      " << displayableString(a.error) << "\n";
    }
    void programObject(const ProgramObjectMatch& o) override {
        if (!o.hasAttributes || o.bound) return;
        if (!m_unboundHeader) std::cout << "\nprogram objects with no checkpoint value:\n";
        m_unboundHeader = true;
        std::cout << "  unbound  " << displayableString(o.path) << "  " << dataTypeName(o.dtype) << " " << o.shape.toString()
                  << "\n";
    }
    void end(const MatchReport& r) override;

private:
    std::string m_source;
    std::string m_target;
    bool m_unboundHeader = false;
};

// Passes the stream on and keeps its summary (what the catalog records).
class SummaryTee final : public MatchReportSink {
public:
    explicit SummaryTee(MatchReportSink& next) : m_next(next) {}
    void begin(const MatchReport& head) override { m_next.begin(head); }
    void checkpointNode(const CheckpointNodeMatch& node) override { m_next.checkpointNode(node); }
    void programObject(const ProgramObjectMatch& object) override { m_next.programObject(object); }
    void end(const MatchReport& summary) override {
        m_next.end(summary);
        m_summary = summary;
    }
    const MatchReport& summary() const { return m_summary; }

private:
    MatchReportSink& m_next;
    MatchReport m_summary;
};

void TextReport::end(const MatchReport& r) {
    std::cout << "\nsummary: " << r.matchedNodes << " matched, " << r.unresolvedNodes << " unresolved in checkpoint, "
              << r.unboundObjects << " unbound in program, " << r.mismatches << " mismatched\n";
    for (const AssertionVerdict& v : r.verdicts) {
        std::cout << assertionName(v.assertion) << ": " << (v.passed ? "passes" : "fails");
        if (!v.passed) std::cout << "\n    " << displayableString(v.status.message());
        std::cout << "\n";
    }
    for (const std::string& w : r.warnings) std::cout << "warning: " << displayableString(w) << "\n";
    for (const std::string& m : r.unmatchedMappings) std::cout << "warning: " << displayableString(m) << "\n";
}

// Why --out wrote nothing, in the CLI's words (the policy is the engine's).
constexpr const char* kRefusedWhy = "the restore or the requested assertion failed (use --force to write anyway)";

nlohmann::json outJson(const RestoredWrite& r) {
    nlohmann::json j = {{"prefix", r.prefix}, {"written", r.written()}, {"replaced", r.replaced}};
    const nlohmann::json destination = destinationJson(r.destination);
    j["existing"] = destination["existing"];
    j["destination_problem"] = destination["problem"];
    j["skipped"] = r.refused ? nlohmann::json(kRefusedWhy) : nlohmann::json(nullptr);
    j["error"] = r.error.isOk()
                     ? nlohmann::json(nullptr)
                     : nlohmann::json{{"code", std::string(statusCodeName(r.error.code()))}, {"message", r.error.message()}};
    if (r.stats) {
        j["shards"] = r.stats->shards;
        j["tensors"] = r.stats->tensors;
        j["data_bytes"] = r.stats->dataBytes;
    }
    if (r.verify) {
        nlohmann::json problems = nlohmann::json::array();
        for (const VerifyProblem& p : r.verify->problems)
            problems.push_back({{"file", p.file}, {"key", p.key}, {"message", p.message}});
        j["verify"] = {{"ok", r.verify->ok()},
                       {"tensors_checked", r.verify->tensorsChecked},
                       {"bytes_checked", r.verify->bytesChecked},
                       {"problems", problems}};
    } else {
        j["verify"] = nullptr;
    }
    return j;
}

void printOut(const RestoredWrite& r) {
    if (!r.destination.ok()) {
        std::cout << "not written: " << displayableString(r.destination.message) << "\n";
        return;
    }
    if (r.refused) {
        std::cout << "not written: " << displayableString(r.prefix) << ": " << kRefusedWhy << "\n";
        return;
    }
    if (!r.stats) {
        std::cout << "write failed: " << displayableString(r.prefix) << "\n";
        return;
    }
    std::cout << (r.replaced ? "replaced " : "wrote ") << displayableString(r.stats->prefix) << "  (" << r.stats->tensors
              << " tensors, " << r.stats->shards << " shard(s), " << r.stats->dataBytes << " data bytes)\n";
    if (r.verify)
        std::cout << "verify: " << (r.verify->ok() ? "ok" : "FAILED") << "  (" << r.verify->tensorsChecked << " tensors, "
                  << r.verify->bytesChecked << " bytes checked, " << r.verify->problems.size() << " problem(s))\n";
    else std::cout << "verify: not run\n";
}

// The catalog's restore history; a catalog that cannot be written costs a
// warning, not the restore.
void recordInCatalog(const std::string& flag, const MatchReport& report, const std::string& target,
                     const std::vector<std::string>& maps, const std::optional<RestoredWrite>& written, bool ok) {
    auto path = catalogPathFor(flag);
    if (!path.ok()) return;  // no HOME: nowhere to record, nothing to say
    std::string assignmentMap;
    for (const std::string& m : maps) assignmentMap += (assignmentMap.empty() ? "" : " ") + m;
    const std::string output = written && written->stats ? written->stats->prefix : std::string();
    Status st = recordRestore(*path, restoreRecordFor(report, target, assignmentMap, output, ok, "ckpt"));
    if (!st.isOk()) std::cerr << "ckpt: warning: the restore was not recorded: " << displayableString(st.toString()) << "\n";
}

}  // namespace

void registerRestore(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("restore",
                                   "Restore a checkpoint into a model spec or template checkpoint and "
                                   "report the match with TensorFlow's assertion verdicts");
    struct Args {
        std::string source, target, assertion, out;
        std::vector<std::string> maps;
        std::string catalog;
        bool expectPartial = false, json = false, matchOnly = false, force = false, overwrite = false, noRecord = false;
    };
    auto args = std::make_shared<Args>();
    cmd->add_option("SRC", args->source, "Checkpoint prefix, .index file, directory or SavedModel")->required();
    cmd->add_option("--into", args->target, "Target: a model spec (*.json, docs/model-spec.md) or a checkpoint used as template")
        ->required();
    cmd->add_option("--map", args->maps, "Assignment map OLD=NEW of path or key prefixes (repeatable)");
    cmd->add_option("--assert", args->assertion, "Exit 1 unless this assertion holds")
        ->check(CLI::IsMember({"consumed", "existing", "nontrivial"}));
    cmd->add_flag("--expect-partial", args->expectPartial, "Silence the unrestored-value warnings (status.expect_partial())");
    auto* matchOnly =
        cmd->add_flag("--match-only", args->matchOnly, "Match and check dtypes/shapes from the index only; read no values");
    auto* outOption = cmd->add_option("--out", args->out,
                                      "Write the restored target as a new checkpoint at this prefix and verify it. Written "
                                      "only when the restore succeeded and the --assert assertion (if any) holds");
    cmd->add_flag("--force", args->force,
                  "With --out: write even when the restore or the --assert assertion failed (a separate consent from "
                  "--overwrite)")
        ->needs(outOption);
    addOverwriteFlag(*cmd, args->overwrite)->needs(outOption);
    outOption->excludes(matchOnly);  // without values the output would silently hold the target's initial values
    cmd->add_option("--catalog", args->catalog,
                    "Record the restore in this catalog (default $XDG_DATA_HOME/ckpt-explorer/catalog.db; "
                    "ckpt catalog history lists them)");
    cmd->add_flag("--no-record", args->noRecord, "Do not record the restore in the catalog");
    cmd->add_flag("--json", args->json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, args, outOption] {
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
        // Matching reads no values: the target's variables declare their
        // shapes without allocating them.
        auto target = openRestoreTarget(args->target, {.values = !args->matchOnly});
        if (!target) {
            ctx.exitCode = reportError(target.status(), args->json);
            return;
        }
        auto ckpt = Checkpoint::open(args->source);
        if (!ckpt) {
            ctx.exitCode = reportError(ckpt.status(), args->json);
            return;
        }
        // Ctrl+C stops the reads (and a --out write before its commit);
        // a terminal shows one progress line, as the other long commands do.
        CancelOnSignal signals;
        options.cancel = &signals.token();
        if (!args->json) options.progress = terminalProgress("restoring");
        auto status = restoreCheckpoint(*ckpt, *target, options);
        clearTerminalProgress(options.progress);
        if (!status) {
            ctx.exitCode = reportError(status.status(), args->json);
            return;
        }
        if (args->expectPartial) status->expectPartial();

        std::optional<Assertion> required;
        if (!args->assertion.empty())
            required = args->assertion == "consumed"   ? Assertion::Consumed
                       : args->assertion == "existing" ? Assertion::ExistingObjectsMatched
                                                       : Assertion::NontrivialMatch;
        const Status failure = restoreFailure(*status, required);
        std::optional<RestoredWrite> written;
        if (outOption->count() > 0) {
            RestoredWriteOptions out;
            out.requiredAssertion = required;
            out.writeDespiteFailure = args->force;
            out.overwrite = args->overwrite;
            // What the restore read is never its output: the checkpoint, and the target (a template checkpoint or spec).
            out.sources = {(*ckpt)->prefix(), args->target};
            out.save.cancel = &signals.token();
            out.verify.cancel = &signals.token();
            if (!args->json) out.save.progress = terminalProgress("writing");
            written = writeRestoredVerified(*status, args->out, out);
            clearTerminalProgress(out.save.progress);
        }
        const bool outFailed = written && !written->refused && !written->ok();
        ctx.exitCode = failure.isOk() && !outFailed ? kExitOk : kExitCheckpointProblem;
        // A destination that can never be written is a usage error, as for every writer.
        if (written && written->destination.status().code() == StatusCode::InvalidArgument) ctx.exitCode = kExitUsage;
        // The report is streamed as it is printed (a report of 150,000
        // nodes held whole took ~100 MB, issue #34); the catalog records
        // its summary afterwards.
        MatchReport summary;
        if (args->json) {
            // Streamed, the report's members after the command's own: a
            // report of 150,000 nodes as a DOM took seconds and gigabytes
            // (issue #34).
            JsonWriter out(std::cout);
            out.beginObject();
            out.key("error");
            writeJsonValue(out, failure.isOk() ? nlohmann::json(nullptr)
                                               : nlohmann::json{{"code", std::string(statusCodeName(failure.code()))},
                                                                {"message", failure.message()}});
            out.key("ok");
            out.boolean(failure.isOk());
            out.key("out");
            if (written) writeJsonValue(out, outJson(*written));
            else out.null();
            out.key("requested_assertion");
            if (args->assertion.empty()) out.null();
            else out.string(args->assertion);
            out.key("source");
            out.string((*ckpt)->prefix());
            out.key("target");
            out.string(args->target);
            MatchReportJsonSink members(out);
            SummaryTee tee(members);
            status->streamReport(tee);
            summary = tee.summary();
            out.endObject();
            out.finish();
        } else {
            TextReport text((*ckpt)->prefix(), args->target);
            SummaryTee tee(text);
            status->streamReport(tee);
            summary = tee.summary();
            if (written) printOut(*written);
        }
        std::cout.flush();  // all of stdout before the catalog's warnings, as before
        if (!args->noRecord) recordInCatalog(args->catalog, summary, args->target, args->maps, written, failure.isOk());
        if (!args->noRecord && written && written->ok()) recordWritten(written->prefix, &*written->verify, args->catalog);
        if (!failure.isOk()) std::cerr << "ckpt: " << displayableString(failure.toString()) << "\n";
        if (written && !written->destination.ok()) {
            (void)reportDestination(written->destination, false);
        } else if (written && !written->error.isOk()) {
            std::cerr << "ckpt: " << displayableString(written->error.toString()) << "\n";
        }
        if (written && written->verify && !written->verify->ok())
            for (const VerifyProblem& p : written->verify->problems)
                std::cerr << "ckpt: " << displayableString(p.file + ": " + p.message) << "\n";
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

}  // namespace ckpt::cli

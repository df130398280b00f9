// ckpt diff A B: what changed between two checkpoints (ckpt/checkpoint_diff.h).
// Exit codes follow diff(1) and h5diff: 0 equal within tolerance, 1
// differences, 2 trouble (usage, unreadable or corrupt input).

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <tuple>

#include "ckpt/catalog_cache.h"
#include "ckpt/checkpoint_diff.h"
#include "diff_format.h"
#include "json_output.h"
#include "output.h"
#include "terminal_progress.h"

namespace ckpt::cli {
namespace {

constexpr int kExitDifferent = 1;
constexpr int kExitTrouble = 2;

struct DiffArgs {
    std::string a, b;
    bool json = false, stat = false, nameStatus = false, all = false, quiet = false, verbose = false;
    bool weightsOnly = false, exact = false, readAll = false, noCache = false, verify = false;
    std::string catalog;
    std::vector<std::string> includes, excludes;
    std::optional<double> atol, rtol;
    std::string nan = "equal";
    int count = -1;  // -1: 10 with --verbose, else 0
    std::optional<std::string> slice;
    int threads = 0;
    std::string color = "auto";
};

std::string typeText(const DiffSide& s) { return std::string(dataTypeShortName(s.dtype)) + " " + s.shape.toString(); }

// A pair's figures appended to its row: one string per row, not a
// temporary per piece (100,000 rows of tiny tensors print their figures).
void appendFigures(std::string& s, const TensorDiff& v) {
    if (v.fromChecksums) {
        s += "identical (checksums)";
        return;
    }
    s += "max|Δ| ";
    appendFigure(s, v.maxAbsDiff);
    s += "  relL2 ";
    appendFigure(s, v.relL2);
    s += "  cos ";
    appendFigure(s, v.cosine);
    s += "  differ ";
    s += std::to_string(v.mismatches);
    s += '/';
    s += std::to_string(v.elements);
    if (v.elements > 0) {
        s += " (";
        appendFigure(s, 100.0 * static_cast<double>(v.mismatches) / static_cast<double>(v.elements));
        s += "%)";
    }
    if (v.nansAppeared) s += "  NaN appeared in " + std::to_string(v.nansAppeared);
    if (v.nansDisappeared) s += "  NaN gone from " + std::to_string(v.nansDisappeared);
    if (v.infsAppeared) s += "  Inf appeared in " + std::to_string(v.infsAppeared);
    if (v.infsDisappeared) s += "  Inf gone from " + std::to_string(v.infsDisappeared);
}

// The row's text after its letter: paths, types and figures.
std::string rowText(const DiffEntry& e, const DiffEntry* owner) {
    std::string path = e.displayPath();
    if (owner && e.role == DiffRole::SlotVariable) path = "  \u2514 " + e.optimizer + "'s state '" + e.slotName + "'";
    switch (e.status) {
    case DiffStatus::Renamed:
        if (e.role == DiffRole::Object)
            return e.a->path + " \u2192 " + e.b->path + "  (" + std::to_string(e.members) + " values)";
        return e.a->path + " \u2192 " + e.b->path + "  " + typeText(*e.b);
    case DiffStatus::Added:
    case DiffStatus::Deleted:
        if (e.role == DiffRole::Object) return path + "  (" + std::to_string(e.members) + " values)";
        return path + "  " + typeText(e.a ? *e.a : *e.b);
    case DiffStatus::TypeChanged: return path + "  " + typeText(*e.a) + " \u2192 " + typeText(*e.b);
    case DiffStatus::Modified:
    case DiffStatus::Unchanged: {
        path += "  ";
        path += typeText(*e.a);
        path += "  ";
        if (e.values) appendFigures(path, *e.values);
        else path += "bytes differ";
        return path;
    }
    }
    return path;
}

void printMismatches(const DiffEntry& e) {
    if (!e.values) return;
    for (const DifferingElement& m : e.values->firstMismatches)
        std::cout << "      " << indexText(m.index, e.a->shape) << "  a=" << displayableString(m.a)
                  << "  b=" << displayableString(m.b) << "\n";
    const int64_t more = e.values->mismatches - static_cast<int64_t>(e.values->firstMismatches.size());
    if (more > 0 && !e.values->firstMismatches.empty()) std::cout << "      ... " << more << " more\n";
}

std::string summaryText(const CheckpointDiff& d) {
    const DiffCounts& c = d.counts;
    std::string s = std::to_string(c.changed()) + " changed";
    auto part = [&](int64_t n, const char* what) {
        if (n > 0) s += ", " + std::to_string(n) + " " + what;
    };
    part(c.modified, "modified");
    part(c.added, "added");
    part(c.deleted, "deleted");
    part(c.renamed, "renamed");
    part(c.typeChanged, "type changed");
    s += "; " + std::to_string(c.unchanged) + " unchanged (" + std::to_string(d.fromChecksums) + " by checksum)";
    if (d.fromCache > 0) s += "; " + std::to_string(d.fromCache) + " pair(s) from the catalog's cache";
    if (d.excluded > 0) s += "; " + std::to_string(d.excluded) + " excluded";
    return s;
}

void printStat(const CheckpointDiff& d, bool color) {
    size_t width = 0;
    for (const DiffEntry& e : d.entries)
        if (e.status != DiffStatus::Unchanged && e.collapsedInto < 0) width = std::max(width, e.displayPath().size());
    width = std::min<size_t>(width, 80);
    for (const DiffEntry& e : d.entries) {
        if (e.status == DiffStatus::Unchanged || e.collapsedInto >= 0) continue;
        std::string path = e.displayPath();
        if (e.status == DiffStatus::Renamed) path = e.a->path + " \u2192 " + e.b->path;
        std::cout << ' ' << coloredLetter(e.status, color) << ' ' << path;
        if (path.size() < width) std::cout << std::string(width - path.size(), ' ');
        std::cout << " | ";
        if (e.values && e.values->elements > 0) {
            const double f = static_cast<double>(e.values->mismatches) / static_cast<double>(e.values->elements);
            const int bar = static_cast<int>(std::lround(f * 20));
            std::cout << figureText(100 * f) << "% differ " << std::string(static_cast<size_t>(bar), '#');
        } else if (e.role == DiffRole::Object) {
            std::cout << e.members << " values";
        } else {
            std::cout << diffStatusName(e.status);
        }
        std::cout << "\n";
    }
    std::cout << ' ' << summaryText(d) << "\n";
}

void printReport(const CheckpointDiff& d, const DiffArgs& args, bool color) {
    std::cout << "A " << d.prefixA << "\nB " << d.prefixB << "\n";
    const DiffEntry* previous = nullptr;
    for (const DiffEntry& e : d.entries) {
        if (e.status == DiffStatus::Unchanged && !args.all) continue;
        if (e.collapsedInto >= 0 && !args.verbose) continue;
        const DiffEntry* owner =
            previous && e.role == DiffRole::SlotVariable && e.slotOf == previous->displayPath() ? previous : nullptr;
        std::cout << coloredLetter(e.status, color) << ' ' << (e.collapsedInto >= 0 ? "  " : "") << rowText(e, owner) << "\n";
        if (args.verbose) printMismatches(e);
        if (e.role != DiffRole::SlotVariable) previous = &e;
    }
    std::cout << summaryText(d) << "\n";
}

// One line per side that fails verification: values can compare equal
// while an index, a state file or (with --verify) a tensor is damaged.
std::vector<std::string> verificationLines(const CheckpointDiff& d, const DiffArgs& args) {
    std::vector<std::string> lines;
    for (const auto& [side, path, check] : {std::tuple('A', &args.a, &d.checkA), std::tuple('B', &args.b, &d.checkB)}) {
        if (check->ok()) continue;
        std::string line = std::string(1, side) + " fails " + (check->full ? "verification" : "the index and state-file checks") +
                           ": " + check->problems.front().file + ": " + check->problems.front().message;
        if (check->problems.size() > 1) line += " (and " + std::to_string(check->problems.size() - 1) + " more)";
        line += "; ckpt verify " + *path + " tells all";
        lines.push_back(displayableString(line));
    }
    return lines;
}

void run(const DiffArgs& args, CommandContext& ctx) {
    DiffOptions opt;
    opt.values.tolerance.atol = args.atol;
    opt.values.tolerance.rtol = args.rtol;
    opt.values.tolerance.exact = args.exact;
    opt.values.tolerance.nanEqual = args.nan == "equal";
    opt.values.maxListed = args.count >= 0 ? args.count : (args.verbose || args.json ? 10 : 0);
    opt.values.cpuThreads = args.threads;
    opt.slice = args.slice;
    opt.weightsOnly = args.weightsOnly;
    opt.includes = args.includes;
    opt.excludes = args.excludes;
    opt.trustChecksums = !args.readAll;
    opt.keepUnchanged = args.all;
    opt.verify = args.verify;
    if (!args.quiet) opt.progress = terminalProgress("comparing");
    // Pairs compared before come from the catalog's results cache; --read-all
    // asks for the bytes themselves.
    const std::unique_ptr<Catalog> catalog = args.noCache || args.readAll ? nullptr : sideCatalog(args.catalog);
    std::optional<CatalogDiffCache> figures;
    if (catalog) opt.figures = &figures.emplace(*catalog);
    auto diff = diffCheckpoints(args.a, args.b, opt);
    clearTerminalProgress(opt.progress);
    if (!diff) {
        reportError(diff.status(), args.json);
        ctx.exitCode = kExitTrouble;
        return;
    }
    ctx.exitCode = diff->equal() ? kExitOk : kExitDifferent;
    // --verify asked whether both sides are sound: a side that is not is trouble.
    if (args.verify && !(diff->checkA.ok() && diff->checkB.ok())) ctx.exitCode = kExitTrouble;
    if (args.quiet) return;
    const bool color = colorEnabled(args.color);
    if (args.json) return printJson(checkpointDiffJson(*diff, args.all));
    const std::vector<std::string> warnings = verificationLines(*diff, args);
    if (args.nameStatus || args.stat)
        for (const std::string& w : warnings) std::cerr << "ckpt: warning: " << w << "\n";
    if (args.nameStatus) {
        for (const DiffEntry& e : diff->entries) {
            if ((e.status == DiffStatus::Unchanged && !args.all) || e.collapsedInto >= 0) continue;
            std::cout << coloredLetter(e.status, color) << '\t' << e.displayPath();
            if (e.status == DiffStatus::Renamed) std::cout << '\t' << e.b->path;
            std::cout << "\n";
        }
        return;
    }
    if (args.stat) return printStat(*diff, color);
    printReport(*diff, args, color);
    for (const std::string& w : warnings) std::cout << "warning: " << w << "\n";
}

}  // namespace

void registerDiff(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("diff", "Compare two checkpoints: what was added, deleted, renamed, and how values moved");
    auto args = std::make_shared<DiffArgs>();
    cmd->add_option("A", args->a, "First checkpoint: prefix, .index, directory or SavedModel")->required();
    cmd->add_option("B", args->b, "Second checkpoint")->required();
    cmd->add_flag("--json", args->json, "Machine-readable output (docs/cli.md)");
    cmd->add_flag("--stat", args->stat, "One line per changed value with a bar of how much of it differs");
    cmd->add_flag("--name-status", args->nameStatus, "Only the status letter and path of each change");
    cmd->add_flag("-a,--all", args->all, "Also list unchanged values");
    cmd->add_flag("-q,--quiet", args->quiet, "Print nothing; the exit code says equal (0) or different (1)");
    cmd->add_flag("-v,--verbose", args->verbose, "List differing elements and the values of collapsed objects");
    cmd->add_flag("--weights-only", args->weightsOnly,
                  "Ignore optimizer state (slots, iterations), the save counter and the step counter");
    cmd->add_option("--include", args->includes, "Compare only paths or keys matching this glob (repeatable)");
    cmd->add_option("--exclude", args->excludes, "Skip paths or keys matching this glob (repeatable)");
    cmd->add_option("--atol", args->atol, "Absolute tolerance: |a-b| <= atol + rtol*|b| (default per dtype)");
    cmd->add_option("--rtol", args->rtol, "Relative tolerance (default per dtype: float32 1.3e-6, float64 1e-7, ...)");
    cmd->add_flag("--exact", args->exact, "Every element must be equal");
    cmd->add_option("--nan", args->nan, "Whether NaN equals NaN (default equal)")->check(CLI::IsMember({"equal", "differ"}));
    cmd->add_option("--count", args->count, "List at most N differing elements per tensor (with --verbose or --json)");
    cmd->add_option("--slice", args->slice, "Compare only part of each tensor, numpy style: 0:10,:,3");
    cmd->add_flag("--verify", args->verify, "Also verify both sides fully (every tensor's checksum); exit 2 when one fails");
    cmd->add_flag("--read-all", args->readAll, "Read values even where the stored checksums agree (and ignore the cache)");
    cmd->add_option("--catalog", args->catalog,
                    "Catalog whose results cache holds pairs compared before (default: the user's, when it exists)");
    cmd->add_flag("--no-cache", args->noCache, "Compare every pair again, ignoring and not filling the cache");
    cmd->add_option("--threads", args->threads, "Worker threads (default: every core)");
    cmd->add_option("--color", args->color, "auto, always or never")->check(CLI::IsMember({"auto", "always", "never"}));
    cmd->callback([&ctx, args] { run(*args, ctx); });
}

}  // namespace ckpt::cli

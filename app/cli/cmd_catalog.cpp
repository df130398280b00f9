// ckpt catalog add|scan|list|search|forget|history: the local catalog of
// checkpoints across runs (ckpt/catalog.h). --catalog PATH names the file;
// the default is $XDG_DATA_HOME/ckpt-explorer/catalog.db.

#include <iostream>
#include <memory>

#include "ckpt/catalog.h"
#include "diff_format.h"
#include "json_output.h"
#include "output.h"
#include "schedule_output.h"
#include "terminal_progress.h"

namespace ckpt::cli {
namespace {

using nlohmann::json;

struct CatalogArgs {
    std::string catalog;
    bool json = false;
    std::vector<std::string> dirs;
    bool verify = false;
    bool noScan = false;
    bool followOutsideLinks = false;
    std::string query;
    int limit = 200;
    int matches = 50;
    bool exactTotals = false;
};

// The default catalog's directory is created; an explicit path's must exist.
Result<std::unique_ptr<Catalog>> openCatalog(const std::string& flag) {
    CKPT_ASSIGN_OR_RETURN(std::string path, catalogPathFor(flag));
    return Catalog::open(path, {.createDirectory = flag.empty()});
}

json orNull(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }
json orNull(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json checkpointJson(const CatalogCheckpoint& c) {
    return {{"prefix", c.prefix},
            {"directory", c.directory},
            {"name", c.name},
            {"step", orNull(c.step)},
            {"mtime", c.modified},
            {"bytes", c.bytes},
            {"shards", c.shards},
            {"tensors", c.tensors},
            {"objects", c.objects},
            {"in_state_file", c.inStateFile},
            {"latest", c.isLatest},
            {"health", std::string(catalogHealthName(c.health()))},
            {"error", c.error.empty() ? json(nullptr) : json(c.error)},
            {"verified_at", orNull(c.verifiedAt)},
            {"verify_problems", c.verifyProblems},
            {"verify_message", c.verifyMessage.empty() ? json(nullptr) : json(c.verifyMessage)},
            {"state_problem", c.stateProblem.empty() ? json(nullptr) : json(c.stateProblem)},
            {"scanned_at", c.scannedAt}};
}

json rootJson(const CatalogRoot& r) {
    return {{"path", r.path},
            {"added_at", r.addedAt},
            {"last_scan_at", orNull(r.lastScanAt)},
            {"missing", r.missing},
            {"error", r.error.empty() ? json(nullptr) : json(r.error)},
            {"checkpoints", r.checkpoints}};
}

json summaryJson(const CatalogScanSummary& s) {
    return {{"directories", s.directories},
            {"checkpoints", s.checkpoints},
            {"added", s.added},
            {"updated", s.updated},
            {"unchanged", s.unchanged},
            {"missing", s.missing},
            {"unreadable", s.unreadable},
            {"verified", s.verified},
            {"damaged", s.damaged},
            {"tensor_rows", s.tensorRows},
            {"errors", s.errors},
            {"skipped", s.skipped},
            {"skipped_count", s.skippedCount},
            {"seconds", s.seconds}};
}

// One letter a person can read without colour: H healthy, D damaged,
// U unreadable, M missing, ? not verified.
char healthLetter(CatalogHealth h) {
    switch (h) {
    case CatalogHealth::Healthy: return 'H';
    case CatalogHealth::Damaged: return 'D';
    case CatalogHealth::Unreadable: return 'U';
    case CatalogHealth::Missing: return 'M';
    case CatalogHealth::Unverified: return '?';
    }
    return '?';
}

std::string checkpointLine(const CatalogCheckpoint& c) {
    std::string line = std::string(1, healthLetter(c.health())) + " " + c.prefix + "  step " +
                       (c.step ? std::to_string(*c.step) : std::string("-")) + "  " + byteText(c.bytes) + "  " +
                       std::to_string(c.tensors) + " tensors";
    if (c.isLatest) line += "  latest";
    if (!c.error.empty()) line += "  ERROR: " + c.error;
    else if (c.health() == CatalogHealth::Damaged) line += "  DAMAGED: " + c.problem();
    return displayableString(line);
}

void printSummary(const CatalogScanSummary& s) {
    std::cout << "scanned " << s.checkpoints << " checkpoint(s) in " << s.directories << " director"
              << (s.directories == 1 ? "y" : "ies") << ": " << s.added << " added, " << s.updated << " updated, " << s.unchanged
              << " unchanged, " << s.missing << " newly missing, " << s.unreadable << " unreadable";
    if (s.verified > 0) std::cout << ", " << s.verified << " verified (" << s.damaged << " damaged)";
    std::cout << " in " << s.seconds << " s\n";
    for (const std::string& e : s.errors) std::cerr << "ckpt: " << displayableString(e) << "\n";
    for (const std::string& why : s.skipped) std::cout << "skipped " << displayableString(why) << "\n";
    if (s.skippedCount > static_cast<int64_t>(s.skipped.size()))
        std::cout << "skipped " << s.skippedCount - static_cast<int64_t>(s.skipped.size()) << " more\n";
}

// Scans (all roots, or 'dirs'), with progress on a terminal and Ctrl+C
// cancelling at the next checkpoint; every batch written before stays.
Result<CatalogScanSummary> runScan(Catalog& catalog, const CatalogArgs& a) {
    CancelOnSignal signals;
    CatalogScanOptions options;
    options.roots = a.dirs;
    options.verify = a.verify;
    options.followOutsideLinks = a.followOutsideLinks;
    options.progress = terminalProgress("scanning");
    options.cancel = &signals.token();
    auto summary = catalog.scan(options);
    clearTerminalProgress(options.progress);
    return summary;
}

void add(const CatalogArgs& a, CommandContext& ctx) {
    auto catalog = openCatalog(a.catalog);
    if (!catalog.ok()) return void(ctx.exitCode = reportError(catalog.status(), a.json));
    json roots = json::array();
    for (const std::string& dir : a.dirs) {
        auto root = (*catalog)->addRoot(dir);
        if (!root.ok()) return void(ctx.exitCode = reportError(root.status(), a.json));
        roots.push_back(root->path);
        if (!a.json) std::cout << "added " << root->path << " to " << (*catalog)->path() << "\n";
    }
    std::optional<CatalogScanSummary> summary;
    if (!a.noScan) {
        auto scanned = runScan(**catalog, a);
        if (!scanned.ok()) return void(ctx.exitCode = reportError(scanned.status(), a.json));
        summary = *scanned;
    }
    if (a.json)
        return printJson({{"ok", true},
                          {"catalog", (*catalog)->path()},
                          {"added", roots},
                          {"scan", summary ? summaryJson(*summary) : json(nullptr)}});
    if (summary) printSummary(*summary);
}

void scan(const CatalogArgs& a, CommandContext& ctx) {
    auto catalog = openCatalog(a.catalog);
    if (!catalog.ok()) return void(ctx.exitCode = reportError(catalog.status(), a.json));
    auto summary = runScan(**catalog, a);
    if (!summary.ok()) return void(ctx.exitCode = reportError(summary.status(), a.json));
    if (summary->damaged > 0) ctx.exitCode = kExitCheckpointProblem;
    if (a.json) return printJson({{"ok", true}, {"catalog", (*catalog)->path()}, {"scan", summaryJson(*summary)}});
    printSummary(*summary);
}

void list(const CatalogArgs& a, CommandContext& ctx) {
    auto catalog = openCatalog(a.catalog);
    if (!catalog.ok()) return void(ctx.exitCode = reportError(catalog.status(), a.json));
    auto roots = (*catalog)->roots();
    auto checkpoints = (*catalog)->checkpoints(a.dirs.empty() ? std::string() : a.dirs.front());
    if (!roots.ok()) return void(ctx.exitCode = reportError(roots.status(), a.json));
    if (!checkpoints.ok()) return void(ctx.exitCode = reportError(checkpoints.status(), a.json));
    if (a.json) {
        json r = json::array();
        for (const CatalogRoot& root : *roots) r.push_back(rootJson(root));
        json c = json::array();
        for (const CatalogCheckpoint& ckpt : *checkpoints) c.push_back(checkpointJson(ckpt));
        return printJson({{"catalog", (*catalog)->path()}, {"roots", r}, {"checkpoints", c}});
    }
    if (roots->empty()) {
        std::cout << "the catalog " << (*catalog)->path() << " has no directories yet: ckpt catalog add DIR\n";
        return;
    }
    for (const CatalogRoot& root : *roots) {
        std::cout << root.path << "  " << root.checkpoints << " checkpoint(s)  last scan "
                  << (root.lastScanAt ? localTimeText(*root.lastScanAt) : std::string("never"))
                  << (root.missing ? "  MISSING" : "") << "\n";
    }
    std::string directory;
    for (const CatalogCheckpoint& c : *checkpoints) {
        if (c.directory != directory) std::cout << "\n" << displayableString(directory = c.directory) << "\n";
        std::cout << "  " << checkpointLine(c) << "\n";
    }
    std::cout << "\nH healthy  D damaged  U unreadable  M missing  ? not verified (ckpt catalog scan --verify)\n";
}

void printHit(const CatalogSearchHit& h) {
    std::cout << checkpointLine(h.checkpoint) << "\n";
    for (const CatalogSearchMatch& m : h.matches)
        std::cout << "    " << displayableString(m.key) << "  " << m.dtype << m.shape
                  << (m.objectPath.empty() ? std::string() : "  " + displayableString(m.objectPath)) << "\n";
    if (h.totalMatches > static_cast<int64_t>(h.matches.size()))
        std::cout << "    ... " << h.totalMatches - static_cast<int64_t>(h.matches.size()) << " more\n";
}

void search(const CatalogArgs& a, CommandContext& ctx) {
    auto catalog = openCatalog(a.catalog);
    if (!catalog.ok()) return void(ctx.exitCode = reportError(catalog.status(), a.json));
    CatalogSearchOptions options;
    options.maxCheckpoints = a.limit;
    options.maxMatchesPerCheckpoint = a.matches;
    options.exactTotals = a.exactTotals;
    // Text goes out hit by hit as the search finds them (the first long
    // before the totals when many rows match); JSON needs the totals first.
    if (!a.json)
        options.onHit = [](const CatalogSearchHit& h) {
            printHit(h);
            std::cout.flush();
            return true;
        };
    auto found = (*catalog)->search(a.query, options);
    if (!found.ok()) return void(ctx.exitCode = reportError(found.status(), a.json));
    if (a.json) {
        json hits = json::array();
        for (const CatalogSearchHit& h : found->hits) {
            json matches = json::array();
            for (const CatalogSearchMatch& m : h.matches)
                matches.push_back({{"key", m.key}, {"object_path", m.objectPath}, {"dtype", m.dtype}, {"shape", m.shape}});
            hits.push_back(
                {{"checkpoint", checkpointJson(h.checkpoint)}, {"matches", matches}, {"total_matches", h.totalMatches}});
        }
        return printJson({{"query", found->query},
                          {"fts_query", found->fullTextQuery},
                          {"total_checkpoints", found->totalCheckpoints},
                          {"total_matches", found->totalMatches},
                          {"truncated", found->truncated},
                          {"totals_exact", found->totalsExact},
                          {"hits", hits}});
    }
    const char* atLeast = found->totalsExact ? "" : "at least ";
    std::cout << atLeast << found->totalMatches << " match(es) in " << atLeast << found->totalCheckpoints << " checkpoint(s)";
    if (found->truncated)
        std::cout << " (first " << found->hits.size() << " shown; --limit N shows more"
                  << (found->totalsExact ? "" : ", --exact-totals counts them all") << ")";
    std::cout << "\n";
}

void forget(const CatalogArgs& a, CommandContext& ctx) {
    auto catalog = openCatalog(a.catalog);
    if (!catalog.ok()) return void(ctx.exitCode = reportError(catalog.status(), a.json));
    for (const std::string& dir : a.dirs) {
        Status st = (*catalog)->forgetRoot(dir);
        if (!st.isOk()) return void(ctx.exitCode = reportError(st, a.json));
        if (!a.json) std::cout << "forgot " << dir << " (its files were not touched)\n";
    }
    if (a.json) printJson({{"ok", true}, {"forgotten", a.dirs}});
}

void history(const CatalogArgs& a, CommandContext& ctx) {
    auto catalog = openCatalog(a.catalog);
    if (!catalog.ok()) return void(ctx.exitCode = reportError(catalog.status(), a.json));
    auto restores = (*catalog)->restores(a.limit);
    if (!restores.ok()) return void(ctx.exitCode = reportError(restores.status(), a.json));
    if (a.json) {
        json out = json::array();
        for (const RestoreRecord& r : *restores)
            out.push_back({{"id", r.id},
                           {"at", r.at},
                           {"source", r.source},
                           {"target", r.target},
                           {"mapping", r.mapping},
                           {"verdict", r.verdict},
                           {"output", r.output},
                           {"ok", r.ok},
                           {"tool", r.tool}});
        return printJson({{"catalog", (*catalog)->path()}, {"restores", out}});
    }
    if (restores->empty()) std::cout << "no restores recorded yet (ckpt restore and the explorer record them)\n";
    for (const RestoreRecord& r : *restores) {
        std::cout << localTimeText(r.at) << "  " << (r.ok ? "ok    " : "FAILED") << "  " << displayableString(r.source) << " -> "
                  << displayableString(r.target) << "  (" << r.tool << ")\n    " << r.mapping;
        if (!r.verdict.empty()) std::cout << "; " << r.verdict;
        if (!r.output.empty()) std::cout << "\n    wrote " << displayableString(r.output);
        std::cout << "\n";
    }
}

}  // namespace

void registerCatalog(CLI::App& app, CommandContext& ctx) {
    auto args = std::make_shared<CatalogArgs>();
    auto* cmd = app.add_subcommand("catalog", "The local catalog of checkpoints across runs: add, scan, list, search");
    cmd->require_subcommand(1);
    auto common = [&](CLI::App* sub) {
        sub->add_option("--catalog", args->catalog, "Catalog database (default $XDG_DATA_HOME/ckpt-explorer/catalog.db)");
        sub->add_flag("--json", args->json, "Machine-readable output (docs/cli.md)");
    };
    auto* addCmd = cmd->add_subcommand("add", "Add directories (runs, or a folder of runs) and scan them");
    addCmd->add_option("DIR", args->dirs, "Directory to add")->required();
    addCmd->add_flag("--verify", args->verify, "Also verify every checkpoint's bytes while scanning");
    addCmd->add_flag("--no-scan", args->noScan, "Only add; scan later with ckpt catalog scan");
    addCmd->add_flag("--follow-outside-links", args->followOutsideLinks,
                     "Also follow symbolic links that lead outside the added directory (docs/catalog.md)");
    common(addCmd);
    addCmd->callback([&ctx, args] { add(*args, ctx); });

    auto* scanCmd =
        cmd->add_subcommand("scan", "Record what changed under the catalog's directories (unchanged ones are skipped)");
    scanCmd->add_option("DIR", args->dirs, "Only these directories (each inside an added one)");
    scanCmd->add_flag("--verify", args->verify, "Verify checkpoints not verified since they last changed (exit 1 if damaged)");
    scanCmd->add_flag("--follow-outside-links", args->followOutsideLinks,
                      "Also follow symbolic links that lead outside the catalog's directories (docs/catalog.md)");
    common(scanCmd);
    scanCmd->callback([&ctx, args] { scan(*args, ctx); });

    auto* listCmd = cmd->add_subcommand("list", "The catalog's directories and checkpoints with their health");
    listCmd->add_option("DIR", args->dirs, "Only checkpoints under this directory")->expected(0, 1);
    common(listCmd);
    listCmd->callback([&ctx, args] { list(*args, ctx); });

    auto* searchCmd = cmd->add_subcommand(
        "search", "Find checkpoints by tensor key or object path: substrings (all words must match) or FTS5 syntax");
    searchCmd->add_option("QUERY", args->query, "e.g. encoder/layer_3, 'kernel NOT optimizer', 'key:bias OR key:beta'")
        ->required();
    searchCmd->add_option("--limit", args->limit, "Checkpoints shown at most")->check(CLI::PositiveNumber);
    searchCmd->add_option("--matches", args->matches, "Matching keys shown per checkpoint")->check(CLI::PositiveNumber);
    searchCmd->add_flag("--exact-totals", args->exactTotals,
                        "Count every match even past --limit (slower with many matching rows)");
    common(searchCmd);
    searchCmd->callback([&ctx, args] { search(*args, ctx); });

    auto* forgetCmd = cmd->add_subcommand("forget", "Remove directories and their records from the catalog (files untouched)");
    forgetCmd->add_option("DIR", args->dirs, "Directory added before")->required();
    common(forgetCmd);
    forgetCmd->callback([&ctx, args] { forget(*args, ctx); });

    auto* historyCmd = cmd->add_subcommand("history", "Restores recorded by ckpt restore and the explorer, newest first");
    historyCmd->add_option("--limit", args->limit, "Restores shown at most")->check(CLI::PositiveNumber);
    common(historyCmd);
    historyCmd->callback([&ctx, args] { history(*args, ctx); });
}

}  // namespace ckpt::cli

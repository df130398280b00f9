// ckpt history DIR | PREFIX...: every variable's trajectory across
// checkpoints (ckpt/checkpoint_history.h), as text, JSON or CSV.

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "ckpt/checkpoint_history.h"
#include "diff_format.h"
#include "json_output.h"
#include "output.h"
#include "terminal_progress.h"

namespace ckpt::cli {
namespace {

struct HistoryArgs {
    std::vector<std::string> paths;
    bool json = false, csv = false, weightsOnly = false;
    std::vector<std::string> keys, excludes;
    int threads = 0;
    int top = 5;
};

std::string stepText(const HistoryCheckpoint& c) { return c.step ? std::to_string(*c.step) : c.name; }

nlohmann::json pointJson(const HistoryPoint& p) {
    if (!p.present) return nullptr;
    return {{"unchanged", p.unchanged},
            {"numeric", p.numeric},
            {"count", p.count},
            {"norm", figureJson(p.norm)},
            {"rel_change", figureJson(p.relChange)},
            {"mean", figureJson(p.mean)},
            {"std", figureJson(p.std)},
            {"min", figureJson(p.min)},
            {"max", figureJson(p.max)},
            {"nans", p.nans},
            {"infs", p.infs}};
}

nlohmann::json historyJson(const CheckpointHistory& h) {
    nlohmann::json checkpoints = nlohmann::json::array(), variables = nlohmann::json::array();
    for (const HistoryCheckpoint& c : h.checkpoints)
        checkpoints.push_back({{"prefix", c.prefix}, {"name", c.name}, {"step", c.step ? nlohmann::json(*c.step) : nullptr}});
    for (const VariableHistory& v : h.variables) {
        nlohmann::json points = nlohmann::json::array();
        for (const HistoryPoint& p : v.points) points.push_back(pointJson(p));
        variables.push_back({{"path", displayableString(v.path)},
                             {"key", displayableString(v.key)},
                             {"dtype", std::string(dataTypeShortName(v.dtype))},
                             {"shape", v.shape.dims},
                             {"total_rel_change", figureJson(v.totalRelChange)},
                             {"first_non_finite", v.firstNonFinite ? nlohmann::json(*v.firstNonFinite) : nullptr},
                             {"points", points}});
    }
    const HistorySummary& s = h.summary;
    nlohmann::json norms = nlohmann::json::array(), changes = nlohmann::json::array(), moved = nlohmann::json::array();
    for (double v : s.globalNorm) norms.push_back(figureJson(v));
    for (double v : s.globalRelChange) changes.push_back(figureJson(v));
    for (int32_t i : s.movedMost) moved.push_back(displayableString(h.variables[static_cast<size_t>(i)].path));
    return {{"checkpoints", checkpoints},
            {"variables", variables},
            {"summary",
             {{"global_norm", norms},
              {"global_rel_change", changes},
              {"moved_most", moved},
              {"first_non_finite", s.firstNonFinite ? nlohmann::json(*s.firstNonFinite) : nullptr},
              {"first_non_finite_variable", s.firstNonFinite ? nlohmann::json(s.firstNonFiniteVariable) : nullptr}}},
            {"bytes_read", h.bytesRead},
            {"skipped", h.skipped}};
}

// RFC 4180: quote fields holding commas, quotes or newlines.
std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

void printCsv(const CheckpointHistory& h) {
    std::cout << "path,key,checkpoint,step,present,unchanged,norm,rel_change,mean,std,min,max,nans,infs\n";
    for (const VariableHistory& v : h.variables) {
        for (size_t c = 0; c < v.points.size(); ++c) {
            const HistoryPoint& p = v.points[c];
            const HistoryCheckpoint& ck = h.checkpoints[c];
            std::cout << csvField(displayableString(v.path)) << ',' << csvField(displayableString(v.key)) << ','
                      << csvField(ck.name) << ',' << (ck.step ? std::to_string(*ck.step) : "") << ',' << p.present << ','
                      << p.unchanged;
            if (p.present && p.numeric) {
                for (double x : {p.norm, p.relChange, p.mean, p.std, p.min, p.max})
                    std::cout << ',' << (std::isnan(x) ? std::string() : figureJson(x).dump());
                std::cout << ',' << p.nans << ',' << p.infs << "\n";
            } else {
                std::cout << ",,,,,,,,\n";
            }
        }
    }
}

void printText(const CheckpointHistory& h, int top) {
    const HistorySummary& s = h.summary;
    std::cout << "step        ";
    for (const HistoryCheckpoint& c : h.checkpoints) std::printf("%12s", stepText(c).c_str());
    std::cout << "\nglobal norm ";
    for (double v : s.globalNorm) std::printf("%12s", figureText(v).c_str());
    std::cout << "\nrel. change ";
    for (double v : s.globalRelChange) std::printf("%12s", figureText(v).c_str());
    std::cout << "\n\nmoved most (sum of relative changes):\n";
    for (size_t i = 0; i < s.movedMost.size() && static_cast<int>(i) < top; ++i) {
        const VariableHistory& v = h.variables[static_cast<size_t>(s.movedMost[i])];
        std::cout << "  " << figureText(v.totalRelChange) << "  " << displayableString(v.path) << "\n";
    }
    std::cout << "first NaN/Inf: ";
    if (s.firstNonFinite)
        std::cout << "step " << stepText(h.checkpoints[static_cast<size_t>(*s.firstNonFinite)]) << " in "
                  << displayableString(s.firstNonFiniteVariable) << "\n";
    else std::cout << "none\n";
    for (const VariableHistory& v : h.variables) {
        std::cout << "\n" << displayableString(v.path) << "  " << dataTypeShortName(v.dtype) << " " << v.shape.toString() << "\n";
        std::printf("  %10s %11s %11s %11s %11s %11s %11s %6s %6s\n", "step", "norm", "rel.change", "mean", "std", "min", "max",
                    "nan", "inf");
        for (size_t c = 0; c < v.points.size(); ++c) {
            const HistoryPoint& p = v.points[c];
            const std::string step = stepText(h.checkpoints[c]);
            if (!p.present) {
                std::printf("  %10s  (absent)\n", step.c_str());
                continue;
            }
            if (!p.numeric) {
                std::printf("  %10s  %s\n", step.c_str(), p.unchanged ? "unchanged" : "(not numeric)");
                continue;
            }
            std::printf("  %10s %11s %11s %11s %11s %11s %11s %6lld %6lld%s\n", step.c_str(), figureText(p.norm).c_str(),
                        figureText(p.relChange).c_str(), figureText(p.mean).c_str(), figureText(p.std).c_str(),
                        figureText(p.min).c_str(), figureText(p.max).c_str(), static_cast<long long>(p.nans),
                        static_cast<long long>(p.infs), p.unchanged ? "  unchanged" : "");
        }
    }
}

}  // namespace

void registerHistory(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("history",
                                   "Every variable across checkpoints: norm, change since the previous one, statistics, NaN/Inf");
    auto args = std::make_shared<HistoryArgs>();
    cmd->add_option("PATHS", args->paths, "A directory (its checkpoints in step order) or two or more checkpoints, in order")
        ->required();
    cmd->add_flag("--json", args->json, "Machine-readable output (docs/cli.md)");
    cmd->add_flag("--csv", args->csv, "One row per variable and checkpoint");
    cmd->add_option("--keys", args->keys, "Only paths or keys matching this glob (repeatable)");
    cmd->add_option("--exclude", args->excludes, "Skip paths or keys matching this glob (repeatable)");
    cmd->add_flag("--weights-only", args->weightsOnly, "Ignore optimizer state, the save counter and the step counter");
    cmd->add_option("--threads", args->threads, "Worker threads (default: every core, within the memory budget)");
    cmd->add_option("--top", args->top, "Variables listed under 'moved most' (default 5)");
    cmd->callback([&ctx, args] {
        HistoryOptions opt;
        opt.includes = args->keys;
        opt.excludes = args->excludes;
        opt.weightsOnly = args->weightsOnly;
        opt.threads = args->threads;
        opt.progress = terminalProgress("reading");
        auto history = computeHistory(args->paths, opt);
        clearTerminalProgress(opt.progress);
        if (!history) {
            ctx.exitCode = reportError(history.status(), args->json);
            return;
        }
        for (const std::string& s : history->skipped) std::cerr << "ckpt: skipped " << s << "\n";
        if (history->variables.empty() && !args->json && !args->csv)
            std::cerr << "ckpt: no variable matches" << (args->keys.empty() ? "" : " --keys") << "\n";
        if (args->json) return printJson(historyJson(*history));
        if (args->csv) return printCsv(*history);
        printText(*history, args->top);
    });
}

}  // namespace ckpt::cli

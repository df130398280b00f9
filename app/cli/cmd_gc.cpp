// ckpt gc DIR [--apply] [--grace DURATION] [--json]: what interrupted
// operations left in a directory (ckpt/garbage_collection.h), listed with
// sizes and why; removed only with --apply.

#include <iostream>

#include "ckpt/garbage_collection.h"
#include "ckpt/retention.h"
#include "json_output.h"
#include "output.h"

namespace ckpt::cli {
namespace {

nlohmann::json itemJson(const GarbageItem& g) {
    return {{"path", g.path},           {"kind", std::string(garbageKindName(g.kind))},
            {"target", g.target},       {"bytes", g.bytes},
            {"modified", g.modified},   {"removable", g.removable},
            {"completes", g.completes}, {"reason", g.reason}};
}

}  // namespace

void registerGc(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("gc",
                                   "List what interrupted operations left in DIR (staged replacements, temporary files, "
                                   "shard directories, index-less data files); --apply removes what is safe to remove");
    struct Args {
        std::string dir, grace = "24h";
        bool apply = false, json = false;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("DIR", a->dir, "Directory of checkpoints")->required();
    cmd->add_flag("--apply", a->apply,
                  "Remove what is removable (a verified staged replacement is completed, not removed); default: a dry run");
    cmd->add_option("--grace", a->grace,
                    "Leftovers that record no running writer are removed only once unchanged this long (default 24h)");
    cmd->add_flag("--json", a->json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, a] {
        GarbageOptions options;
        options.apply = a->apply;
        auto grace = parseDuration(a->grace);
        if (!grace) {
            ctx.exitCode = reportError(invalidArgument("--grace: " + grace.status().message()), a->json);
            return;
        }
        options.graceSeconds = *grace;
        auto report = collectGarbage(a->dir, options);
        if (!report) {
            ctx.exitCode = reportError(report.status(), a->json);
            return;
        }
        ctx.exitCode = report->errors.empty() ? kExitOk : kExitCheckpointProblem;
        int removable = 0;
        for (const GarbageItem& g : report->items) removable += g.removable ? 1 : 0;
        if (a->json) {
            nlohmann::json items = nlohmann::json::array();
            for (const GarbageItem& g : report->items) items.push_back(itemJson(g));
            printJson({{"dir", report->dir},
                       {"applied", a->apply},
                       {"items", items},
                       {"removable", removable},
                       {"removable_bytes", report->removableBytes},
                       {"removed", report->removed},
                       {"removed_bytes", report->removedBytes},
                       {"errors", report->errors}});
            return;
        }
        for (const GarbageItem& g : report->items) {
            const char* verb = !g.removable ? "keep        "
                               : a->apply   ? (g.completes ? "completed   " : "removed     ")
                                            : (g.completes ? "would finish" : "would remove");
            std::cout << verb << "  " << displayableString(g.path) << "  " << byteText(g.bytes) << "  ("
                      << garbageKindName(g.kind) << ": " << displayableString(g.reason) << ")\n";
        }
        for (const std::string& e : report->errors) std::cerr << "ckpt: " << displayableString(e) << "\n";
        std::cout << report->items.size() << " leftover(s), " << removable << " removable (" << byteText(report->removableBytes)
                  << ")";
        if (a->apply) std::cout << "; removed " << report->removed << " (" << byteText(report->removedBytes) << ")\n";
        else std::cout << (removable > 0 ? "; nothing removed: --apply removes them\n" : "\n");
    });
}

}  // namespace ckpt::cli

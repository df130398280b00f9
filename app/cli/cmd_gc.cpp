// ckpt gc DIR [--apply] [--grace DURATION] [--json]: what interrupted
// operations left in a directory (ckpt/garbage_collection.h), and on a
// store the multipart uploads left open under it, listed with sizes, ages
// and why; removed (uploads aborted) only with --apply.

#include <chrono>
#include <iostream>

#include "ckpt/garbage_collection.h"
#include "ckpt/retention.h"
#include "json_output.h"
#include "output.h"

namespace ckpt::cli {
namespace {

double nowSeconds() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

nlohmann::json itemJson(const GarbageItem& g, double now) {
    nlohmann::json j = {{"path", g.path},           {"kind", std::string(garbageKindName(g.kind))},
                        {"target", g.target},       {"bytes", g.bytes},
                        {"modified", g.modified},   {"age_seconds", g.modified > 0 ? std::max(0.0, now - g.modified) : 0.0},
                        {"removable", g.removable}, {"removed", g.removed},
                        {"completes", g.completes}, {"reason", g.reason}};
    if (!g.uploadId.empty()) j["upload_id"] = g.uploadId;
    return j;
}

// What happened (or would) to an item: the first column of the listing.
const char* verbOf(const GarbageItem& g, bool apply) {
    const bool upload = g.kind == GarbageKind::PendingUpload;
    if (!g.removable) return "keep        ";
    if (!apply) return g.completes ? "would finish" : upload ? "would abort " : "would remove";
    if (!g.removed) return "not removed ";
    return g.completes ? "completed   " : upload ? "aborted     " : "removed     ";
}

}  // namespace

void registerGc(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("gc",
                                   "List what interrupted operations left in DIR (staged replacements, temporary files, "
                                   "shard directories, index-less data files; on a store, multipart uploads left open); "
                                   "--apply removes what is safe to remove");
    struct Args {
        std::string dir, grace = "24h";
        bool apply = false, json = false;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("DIR", a->dir, "Directory of checkpoints")->required();
    cmd->add_flag("--apply", a->apply,
                  "Remove what is removable (a verified staged replacement is completed, not removed); default: a dry run");
    cmd->add_option("--grace", a->grace,
                    "Leftovers that record no running writer (and a store's open uploads) are removed only once unchanged "
                    "(begun) this long ago (default 24h)");
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
            const double now = nowSeconds();
            for (const GarbageItem& g : report->items) items.push_back(itemJson(g, now));
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
            std::cout << verbOf(g, a->apply) << "  " << displayableString(g.path) << "  " << byteText(g.bytes) << "  ("
                      << garbageKindName(g.kind) << ": " << displayableString(g.reason);
            if (!g.uploadId.empty()) std::cout << "; upload id " << displayableString(g.uploadId);
            std::cout << ")\n";
        }
        for (const std::string& e : report->errors) std::cerr << "ckpt: " << displayableString(e) << "\n";
        std::cout << report->items.size() << " leftover(s), " << removable << " removable (" << byteText(report->removableBytes)
                  << ")";
        if (a->apply) std::cout << "; removed " << report->removed << " (" << byteText(report->removedBytes) << ")\n";
        else std::cout << (removable > 0 ? "; nothing removed: --apply removes them\n" : "\n");
    });
}

}  // namespace ckpt::cli

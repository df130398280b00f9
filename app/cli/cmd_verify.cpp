// ckpt verify PATH [--json]: every block and tensor checksum, every data file.

#include <iostream>

#include "ckpt/verify.h"
#include "json_output.h"
#include "output.h"

namespace ckpt::cli {

void registerVerify(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("verify",
                                   "Check every index block, tensor checksum and data file; exit 1 with one "
                                   "line per problem");
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto threads = std::make_shared<int>(0);
    auto catalog = std::make_shared<std::string>();
    cmd->add_option("PATH", *path, "Checkpoint prefix, .index file, directory or SavedModel")->required();
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->add_option("--threads", *threads, "Reader threads (default: one per core)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--catalog", *catalog,
                    "Record the result for a catalogued checkpoint in this catalog (default: the user's, when it exists)");
    cmd->callback([&ctx, path, json, threads, catalog] {
        VerifyOptions options;
        options.threads = *threads;
        auto report = verifyCheckpointPath(*path, options);
        if (!report) {
            ctx.exitCode = reportError(report.status(), *json);
            return;
        }
        ctx.exitCode = report->ok() ? kExitOk : kExitCheckpointProblem;
        if (auto side = sideCatalog(*catalog)) (void)side->recordVerification(*report);
        if (*json) {
            nlohmann::json problems = nlohmann::json::array();
            for (const VerifyProblem& p : report->problems)
                problems.push_back({{"file", p.file}, {"key", displayableString(p.key)}, {"message", p.message}});
            printJson({{"prefix", report->prefix},
                       {"ok", report->ok()},
                       {"tensors_checked", report->tensorsChecked},
                       {"bytes_checked", report->bytesChecked},
                       {"data_files_checked", report->dataFilesChecked},
                       {"problems", problems}});
            return;
        }
        for (const VerifyProblem& p : report->problems) std::cout << p.message << "\n";
        if (report->ok())
            std::cout << "OK: " << report->prefix << ": " << report->tensorsChecked << " tensors, " << report->bytesChecked
                      << " bytes in " << report->dataFilesChecked << " data file(s) verified\n";
    });
}

}  // namespace ckpt::cli

// ckpt verify PATH [--json]: every block and tensor checksum, every data file.

#include <filesystem>
#include <iostream>

#include "ckpt/checkpoint_state.h"
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
    cmd->add_option("PATH", *path, "Checkpoint prefix, .index file, directory or SavedModel")->required();
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->add_option("--threads", *threads, "Reader threads (default: one per core)")->check(CLI::NonNegativeNumber);
    cmd->callback([&ctx, path, json, threads] {
        auto resolved = resolveCheckpoint(*path);
        if (!resolved) {
            ctx.exitCode = reportError(resolved.status(), *json);
            return;
        }
        VerifyOptions options;
        options.threads = *threads;
        auto report = verifyBundle(resolved->prefix, options);
        if (!report) {
            ctx.exitCode = reportError(report.status(), *json);
            return;
        }
        // A directory's state file is what TensorFlow reads to find the
        // latest checkpoint: it must parse even when we found one without it.
        if (std::error_code ec; std::filesystem::is_directory(*path, ec))
            if (auto state = readCheckpointState(*path); !state)
                report->problems.push_back({std::string(kCheckpointStateFile), "", state.status().toString()});
        ctx.exitCode = report->ok() ? kExitOk : kExitCheckpointProblem;
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

// ckpt export SRC OUT: a checkpoint's tensors as a .safetensors or .npz
// file (docs/convert.md), read back and compared with the source.

#include <iostream>

#include "ckpt/convert.h"
#include "diff_format.h"
#include "output.h"
#include "schedule_output.h"
#include "terminal_progress.h"

namespace ckpt::cli {

void registerExport(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("export",
                                   "Write checkpoint SRC's tensors to OUT as safetensors or npz (read back and "
                                   "compared bit for bit)");
    struct Args {
        std::string src, out, format, names = "paths";
        bool weightsOnly = false, skipUnsupported = false, overwrite = false, json = false;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("SRC", a->src, "Checkpoint prefix, directory or SavedModel")->required();
    cmd->add_option("OUT", a->out, "Output file (.safetensors or .npz)")->required();
    cmd->add_option("--format", a->format, "safetensors or npz (default: from OUT's extension)")
        ->check(CLI::IsMember({"safetensors", "npz"}));
    cmd->add_option("--names", a->names, "Array names: object paths (model.dense.kernel) or checkpoint keys")
        ->check(CLI::IsMember({"paths", "keys"}));
    cmd->add_flag("--weights-only", a->weightsOnly, "Leave out optimizers and their slot variables");
    cmd->add_flag("--skip-unsupported", a->skipUnsupported,
                  "Leave out tensors the format cannot hold (strings, ...) instead of failing");
    cmd->add_flag("--overwrite", a->overwrite, "Replace OUT if it exists");
    cmd->add_flag("--json", a->json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, a] {
        ExportOptions options;
        if (!a->format.empty()) options.format = a->format == "npz" ? ArrayFormat::Npz : ArrayFormat::Safetensors;
        else if (auto f = arrayFormatFromPath(a->out)) options.format = *f;
        else {
            std::cerr << "export: cannot tell the format from " << a->out << "; give --format safetensors|npz\n";
            ctx.exitCode = kExitUsage;
            return;
        }
        options.names = a->names == "keys" ? ArrayNaming::Keys : ArrayNaming::ObjectPaths;
        options.weightsOnly = a->weightsOnly;
        options.skipUnsupported = a->skipUnsupported;
        options.overwrite = a->overwrite;
        CancelOnSignal signals;
        options.cancel = &signals.token();
        if (!a->json) options.progress = terminalProgress("exporting");
        auto done = exportCheckpoint(a->src, a->out, options);
        clearTerminalProgress(options.progress);
        if (!done) {
            ctx.exitCode = reportError(done.status(), a->json);
            return;
        }
        if (a->json) {
            printJson({{"ok", true},
                       {"source", done->sourcePrefix},
                       {"output", done->output},
                       {"format", arrayFormatName(options.format)},
                       {"names", a->names},
                       {"tensors", done->tensors},
                       {"data_bytes", done->dataBytes},
                       {"file_bytes", done->fileBytes},
                       {"seconds", done->seconds},
                       {"notes", done->notes}});
            return;
        }
        for (const std::string& note : done->notes) std::cout << "note: " << note << "\n";
        std::cout << "wrote " << done->output << ": " << done->tensors << " tensor(s), " << byteText(done->dataBytes) << " ("
                  << arrayFormatName(options.format) << "), read back and identical to " << done->sourcePrefix << "\n";
    });
}

}  // namespace ckpt::cli

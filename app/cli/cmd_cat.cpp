// ckpt cat PATH KEY [--json] [--limit N]: a tensor's values.

#include <iostream>

#include "json_output.h"
#include "output.h"

namespace ckpt::cli {

void registerCat(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("cat", "Print a tensor's values (checksum verified)");
    auto path = std::make_shared<std::string>();
    auto key = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto limit = std::make_shared<int64_t>(1000);
    cmd->add_option("PATH", *path, "Checkpoint prefix, .index file, directory or SavedModel")->required();
    cmd->add_option("KEY", *key, "Tensor key, e.g. model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE")->required();
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->add_option("--limit", *limit, "Print at most N elements; -1 for all (default 1000)");
    cmd->callback([&ctx, path, key, json, limit] {
        auto tensor = readTensorAt(*path, *key);
        if (!tensor) {
            ctx.exitCode = reportError(tensor.status(), *json);
            return;
        }
        const int64_t n = tensor->numElements();
        const int64_t shown = *limit < 0 ? n : std::min(n, *limit);
        if (*json) {
            printJson({{"key", displayableString(*key)},
                       {"dtype", std::string(dataTypeName(tensor->dtype))},
                       {"shape", tensor->shape.dims},
                       {"num_elements", n},
                       {"truncated", shown < n},
                       {"values", tensorValuesJson(*tensor, shown)}});
            return;
        }
        std::cout << displayableString(*key) << "  " << dataTypeName(tensor->dtype) << " " << tensor->shape.toString() << "\n";
        // One row per innermost vector keeps matrices readable.
        const int64_t row = tensor->shape.rank() > 0 && tensor->shape.dims.back() > 0 ? tensor->shape.dims.back() : 1;
        for (int64_t i = 0; i < shown; ++i) {
            std::cout << elementText(*tensor, i) << ((i + 1) % row == 0 || i + 1 == shown ? "\n" : " ");
        }
        if (shown < n) std::cout << "... (" << (n - shown) << " more; use --limit -1 for all)\n";
    });
}

}  // namespace ckpt::cli

// ckpt inspect PATH [--json]: header, tensors and object graph of a checkpoint.

#include <cstdio>
#include <iostream>

#include "inspect_json.h"
#include "json_output.h"
#include "output.h"

namespace ckpt::cli {

void registerInspect(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("inspect",
                                   "List a checkpoint's header, tensors and object graph (reads only the index "
                                   "and the object graph)");
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("PATH", *path, "Checkpoint prefix, .index file, directory or SavedModel")->required();
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, path, json] {
        auto opened = Checkpoint::open(*path);
        if (!opened) {
            ctx.exitCode = reportError(opened.status(), *json);
            return;
        }
        const Checkpoint& ckpt = **opened;
        const BundleReader& bundle = ckpt.bundle();
        if (*json) {
            JsonWriter out(std::cout);
            writeInspectJson(out, ckpt);
            out.finish();
            return;
        }
        int64_t bytes = 0;
        for (const TensorInfo& t : bundle.tensors()) bytes += t.storedBytes();
        std::cout << "prefix:  " << ckpt.prefix() << "  (" << ckpt.resolved().how << ")\n"
                  << "style:   " << (ckpt.style() == CheckpointStyle::ObjectBased ? "object-based" : "name-based (TF1)")
                  << "\nshards:  " << bundle.header().numShards << "\ntensors: " << bundle.tensors().size() << " (" << bytes
                  << " bytes)\n";
        if (const ObjectGraph* g = ckpt.objectGraph())
            std::cout << "objects: " << g->size() << " nodes, " << g->numSlotVariables() << " slot variables\n";
        std::cout << "\n";
        for (const TensorInfo& t : bundle.tensors()) {
            std::printf("%-12s %-18s shard %-3d %12lld bytes  %s%s\n", std::string(dataTypeName(t.dtype)).c_str(),
                        t.shape.toString().c_str(), t.region.shardId, static_cast<long long>(t.storedBytes()),
                        displayableString(t.key).c_str(),
                        t.isPartitioned() ? ("  (" + std::to_string(t.slices.size()) + " slices)").c_str() : "");
        }
    });
}

}  // namespace ckpt::cli

// ckpt inspect PATH [--json]: header, tensors and object graph of a checkpoint.

#include <cstdio>
#include <functional>
#include <iostream>

#include "json_output.h"
#include "output.h"

namespace ckpt::cli {
namespace {

// One value as printJson would print it nested 'depth' levels deep.
std::string dumpNested(const nlohmann::json& j, int depth) {
    const std::string text = j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string out;
    out.reserve(text.size() + 16);
    for (char c : text) {
        out.push_back(c);
        if (c == '\n') out.append(static_cast<size_t>(depth), ' ');  // JSON strings never hold a raw newline
    }
    return out;
}

void printArrayStreamed(const char* name, size_t count, const std::function<nlohmann::json(size_t)>& element) {
    std::cout << " \"" << name << "\": ";
    if (count == 0) {
        std::cout << "[]";
        return;
    }
    std::cout << "[\n";
    for (size_t i = 0; i < count; ++i) std::cout << "  " << dumpNested(element(i), 2) << (i + 1 < count ? ",\n" : "\n");
    std::cout << " ]";
}

// Byte for byte what printJson of the whole object prints (keys in
// nlohmann's sorted order), but one element at a time: the document of a
// 100,000-tensor checkpoint as one DOM took ~1 GB and seconds to build.
void printInspectJson(const Checkpoint& ckpt) {
    const BundleReader& bundle = ckpt.bundle();
    const ObjectGraph* graph = ckpt.objectGraph();
    std::cout << "{\n \"header\": " << dumpNested(headerJson(bundle.header()), 1) << ",\n";
    printArrayStreamed("objects", graph ? static_cast<size_t>(graph->size()) : 0,
                       [&](size_t i) { return objectNodeJson(graph->node(static_cast<int32_t>(i))); });
    std::cout << ",\n \"prefix\": " << dumpNested(ckpt.prefix(), 1)
              << ",\n \"resolved_by\": " << dumpNested(ckpt.resolved().how, 1)
              << ",\n \"style\": " << dumpNested(ckpt.style() == CheckpointStyle::ObjectBased ? "object-based" : "name-based", 1)
              << ",\n";
    printArrayStreamed("tensors", bundle.tensors().size(), [&](size_t i) { return tensorInfoJson(bundle.tensors()[i]); });
    std::cout << "\n}\n";
}

} // namespace

void registerInspect(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("inspect", "List a checkpoint's header, tensors and object graph (reads only the index "
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
            printInspectJson(ckpt);
            return;
        }
        int64_t bytes = 0;
        for (const TensorInfo& t : bundle.tensors()) bytes += t.storedBytes();
        std::cout << "prefix:  " << ckpt.prefix() << "  (" << ckpt.resolved().how << ")\n"
                  << "style:   " << (ckpt.style() == CheckpointStyle::ObjectBased ? "object-based" : "name-based (TF1)")
                  << "\nshards:  " << bundle.header().numShards << "\ntensors: " << bundle.tensors().size() << " ("
                  << bytes << " bytes)\n";
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

} // namespace ckpt::cli

// A serialized TrackableObjectGraph: decoded and named; when it decodes, it
// is stored as the object graph of a small bundle (with a tensor for each of
// the first attributes' keys) and that checkpoint is opened, shown as a
// display tree and turned into a restore program and its model spec; and
// surgery plans its edits on it (strip, delete, rename the first named
// object) and merges it with itself.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint.h"
#include "ckpt/display_tree.h"
#include "ckpt/model_spec.h"
#include "ckpt/object_graph.h"
#include "ckpt/surgery.h"
#include "fuzz_support.h"
#include "platform/file.h"
#include "surgery/graph_edit.h"

namespace {

// A few stored attributes give the tree's tensor rows something to find;
// every one more only repeats the same code.
constexpr size_t kMaxStoredAttributes = 16;

ckpt::Status writeBundle(const std::string& prefix, const ckpt::ObjectGraph& graph, std::string_view serialized) {
    CKPT_ASSIGN_OR_RETURN(auto writer, ckpt::BundleWriter::create(prefix));
    std::set<std::string> keys{std::string(ckpt::kObjectGraphKey)};
    ckpt::Tensor value{.dtype = ckpt::DataType::Float, .shape = {}, .bytes = {0, 0, 128, 63}, .strings = {}};
    for (const ckpt::ObjectNode& node : graph.nodes()) {
        for (const ckpt::ObjectAttribute& attribute : node.attributes) {
            if (keys.size() > kMaxStoredAttributes) break;
            if (attribute.checkpointKey.empty() || !keys.insert(attribute.checkpointKey).second) continue;
            // Keys the writer refuses (reserved ones) are simply not stored.
            const ckpt::Status added = writer->add(attribute.checkpointKey, value);
            if (added.code() != ckpt::StatusCode::InvalidArgument) CKPT_RETURN_IF_ERROR(added);
        }
    }
    ckpt::Tensor graphTensor{.dtype = ckpt::DataType::String, .shape = {}, .bytes = {}, .strings = {std::string(serialized)}};
    CKPT_RETURN_IF_ERROR(writer->add(ckpt::kObjectGraphKey, graphTensor));
    return writer->finish();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view serialized(reinterpret_cast<const char*>(data), size);
    auto graph = ckpt::ObjectGraph::parse(serialized, "fuzz input");
    if (!graph) return 0;
    for (int32_t id = 0; id < graph->size(); ++id) (void)graph->displayName(id);
    (void)graph->numSlotVariables();

    static const std::string prefix = ckpt::platform::joinPath(ckpt::fuzz::scratchDir(), "graph");
    ckpt::fuzz::requireOk(writeBundle(prefix, *graph, serialized), "cannot write the graph's bundle");
    auto checkpoint = ckpt::Checkpoint::open(prefix);
    ckpt::fuzz::requireOk(checkpoint.status(), "a graph that parses does not open as a checkpoint");
    const ckpt::DisplayTree tree = ckpt::buildDisplayTree(**checkpoint);
    ckpt::fuzz::require(tree.objectBased && !tree.entries.empty(), "an object-based checkpoint without a tree");
    auto program = ckpt::programFromCheckpoint(**checkpoint);
    if (program) (void)ckpt::modelSpecJson(**program);

    ckpt::EditSpec strip;
    strip.stripOptimizer = true;
    strip.force = true;
    (void)ckpt::planEdit(**checkpoint, strip);
    for (const ckpt::ObjectNode& node : graph->nodes()) {
        if (node.id == 0 || !node.prettyPath || node.kind == ckpt::ObjectKind::SlotVariable) continue;
        ckpt::EditSpec remove;
        remove.deletes = {*node.prettyPath};
        remove.force = true;
        (void)ckpt::planEdit(**checkpoint, remove);
        ckpt::EditSpec rename;
        rename.renames = {{*node.prettyPath, *node.prettyPath + "_renamed"}};
        (void)ckpt::planEdit(**checkpoint, rename);
        break;
    }
    std::vector<std::string> notes;
    const std::string bytes(serialized);
    auto merged = ckpt::surgery::mergeObjectGraphs({{"a", bytes}, {"b", bytes}}, notes);
    if (merged) ckpt::fuzz::requireOk(ckpt::ObjectGraph::parse(*merged, "merged").status(), "a merged graph does not parse");
    return 0;
}

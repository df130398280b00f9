// Object graphs with bad references, and `checkpoint` state files with bad
// lines: the zoo cases for what sits around the tensors.

#include <filesystem>

#include "ckpt/bundle_writer.h"
#include "trackable_object_graph.pb.h"
#include "zoo_builder.h"
#include "zoo_edits.h"

namespace ckpt::zoo {
namespace {

using Graph = tensorflow::TrackableObjectGraph;
constexpr const char* kGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH";
constexpr const char* kKernelKey = "model/kernel/.ATTRIBUTES/VARIABLE_VALUE";
constexpr const char* kSlotKey = "model/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE";

Tensor floats(std::vector<int64_t> dims) {
    Tensor t;
    t.dtype = DataType::Float;
    t.shape.dims = std::move(dims);
    t.bytes.resize(static_cast<size_t>(t.numElements()) * 4);
    for (size_t i = 0; i < t.bytes.size(); ++i) t.bytes[i] = static_cast<uint8_t>(i * 7);
    return t;
}

// root(0) -> model(1) -> kernel(3); root -> optimizer(2), which holds the
// slot variable m(4) of kernel: the smallest graph with every reference kind.
Graph smallGraph() {
    Graph g;
    for (int i = 0; i < 5; ++i) g.add_nodes();
    auto child = [&](int parent, int id, const char* name) {
        auto* c = g.mutable_nodes(parent)->add_children();
        c->set_node_id(id);
        c->set_local_name(name);
    };
    auto attribute = [&](int node, const char* key) {
        auto* a = g.mutable_nodes(node)->add_attributes();
        a->set_name("VARIABLE_VALUE");
        a->set_checkpoint_key(key);
    };
    child(0, 1, "model");
    child(0, 2, "optimizer");
    child(1, 3, "kernel");
    attribute(3, kKernelKey);
    attribute(4, kSlotKey);
    auto* slot = g.mutable_nodes(2)->add_slot_variables();
    slot->set_original_variable_node_id(3);
    slot->set_slot_name("m");
    slot->set_slot_variable_node_id(4);
    return g;
}

// Writes <dir>/ckpt with the graph's two variables and 'graphTensor' under
// the object-graph key.
Status writeGraphBundle(const std::string& dir, const Tensor& graphTensor) {
    CKPT_ASSIGN_OR_RETURN(auto w, BundleWriter::create(dir + "/ckpt"));
    CKPT_RETURN_IF_ERROR(w->add(kKernelKey, floats({2, 2})));
    CKPT_RETURN_IF_ERROR(w->add(kSlotKey, floats({2, 2})));
    CKPT_RETURN_IF_ERROR(w->add(kGraphKey, graphTensor));
    return w->finish();
}

Tensor graphTensor(const Graph& g) {
    Tensor t;
    t.dtype = DataType::String;
    t.strings = {g.SerializeAsString()};
    return t;
}
Status graphCase(Builder& b, const std::string& name, const std::function<void(Graph&)>& edit) {
    Graph g = smallGraph();
    edit(g);
    return b.fresh(name, "ckpt", kKernelKey, [t = graphTensor(g)](const std::string& dir) { return writeGraphBundle(dir, t); });
}

Status rawGraphCase(Builder& b, const std::string& name, const Tensor& stored) {
    return b.fresh(name, "ckpt", kKernelKey, [stored](const std::string& dir) { return writeGraphBundle(dir, stored); });
}

void addChild(Graph& g, int parent, int id, const char* name) {
    auto* c = g.mutable_nodes(parent)->add_children();
    c->set_node_id(id);
    c->set_local_name(name);
}

}  // namespace

Status graphCases(Builder& b) {
    using G = Graph&;
    CKPT_RETURN_IF_ERROR(graphCase(b, "control-graph", [](G) {}));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-child-cycle", [](G g) { addChild(g, 3, 0, "back_to_root"); }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-self-child", [](G g) { addChild(g, 1, 1, "self"); }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-deep-chain", [](G g) {
        // 100000 objects, each the only child of the one before.
        int previous = 3;
        for (int i = 0; i < 100000; ++i) {
            g.add_nodes();
            addChild(g, previous, g.nodes_size() - 1, "next");
            previous = g.nodes_size() - 1;
        }
    }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-child-out-of-range", [](G g) { addChild(g, 1, 99, "ghost"); }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-child-negative-id", [](G g) { addChild(g, 1, -1, "ghost"); }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-slot-original-out-of-range", [](G g) {
        g.mutable_nodes(2)->mutable_slot_variables(0)->set_original_variable_node_id(77);
    }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-slot-variable-out-of-range",
                                   [](G g) { g.mutable_nodes(2)->mutable_slot_variables(0)->set_slot_variable_node_id(88); }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-slot-cycle", [](G g) {
        // kernel and m reachable only through slot references to each other.
        g.mutable_nodes(1)->clear_children();
        auto* back = g.mutable_nodes(2)->add_slot_variables();
        back->set_original_variable_node_id(4);
        back->set_slot_name("m");
        back->set_slot_variable_node_id(3);
    }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-slot-of-itself",
                                   [](G g) { g.mutable_nodes(2)->mutable_slot_variables(0)->set_original_variable_node_id(4); }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-attribute-missing-key", [](G g) {
        g.mutable_nodes(3)->mutable_attributes(0)->set_checkpoint_key("model/nothing/.ATTRIBUTES/VARIABLE_VALUE");
    }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-attribute-empty-key",
                                   [](G g) { g.mutable_nodes(3)->mutable_attributes(0)->set_checkpoint_key(""); }));
    CKPT_RETURN_IF_ERROR(graphCase(b, "graph-no-nodes", [](G g) { g.clear_nodes(); }));

    const std::string serialized = smallGraph().SerializeAsString();
    Tensor asBytes;
    asBytes.dtype = DataType::UInt8;
    asBytes.shape.dims = {static_cast<int64_t>(serialized.size())};
    asBytes.bytes.assign(serialized.begin(), serialized.end());
    CKPT_RETURN_IF_ERROR(rawGraphCase(b, "graph-wrong-dtype", asBytes));
    Tensor twice;
    twice.dtype = DataType::String;
    twice.shape.dims = {2};
    twice.strings = {serialized, serialized};
    CKPT_RETURN_IF_ERROR(rawGraphCase(b, "graph-wrong-shape", twice));
    Tensor garbage;
    garbage.dtype = DataType::String;
    garbage.strings = {std::string("\xff\xff\xff\xff", 4)};
    return rawGraphCase(b, "graph-garbage", garbage);
}

Status stateFileCases(Builder& b, const Source& s) {
    auto state = [](std::string contents) {
        return [contents](const std::string& prefix) {
            return writeFile(std::filesystem::path(prefix).parent_path().string() + "/checkpoint", contents);
        };
    };
    auto path = [](const std::string& p) { return "model_checkpoint_path: \"" + p + "\"\n"; };
    auto add = [&](const std::string& name, std::string contents) {
        return b.fromSource(name, s, state(std::move(contents)), true);
    };
    CKPT_RETURN_IF_ERROR(add("state-garbage", "model_checkpoint_path: \"model.ckpt-1000\" garbage {\n"));
    CKPT_RETURN_IF_ERROR(add("state-dotdot", path("../outside/model.ckpt-1000")));
    CKPT_RETURN_IF_ERROR(add("state-absolute-missing", path("/nonexistent-zoo/model.ckpt-1000")));
    CKPT_RETURN_IF_ERROR(add("state-missing-target", path("model.ckpt-999")));
    CKPT_RETURN_IF_ERROR(add("state-long-line", path(std::string(1 << 20, 'a'))));
    std::string binary;
    for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
    CKPT_RETURN_IF_ERROR(add("state-binary-line", binary + "\n"));
    CKPT_RETURN_IF_ERROR(add("state-invalid-escape", path("model.ckpt\\q-1000")));
    CKPT_RETURN_IF_ERROR(add("state-nul-in-path", path(std::string("model.ckpt-1000\0x", 17))));
    return add("state-empty", "");
}

}  // namespace ckpt::zoo

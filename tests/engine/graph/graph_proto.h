#pragma once
// Building TrackableObjectGraph protos by hand for the graph suites
// (tst_object_graph, tst_display_tree).

#include <string>

#include "ckpt/object_graph.h"
#include "trackable_object_graph.pb.h"

namespace ckpt::testing {

using GraphProto = tensorflow::TrackableObjectGraph;

inline void addChild(GraphProto& g, int from, int to, const std::string& name) {
    auto* c = g.mutable_nodes(from)->add_children();
    c->set_node_id(to);
    c->set_local_name(name);
}

inline void addVariable(GraphProto& g, int node, const std::string& key) {
    auto* a = g.mutable_nodes(node)->add_attributes();
    a->set_name(std::string(kVariableValue));
    a->set_checkpoint_key(key);
}

}  // namespace ckpt::testing

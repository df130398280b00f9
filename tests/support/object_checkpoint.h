#pragma once
// A big object-based checkpoint without the save pipeline, for the
// explorer's responsiveness checks (tst_open_stall, bench_open_stall):
//   (root) -> model -> layer_<l> -> v_<v>, each v a float[2] variable
// with key "model/layer_<l>/v_<v>/.ATTRIBUTES/VARIABLE_VALUE". All
// variables share one 8-byte region of zeros (a reader checks each entry's
// own checksum, not overlaps), so a million of them cost ~100 MB of index
// and graph, not data.
//   ASSERT(writeObjectCheckpoint("/tmp/x/ckpt-1", 100, 1000).isOk());

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "ckpt/bundle_naming.h"
#include "ckpt/object_graph.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "format/index_table.h"
#include "format/region_codec.h"
#include "tensor_bundle.pb.h"
#include "trackable_object_graph.pb.h"

namespace ckpt::testing {

inline Status writeObjectCheckpoint(const std::string& prefix, int layers, int variablesPerLayer) {
    tensorflow::TrackableObjectGraph graph;
    graph.add_nodes();  // the root
    graph.add_nodes();  // model
    auto* ref = graph.mutable_nodes(0)->add_children();
    ref->set_node_id(1);
    ref->set_local_name("model");
    std::vector<std::string> keys;
    keys.reserve(static_cast<size_t>(layers) * static_cast<size_t>(variablesPerLayer));
    for (int l = 0; l < layers; ++l) {
        const int layerId = graph.nodes_size();
        graph.add_nodes();
        auto* lr = graph.mutable_nodes(1)->add_children();
        lr->set_node_id(layerId);
        lr->set_local_name("layer_" + std::to_string(l));
        for (int v = 0; v < variablesPerLayer; ++v) {
            const int varId = graph.nodes_size();
            auto* attr = graph.add_nodes()->add_attributes();
            auto* vr = graph.mutable_nodes(layerId)->add_children();
            vr->set_node_id(varId);
            vr->set_local_name("v_" + std::to_string(v));
            keys.push_back("model/layer_" + std::to_string(l) + "/v_" + std::to_string(v) + "/.ATTRIBUTES/VARIABLE_VALUE");
            attr->set_name("VARIABLE_VALUE");
            attr->set_checkpoint_key(keys.back());
        }
    }
    const std::vector<uint8_t> zeros(8, 0);
    auto crc = regionChecksum(zeros, DataType::Float, 2, "zeros");
    if (!crc.ok()) return crc.status();
    tensorflow::BundleEntryProto var;
    var.set_dtype(tensorflow::DT_FLOAT);
    var.mutable_shape()->add_dim()->set_size(2);
    var.set_size(8);
    var.set_crc32c(*crc);
    const std::string varBytes = var.SerializeAsString();

    // The graph is a scalar string tensor after the zeros (docs/format.md, "String tensors").
    Tensor graphTensor;
    graphTensor.dtype = DataType::String;
    graphTensor.strings.push_back(graph.SerializeAsString());
    graph.Clear();
    const std::vector<uint8_t> region = encodeTensorRegion(graphTensor);
    auto graphCrc = regionChecksum(region, DataType::String, 1, "graph");
    if (!graphCrc.ok()) return graphCrc.status();
    tensorflow::BundleEntryProto g;
    g.set_dtype(tensorflow::DT_STRING);
    g.set_offset(8);
    g.set_size(static_cast<int64_t>(region.size()));
    g.set_crc32c(*graphCrc);
    keys.emplace_back(kObjectGraphKey);
    std::sort(keys.begin(), keys.end());

    auto writer = format::IndexTableWriter::create(indexFileName(prefix));
    if (!writer.ok()) return writer.status();
    tensorflow::BundleHeaderProto header;
    header.set_num_shards(1);
    header.mutable_version()->set_producer(1);
    CKPT_RETURN_IF_ERROR((*writer)->add("", header.SerializeAsString()));
    for (const std::string& k : keys)
        CKPT_RETURN_IF_ERROR((*writer)->add(k, k == kObjectGraphKey ? g.SerializeAsString() : varBytes));
    CKPT_RETURN_IF_ERROR((*writer)->finish());
    const std::string dataPath = dataFileName(prefix, 0, 1);
    std::ofstream data(dataPath, std::ios::binary | std::ios::trunc);
    data.write(reinterpret_cast<const char*>(zeros.data()), static_cast<std::streamsize>(zeros.size()));
    data.write(reinterpret_cast<const char*>(region.data()), static_cast<std::streamsize>(region.size()));
    if (!data.flush()) return internalError("cannot write " + dataPath);
    return okStatus();
}

}  // namespace ckpt::testing

#pragma once
// Test/benchmark-only bundle writing: a single-shard V2 bundle from
// key -> Tensor, and a minimal object-based "save" of a Trackable program
// (node ids breadth-first, keys as TensorFlow forms them). Restore tests use
// it to build checkpoints without the save pipeline. Header-only; link
// ckpt_engine_internal.

#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "ckpt/bundle_reader.h"
#include "ckpt/object_graph.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/trackable.h"
#include "format/index_table.h"
#include "platform/crc32c.h"
#include "tensor_bundle.pb.h"
#include "trackable_object_graph.pb.h"

namespace ckpt::testing {

inline void appendVarint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

// Region bytes and the entry checksum TensorFlow stores (docs/format.md, "Data files").
inline std::pair<std::string, uint32_t> encodeRegion(const Tensor& t) {
    std::string region;
    if (t.dtype != DataType::String) {
        region.assign(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
        return {region, platform::crc32cMask(platform::crc32c(region))};
    }
    uint32_t lenCrc = 0;
    for (const std::string& s : t.strings) {
        appendVarint(region, s.size());
        const auto len = static_cast<uint32_t>(s.size());
        lenCrc = platform::crc32cExtend(lenCrc, &len, 4);
    }
    const uint32_t maskedLen = platform::crc32cMask(lenCrc);
    region.append(reinterpret_cast<const char*>(&maskedLen), 4);
    uint32_t crc = platform::crc32cExtend(lenCrc, &maskedLen, 4);
    for (const std::string& s : t.strings) {
        region += s;
        crc = platform::crc32cExtend(crc, s.data(), s.size());
    }
    return {region, platform::crc32cMask(crc)};
}

// Writes <prefix>.index and <prefix>.data-00000-of-00001.
inline Status writeTestBundle(const std::string& prefix, const std::map<std::string, Tensor>& tensors) {
    const std::string dataPath = prefix + ".data-00000-of-00001";
    std::FILE* data = std::fopen(dataPath.c_str(), "wb");
    if (!data) return internalError("cannot create " + dataPath);
    CKPT_ASSIGN_OR_RETURN(auto index, format::IndexTableWriter::create(prefix + ".index"));
    tensorflow::BundleHeaderProto header;
    header.set_num_shards(1);
    header.mutable_version()->set_producer(1);
    CKPT_RETURN_IF_ERROR(index->add("", header.SerializeAsString()));
    int64_t offset = 0;
    for (const auto& [key, t] : tensors) {
        auto [region, crc] = encodeRegion(t);
        if (std::fwrite(region.data(), 1, region.size(), data) != region.size()) {
            std::fclose(data);
            return internalError("short write to " + dataPath);
        }
        tensorflow::BundleEntryProto e;
        e.set_dtype(static_cast<tensorflow::DataType>(t.dtype));
        for (int64_t d : t.shape.dims) e.mutable_shape()->add_dim()->set_size(d);
        e.set_offset(offset);
        e.set_size(static_cast<int64_t>(region.size()));
        e.set_crc32c(crc);
        offset += static_cast<int64_t>(region.size());
        CKPT_RETURN_IF_ERROR(index->add(key, e.SerializeAsString()));
    }
    std::fclose(data);
    return index->finish();
}

inline Tensor scalarString(const std::string& s) {
    Tensor t;
    t.dtype = DataType::String;
    t.strings = {s};
    return t;
}

// A minimal object-based save of 'root' (what tf.train.Checkpoint.write does
// for plain variables, replicas and slots). Returns the serialized graph too.
inline Status writeProgramCheckpoint(const std::string& prefix, const std::shared_ptr<Trackable>& root) {
    tensorflow::TrackableObjectGraph g;
    std::map<std::string, Tensor> tensors;
    std::unordered_map<const Trackable*, int> ids{{root.get(), 0}};
    std::unordered_map<const Trackable*, std::string> keyPath{{root.get(), ""}};
    std::vector<std::shared_ptr<Trackable>> order{root};
    g.add_nodes();
    for (size_t i = 0; i < order.size(); ++i) {
        auto obj = order[i];
        for (const Trackable::Child& c : obj->children()) {
            auto [it, inserted] = ids.emplace(c.object.get(), static_cast<int>(order.size()));
            if (inserted) {
                order.push_back(c.object);
                g.add_nodes();
                const std::string& parent = keyPath[obj.get()];
                keyPath[c.object.get()] = (parent.empty() ? "" : parent + "/") + escapeLocalName(c.name);
            }
            auto* ch = g.mutable_nodes(static_cast<int>(i))->add_children();
            ch->set_node_id(it->second);
            ch->set_local_name(c.name);
        }
    }
    auto addVariable = [&](int node, Variable& v, const std::string& base) {
        for (int r = 0; r < v.replicas(); ++r) {
            auto* a = g.mutable_nodes(node)->add_attributes();
            a->set_name(r == 0 ? "VARIABLE_VALUE" : "parallel_component_" + std::to_string(r));
            a->set_full_name(v.fullName());
            a->set_checkpoint_key(base + "/.ATTRIBUTES/" + a->name());
            tensors[a->checkpoint_key()] = v.value(r);
        }
    };
    const size_t regular = order.size();
    for (size_t i = 0; i < regular; ++i)
        if (Variable* v = order[i]->asVariable()) addVariable(static_cast<int>(i), *v, keyPath[order[i].get()]);
    for (size_t i = 0; i < regular; ++i) {
        Optimizer* opt = order[i]->asOptimizer();
        if (!opt) continue;
        for (const Optimizer::Slot& s : opt->slotVariables()) {
            auto var = s.variable.lock();
            if (!var || !ids.count(var.get())) continue;
            const int slotNode = g.nodes_size();
            g.add_nodes();
            auto* ref = g.mutable_nodes(static_cast<int>(i))->add_slot_variables();
            ref->set_original_variable_node_id(ids[var.get()]);
            ref->set_slot_name(s.name);
            ref->set_slot_variable_node_id(slotNode);
            addVariable(slotNode, *s.slot,
                        keyPath[var.get()] + "/.OPTIMIZER_SLOT/" + keyPath[order[i].get()] + "/" + escapeLocalName(s.name));
        }
    }
    tensors[std::string(kObjectGraphKey)] = scalarString(g.SerializeAsString());
    return writeTestBundle(prefix, tensors);
}

inline Tensor floatTensor(TensorShape shape, float fill) {
    Tensor t;
    t.dtype = DataType::Float;
    t.shape = std::move(shape);
    const int64_t n = t.numElements();
    t.bytes.resize(static_cast<size_t>(n) * 4);
    for (int64_t i = 0; i < n; ++i) std::memcpy(t.bytes.data() + i * 4, &fill, 4);
    return t;
}

}  // namespace ckpt::testing

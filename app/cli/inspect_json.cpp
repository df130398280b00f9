#include "inspect_json.h"

#include <span>

#include "json_output.h"

namespace ckpt::cli {
namespace {

// Members are written in sorted key order: the order printJson of a DOM
// used, which scripts comparing outputs may rely on.

template <typename T>
void writeIntegers(JsonWriter& out, std::span<const T> values) {
    out.beginArray();
    for (T v : values) out.integer(v);
    out.endArray();
}

void writeHeader(JsonWriter& out, const BundleHeader& h) {
    out.beginObject();
    out.key("endianness");
    out.string(h.bigEndian ? "BIG" : "LITTLE");
    out.key("num_shards");
    out.integer(h.numShards);
    out.key("version");
    out.beginObject();
    out.key("bad_consumers");
    writeIntegers<int32_t>(out, h.badConsumers);
    out.key("min_consumer");
    out.integer(h.minConsumer);
    out.key("producer");
    out.integer(h.producer);
    out.endObject();
    out.endObject();
}

// The region members interleave with the others in sorted order, so each
// is written by name where it falls.
void writeSlice(JsonWriter& out, const StoredSlice& s) {
    out.beginObject();
    out.key("crc32c");
    out.integer(s.region.maskedCrc32c);
    out.key("extents");
    out.beginArray();
    for (const SliceExtent& e : s.slice.extents) {
        out.beginObject();
        out.key("length");
        out.integer(e.length);
        out.key("start");
        out.integer(e.start);
        out.endObject();
    }
    out.endArray();
    out.key("offset");
    out.integer(s.region.offset);
    out.key("shape");
    writeIntegers<int64_t>(out, s.shape.dims);
    out.key("shard_id");
    out.integer(s.region.shardId);
    out.key("size");
    out.integer(s.region.size);
    out.key("spec");
    out.string(s.slice.toString());
    out.endObject();
}

void writeTensor(JsonWriter& out, const TensorInfo& t) {
    out.beginObject();
    out.key("crc32c");
    out.integer(t.region.maskedCrc32c);
    out.key("dtype");
    out.string(dataTypeName(t.dtype));
    out.key("key");
    out.string(displayableString(t.key));
    out.key("offset");
    out.integer(t.region.offset);
    out.key("shape");
    writeIntegers<int64_t>(out, t.shape.dims);
    out.key("shard_id");
    out.integer(t.region.shardId);
    out.key("size");
    out.integer(t.region.size);
    out.key("slices");
    out.beginArray();
    for (const StoredSlice& s : t.slices) writeSlice(out, s);
    out.endArray();
    out.endObject();
}

void writeObjectNode(JsonWriter& out, const ObjectNode& n) {
    out.beginObject();
    out.key("attributes");
    out.beginArray();
    for (const ObjectAttribute& a : n.attributes) {
        out.beginObject();
        out.key("checkpoint_key");
        out.string(a.checkpointKey);
        out.key("full_name");
        out.string(a.fullName);
        out.key("name");
        out.string(a.name);
        out.endObject();
    }
    out.endArray();
    out.key("children");
    out.beginArray();
    for (const ObjectChild& c : n.children) {
        out.beginObject();
        out.key("id");
        out.integer(c.nodeId);
        out.key("name");
        out.string(c.localName);
        out.endObject();
    }
    out.endArray();
    out.key("id");
    out.integer(n.id);
    out.key("kind");
    out.string(objectKindName(n.kind));
    out.key("path");
    if (n.prettyPath) out.string(*n.prettyPath);
    else out.null();
    out.key("slot_variables");
    out.beginArray();
    for (const SlotVariableRef& s : n.slotVariables) {
        out.beginObject();
        out.key("original_variable_id");
        out.integer(s.originalVariableNodeId);
        out.key("slot_name");
        out.string(s.slotName);
        out.key("slot_variable_id");
        out.integer(s.slotVariableNodeId);
        out.endObject();
    }
    out.endArray();
    out.endObject();
}

}  // namespace

void writeInspectJson(JsonWriter& out, const Checkpoint& ckpt) {
    const BundleReader& bundle = ckpt.bundle();
    out.beginObject();
    out.key("header");
    writeHeader(out, bundle.header());
    out.key("objects");
    out.beginArray();
    if (const ObjectGraph* graph = ckpt.objectGraph())
        for (int32_t i = 0; i < graph->size(); ++i) writeObjectNode(out, graph->node(i));
    out.endArray();
    out.key("prefix");
    out.string(ckpt.prefix());
    out.key("resolved_by");
    out.string(ckpt.resolved().how);
    out.key("style");
    out.string(ckpt.style() == CheckpointStyle::ObjectBased ? "object-based" : "name-based");
    out.key("tensors");
    out.beginArray();
    for (const TensorInfo& t : bundle.tensors()) writeTensor(out, t);
    out.endArray();
    out.endObject();
}

}  // namespace ckpt::cli

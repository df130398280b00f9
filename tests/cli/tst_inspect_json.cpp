// `ckpt inspect --json` is streamed (inspect_json.h); its bytes must stay
// those of the DOM it replaced, printed with printJson. The reference DOM
// below is that former code, kept here as the oracle.

#include <QtTest>

#include <sstream>

#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint.h"
#include "inspect_json.h"
#include "json_output.h"
#include "ckpt/json_writer.h"
#include "test_support.h"
#include "trackable_object_graph.pb.h"

using namespace ckpt;
using nlohmann::json;

namespace {

json regionJson(const StoredRegion& r) {
    return {{"shard_id", r.shardId}, {"offset", r.offset}, {"size", r.size}, {"crc32c", r.maskedCrc32c}};
}

json tensorInfoJson(const TensorInfo& t) {
    json slices = json::array();
    for (const StoredSlice& s : t.slices) {
        json extents = json::array();
        for (const SliceExtent& e : s.slice.extents) extents.push_back({{"start", e.start}, {"length", e.length}});
        json j = regionJson(s.region);
        j["spec"] = s.slice.toString();
        j["extents"] = extents;
        j["shape"] = s.shape.dims;
        slices.push_back(j);
    }
    json j = {{"key", cli::displayableString(t.key)}, {"dtype", std::string(dataTypeName(t.dtype))}, {"shape", t.shape.dims}};
    j.update(regionJson(t.region));
    j["slices"] = slices;
    return j;
}

json objectNodeJson(const ObjectNode& n) {
    json children = json::array();
    for (const ObjectChild& c : n.children) children.push_back({{"name", c.localName}, {"id", c.nodeId}});
    json attributes = json::array();
    for (const ObjectAttribute& a : n.attributes)
        attributes.push_back({{"name", a.name}, {"checkpoint_key", a.checkpointKey}, {"full_name", a.fullName}});
    json slotRefs = json::array();
    for (const SlotVariableRef& s : n.slotVariables)
        slotRefs.push_back({{"original_variable_id", s.originalVariableNodeId},
                            {"slot_name", s.slotName},
                            {"slot_variable_id", s.slotVariableNodeId}});
    return {{"id", n.id},
            {"path", n.prettyPath ? json(*n.prettyPath) : json(nullptr)},
            {"kind", std::string(objectKindName(n.kind))},
            {"children", children},
            {"attributes", attributes},
            {"slot_variables", slotRefs}};
}

std::string referenceDump(const json& j) { return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n"; }

std::string referenceInspect(const Checkpoint& ckpt) {
    const BundleHeader& h = ckpt.bundle().header();
    json objects = json::array();
    if (const ObjectGraph* g = ckpt.objectGraph())
        for (int32_t i = 0; i < g->size(); ++i) objects.push_back(objectNodeJson(g->node(i)));
    json tensors = json::array();
    for (const TensorInfo& t : ckpt.bundle().tensors()) tensors.push_back(tensorInfoJson(t));
    return referenceDump(
        {{"header",
          {{"num_shards", h.numShards},
           {"endianness", h.bigEndian ? "BIG" : "LITTLE"},
           {"version", {{"producer", h.producer}, {"min_consumer", h.minConsumer}, {"bad_consumers", h.badConsumers}}}}},
         {"objects", objects},
         {"prefix", ckpt.prefix()},
         {"resolved_by", ckpt.resolved().how},
         {"style", ckpt.style() == CheckpointStyle::ObjectBased ? "object-based" : "name-based"},
         {"tensors", tensors}});
}

std::string streamedInspect(const Checkpoint& ckpt) {
    std::ostringstream out;
    JsonWriter w(out);
    cli::writeInspectJson(w, ckpt);
    w.finish();
    return out.str();
}

// Names that need escaping or are not ASCII; the keys also hold invalid
// UTF-8 (shown as \xNN by displayableString). Graph strings stay valid
// UTF-8: proto3 refuses to parse anything else.
const std::vector<std::string> kAwkwardNames = {"quote\"d",     "back\\slash",
                                                "ctrl\x01\x1f", "new\nline\ttab\r\b\f",
                                                "del\x7f",      "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
                                                "slash/es",     ""};

Tensor floatScalar(float v) {
    Tensor t;
    t.dtype = DataType::Float;
    t.bytes.resize(sizeof v);
    std::memcpy(t.bytes.data(), &v, sizeof v);
    return t;
}

// An object graph with the awkward names on edges, attributes and slots,
// one variable per name, a partitioned tensor, and keys of invalid UTF-8.
Status writeAwkwardCheckpoint(const std::string& prefix) {
    CKPT_ASSIGN_OR_RETURN(auto w, BundleWriter::create(prefix));
    tensorflow::TrackableObjectGraph graph;
    auto* root = graph.add_nodes();
    for (size_t i = 0; i < kAwkwardNames.size(); ++i) {
        const std::string& name = kAwkwardNames[i];
        const std::string key = "v" + std::to_string(i) + "/" + name + "/.ATTRIBUTES/VARIABLE_VALUE";
        auto* child = root->add_children();
        child->set_node_id(graph.nodes_size());
        child->set_local_name(name);
        auto* attr = graph.add_nodes()->add_attributes();
        attr->set_name("VARIABLE_VALUE");
        attr->set_full_name(name);
        attr->set_checkpoint_key(key);
        CKPT_RETURN_IF_ERROR(w->add(key, floatScalar(static_cast<float>(i))));
    }
    auto* slot = root->add_slot_variables();
    slot->set_original_variable_node_id(1);
    slot->set_slot_name("m\"\\\x02");
    slot->set_slot_variable_node_id(graph.nodes_size());
    graph.add_nodes();
    graph.add_nodes();  // unreachable: no path
    CKPT_RETURN_IF_ERROR(w->add("bad utf8 \xff\xfe \xc3", floatScalar(1)));
    Tensor half;
    half.dtype = DataType::Float;
    half.shape.dims = {2};
    half.bytes.assign(8, 0);
    for (int64_t start : {0, 2}) CKPT_RETURN_IF_ERROR(w->addSlice("part\"ed", TensorShape{{4}}, TensorSlice{{{start, 2}}}, half));
    Tensor graphTensor;
    graphTensor.dtype = DataType::String;
    graphTensor.strings = {graph.SerializeAsString()};
    CKPT_RETURN_IF_ERROR(w->add(kObjectGraphKey, graphTensor));
    return w->finish();
}

}  // namespace

class TstInspectJson : public QObject {
    Q_OBJECT
private slots:
    void realCorpusMatchesDom_data() {
        QTest::addColumn<QString>("dir");
        const QStringList dirs = ckpt::testing::realBundleDirs();
        if (dirs.isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& d : dirs) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }
    void realCorpusMatchesDom() {
        QFETCH(QString, dir);
        auto opened = Checkpoint::open(dir.toStdString());
        QVERIFY2(opened.ok(), opened.status().toString().c_str());
        QCOMPARE(streamedInspect(**opened), referenceInspect(**opened));
    }

    void awkwardNamesMatchDom() {
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-1")).toStdString();
        const Status written = writeAwkwardCheckpoint(prefix);
        QVERIFY2(written.isOk(), written.toString().c_str());
        auto opened = Checkpoint::open(prefix);
        QVERIFY2(opened.ok(), opened.status().toString().c_str());
        QVERIFY((*opened)->objectGraph());
        QVERIFY((*opened)->bundle().find("part\"ed")->isPartitioned());
        const std::string streamed = streamedInspect(**opened);
        QCOMPARE(streamed, referenceInspect(**opened));
        QVERIFY(streamed.find("\\u0001\\u001f") != std::string::npos);  // the awkward names did reach the output
        QVERIFY(streamed.find("\\\\xff\\\\xfe") != std::string::npos);
    }

    // Shapes the inspect document does not produce, and strings that need
    // nlohmann's replacement of invalid UTF-8.
    void writerMatchesDump() {
        const json doc = {{"a", json::array()},
                          {"b", json::object()},
                          {"c", {{"d", json::array({json::array(), json::object(), 1, -2})}}},
                          {"e", "\xff ok \xc3\xa9 \xe6\x97"},
                          {"f", {true, false, nullptr}},
                          {"g", {INT64_MIN, UINT64_MAX}}};
        std::ostringstream out;
        {
            JsonWriter w(out);
            w.beginObject();
            w.key("a");
            w.beginArray();
            w.endArray();
            w.key("b");
            w.beginObject();
            w.endObject();
            w.key("c");
            w.beginObject();
            w.key("d");
            w.beginArray();
            w.beginArray();
            w.endArray();
            w.beginObject();
            w.endObject();
            w.integer(1);
            w.integer(-2);
            w.endArray();
            w.endObject();
            w.key("e");
            w.string("\xff ok \xc3\xa9 \xe6\x97");
            w.key("f");
            w.beginArray();
            w.boolean(true);
            w.boolean(false);
            w.null();
            w.endArray();
            w.key("g");
            w.beginArray();
            w.integer(INT64_MIN);
            w.integer(UINT64_MAX);
            w.endArray();
            w.endObject();
            w.finish();
        }
        QCOMPARE(out.str(), referenceDump(doc));
        std::ostringstream empty;
        JsonWriter w(empty);
        w.beginArray();
        w.endArray();
        w.finish();
        QCOMPARE(empty.str(), referenceDump(json::array()));
    }

    // The writer checks strings a word at a time: every byte that needs
    // escaping, and its neighbours that do not, at every offset of a word.
    void escapingAtEveryOffset() {
        const std::string bytes[] = {"\x01", "\x1f", "\x20", "\x21",     "\"",   "\\",
                                     "\x7f", "\x80", "\xff", "\xc3\xa9", "\x5b", "\x5d"};
        for (const std::string& b : bytes) {
            for (size_t at = 0; at < 18; ++at) {
                std::string s(18, 'a');
                s.replace(at, 1, b);
                std::ostringstream out;
                JsonWriter w(out);
                w.string(s);
                w.finish();
                QCOMPARE(out.str(), referenceDump(json(s)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstInspectJson)
#include "tst_inspect_json.moc"

// Every real TensorFlow bundle must read exactly as its manifest.json (from
// an independent decoder) says: header, keys, dtypes, shapes, storage
// locations, stored checksums, raw bytes (sha256) and decoded values.

#include <QCryptographicHash>
#include <QtTest>

#include <cmath>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "format/ordered_code.h"
#include "test_support.h"

using namespace ckpt;
using nlohmann::json;

namespace {

uint32_t parseHex(const std::string& s) { return static_cast<uint32_t>(std::stoul(s, nullptr, 16)); }

double manifestNumber(const json& v) {
    if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
    if (v.is_string()) {
        const auto s = v.get<std::string>();
        if (s == "nan") return std::nan("");
        return s == "inf" ? INFINITY : -INFINITY;
    }
    return v.get<double>();
}

bool sameRegion(const StoredRegion& a, const StoredRegion& b) {
    return a.offset == b.offset && a.size == b.size && a.shardId == b.shardId && a.maskedCrc32c == b.maskedCrc32c;
}

}  // namespace

class TstBundleReader : public QObject {
    Q_OBJECT
private slots:
    void matchesManifest_data() {
        QTest::addColumn<QString>("dir");
        const QStringList dirs = ckpt::testing::realBundleDirs();
        if (dirs.isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& d : dirs) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }

    void matchesManifest() {
        QFETCH(QString, dir);
        const json m = ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json"));
        auto opened = BundleReader::open(ckpt::testing::manifestPrefix(dir, m));
        QVERIFY2(opened.ok(), opened.status().toString().c_str());
        const BundleReader& r = **opened;

        QCOMPARE(r.header().numShards, m["header"]["num_shards"].get<int>());
        QCOMPARE(r.header().bigEndian ? std::string("BIG") : std::string("LITTLE"), m["header"]["endianness"].get<std::string>());
        QCOMPARE(r.header().producer, m["header"]["version"]["producer"].get<int>());
        QCOMPARE(r.header().minConsumer, m["header"]["version"]["min_consumer"].get<int>());
        QCOMPARE(r.isObjectBased(), m["checkpoint_style"].get<std::string>() == "object-based");

        size_t plainEntries = 0;
        for (const json& t : m["tensors"]) {
            const std::string kind = t["kind"];
            const std::string keyBytes =
                QByteArray::fromHex(QByteArray::fromStdString(t["key_hex"].get<std::string>())).toStdString();
            const TensorInfo* info = nullptr;
            StoredRegion region;
            if (kind == "slice") {
                const std::string full = t["slice_of"]["name"];
                info = r.find(full);
                QVERIFY2(info, full.c_str());
                bool found = false;
                for (const StoredSlice& s : info->slices)
                    if (s.encodedKey == keyBytes) {
                        region = s.region;
                        found = true;
                    }
                QVERIFY2(found, "slice entry not attached to its tensor");
            } else {
                ++plainEntries;
                info = r.find(keyBytes);
                QVERIFY2(info, keyBytes.c_str());
                QCOMPARE(std::string(dataTypeName(info->dtype)), t["dtype"].get<std::string>());
                QCOMPARE(info->shape.dims, t["shape"].get<std::vector<int64_t>>());
                QCOMPARE(info->isPartitioned(), kind == "partitioned");
                region = info->region;
            }
            if (kind == "partitioned") continue;
            QCOMPARE(region.shardId, t["shard_id"].get<int>());
            QCOMPARE(region.offset, t["offset"].get<int64_t>());
            QCOMPARE(region.size, t["size"].get<int64_t>());
            QCOMPARE(region.maskedCrc32c, parseHex(t["crc32c"]));

            // Raw bytes, checksum-verified by the reader, hash as the oracle's.
            const int64_t n = t["num_elements"].get<int64_t>();
            auto bytes = r.readRegion(region, info->dtype, n, keyBytes);
            QVERIFY2(bytes.ok(), bytes.status().toString().c_str());
            const QByteArray raw(reinterpret_cast<const char*>(bytes->data()), static_cast<qsizetype>(bytes->size()));
            QCOMPARE(QCryptographicHash::hash(raw, QCryptographicHash::Sha256).toHex().toStdString(),
                     t["sha256"].get<std::string>());
            if (kind == "slice") continue;

            auto tensor = r.read(*info);
            QVERIFY2(tensor.ok(), tensor.status().toString().c_str());
            if (t.contains("values")) {
                const auto& values = t["values"];
                QCOMPARE(static_cast<int64_t>(values.size()), tensor->numElements());
                for (size_t i = 0; i < values.size(); ++i) {
                    const double expected = manifestNumber(values[i]);
                    const double actual = tensor->elementAsDouble(static_cast<int64_t>(i));
                    QVERIFY2((std::isnan(expected) && std::isnan(actual)) || expected == actual, keyBytes.c_str());
                }
            }
            if (t.contains("stats") && info->dtype != DataType::Bool) {
                const json& st = t["stats"];
                double minV = INFINITY, maxV = -INFINITY;
                long double sum = 0;
                for (int64_t i = 0; i < tensor->numElements(); ++i) {
                    const double v = tensor->elementAsDouble(i);
                    if (std::isnan(v)) continue;
                    minV = std::min(minV, v);
                    maxV = std::max(maxV, v);
                    sum += v;
                }
                QCOMPARE(tensor->numElements(), st["count"].get<int64_t>());
                if (tensor->numElements() > 0) {
                    QCOMPARE(minV, manifestNumber(st["min"]));
                    QCOMPARE(maxV, manifestNumber(st["max"]));
                    const double expectedSum = manifestNumber(st["sum"]);
                    QVERIFY(std::fabs(static_cast<double>(sum) - expectedSum) <= 1e-9 * std::max(1.0, std::fabs(expectedSum)));
                }
            }
            if (t.contains("stats") && info->dtype == DataType::Bool) {
                int64_t trues = 0;
                for (uint8_t b : tensor->as<uint8_t>()) trues += b != 0;
                QCOMPARE(trues, t["stats"]["true_count"].get<int64_t>());
            }
            if (t.contains("string_values")) {
                std::vector<std::string> expected = t["string_values"];
                QCOMPARE(tensor->strings, expected);
            }
            if (t.contains("string_lengths_sum")) {
                int64_t total = 0;
                for (const auto& s : tensor->strings) total += static_cast<int64_t>(s.size());
                QCOMPARE(total, t["string_lengths_sum"].get<int64_t>());
            }
        }
        QCOMPARE(r.tensors().size(), plainEntries);
        // What a listing reads instead: the same header and count, nothing kept.
        auto summary = BundleReader::summarize(ckpt::testing::manifestPrefix(dir, m));
        QVERIFY2(summary.ok(), summary.status().toString().c_str());
        QCOMPARE(static_cast<size_t>(summary->tensors), plainEntries);
        QCOMPARE(summary->header.numShards, r.header().numShards);
        QCOMPARE(summary->header.producer, r.header().producer);
        // Keys are sorted bytewise, as the index stores them.
        for (size_t i = 1; i < r.tensors().size(); ++i) QVERIFY(r.tensors()[i - 1].key < r.tensors()[i].key);
    }

    void objectGraphMatchesManifest_data() { matchesManifest_data(); }
    void objectGraphMatchesManifest() {
        QFETCH(QString, dir);
        const json m = ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json"));
        auto ckpt = Checkpoint::open(ckpt::testing::manifestPrefix(dir, m));
        QVERIFY2(ckpt.ok(), ckpt.status().toString().c_str());
        const ObjectGraph* g = (*ckpt)->objectGraph();
        if (m["object_graph"].is_null()) {
            QVERIFY(!g);
            QVERIFY((*ckpt)->style() == CheckpointStyle::NameBased);
            return;
        }
        QVERIFY(g);
        const json& og = m["object_graph"];
        QCOMPARE(g->size(), og["num_nodes"].get<int>());
        QCOMPARE(g->numSlotVariables(), og["num_slot_variables"].get<int>());
        for (const json& n : og["nodes"]) {
            const ObjectNode& node = g->node(n["id"].get<int>());
            if (n["path"].is_null()) QVERIFY(!node.prettyPath);
            else QCOMPARE(node.prettyPath.value_or("<none>"), n["path"].get<std::string>());
            QCOMPARE(node.children.size(), n["children"].size());
            for (size_t i = 0; i < node.children.size(); ++i) {
                QCOMPARE(node.children[i].localName, n["children"][i]["local_name"].get<std::string>());
                QCOMPARE(node.children[i].nodeId, n["children"][i]["node_id"].get<int>());
            }
            QCOMPARE(node.attributes.size(), n["attributes"].size());
            for (size_t i = 0; i < node.attributes.size(); ++i) {
                const json& a = n["attributes"][i];
                QCOMPARE(node.attributes[i].name, a["name"].get<std::string>());
                QCOMPARE(node.attributes[i].fullName, a["full_name"].get<std::string>());
                QCOMPARE(node.attributes[i].checkpointKey, a["checkpoint_key"].get<std::string>());
                // Attribute -> key -> tensor link resolves to the oracle's keys.
                const TensorInfo* t = (*ckpt)->tensorForAttribute(node.attributes[i]);
                QVERIFY2(t, node.attributes[i].checkpointKey.c_str());
                QVERIFY(a["resolved_keys"].size() >= 1);
                QCOMPARE(t->key, a["resolved_keys"][0].get<std::string>());
            }
            QCOMPARE(node.slotVariables.size(), n["slot_variables"].size());
            for (size_t i = 0; i < node.slotVariables.size(); ++i) {
                const json& s = n["slot_variables"][i];
                QCOMPARE(node.slotVariables[i].originalVariableNodeId, s["original_variable_node_id"].get<int>());
                QCOMPARE(node.slotVariables[i].slotName, s["slot_name"].get<std::string>());
                QCOMPARE(node.slotVariables[i].slotVariableNodeId, s["slot_variable_node_id"].get<int>());
            }
            if (n["has_checkpoint_values"].is_null()) QVERIFY(!node.hasCheckpointValues);
            else
                QCOMPARE(node.hasCheckpointValues.value_or(!n["has_checkpoint_values"].get<bool>()),
                         n["has_checkpoint_values"].get<bool>());
        }
    }

    // A reader of a few keys (found by seeking) holds exactly what the
    // whole index holds for them: entry, slices with their regions, bytes.
    void openKeysMatchesOpen_data() { matchesManifest_data(); }
    void openKeysMatchesOpen() {
        QFETCH(QString, dir);
        const json m = ckpt::testing::loadJson(dir + QStringLiteral("/manifest.json"));
        const std::string prefix = ckpt::testing::manifestPrefix(dir, m);
        auto whole = BundleReader::open(prefix);
        QVERIFY2(whole.ok(), whole.status().toString().c_str());
        for (const TensorInfo& t : (*whole)->tensors()) {
            const std::string_view keys[] = {t.key, "no/such/key"};
            auto some = BundleReader::openKeys(prefix, keys);
            QVERIFY2(some.ok(), some.status().toString().c_str());
            QCOMPARE((*some)->tensors().size(), size_t{1});
            QCOMPARE((*some)->isObjectBased(), (*whole)->isObjectBased());
            QCOMPARE((*some)->header().numShards, (*whole)->header().numShards);
            const TensorInfo* found = (*some)->find(t.key);
            QVERIFY(found);
            QCOMPARE(found->dtype, t.dtype);
            QCOMPARE(found->shape, t.shape);
            QVERIFY(sameRegion(found->region, t.region));
            QCOMPARE(found->slices.size(), t.slices.size());
            for (size_t i = 0; i < t.slices.size(); ++i) {
                QCOMPARE(found->slices[i].encodedKey, t.slices[i].encodedKey);
                QVERIFY(sameRegion(found->slices[i].region, t.slices[i].region));
            }
            auto a = (*whole)->read(t);
            auto b = (*some)->read(*found);
            QCOMPARE(a.ok(), b.ok());
            if (a.ok()) QVERIFY(a->bytes == b->bytes && a->strings == b->strings);
        }
        // Slice entries are parts, not tensors; unknown keys are simply absent.
        std::vector<std::string_view> none = {"", "no/such/key"};
        for (const TensorInfo& t : (*whole)->tensors())
            for (const StoredSlice& s : t.slices) none.push_back(s.encodedKey);
        auto empty = BundleReader::openKeys(prefix, none);
        QVERIFY2(empty.ok(), empty.status().toString().c_str());
        QVERIFY((*empty)->tensors().empty());
    }

    void listingDoesNotOpenDataFiles() {
        const QStringList dirs = ckpt::testing::realBundleDirs();
        if (dirs.isEmpty()) CKPT_MISSING_CORPUS();
        // Copy only the index: listing must still work, reading must say which shard is missing.
        QTemporaryDir tmp;
        const QString dir = ckpt::testing::realTestDataDir() + QStringLiteral("/t2t_transformer_2shards");
        QVERIFY(QFile::copy(dir + QStringLiteral("/model.ckpt-1.index"), tmp.filePath(QStringLiteral("model.ckpt-1.index"))));
        auto r = BundleReader::open(tmp.filePath(QStringLiteral("model.ckpt-1")).toStdString());
        QVERIFY2(r.ok(), r.status().toString().c_str());
        QCOMPARE((*r)->tensors().size(), size_t{250});
        auto t = (*r)->read("global_step");
        QVERIFY(!t.ok());
        QCOMPARE(t.status().code(), StatusCode::NotFound);
        QVERIFY(t.status().message().find("model.ckpt-1.data-00000-of-00002") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TstBundleReader)
#include "tst_bundle_reader.moc"

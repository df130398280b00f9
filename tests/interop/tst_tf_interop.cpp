// TensorFlow as the oracle: tests/interop/make_fixtures.py writes checkpoints
// with real TensorFlow (Adam slot variables, a CheckpointManager state file,
// a size-capped multi-shard bundle, partitioned variables, every stored
// dtype, a TF1 Saver checkpoint) and dumps what TensorFlow reports about
// them. Our engine must agree exactly: names, dtypes, shapes, value
// checksums, latest checkpoint, object-graph names; `ckpt verify` accepts all.

#include <QCryptographicHash>
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/tensor.h"
#include "platform/file.h"
#include "test_support.h"

using nlohmann::json;

namespace {

constexpr int kFixtureTimeoutMs = 300000;  // TF import + fixtures take ~10 s; slow CI machines get slack
constexpr size_t kStringHeadBytes = 64;    // make_fixtures.py STRING_HEAD_BYTES

QByteArray sha256Hex(const void* data, size_t n) {
    return QCryptographicHash::hash(QByteArrayView(static_cast<const char*>(data), static_cast<qsizetype>(n)),
                                    QCryptographicHash::Sha256)
        .toHex();
}

// The rule in fixtures.json "checksum": fixed-size values hash their bytes,
// strings hash (uint64 LE length, bytes) per element.
QByteArray valueChecksum(const ckpt::Tensor& t) {
    if (t.dtype != ckpt::DataType::String) return sha256Hex(t.bytes.data(), t.bytes.size());
    QCryptographicHash h(QCryptographicHash::Sha256);
    for (const std::string& s : t.strings) {
        uint8_t len[8];
        uint64_t n = s.size();
        for (uint8_t& b : len) {
            b = static_cast<uint8_t>(n & 0xff);
            n >>= 8;
        }
        h.addData(QByteArrayView(reinterpret_cast<const char*>(len), 8));
        h.addData(QByteArrayView(s.data(), static_cast<qsizetype>(s.size())));
    }
    return h.result().toHex();
}

template <typename T>
T element(const ckpt::Tensor& t, int64_t i) {
    T v;
    std::memcpy(&v, t.bytes.data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
    return v;
}

// One leading value of 't' against TensorFlow's JSON rendering of it.
// Returns an empty string when they agree, else a description.
std::string compareValue(const ckpt::Tensor& t, int64_t i, const json& expected) {
    using ckpt::DataType;
    auto mismatch = [&](const std::string& ours) {
        return "element " + std::to_string(i) + ": ours " + ours + ", TensorFlow " + expected.dump();
    };
    switch (t.dtype) {
    case DataType::String: {
        const std::string& s = t.strings[static_cast<size_t>(i)];
        const QByteArray hex = QByteArray(s.data(), static_cast<qsizetype>(std::min(s.size(), kStringHeadBytes))).toHex();
        return hex.toStdString() == expected.get<std::string>() ? "" : mismatch(hex.toStdString());
    }
    case DataType::Bool: return (t.bytes[static_cast<size_t>(i)] != 0) == expected.get<bool>() ? "" : mismatch("bool");
    case DataType::Complex64: {
        const float re = element<float>(t, 2 * i), im = element<float>(t, 2 * i + 1);
        return double(re) == expected[0].get<double>() && double(im) == expected[1].get<double>()
                   ? ""
                   : mismatch(std::to_string(re) + "+" + std::to_string(im) + "i");
    }
    case DataType::Complex128: {
        const double re = element<double>(t, 2 * i), im = element<double>(t, 2 * i + 1);
        return re == expected[0].get<double>() && im == expected[1].get<double>()
                   ? ""
                   : mismatch(std::to_string(re) + "+" + std::to_string(im) + "i");
    }
    case DataType::Float:
        return double(element<float>(t, i)) == expected.get<double>() ? "" : mismatch(std::to_string(element<float>(t, i)));
    case DataType::Double:
        return element<double>(t, i) == expected.get<double>() ? "" : mismatch(std::to_string(element<double>(t, i)));
    case DataType::Half: {
        const float v = ckpt::halfToFloat(element<uint16_t>(t, i));
        return double(v) == expected.get<double>() ? "" : mismatch(std::to_string(v));
    }
    case DataType::BFloat16: {
        const float v = ckpt::bfloat16ToFloat(element<uint16_t>(t, i));
        return double(v) == expected.get<double>() ? "" : mismatch(std::to_string(v));
    }
    case DataType::Int8:
        return element<int8_t>(t, i) == expected.get<int64_t>() ? "" : mismatch(std::to_string(element<int8_t>(t, i)));
    case DataType::Int16:
        return element<int16_t>(t, i) == expected.get<int64_t>() ? "" : mismatch(std::to_string(element<int16_t>(t, i)));
    case DataType::Int32:
        return element<int32_t>(t, i) == expected.get<int64_t>() ? "" : mismatch(std::to_string(element<int32_t>(t, i)));
    case DataType::Int64:
        return element<int64_t>(t, i) == expected.get<int64_t>() ? "" : mismatch(std::to_string(element<int64_t>(t, i)));
    case DataType::UInt8:
        return element<uint8_t>(t, i) == expected.get<uint64_t>() ? "" : mismatch(std::to_string(element<uint8_t>(t, i)));
    case DataType::UInt16:
        return element<uint16_t>(t, i) == expected.get<uint64_t>() ? "" : mismatch(std::to_string(element<uint16_t>(t, i)));
    case DataType::UInt32:
        return element<uint32_t>(t, i) == expected.get<uint64_t>() ? "" : mismatch(std::to_string(element<uint32_t>(t, i)));
    case DataType::UInt64:
        return element<uint64_t>(t, i) == expected.get<uint64_t>() ? "" : mismatch(std::to_string(element<uint64_t>(t, i)));
    default: return "no value comparison for " + std::string(ckpt::dataTypeName(t.dtype));
    }
}

struct Run {
    int exitCode = -1;
    QByteArray out;
};

Run ckptRun(const QStringList& args) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(ckpt::testing::binaryDir() + QStringLiteral("/app/cli/ckpt"), args);
    p.waitForFinished(60000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAll()};
}

}  // namespace

class TstTfInterop : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_out;
    json m_fixtures;

    // One row per checkpoint TensorFlow wrote: "fixture/prefix-basename".
    void checkpointRows() {
        QTest::addColumn<int>("fixture");
        QTest::addColumn<int>("checkpoint");
        for (size_t f = 0; f < m_fixtures["fixtures"].size(); ++f) {
            const json& fx = m_fixtures["fixtures"][f];
            for (size_t c = 0; c < fx["checkpoints"].size(); ++c) {
                const std::string prefix = fx["checkpoints"][c]["prefix"];
                const std::string row = fx["name"].get<std::string>() + "/" + ckpt::platform::baseName(prefix);
                QTest::newRow(row.c_str()) << int(f) << int(c);
            }
        }
    }
    const json& fixture(int f) const { return m_fixtures["fixtures"][static_cast<size_t>(f)]; }
    const json& checkpoint(int f, int c) const { return fixture(f)["checkpoints"][static_cast<size_t>(c)]; }

private slots:
    void initTestCase() {
        const QString python = qEnvironmentVariable("CKPT_PYTHON");
        if (python.isEmpty())
            CKPT_MISSING_PYTHON(
                "CKPT_PYTHON is not set: point it at a Python with TensorFlow (scripts/setup-venv.sh makes .venv; "
                "scripts/test.sh exports it) to run the TensorFlow interop tests");
        m_out = std::make_unique<QTemporaryDir>();
        QVERIFY(m_out->isValid());
        const QString script = ckpt::testing::sourceDir() + QStringLiteral("/tests/interop/make_fixtures.py");
        const QString outDir = m_out->path() + QStringLiteral("/fixtures");
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(python, {script, outDir});
        QVERIFY2(p.waitForStarted(), qPrintable(QStringLiteral("cannot start CKPT_PYTHON=") + python));
        const bool finished = p.waitForFinished(kFixtureTimeoutMs);
        const QByteArray log = p.readAll();
        QVERIFY2(finished, "make_fixtures.py did not finish in time");
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 qPrintable(QStringLiteral("make_fixtures.py failed:\n") + QString::fromUtf8(log)));
        m_fixtures = ckpt::testing::loadJson(outDir + QStringLiteral("/fixtures.json"));
        QVERIFY(!m_fixtures["fixtures"].empty());
        qInfo("fixtures written by TensorFlow %s", m_fixtures["tensorflow_version"].get<std::string>().c_str());
    }

    // The fixtures must keep covering what the real corpus lacks; a change to
    // the script that silently drops a case fails here.
    void fixturesCoverTheCorpusGaps() {
        std::set<int32_t> dtypes;
        bool scalar = false, empty = false, hasSlots = false, partitioned = false, nameBased = false;
        int maxShards = 0;
        for (const json& fx : m_fixtures["fixtures"]) {
            for (const json& c : fx["checkpoints"]) {
                for (const json& v : c["variables"]) {
                    dtypes.insert(v["dtype_enum"].get<int32_t>());
                    scalar |= v["shape"].empty();
                    empty |= v["num_elements"].get<int64_t>() == 0;
                }
                auto opened = ckpt::Checkpoint::open(c["prefix"].get<std::string>());
                QVERIFY2(opened.ok(), opened.status().toString().c_str());
                const ckpt::BundleReader& b = (*opened)->bundle();
                maxShards = std::max(maxShards, b.header().numShards);
                nameBased |= (*opened)->style() == ckpt::CheckpointStyle::NameBased;
                if ((*opened)->objectGraph()) hasSlots |= (*opened)->objectGraph()->numSlotVariables() > 0;
                for (const ckpt::TensorInfo& t : b.tensors()) partitioned |= t.isPartitioned();
            }
        }
        using D = ckpt::DataType;
        for (D d : {D::Float, D::Double, D::Half, D::BFloat16, D::Int8, D::Int16, D::Int32, D::Int64, D::UInt8, D::UInt16,
                    D::UInt32, D::UInt64, D::Bool, D::Complex64, D::Complex128, D::String})
            QVERIFY2(dtypes.count(static_cast<int32_t>(d)), ckpt::dataTypeName(d).data());
        QVERIFY(scalar);
        QVERIFY(empty);
        QVERIFY(hasSlots);
        QVERIFY(partitioned);
        QVERIFY(nameBased);
        QVERIFY(maxShards >= 3);
    }

    void namesDtypesShapesMatch_data() { checkpointRows(); }
    void namesDtypesShapesMatch() {
        QFETCH(int, fixture);
        QFETCH(int, checkpoint);
        const json& c = this->checkpoint(fixture, checkpoint);
        const json& expect = this->fixture(fixture)["expect"];
        auto opened = ckpt::Checkpoint::open(c["prefix"].get<std::string>());
        QVERIFY2(opened.ok(), opened.status().toString().c_str());
        const ckpt::BundleReader& b = (*opened)->bundle();

        // TF lists partitioned tensors once, by full name, as our tensors() does.
        std::vector<std::string> theirs, ours;
        for (const json& v : c["variables"]) theirs.push_back(v["name"]);
        for (const ckpt::TensorInfo& t : b.tensors()) ours.push_back(t.key);
        std::sort(theirs.begin(), theirs.end());
        QCOMPARE(ours, theirs);

        for (const json& v : c["variables"]) {
            const std::string name = v["name"];
            const ckpt::TensorInfo* t = b.find(name);
            QVERIFY2(t, name.c_str());
            QVERIFY2(
                static_cast<int32_t>(t->dtype) == v["dtype_enum"].get<int32_t>(),
                (name + ": ours " + std::string(ckpt::dataTypeName(t->dtype)) + ", TensorFlow " + v["dtype"].get<std::string>())
                    .c_str());
            QVERIFY2(t->shape.dims == v["shape"].get<std::vector<int64_t>>(),
                     (name + ": ours " + t->shape.toString() + ", TensorFlow " + v["shape"].dump()).c_str());
        }

        // Data files on disk are exactly the shards the header announces.
        QCOMPARE(int(c["data_files"].size()), b.header().numShards);
        QVERIFY(b.header().numShards >= expect["min_shards"].get<int>());
        bool anyPartitioned = false;
        for (const ckpt::TensorInfo& t : b.tensors()) anyPartitioned |= t.isPartitioned();
        QCOMPARE(anyPartitioned, expect["partitioned"].get<bool>());
    }

    void valuesMatch_data() { checkpointRows(); }
    void valuesMatch() {
        QFETCH(int, fixture);
        QFETCH(int, checkpoint);
        const json& c = this->checkpoint(fixture, checkpoint);
        auto opened = ckpt::Checkpoint::open(c["prefix"].get<std::string>());
        QVERIFY2(opened.ok(), opened.status().toString().c_str());
        const ckpt::BundleReader& b = (*opened)->bundle();
        for (const json& v : c["variables"]) {
            const std::string name = v["name"];
            auto tensor = b.read(name);
            QVERIFY2(tensor.ok(), (name + ": " + tensor.status().toString()).c_str());
            QCOMPARE(tensor->numElements(), v["num_elements"].get<int64_t>());
            // Sliced tensors are assembled by read(); the checksum covers the whole value.
            QVERIFY2(valueChecksum(*tensor).toStdString() == v["sha256"].get<std::string>(),
                     (name + ": value checksum differs from TensorFlow's").c_str());
            const json& head = v["values"];
            for (size_t i = 0; i < head.size(); ++i) {
                const std::string diff = compareValue(*tensor, static_cast<int64_t>(i), head[i]);
                QVERIFY2(diff.empty(), (name + ": " + diff).c_str());
            }
        }
    }

    void latestCheckpointMatches_data() {
        QTest::addColumn<int>("fixture");
        for (size_t f = 0; f < m_fixtures["fixtures"].size(); ++f)
            QTest::newRow(m_fixtures["fixtures"][f]["name"].get<std::string>().c_str()) << int(f);
    }
    void latestCheckpointMatches() {
        QFETCH(int, fixture);
        const json& fx = this->fixture(fixture);
        const std::string dir = fx["dir"];
        auto state = ckpt::readCheckpointState(dir);
        QVERIFY2(state.ok(), state.status().toString().c_str());
        QCOMPARE(state->has_value(), !fx["checkpoint_state"].is_null());
        if (state->has_value()) {
            const json& theirs = fx["checkpoint_state"];
            QCOMPARE(QString::fromStdString(ckpt::resolveStatePath(dir, (*state)->modelCheckpointPath)),
                     QString::fromStdString(theirs["model_checkpoint_path"].get<std::string>()));
            QStringList ours, tf;
            for (const std::string& p : (*state)->allModelCheckpointPaths)
                ours << QString::fromStdString(ckpt::resolveStatePath(dir, p));
            for (const json& p : theirs["all_model_checkpoint_paths"]) tf << QString::fromStdString(p.get<std::string>());
            QCOMPARE(ours, tf);
        }
        auto latest = ckpt::latestCheckpoint(dir);
        QVERIFY2(latest.ok(), latest.status().toString().c_str());
        if (fx["latest_checkpoint"].is_null()) {
            QVERIFY2(!latest->has_value(), latest->value_or("").c_str());
            return;
        }
        const std::string theirs = fx["latest_checkpoint"];
        QVERIFY2(latest->has_value(), ("TensorFlow says " + theirs + ", we found none").c_str());
        QCOMPARE(QString::fromStdString(**latest), QString::fromStdString(theirs));
        // Opening the directory lands on the same checkpoint.
        auto opened = ckpt::Checkpoint::open(dir);
        QVERIFY2(opened.ok(), opened.status().toString().c_str());
        QCOMPARE(QString::fromStdString((*opened)->prefix()), QString::fromStdString(theirs));
    }

    void objectGraphMatches_data() { checkpointRows(); }
    void objectGraphMatches() {
        QFETCH(int, fixture);
        QFETCH(int, checkpoint);
        const json& c = this->checkpoint(fixture, checkpoint);
        const json& expect = this->fixture(fixture)["expect"];
        auto opened = ckpt::Checkpoint::open(c["prefix"].get<std::string>());
        QVERIFY2(opened.ok(), opened.status().toString().c_str());
        const ckpt::ObjectGraph* graph = (*opened)->objectGraph();
        if (c["object_graph"].is_null()) {
            QVERIFY(!graph);
            QCOMPARE((*opened)->style(), ckpt::CheckpointStyle::NameBased);
            return;
        }
        QVERIFY(graph);
        const json& nodes = c["object_graph"]["nodes"];
        QCOMPARE(size_t(graph->size()), nodes.size());
        int slotNodes = 0;
        for (const json& n : nodes) {
            const ckpt::ObjectNode& ours = graph->node(n["id"].get<int32_t>());
            const std::string where = "node " + std::to_string(ours.id);
            if (n["pretty"].is_null()) {
                QVERIFY2(!ours.prettyPath, (where + " is unnamed in TensorFlow, ours " + *ours.prettyPath).c_str());
            } else {
                QVERIFY2(ours.prettyPath, (where + " unnamed, TensorFlow " + n["pretty"].get<std::string>()).c_str());
                QCOMPARE(QString::fromStdString(*ours.prettyPath), QString::fromStdString(n["pretty"].get<std::string>()));
            }
            QCOMPARE(ours.children.size(), n["children"].size());
            for (size_t i = 0; i < ours.children.size(); ++i) {
                QCOMPARE(QString::fromStdString(ours.children[i].localName),
                         QString::fromStdString(n["children"][i]["name"].get<std::string>()));
                QCOMPARE(ours.children[i].nodeId, n["children"][i]["id"].get<int32_t>());
            }
            QCOMPARE(ours.attributes.size(), n["attributes"].size());
            for (size_t i = 0; i < ours.attributes.size(); ++i) {
                const std::string key = n["attributes"][i]["checkpoint_key"];
                QCOMPARE(QString::fromStdString(ours.attributes[i].checkpointKey), QString::fromStdString(key));
                QCOMPARE(QString::fromStdString(ours.attributes[i].name),
                         QString::fromStdString(n["attributes"][i]["name"].get<std::string>()));
                // Attribute -> key -> tensor link resolves to the tensor TF lists.
                const ckpt::TensorInfo* t = (*opened)->tensorForAttribute(ours.attributes[i]);
                QVERIFY2(t && t->key == key, key.c_str());
            }
            QCOMPARE(ours.slotVariables.size(), n["slot_variables"].size());
            for (size_t i = 0; i < ours.slotVariables.size(); ++i) {
                const json& s = n["slot_variables"][i];
                QCOMPARE(ours.slotVariables[i].originalVariableNodeId, s["original_variable_id"].get<int32_t>());
                QCOMPARE(QString::fromStdString(ours.slotVariables[i].slotName),
                         QString::fromStdString(s["slot_name"].get<std::string>()));
                QCOMPARE(ours.slotVariables[i].slotVariableNodeId, s["slot_variable_id"].get<int32_t>());
                const ckpt::ObjectNode& slot = graph->node(s["slot_variable_id"].get<int32_t>());
                QCOMPARE(slot.kind, ckpt::ObjectKind::SlotVariable);
                ++slotNodes;
            }
        }
        QCOMPARE(graph->numSlotVariables(), slotNodes);
        QCOMPARE(slotNodes > 0, expect["slot_variables"].get<bool>());
    }

    void cliVerifyAccepts_data() { checkpointRows(); }
    void cliVerifyAccepts() {
        QFETCH(int, fixture);
        QFETCH(int, checkpoint);
        const Run r = ckptRun({QStringLiteral("verify"),
                               QString::fromStdString(this->checkpoint(fixture, checkpoint)["prefix"].get<std::string>())});
        QVERIFY2(r.exitCode == 0, r.out.constData());
        QVERIFY(r.out.startsWith("OK: "));
    }
};

QTEST_GUILESS_MAIN(TstTfInterop)
#include "tst_tf_interop.moc"

// Model specs (docs/model-spec.md): parsing, round trips through
// modelSpecJson, and refusal of bad input with the JSON path of the problem.

#include <QtTest>

#include <nlohmann/json.hpp>

#include "ckpt/checkpoint.h"
#include "ckpt/model_spec.h"
#include "ckpt/restore.h"
#include "restore/spec_json.h"
#include "test_support.h"

using namespace ckpt;

namespace {

const char* kGood = R"({
 "format": "ckpt-model-spec", "version": 1, "root": 0,
 "objects": [
  {"id": 0, "kind": "object", "children": [{"name": "model", "id": 1}, {"name": "optimizer", "id": 4}]},
  {"id": 1, "children": [{"name": "kernel", "id": 2}, {"name": "bias", "id": 3}, {"name": "alias", "id": 3}]},
  {"id": 2, "kind": "variable", "dtype": "float32", "shape": [2, 2], "initial_value": [[1, 2], [3, 4]], "name": "dense/kernel"},
  {"id": 3, "kind": "variable", "dtype": "DT_INT64", "shape": [3], "initial_value": 7, "replicas": 2},
  {"id": 4, "kind": "optimizer", "slots": [{"variable": 2, "name": "m", "initial_value": 0.5}, {"variable": 3, "name": "m"}]}
 ]})";

}  // namespace

class TstModelSpec : public QObject {
    Q_OBJECT
private slots:
    void parsesGoodSpec() {
        auto root = parseModelSpec(kGood);
        QVERIFY2(root.ok(), root.status().toString().c_str());
        auto model = (*root)->child("model");
        QVERIFY(model);
        Variable* kernel = model->child("kernel")->asVariable();
        QVERIFY(kernel);
        QCOMPARE(kernel->shape(), (TensorShape{{2, 2}}));
        QCOMPARE(kernel->value().as<float>()[3], 4.0f);
        QCOMPARE(kernel->fullName(), std::string("dense/kernel"));
        Variable* bias = model->child("bias")->asVariable();
        QCOMPARE(bias->dtype(), DataType::Int64);
        QCOMPARE(bias->replicas(), 2);
        QCOMPARE(bias->value(1).as<int64_t>()[2], int64_t(7));
        QCOMPARE(model->child("alias").get(), model->child("bias").get());
        Optimizer* opt = (*root)->child("optimizer")->asOptimizer();
        QVERIFY(opt);
        QCOMPARE(opt->slot(*kernel, "m")->value().as<float>()[0], 0.5f);
        QVERIFY(opt->slot(*bias, "m"));
    }

    void roundTrip() {
        auto root = parseModelSpec(kGood);
        QVERIFY(root.ok());
        const std::string once = modelSpecJson(**root, true);
        auto again = parseModelSpec(once);
        QVERIFY2(again.ok(), again.status().toString().c_str());
        QCOMPARE(modelSpecJson(**again, true), once);
    }

    void badInput_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("fragment");
        auto row = [](const char* name, const char* spec, const char* fragment) {
            QTest::newRow(name) << QString::fromUtf8(spec) << QString::fromUtf8(fragment);
        };
        row("not json", "{\"objects\": [", "not valid JSON");
        // nlohmann reports a number beyond double as out_of_range, not a
        // parse_error (fuzz_model_spec, tests/fuzz/regressions/model_spec/).
        row("number beyond double", R"({"objects": [{"id": 1e999}]})", "not valid JSON: [json.exception.out_of_range.406]");
        row("not an object", "[1]", "$: expected an object, found an array");
        row("objects missing", "{}", "$.objects: missing");
        row("objects empty", R"({"objects": []})", "$.objects: empty");
        row("unknown top-level field", R"({"objcts": []})", "$.objcts: unknown field");
        row("object not an object", R"({"objects": [3]})", "$.objects[0]: expected an object, found an integer");
        row("id missing", R"({"objects": [{}]})", "$.objects[0].id: missing");
        row("id negative", R"({"objects": [{"id": -1}]})", "$.objects[0].id: expected a non-negative integer");
        row("duplicate id", R"({"objects": [{"id": 0}, {"id": 1}, {"id": 1}]})",
            "$.objects[2].id: duplicate id 1 (also $.objects[1])");
        row("unknown kind", R"({"objects": [{"id": 0, "kind": "layer"}]})", "$.objects[0].kind: unknown kind \"layer\"");
        row("unknown object field", R"({"objects": [{"id": 0, "chlidren": []}]})", "$.objects[0].chlidren: unknown field");
        row("dangling child",
            R"({"objects": [{"id": 0, "children": [{"name": "a", "id": 1}]}, {"id": 1, "children": [{"name": "b", "id": 2}, {"name": "c", "id": 9}]}, {"id": 2}]})",
            "$.objects[1].children[1].id: no object with id 9");
        row("duplicate local name",
            R"({"objects": [{"id": 0, "children": [{"name": "a", "id": 1}, {"name": "a", "id": 2}]}, {"id": 1}, {"id": 2}]})",
            "$.objects[0].children[1].name: duplicate local name \"a\" (also $.objects[0].children[0])");
        row("child name missing", R"({"objects": [{"id": 0, "children": [{"id": 0}]}]})",
            "$.objects[0].children[0].name: missing");
        row("self cycle", R"({"objects": [{"id": 0, "children": [{"name": "me", "id": 0}]}]})",
            "$.objects[0].children[0].id: cycle in the object graph: 0 -> 0");
        row("cycle",
            R"({"objects": [{"id": 0, "children": [{"name": "a", "id": 1}]}, {"id": 1, "children": [{"name": "b", "id": 2}]}, {"id": 2, "children": [{"name": "back", "id": 1}]}]})",
            "$.objects[2].children[0].id: cycle in the object graph: 1 -> 2 -> 1");
        row("slot to missing node", R"({"objects": [{"id": 0, "kind": "optimizer", "slots": [{"variable": 5, "name": "m"}]}]})",
            "$.objects[0].slots[0].variable: no object with id 5");
        row("slot to non-variable", R"({"objects": [{"id": 0, "kind": "optimizer", "slots": [{"variable": 0, "name": "m"}]}]})",
            "$.objects[0].slots[0].variable: object 0 is not a variable");
        row("slots on a plain object", R"({"objects": [{"id": 0, "slots": []}]})",
            "$.objects[0].slots: only optimizers have slots");
        row("unknown dtype", R"({"objects": [{"id": 0, "kind": "variable", "dtype": "float33"}]})",
            "$.objects[0].dtype: unknown dtype \"float33\"");
        row("dtype missing", R"({"objects": [{"id": 0, "kind": "variable"}]})", "$.objects[0].dtype: missing");
        row("bad dimension", R"({"objects": [{"id": 0, "kind": "variable", "dtype": "float32", "shape": [2, -1]}]})",
            "$.objects[0].shape[1]: expected a non-negative integer");
        row("value count",
            R"({"objects": [{"id": 0, "kind": "variable", "dtype": "float32", "shape": [3], "initial_value": [1, 2]}]})",
            "$.objects[0].initial_value: has 2 elements, shape [3] needs 3");
        row("value type", R"({"objects": [{"id": 0, "kind": "variable", "dtype": "int32", "shape": [], "initial_value": "x"}]})",
            "$.objects[0].initial_value: a string does not fit int32");
        row("dtype on an object", R"({"objects": [{"id": 0, "dtype": "float32"}]})",
            "$.objects[0].dtype: only variables have this field");
        row("root missing", R"({"root": 3, "objects": [{"id": 0}]})", "$.root: no object with id 3");
        row("wrong format", R"({"format": "keras", "objects": [{"id": 0}]})", "$.format: expected \"ckpt-model-spec\"");
    }
    void badInput() {
        QFETCH(QString, spec);
        QFETCH(QString, fragment);
        auto root = parseModelSpec(spec.toStdString(), "spec.json");
        QVERIFY(!root.ok());
        QCOMPARE(root.status().code(), StatusCode::InvalidArgument);
        const QString message = QString::fromStdString(root.status().message());
        QVERIFY2(message.startsWith(QStringLiteral("spec.json: ")), qPrintable(message));
        QVERIFY2(message.contains(fragment), qPrintable(message));
    }

    // The spec scanner against nlohmann's parser, the reference: where the
    // scanner reads a text it builds the same document; where it gives up,
    // nlohmann decides (its document, or its message). Rows marked "taken"
    // are texts the scanner must read itself, so it cannot pass by always
    // giving up.
    void scannerAgreesWithNlohmann_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("taken");
        const auto row = [](const char* name, const QByteArray& text, bool taken) { QTest::newRow(name) << text << taken; };
        row("good spec", kGood, true);
        row("scalars", R"([null, true, false, 0, -0, 1, -1, 0.5, -2.5e-3, 1E+2, 18446744073709551615, -9223372036854775808])",
            true);
        row("escapes", "[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u0000\\u00e9\\u20ac\\ud83d\\ude00\", \"\\u0041\"]", true);
        row("utf-8", "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f\"]", true);
        row("repeated key", R"({"a": 1, "b": {"a": [], "c": {}}, "a": 2})", true);
        row("whitespace and bom", "\xef\xbb\xbf \t\r\n{ \"x\" : [ 1 , 2 ] }\n", true);
        row("deep nesting", QByteArray(5000, '[') + QByteArray(5000, ']'), true);
        row("unsigned overflow", "[18446744073709551616]", false);
        row("signed overflow", "[-9223372036854775809]", false);
        row("double overflow", "[1e999]", false);
        row("double underflow", "[1e-400]", false);
        row("lone low surrogate", "[\"\\udc00\"]", false);
        row("lone high surrogate", "[\"\\ud800x\"]", false);
        row("overlong utf-8", "[\"\xc0\xaf\"]", false);
        row("surrogate in utf-8", "[\"\xed\xa0\x80\"]", false);
        row("truncated utf-8", "[\"\xe2\x82\"]", false);
        row("control character", "[\"a\x01\"]", false);
        row("bad escape", "[\"\\x\"]", false);
        row("leading zero", "[01]", false);
        row("trailing comma", "[1,]", false);
        row("trailing garbage", "{} x", false);
        row("bare minus", "[-]", false);
        row("dot without digits", "[1.]", false);
        row("literal prefix", "[tru]", false);
        row("unterminated", R"({"objects": [)", false);
        row("empty", "", false);
        row("half bom", "\xef\xbb{}", false);
    }
    void scannerAgreesWithNlohmann() {
        QFETCH(QByteArray, text);
        QFETCH(bool, taken);
        const std::string_view view(text.constData(), static_cast<size_t>(text.size()));
        auto scanned = spec::SpecJson::parseWith(view, true);
        auto reference = spec::SpecJson::parseWith(view, false);
        QCOMPARE(scanned.ok(), taken);
        if (scanned.ok()) {
            QVERIFY2(reference.ok(), reference.status().toString().c_str());
            QVERIFY((*scanned)->identical(**reference));
        }
        // What parse() answers is nlohmann's answer either way.
        auto parsed = spec::SpecJson::parse(view);
        QCOMPARE(parsed.ok(), reference.ok());
        if (parsed.ok()) QVERIFY((*parsed)->identical(**reference));
        else QCOMPARE(parsed.status().message(), reference.status().message());
    }

    // The spec of every real checkpoint (with its values: floats, strings),
    // as `ckpt spec --values` writes it, is read by the scanner into
    // nlohmann's document.
    void scannerReadsRealSpecs() {
        if (ckpt::testing::realTestDataDir().isEmpty()) {
            if (ckpt::testing::isRequired("CKPT_REQUIRE_REAL")) QFAIL(ckpt::testing::missingCorpusMessage());
            QSKIP("no real corpus");
        }
        int specs = 0;
        for (const QString& dir : ckpt::testing::realBundleDirs()) {
            const std::string prefix = ckpt::testing::manifestPrefix(dir, ckpt::testing::loadJson(dir + "/manifest.json"));
            auto checkpoint = Checkpoint::open(prefix);
            if (!checkpoint) continue;  // the corpus holds damaged bundles on purpose
            auto program = programFromCheckpoint(**checkpoint);
            if (!program) continue;
            auto status = restoreCheckpoint(*checkpoint, *program);
            if (!status || !status->initializeOrRestore().isOk()) continue;
            for (bool values : {false, true}) {
                const std::string text = modelSpecJson(**program, values);
                auto scanned = spec::SpecJson::parseWith(text, true);
                QVERIFY2(scanned.ok(), qPrintable(dir));
                auto reference = spec::SpecJson::parseWith(text, false);
                QVERIFY2(reference.ok(), qPrintable(dir));
                QVERIFY2((*scanned)->identical(**reference), qPrintable(dir));
                ++specs;
            }
        }
        QVERIFY(specs >= 10);
    }

    void missingFile() {
        auto root = loadModelSpec("/nonexistent/spec.json");
        QVERIFY(!root.ok());
        QCOMPARE(root.status().code(), StatusCode::NotFound);
    }
};

QTEST_GUILESS_MAIN(TstModelSpec)
#include "tst_model_spec.moc"

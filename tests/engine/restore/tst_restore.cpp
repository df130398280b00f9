// Restore: matching by local names, deferred restore-on-create, slot
// variables, replicas, name-based checkpoints, assignment maps, and the
// load-status assertions' verdicts and messages.

#include <QTemporaryDir>
#include <QtTest>

#include "bundle_fixture.h"

#include <nlohmann/json.hpp>

#include <regex>
#include <set>
#include <sstream>

#include "ckpt/checkpoint.h"
#include "ckpt/json_writer.h"
#include "ckpt/model_spec.h"
#include "ckpt/restore.h"
#include "test_support.h"

using namespace ckpt;
using nlohmann::json;

namespace {

struct Program {
    std::shared_ptr<Trackable> root;
    std::shared_ptr<Trackable> model;
    std::shared_ptr<Optimizer> optimizer;
    std::map<std::string, std::shared_ptr<Variable>> vars;  // "dense1/kernel" -> variable
};

// root -> model -> dense{1,2} -> {kernel [3,2], bias [2]}; root -> optimizer with slots m, v.
Program makeProgram(float base, bool withOptimizer = true, bool withSlots = true,
                    const std::vector<std::string>& layers = {"dense1", "dense2"}) {
    Program p;
    p.root = Trackable::makeObject();
    p.model = Trackable::makeObject();
    (void)p.root->addChild("model", p.model);
    float fill = base;
    for (const std::string& layer : layers) {
        auto dense = Trackable::makeObject();
        (void)p.model->addChild(layer, dense);
        auto kernel = Variable::fromTensor(testing::floatTensor({{3, 2}}, fill++));
        auto bias = Variable::fromTensor(testing::floatTensor({{2}}, fill++));
        kernel->setFullName("model/" + layer + "/kernel");
        bias->setFullName("model/" + layer + "/bias");
        (void)dense->addChild("kernel", kernel);
        (void)dense->addChild("bias", bias);
        p.vars[layer + "/kernel"] = kernel;
        p.vars[layer + "/bias"] = bias;
    }
    if (withOptimizer) {
        p.optimizer = Optimizer::make();
        (void)p.root->addChild("optimizer", p.optimizer);
        if (withSlots)
            for (auto& [name, v] : p.vars) {
                p.optimizer->createSlot(*v, "m")->mutableValue() = testing::floatTensor(v->shape(), fill + 10);
                p.optimizer->createSlot(*v, "v")->mutableValue() = testing::floatTensor(v->shape(), fill + 20);
            }
    }
    return p;
}

float firstFloat(const Variable& v, int replica = 0) { return v.value(replica).as<float>()[0]; }

std::set<std::string> unresolvedWithAttributes(const MatchReport& r) {
    std::set<std::string> out;
    for (const CheckpointNodeMatch& n : r.checkpointNodes)
        if (n.hasAttributes && (n.state == NodeMatchState::Unresolved || n.state == NodeMatchState::PendingSlot))
            out.insert(n.path);
    return out;
}

QString msg(const Status& s) { return QString::fromStdString(s.toString()); }

}  // namespace

class TstRestore : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_saved;  // checkpoint of makeProgram(1)

    std::string path(const char* name) const { return (m_dir.path() + QLatin1Char('/') + QLatin1String(name)).toStdString(); }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_saved = path("saved");
        Program p = makeProgram(1);
        QVERIFY2(testing::writeProgramCheckpoint(m_saved, p.root).isOk(), "writing the fixture checkpoint");
    }

    void identicalProgramPassesAll() {
        Program p = makeProgram(100);
        auto status = restoreCheckpoint(m_saved, p.root);
        QVERIFY2(status.ok(), status.status().toString().c_str());
        QVERIFY2(status->assertConsumed().isOk(), msg(status->assertConsumed()).toUtf8());
        QVERIFY(status->assertExistingObjectsMatched().isOk());
        QVERIFY(status->assertNontrivialMatch().isOk());
        QCOMPARE(firstFloat(*p.vars["dense1/kernel"]), 1.0f);
        QCOMPARE(firstFloat(*p.vars["dense2/bias"]), 4.0f);
        QCOMPARE(firstFloat(*p.optimizer->slot(*p.vars["dense1/kernel"], "m")), 15.0f);
        QVERIFY(status->warnings().empty());
        const MatchReport r = status->report();
        QCOMPARE(r.unresolvedNodes, 0);
        QCOMPARE(r.unboundObjects, 0);
    }

    void layerRemovedFailsConsumedOnly() {
        Program p = makeProgram(100, true, true, {"dense1"});
        auto status = restoreCheckpoint(m_saved, p.root);
        QVERIFY(status.ok());
        QVERIFY(status->assertExistingObjectsMatched().isOk());
        QVERIFY(status->assertNontrivialMatch().isOk());
        const AssertionVerdict v = status->verdict(Assertion::Consumed);
        QVERIFY(!v.passed);
        QCOMPARE(v.status.code(), StatusCode::FailedPrecondition);
        QVERIFY2(v.status.message().rfind("Unresolved object in checkpoint (root).model.dense2.", 0) == 0,
                 v.status.message().c_str());
        QCOMPARE(v.namedPaths.size(), size_t(1));
        const std::set<std::string> expected{"(root).model.dense2.kernel",
                                             "(root).model.dense2.bias",
                                             "(root).optimizer's state 'm' for (root).model.dense2.kernel",
                                             "(root).optimizer's state 'v' for (root).model.dense2.kernel",
                                             "(root).optimizer's state 'm' for (root).model.dense2.bias",
                                             "(root).optimizer's state 'v' for (root).model.dense2.bias"};
        QCOMPARE(unresolvedWithAttributes(status->report()), expected);
        QCOMPARE(status->warnings().size(), size_t(6));
        status->expectPartial();
        QVERIFY(status->warnings().empty());
    }

    void extraVariableFailsExisting() {
        Program p = makeProgram(100);
        auto extra = Variable::make(DataType::Float, TensorShape{{4}});
        QVERIFY(p.model->addChild("extra", extra).isOk());
        auto status = restoreCheckpoint(m_saved, p.root);
        QVERIFY(status.ok());
        const AssertionVerdict v = status->verdict(Assertion::ExistingObjectsMatched);
        QVERIFY(!v.passed);
        QCOMPARE(v.namedPaths, std::vector<std::string>{"(root).model.extra"});
        QVERIFY2(v.status.message().find("Found 1 Python objects that were not bound to checkpointed values") == 0,
                 v.status.message().c_str());
        QVERIFY(v.status.message().find(
                    "Showing 1 of 1 unmatched objects: [<ckpt.Variable '(root).model.extra' shape=(4,) dtype=float32>]") !=
                std::string::npos);
        QVERIFY(!status->assertConsumed().isOk());
        QVERIFY(status->assertNontrivialMatch().isOk());
    }

    void manyUnboundShowsTen() {
        auto root = Trackable::makeObject();
        for (int i = 0; i < 12; ++i) QVERIFY(root->addChild("v" + std::to_string(i), Variable::make(DataType::Float, {})).isOk());
        auto status = restoreCheckpoint(m_saved, root);
        QVERIFY(status.ok());
        const AssertionVerdict v = status->verdict(Assertion::ExistingObjectsMatched);
        QVERIFY(v.status.message().find("Found 12 Python objects") == 0);
        QVERIFY(v.status.message().find("Showing 10 of 12 unmatched objects") != std::string::npos);
        QCOMPARE(v.namedPaths.size(), size_t(10));
        const AssertionVerdict n = status->verdict(Assertion::NontrivialMatch);
        QVERIFY(n.status.message().find("Nothing except the root object matched a checkpointed value.") == 0);
        QCOMPARE(n.namedPaths.size(), size_t(12));
    }

    void emptyTargetNothingToLoad() {
        auto root = Trackable::makeObject();
        auto status = restoreCheckpoint(m_saved, root);
        QVERIFY(status.ok());
        const Status s = status->assertNontrivialMatch();
        QVERIFY(!s.isOk());
        QVERIFY2(s.message().find("Nothing to load. No dependencies have been added to <ckpt.Object '(root)'> yet.") == 0,
                 s.message().c_str());
        QVERIFY(status->assertExistingObjectsMatched().isOk());
        QVERIFY(!status->assertConsumed().isOk());
    }

    void mismatch_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QList<qint64>>("shape");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("dtype") << int(DataType::Double) << QList<qint64>{3, 2} << QStringLiteral("dtype mismatch");
        QTest::newRow("shape") << int(DataType::Float) << QList<qint64>{4, 2} << QStringLiteral("shape mismatch");
    }
    void mismatch() {
        QFETCH(int, dtype);
        QFETCH(QList<qint64>, shape);
        QFETCH(QString, fragment);
        auto root = Trackable::makeObject();
        auto model = Trackable::makeObject();
        auto dense = Trackable::makeObject();
        TensorShape s;
        for (qint64 d : shape) s.dims.push_back(d);
        auto kernel = Variable::make(static_cast<DataType>(dtype), s);
        QVERIFY(dense->addChild("kernel", kernel).isOk());
        QVERIFY(model->addChild("dense1", dense).isOk());
        QVERIFY(root->addChild("model", model).isOk());
        auto status = restoreCheckpoint(m_saved, root);
        QVERIFY(status.ok());
        QCOMPARE(status->restoreErrors().size(), size_t(1));
        const Status e = status->restoreErrors().front();
        QCOMPARE(e.code(), StatusCode::InvalidArgument);
        QVERIFY2(QString::fromStdString(e.message()).startsWith(fragment), e.message().c_str());
        // Both sides are named: the checkpoint node and key, and the program variable.
        QVERIFY(e.message().find("(root).model.dense1.kernel (checkpoint key model/dense1/kernel/.ATTRIBUTES/VARIABLE_VALUE) is "
                                 "DT_FLOAT [3, 2]") != std::string::npos);
        QVERIFY(e.message().find("program variable (root).model.dense1.kernel is " + std::string(dataTypeName(kernel->dtype())) +
                                 " " + s.toString()) != std::string::npos);
        for (Assertion a : {Assertion::Consumed, Assertion::ExistingObjectsMatched, Assertion::NontrivialMatch})
            QCOMPARE(status->check(a).code(), StatusCode::InvalidArgument);
        const MatchReport r = status->report();
        QCOMPARE(r.mismatches, 1);
    }

    void deferredRestoreOnCreate() {
        Program p = makeProgram(100, true, false, {"dense1"});
        auto status = restoreCheckpoint(m_saved, p.root);
        QVERIFY(status.ok());
        QVERIFY(!status->assertConsumed().isOk());
        // Slots of dense1 were created on restore, as TensorFlow's eager optimizers do.
        QCOMPARE(firstFloat(*p.optimizer->slot(*p.vars["dense1/kernel"], "m")), 15.0f);
        Program later = makeProgram(200, false, false, {"dense2"});
        auto dense2 = later.model->child("dense2");
        QVERIFY(p.model->addChild("dense2", dense2).isOk());
        QCOMPARE(firstFloat(*later.vars["dense2/kernel"]), 3.0f);
        QCOMPARE(firstFloat(*later.vars["dense2/bias"]), 4.0f);
        QCOMPARE(firstFloat(*p.optimizer->slot(*later.vars["dense2/bias"], "v")), 25.0f);
        QVERIFY2(status->assertConsumed().isOk(), msg(status->assertConsumed()).toUtf8());
        // Nested deferral: a container added empty, its variable later.
        auto root = Trackable::makeObject();
        auto st2 = restoreCheckpoint(m_saved, root);
        QVERIFY(st2.ok());
        auto model = Trackable::makeObject();
        QVERIFY(root->addChild("model", model).isOk());
        auto dense = Trackable::makeObject();
        QVERIFY(model->addChild("dense1", dense).isOk());
        auto kernel = Variable::make(DataType::Float, TensorShape{{3, 2}});
        QVERIFY(dense->addChild("kernel", kernel).isOk());
        QCOMPARE(firstFloat(*kernel), 1.0f);
    }

    void slotsCreatedLater() {
        Program p = makeProgram(100, true, false);
        RestoreOptions options;
        options.createSlotsOnRestore = false;
        auto status = restoreCheckpoint(m_saved, p.root, options);
        QVERIFY(status.ok());
        QVERIFY(!p.optimizer->slot(*p.vars["dense1/kernel"], "m"));
        MatchReport r = status->report();
        int pending = 0;
        for (const CheckpointNodeMatch& n : r.checkpointNodes) pending += n.state == NodeMatchState::PendingSlot;
        QCOMPARE(pending, 8);
        QVERIFY(status->assertConsumed().message().find("Unresolved object in checkpoint (root).optimizer's state '") == 0);
        for (auto& [name, v] : p.vars) {
            p.optimizer->createSlot(*v, "m");
            p.optimizer->createSlot(*v, "v");
        }
        QCOMPARE(firstFloat(*p.optimizer->slot(*p.vars["dense2/kernel"], "m")), 15.0f);
        QVERIFY2(status->assertConsumed().isOk(), msg(status->assertConsumed()).toUtf8());
    }

    void skipSlotVariables() {
        Program p = makeProgram(100, true, false);
        RestoreOptions options;
        options.skipSlotVariables = true;
        options.createSlotsOnRestore = false;
        auto status = restoreCheckpoint(m_saved, p.root, options);
        QVERIFY(status.ok());
        QVERIFY2(status->assertConsumed().isOk(), msg(status->assertConsumed()).toUtf8());
    }

    void replicated() {
        // Replicated checkpoint into a plain variable: component 0 loads; the
        // others are ignored, not unused (a TensorFlow variable restores as
        // one saveable reading only its VARIABLE_VALUE: assert_consumed()
        // passes there, restore_scenarios.py checks the like with "extra").
        auto root = Trackable::makeObject();
        auto v = Variable::make(DataType::Float, TensorShape{{2}}, 3);
        for (int r = 0; r < 3; ++r) v->mutableValue(r) = testing::floatTensor({{2}}, float(r + 1));
        QVERIFY(root->addChild("w", v).isOk());
        const std::string prefix = path("replicated");
        QVERIFY(testing::writeProgramCheckpoint(prefix, root).isOk());

        auto plainRoot = Trackable::makeObject();
        auto plain = Variable::make(DataType::Float, TensorShape{{2}});
        QVERIFY(plainRoot->addChild("w", plain).isOk());
        auto status = restoreCheckpoint(prefix, plainRoot);
        QVERIFY(status.ok());
        QCOMPARE(firstFloat(*plain), 1.0f);
        QVERIFY(status->assertExistingObjectsMatched().isOk());
        QVERIFY2(status->assertConsumed().isOk(), msg(status->assertConsumed()).toUtf8());
        QCOMPARE(status->report().checkpointNodes[1].state, NodeMatchState::Matched);

        // Replicated into replicated: every component.
        auto backRoot = Trackable::makeObject();
        auto back = Variable::make(DataType::Float, TensorShape{{2}}, 3);
        QVERIFY(backRoot->addChild("w", back).isOk());
        auto st2 = restoreCheckpoint(prefix, backRoot);
        QVERIFY(st2.ok());
        QVERIFY(st2->assertConsumed().isOk());
        QCOMPARE(firstFloat(*back, 2), 3.0f);

        // Plain checkpoint into a replicated variable: VARIABLE_VALUE reaches every replica.
        const std::string plainPrefix = path("plain");
        plain->mutableValue() = testing::floatTensor({{2}}, 7);
        QVERIFY(testing::writeProgramCheckpoint(plainPrefix, plainRoot).isOk());
        auto st3 = restoreCheckpoint(plainPrefix, backRoot);
        QVERIFY(st3.ok());
        QVERIFY(st3->assertConsumed().isOk());
        QCOMPARE(firstFloat(*back, 0), 7.0f);
        QCOMPARE(firstFloat(*back, 2), 7.0f);
    }

    void assignmentMap() {
        // Checkpoint: encoder/dense/kernel. Program: model/encoder/dense/kernel.
        auto saved = Trackable::makeObject();
        auto enc = Trackable::makeObject();
        auto dense = Trackable::makeObject();
        QVERIFY(dense->addChild("kernel", Variable::fromTensor(testing::floatTensor({{2}}, 9))).isOk());
        QVERIFY(enc->addChild("dense", dense).isOk());
        QVERIFY(saved->addChild("encoder", enc).isOk());
        QVERIFY(saved->addChild("head", Variable::fromTensor(testing::floatTensor({{1}}, 5))).isOk());
        const std::string prefix = path("encoder");
        QVERIFY(testing::writeProgramCheckpoint(prefix, saved).isOk());

        auto root = Trackable::makeObject();
        auto model = Trackable::makeObject();
        auto enc2 = Trackable::makeObject();
        auto dense2 = Trackable::makeObject();
        auto kernel = Variable::make(DataType::Float, TensorShape{{2}});
        QVERIFY(dense2->addChild("kernel", kernel).isOk());
        QVERIFY(enc2->addChild("dense", dense2).isOk());
        QVERIFY(model->addChild("encoder", enc2).isOk());
        QVERIFY(root->addChild("model", model).isOk());
        auto head = Variable::make(DataType::Float, TensorShape{{1}});
        QVERIFY(root->addChild("head", head).isOk());

        auto unmapped = restoreCheckpoint(prefix, root);
        QVERIFY(unmapped.ok());
        QVERIFY(!unmapped->assertExistingObjectsMatched().isOk());

        auto mapping = parsePathMapping("encoder/=model/encoder/");
        QVERIFY(mapping.ok());
        RestoreOptions options;
        options.assignmentMap = {*mapping};
        auto status = restoreCheckpoint(prefix, root, options);
        QVERIFY2(status.ok(), status.status().toString().c_str());
        QVERIFY2(status->assertConsumed().isOk(), msg(status->assertConsumed()).toUtf8());
        QCOMPARE(firstFloat(*kernel), 9.0f);
        QCOMPARE(firstFloat(*head), 5.0f);
        QVERIFY(status->report().unmatchedMappings.empty());
        // The tree's spellings work too: "(root).a.b", and "a.b" (dots, no '/').
        for (const PathMapping& m :
             {PathMapping{"(root).encoder", "(root).model.encoder"}, PathMapping{"encoder.dense", "model.encoder.dense"},
              PathMapping{"encoder", "model.encoder"}}) {
            kernel->mutableValue() = testing::floatTensor({{2}}, 0);
            options.assignmentMap = {m};
            auto st2 = restoreCheckpoint(prefix, root, options);
            QVERIFY(st2.ok());
            QVERIFY2(st2->report().unmatchedMappings.empty(), (m.from + "=" + m.to).c_str());
            QCOMPARE(firstFloat(*kernel), 9.0f);
        }
    }

    // An entry that moves nothing is reported, not silently ignored
    // (tf.train.init_from_checkpoint raises for one); the others still apply.
    void assignmentMapThatMatchesNothing() {
        Program p = makeProgram(100);
        RestoreOptions options;
        options.assignmentMap = {{"model.dense_nope", "model.dense1"}, {"(root).nothing", "x"}, {"model/dense1", "model/dense1"}};
        auto status = restoreCheckpoint(m_saved, p.root, options);
        QVERIFY2(status.ok(), status.status().toString().c_str());
        const std::vector<std::string> unmatched = status->report().unmatchedMappings;
        QCOMPARE(unmatched.size(), size_t(2));
        QVERIFY2(unmatched[0].find("\"model.dense_nope=model.dense1\" matches nothing") != std::string::npos,
                 unmatched[0].c_str());
        QVERIFY2(unmatched[1].find("\"(root).nothing=x\"") != std::string::npos, unmatched[1].c_str());
        QVERIFY(matchReportJson(status->report()).find("\"unmatched_mappings\":[\"assignment map") != std::string::npos);

        // Name-based checkpoints: variable-name prefixes that match no tensor.
        const std::string tf1 = path("tf1-unmatched");
        QVERIFY(testing::writeTestBundle(tf1, {{"model/dense1/kernel", testing::floatTensor({{3, 2}}, 4)}}).isOk());
        options.assignmentMap = {{"model/dense7/", "model/dense1/"}};
        auto named = restoreCheckpoint(tf1, makeProgram(100, false, false, {"dense1"}).root, options);
        QVERIFY(named.ok());
        QCOMPARE(named->report().unmatchedMappings.size(), size_t(1));
        QVERIFY(named->report().unmatchedMappings[0].find("no variable name \"model/dense7/\"") != std::string::npos);
    }

    void assignmentMapCollision() {
        Program p = makeProgram(100);
        RestoreOptions options;
        options.assignmentMap = {{"model/dense1", "model/dense2"}};
        auto status = restoreCheckpoint(m_saved, p.root, options);
        QVERIFY(!status.ok());
        QCOMPARE(status.status().code(), StatusCode::InvalidArgument);
        QVERIFY2(status.status().message().find("both restore into \"model/dense2\"") != std::string::npos,
                 status.status().message().c_str());
        QVERIFY(!parsePathMapping("no-equals-sign").ok());
        // A tree path with an empty name names nothing: refused, pointing at the key syntax.
        for (const char* bad : {"model..dense1", "model.", ".model", "(root)model"}) {
            options.assignmentMap = {{bad, "x"}};
            auto refused = restoreCheckpoint(m_saved, p.root, options);
            QVERIFY2(!refused.ok(), bad);
            QCOMPARE(refused.status().code(), StatusCode::InvalidArgument);
        }
        options.assignmentMap = {{"(root)", "(root)"}};
        QVERIFY(restoreCheckpoint(m_saved, p.root, options).ok());
    }

    void initializationOnly() {
        Program p = makeProgram(100);
        LoadStatus status = initializationOnlyStatus(p.root);
        QCOMPARE(status.kind(), LoadStatus::Kind::InitializationOnly);
        for (Assertion a : {Assertion::Consumed, Assertion::ExistingObjectsMatched, Assertion::NontrivialMatch})
            QCOMPARE(QString::fromStdString(status.check(a).message()),
                     QStringLiteral("No checkpoint specified (save_path=None); nothing is being restored."));
        QVERIFY(status.initializeOrRestore().isOk());
        QCOMPARE(firstFloat(*p.vars["dense1/kernel"]), 100.0f);
    }

    void matchOnlyReadsNothing() {
        Program p = makeProgram(100);
        RestoreOptions options;
        options.readValues = false;
        auto status = restoreCheckpoint(m_saved, p.root, options);
        QVERIFY(status.ok());
        QVERIFY(status->assertConsumed().isOk());
        QCOMPARE(firstFloat(*p.vars["dense1/kernel"]), 100.0f);
    }

    void savedModelDirectory() {
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("sm/variables")));
        QVERIFY(testing::writeAll(m_dir.path() + QStringLiteral("/sm/saved_model.pb"), QByteArray()));
        Program saved = makeProgram(1);
        QVERIFY(testing::writeProgramCheckpoint(path("sm/variables/variables"), saved.root).isOk());
        Program p = makeProgram(100);
        auto status = restoreCheckpoint(path("sm"), p.root);
        QVERIFY2(status.ok(), status.status().toString().c_str());
        QVERIFY(status->assertConsumed().isOk());
    }

    void nameBased() {
        // A TF1 checkpoint: plain keys, no object graph.
        const std::string prefix = path("tf1");
        QVERIFY(testing::writeTestBundle(prefix, {{"model/dense1/kernel", testing::floatTensor({{3, 2}}, 4)},
                                                  {"global_step", testing::floatTensor({}, 1)}})
                    .isOk());
        Program p = makeProgram(100, false, false, {"dense1"});
        auto status = restoreCheckpoint(prefix, p.root);
        QVERIFY(status.ok());
        QCOMPARE(status->kind(), LoadStatus::Kind::NameBased);
        QCOMPARE(firstFloat(*p.vars["dense1/kernel"]), 4.0f);
        // model/dense1/bias is not in the checkpoint: all three assertions fail alike.
        for (Assertion a : {Assertion::Consumed, Assertion::ExistingObjectsMatched, Assertion::NontrivialMatch}) {
            const AssertionVerdict v = status->verdict(a);
            QVERIFY(!v.passed);
            QVERIFY2(v.status.message().find("Some objects had attributes which were not restored: \n    "
                                             "<ckpt.Variable '(root).model.dense1.bias' shape=(2,) dtype=float32>: "
                                             "['model/dense1/bias']") == 0,
                     v.status.message().c_str());
            QCOMPARE(v.namedPaths, std::vector<std::string>{"(root).model.dense1.bias"});
        }
        // Variables added later are restored by name too.
        auto late = Variable::make(DataType::Float, {});
        late->setFullName("global_step");
        QVERIFY(p.root->addChild("step", late).isOk());
        QCOMPARE(firstFloat(*late), 1.0f);
        // A mapping renames checkpoint variables.
        Program q = makeProgram(100, false, false, {"dense9"});
        auto kernel = q.vars["dense9/kernel"];
        RestoreOptions options;
        options.assignmentMap = {{"model/dense1/", "model/dense9/"}};
        auto st2 = restoreCheckpoint(prefix, q.root, options);
        QVERIFY(st2.ok());
        QCOMPARE(firstFloat(*kernel), 4.0f);
    }

    void reportJson() {
        Program p = makeProgram(100, true, true, {"dense1"});
        auto status = restoreCheckpoint(m_saved, p.root);
        QVERIFY(status.ok());
        const json j = json::parse(matchReportJson(status->report()));
        QCOMPARE(j["style"], "object-based");
        QCOMPARE(j["assertions"]["assert_consumed"]["passed"], false);
        QCOMPARE(j["assertions"]["assert_existing_objects_matched"]["passed"], true);
        QCOMPARE(j["summary"]["unresolved_nodes"], 6);
        QVERIFY(j["checkpoint_nodes"].size() > 10);
        QVERIFY(j["program_objects"].size() > 5);
    }

    // matchReportJson streams its text; it must be byte for byte what
    // nlohmann prints for the same document (the CLI's and the Python
    // package's output before it streamed), compact and indented, with
    // escapes, invalid UTF-8 and every optional member.
    void reportJsonIsNlohmannsDump() {
        Program p = makeProgram(100, true, true, {"dense1"});
        auto status = restoreCheckpoint(m_saved, p.root);
        QVERIFY(status.ok());
        MatchReport r = status->report();
        r.checkpointNodes[1].path = "tab\there \"quoted\" \xff\xfe bad utf-8 \xc3\xa9";
        r.checkpointNodes[1].attributes.push_back({"VARIABLE_VALUE", "key\x01", DataType::Invalid, {}, false, true, "boom"});
        r.programObjects[0].path = std::string("nul\0byte", 8);
        r.restoreErrors.push_back(dataLoss("bad \xc0 bytes"));
        r.warnings = {"w1", ""};
        r.unmatchedMappings = {"m"};
        r.verdicts.push_back(r.verdicts.front());  // a repeated assertion: the last one counts
        r.verdicts.back().passed = true;
        for (int indent : {-1, 0, 1, 2}) {
            const std::string text = matchReportJson(r, indent);
            QCOMPARE(text, json::parse(text).dump(indent, ' ', false, json::error_handler_t::replace));
        }
        QVERIFY(matchReportJson(r, 1).find("\"error\": \"boom\"") != std::string::npos);
        QCOMPARE(json::parse(matchReportJson(r))["assertions"]["assert_consumed"]["passed"], true);
    }

    // streamReport hands out one reused row at a time (issue #34): the
    // rows must not carry anything over from the row before (a bound
    // node's program path, a variable's dtype), and the calls come in
    // order with the counts at the end.
    void streamedReportRowsStandAlone() {
        struct Recorder final : MatchReportSink {
            std::string calls;
            MatchReport head, summary;
            std::vector<CheckpointNodeMatch> nodes;
            std::vector<ProgramObjectMatch> objects;
            void begin(const MatchReport& h) override {
                calls += 'b';
                head = h;
            }
            void checkpointNode(const CheckpointNodeMatch& n) override {
                calls += 'n';
                nodes.push_back(n);
            }
            void programObject(const ProgramObjectMatch& o) override {
                calls += 'o';
                objects.push_back(o);
            }
            void end(const MatchReport& s) override {
                calls += 'e';
                summary = s;
            }
        };
        // dense2 is missing from the program (unresolved nodes after bound
        // ones), dense3 is new (unbound variables after bound objects).
        Program p = makeProgram(100, true, true, {"dense1", "dense3"});
        RestoreOptions options;
        options.readValues = false;
        auto status = restoreCheckpoint(m_saved, p.root, options);
        QVERIFY(status.ok());
        Recorder rec;
        status->streamReport(rec);
        QVERIFY(std::regex_match(rec.calls, std::regex("bn+o+e")));
        QVERIFY(rec.head.checkpointNodes.empty() && rec.head.programObjects.empty() && rec.head.matchedNodes == 0);
        QCOMPARE(rec.head.style, std::string("object-based"));
        int unresolved = 0;
        for (const CheckpointNodeMatch& n : rec.nodes) {
            const bool bound = n.state != NodeMatchState::Unresolved && n.state != NodeMatchState::PendingSlot;
            QCOMPARE(n.programPath.empty(), !bound);
            for (const AttributeMatch& a : n.attributes) QCOMPARE(a.restored, bound);
            if (!bound && n.hasAttributes) ++unresolved;
        }
        QVERIFY(unresolved > 0);
        QCOMPARE(rec.summary.unresolvedNodes, unresolved);
        int unbound = 0;
        for (const ProgramObjectMatch& o : rec.objects) {
            const bool variable = o.kind == ProgramObjectKind::Variable || o.kind == ProgramObjectKind::SlotVariable;
            QCOMPARE(o.dtype == DataType::Invalid, !variable);
            QCOMPARE(o.shape.dims.empty(), !variable);
            QCOMPARE(o.checkpointNode >= 0, o.bound);
            if (o.hasAttributes && !o.bound) ++unbound;
        }
        QVERIFY(unbound > 0);
        QCOMPARE(rec.summary.unboundObjects, unbound);
        // report() is the same stream, kept; the JSON sink prints what
        // matchReportJson prints for it.
        MatchReport whole = rec.summary;
        whole.checkpointNodes = rec.nodes;
        whole.programObjects = rec.objects;
        const MatchReport r = status->report();
        QCOMPARE(matchReportJson(whole, 1), matchReportJson(r, 1));
        std::ostringstream streamed;
        {
            JsonWriter out(streamed, 1);
            out.beginObject();
            MatchReportJsonSink sink(out);
            status->streamReport(sink);
            out.endObject();
            out.flush();
        }
        QCOMPARE(streamed.str(), matchReportJson(r, 1));
    }

    // Real bundles --------------------------------------------------------

    void realBundlesIntoThemselves_data() {
        QTest::addColumn<QString>("dir");
        if (testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& d : testing::realBundleDirs()) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }
    void realBundlesIntoThemselves() {
        QFETCH(QString, dir);
        auto ckpt = Checkpoint::open(dir.toStdString());
        QVERIFY2(ckpt.ok(), ckpt.status().toString().c_str());
        auto tmpl = programFromCheckpoint(**ckpt);
        QVERIFY2(tmpl.ok(), tmpl.status().toString().c_str());
        // Through the spec file format, as `ckpt spec` + `ckpt restore --into spec.json` would.
        auto program = parseModelSpec(modelSpecJson(**tmpl));
        QVERIFY2(program.ok(), program.status().toString().c_str());
        auto status = restoreCheckpoint(*ckpt, *program);
        QVERIFY2(status.ok(), status.status().toString().c_str());
        for (Assertion a : {Assertion::Consumed, Assertion::ExistingObjectsMatched, Assertion::NontrivialMatch}) {
            const Status s = status->check(a);
            QVERIFY2(s.isOk(), (std::string(assertionName(a)) + ": " + s.toString()).c_str());
        }
        // Values arrived: every bound variable equals its stored tensor.
        const MatchReport r = status->report();
        QCOMPARE(r.unresolvedNodes, 0);
        QCOMPARE(r.unboundObjects, 0);
        int restored = 0;
        for (const ProgramObjectMatch& o : r.programObjects) restored += o.restored;
        QVERIFY(restored > 0);
    }

    void realBundleLayerRemoved_data() {
        QTest::addColumn<QString>("dir");
        if (testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& d : testing::realBundleDirs()) {
            auto ckpt = Checkpoint::open(d.toStdString());
            if (ckpt.ok() && (*ckpt)->objectGraph()) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
        }
    }
    void realBundleLayerRemoved() {
        QFETCH(QString, dir);
        auto ckpt = Checkpoint::open(dir.toStdString());
        QVERIFY(ckpt.ok());
        const ObjectGraph& g = *(*ckpt)->objectGraph();
        // Remove the first root child edge whose loss leaves values unreachable
        // (Keras graphs alias layers under two names, so not every edge counts).
        auto tmpl = programFromCheckpoint(**ckpt);
        QVERIFY(tmpl.ok());
        json spec = json::parse(modelSpecJson(**tmpl));
        json& rootChildren = spec["objects"][0]["children"];
        // Nodes with values that are unreachable without root edge 'removed'.
        auto unreachable = [&g](const std::string& removed) {
            std::vector<char> reached(static_cast<size_t>(g.size()), 0);
            std::vector<int32_t> queue{0};
            reached[0] = 1;
            for (size_t i = 0; i < queue.size(); ++i)
                for (const ObjectChild& c : g.node(queue[i]).children) {
                    if (queue[i] == 0 && c.localName == removed) continue;
                    if (!reached[static_cast<size_t>(c.nodeId)]) {
                        reached[static_cast<size_t>(c.nodeId)] = 1;
                        queue.push_back(c.nodeId);
                    }
                }
            // Slots are reached when both their optimizer and their variable are.
            for (const ObjectNode& n : g.nodes())
                for (const SlotVariableRef& s : n.slotVariables)
                    reached[static_cast<size_t>(s.slotVariableNodeId)] =
                        reached[static_cast<size_t>(n.id)] && reached[static_cast<size_t>(s.originalVariableNodeId)];
            std::vector<int32_t> out;
            for (const ObjectNode& n : g.nodes())
                if (!n.attributes.empty() && !reached[static_cast<size_t>(n.id)]) out.push_back(n.id);
            return out;
        };
        std::vector<int32_t> lost;
        for (size_t i = 0; i < rootChildren.size(); ++i) {
            lost = unreachable(rootChildren[i]["name"].get<std::string>());
            if (lost.empty()) continue;
            rootChildren.erase(i);
            break;
        }
        QVERIFY2(!lost.empty(), "the corpus checkpoint has no root child whose removal loses values");
        std::set<std::string> expected;
        for (int32_t id : lost) expected.insert(g.displayName(id));
        const int32_t first = lost.front();
        auto program = parseModelSpec(spec.dump());
        QVERIFY2(program.ok(), program.status().toString().c_str());
        auto status = restoreCheckpoint(*ckpt, *program);
        QVERIFY(status.ok());
        QVERIFY2(status->assertExistingObjectsMatched().isOk(), msg(status->assertExistingObjectsMatched()).toUtf8());
        const AssertionVerdict v = status->verdict(Assertion::Consumed);
        QVERIFY(!v.passed);
        QCOMPARE(v.namedPaths, std::vector<std::string>{g.displayName(first)});
        QCOMPARE(unresolvedWithAttributes(status->report()), expected);
    }

    void realBundleExtraVariable() {
        if (testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& d : testing::realBundleDirs()) {
            auto ckpt = Checkpoint::open(d.toStdString());
            QVERIFY(ckpt.ok());
            auto program = programFromCheckpoint(**ckpt);
            QVERIFY(program.ok());
            QVERIFY((*program)->addChild("zz_extra", Variable::make(DataType::Float, TensorShape{{2}})).isOk());
            auto status = restoreCheckpoint(*ckpt, *program);
            QVERIFY(status.ok());
            const AssertionVerdict v = status->verdict(Assertion::ExistingObjectsMatched);
            QVERIFY2(!v.passed, qPrintable(d));
            if ((*ckpt)->objectGraph()) {
                QCOMPARE(v.namedPaths, std::vector<std::string>{"(root).zz_extra"});
                QVERIFY(status->assertNontrivialMatch().isOk());
            } else {
                QCOMPARE(v.namedPaths, std::vector<std::string>{"(root).zz_extra"});  // name-based: its fallback name is unknown
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstRestore)
#include "tst_restore.moc"

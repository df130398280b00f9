// Interop: restore verdicts against real TensorFlow. tests/interop/restore_scenarios.py
// (run with $CKPT_PYTHON, a Python with tensorflow) writes checkpoints, restores
// them into modified programs with tf.train.Checkpoint.read() and records which
// assertions pass and which paths their messages name; it also emits every
// program as a model spec. We restore the same checkpoint into the same spec
// and must reach identical verdicts naming the same paths. Finally
// `ckpt restore --out` writes the restored program and TensorFlow must load it
// (values equal the source's) and restore it with assert_consumed().

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <set>

#include "ckpt/checkpoint.h"
#include "ckpt/model_spec.h"
#include "ckpt/restore.h"
#include "test_support.h"

using namespace ckpt;
using nlohmann::json;

namespace {

std::shared_ptr<Trackable> findByPath(const std::shared_ptr<Trackable>& root, const std::string& path) {
    if (path == "(root)") return root;
    if (path.rfind("(root).", 0) != 0) return nullptr;
    std::shared_ptr<Trackable> at = root;
    size_t start = 7;
    while (at) {
        const size_t dot = path.find('.', start);
        at = at->child(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return at;
}

std::set<std::string> asSet(const json& paths) {
    std::set<std::string> out;
    for (const json& p : paths) out.insert(p.get<std::string>());
    return out;
}

}  // namespace

class TstRestoreInterop : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    json m_doc;

private slots:
    void initTestCase() {
        const QString python = qEnvironmentVariable("CKPT_PYTHON");
        if (python.isEmpty())
            CKPT_MISSING_PYTHON(
                "CKPT_PYTHON is not set: these checks need a Python with tensorflow (scripts/test.sh sets it; "
                "locally e.g. CKPT_PYTHON=/work/main/.venv/bin/python)");
        QVERIFY(m_dir.isValid());
        const auto run = ckpt::testing::runInteropScript(QStringLiteral("restore_scenarios.py"), m_dir.path());
        QVERIFY2(run.ok, run.log.right(4000).constData());
        m_doc = ckpt::testing::loadJson(m_dir.path() + QStringLiteral("/scenarios.json"));
        QVERIFY(m_doc["scenarios"].size() >= 10);
    }

    void sameVerdictsAsTensorFlow_data() {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < m_doc["scenarios"].size(); ++i)
            QTest::newRow(m_doc["scenarios"][i]["name"].get<std::string>().c_str()) << int(i);
    }
    void sameVerdictsAsTensorFlow() {
        QFETCH(int, index);
        const json& sc = m_doc["scenarios"][static_cast<size_t>(index)];
        const std::string prefix = m_dir.path().toStdString() + "/" + sc["checkpoint"].get<std::string>();
        auto ckpt = Checkpoint::open(prefix);
        QVERIFY2(ckpt.ok(), ckpt.status().toString().c_str());
        auto program = parseModelSpec(sc["spec"].dump(), sc["name"].get<std::string>());
        QVERIFY2(program.ok(), program.status().toString().c_str());
        auto status = restoreCheckpoint(*ckpt, *program);
        QVERIFY2(status.ok(), status.status().toString().c_str());
        for (const json& add : sc["additions"]) {
            auto parent = findByPath(*program, add["parent"].get<std::string>());
            QVERIFY2(parent, add["parent"].get<std::string>().c_str());
            auto subtree = parseModelSpec(add["spec"].dump());
            QVERIFY2(subtree.ok(), subtree.status().toString().c_str());
            QVERIFY(parent->addChild(add["name"].get<std::string>(), *subtree).isOk());
        }
        const json& expect = sc["expect"];
        const bool tfRaised = expect["restore_error"].get<bool>();
        QVERIFY2(tfRaised == !status->restoreErrors().empty(),
                 (std::string("TensorFlow ") + (tfRaised ? "raised: " + expect["error"].get<std::string>() : "did not raise") +
                  "; we " + (status->restoreErrors().empty() ? "did not" : "did: " + status->restoreErrors().front().toString()))
                     .c_str());
        if (tfRaised) return;
        const std::pair<const char*, Assertion> checks[] = {{"consumed", Assertion::Consumed},
                                                            {"existing", Assertion::ExistingObjectsMatched},
                                                            {"nontrivial", Assertion::NontrivialMatch}};
        for (const auto& [key, assertion] : checks) {
            const json& theirs = expect["assertions"][key];
            const AssertionVerdict ours = status->verdict(assertion);
            const std::string context = std::string(key) +
                                        "\n  TensorFlow: " + theirs["message"].get<std::string>().substr(0, 600) +
                                        "\n  ours:       " + ours.status.message().substr(0, 600);
            QVERIFY2(theirs["passed"].get<bool>() == ours.passed, context.c_str());
            const std::set<std::string> ourPaths(ours.namedPaths.begin(), ours.namedPaths.end());
            QVERIFY2(asSet(theirs["named_paths"]) == ourPaths, context.c_str());
            // Same kind of message: the text up to the first path or count agrees.
            const std::string tfMessage = theirs["message"];
            const std::string head = tfMessage.substr(0, std::min<size_t>(tfMessage.find_first_of("(<0123456789"), 40));
            QVERIFY2(ours.status.message().rfind(head, 0) == 0, context.c_str());
        }
    }

    // Where TensorFlow's restore raises, `ckpt restore` fails too (exit 1)
    // and names the error; where it does not, no restore error is printed.
    void cliFailsWhereTensorFlowRaises_data() {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < m_doc["scenarios"].size(); ++i)
            if (m_doc["scenarios"][i]["additions"].empty())
                QTest::newRow(m_doc["scenarios"][i]["name"].get<std::string>().c_str()) << int(i);
    }
    void cliFailsWhereTensorFlowRaises() {
        QFETCH(int, index);
        const json& sc = m_doc["scenarios"][static_cast<size_t>(index)];
        const QString name = QString::fromStdString(sc["name"].get<std::string>());
        const QString spec = m_dir.filePath(name + QStringLiteral("_spec.json"));
        QVERIFY(ckpt::testing::writeAll(spec, QByteArray::fromStdString(sc["spec"].dump())));
        const auto run = ckpt::testing::runCkpt(
            {QStringLiteral("restore"), m_dir.filePath(QString::fromStdString(sc["checkpoint"].get<std::string>())),
             QStringLiteral("--into"), spec, QStringLiteral("--no-record"), QStringLiteral("--json")});
        const bool tfRaised = sc["expect"]["restore_error"].get<bool>();
        const json report = json::parse(run.out.toStdString(), nullptr, false);
        QVERIFY2(report.is_object(), (run.out + run.err).constData());
        QCOMPARE(report["restore_errors"].empty(), !tfRaised);
        if (tfRaised) QVERIFY2(run.exitCode == 1, (run.out + run.err).constData());
    }

    void tensorFlowRestoresOut() {
        const json* identical = nullptr;
        for (const json& sc : m_doc["scenarios"])
            if (sc["name"] == "identical") identical = &sc;
        QVERIFY(identical);
        const QString spec = m_dir.filePath(QStringLiteral("identical_spec.json"));
        QVERIFY(ckpt::testing::writeAll(spec, QByteArray::fromStdString((*identical)["spec"].dump())));
        const QString source = m_dir.filePath(QString::fromStdString((*identical)["checkpoint"].get<std::string>()));
        const QString out = m_dir.filePath(QStringLiteral("restored_out/ckpt"));
        QProcess cli;
        cli.start(ckpt::testing::binaryDir() + QStringLiteral("/app/cli/ckpt"),
                  {QStringLiteral("restore"), source, QStringLiteral("--into"), spec, QStringLiteral("--assert"),
                   QStringLiteral("consumed"), QStringLiteral("--out"), out});
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, (cli.readAllStandardOutput() + cli.readAllStandardError()).constData());

        QProcess py;
        py.setProcessChannelMode(QProcess::MergedChannels);
        py.start(qEnvironmentVariable("CKPT_PYTHON"),
                 {ckpt::testing::sourceDir() + QStringLiteral("/tests/interop/restore_scenarios.py"),
                  QStringLiteral("--check-restored"), out, source});
        QVERIFY2(py.waitForFinished(300000), "restore_scenarios.py --check-restored timed out");
        const QByteArray log = py.readAll();
        QVERIFY2(py.exitStatus() == QProcess::NormalExit && py.exitCode() == 0, log.right(4000).constData());
        const json result = json::parse(log.mid(log.lastIndexOf("{\"prefix\"")).toStdString());
        QCOMPARE(result["ok"], true);
        QVERIFY(result["compared"].get<int>() >= 4);
        QVERIFY(result["slots"].get<int>() > 0);
    }
};

QTEST_GUILESS_MAIN(TstRestoreInterop)
#include "tst_restore_interop.moc"

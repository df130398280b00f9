// Interop: checkpoint surgery (`ckpt merge`, `ckpt merge --average`, `ckpt
// edit`) on checkpoints TensorFlow writes, read back by TensorFlow.
// tests/interop/surgery_fixtures.py (run with $CKPT_PYTHON, a Python with
// tensorflow) writes the sources and lists the cases: the arguments, whether
// the command must succeed, the fragments its error must name. Here every
// case runs through the built CLI; the sources' bytes must be unchanged
// after it, a result must pass `ckpt verify`, a refusal must leave nothing
// at the destination, an average's notes name every tensor it took from
// the latest source, and its "base" names that source and its step. Then the script, with --check, reads every result
// with TensorFlow: exactly the expected keys, values equal to numpy's
// (averages in float64, cast to the dtype), and a restore into the program
// the result stands for with assert_consumed().

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "interop_judge.h"
#include "test_support.h"

using nlohmann::json;

namespace {

QStringList arguments(const json& args) {
    QStringList out;
    for (const json& a : args) out << QString::fromStdString(a.get<std::string>());
    return out;
}

// SHA-256 of every file of a checkpoint prefix (PREFIX.index,
// PREFIX.data-*), and of its directory's `checkpoint` state file, by name.
std::map<QString, QByteArray> hashPrefix(const QString& prefix) {
    std::map<QString, QByteArray> out;
    const QFileInfo info(prefix);
    const QDir dir = info.dir();
    const QString stem = info.fileName() + QLatin1Char('.');
    for (const QFileInfo& f : dir.entryInfoList(QDir::Files)) {
        if (!f.fileName().startsWith(stem) && f.fileName() != QLatin1String("checkpoint")) continue;
        QCryptographicHash h(QCryptographicHash::Sha256);
        h.addData(ckpt::testing::readAll(f.filePath()));
        out[f.filePath()] = h.result().toHex();
    }
    return out;
}

std::map<QString, QByteArray> hashAll(const json& prefixes) {
    std::map<QString, QByteArray> out;
    for (const json& p : prefixes) out.merge(hashPrefix(QString::fromStdString(p.get<std::string>())));
    return out;
}

}  // namespace

class TstSurgeryInterop : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    json m_doc;
    json m_checks;

    const json& caseAt(int index) const { return m_doc["cases"][static_cast<size_t>(index)]; }

private slots:
    void initTestCase() {
        if (qEnvironmentVariable("CKPT_PYTHON").isEmpty())
            CKPT_MISSING_PYTHON(
                "CKPT_PYTHON is not set: these checks need a Python with tensorflow (scripts/test.sh sets it; "
                "locally e.g. CKPT_PYTHON=/work/main/.venv/bin/python)");
        QVERIFY(m_dir.isValid());
        const auto cases =
            ckpt::testing::writeCases(QStringLiteral("surgery_fixtures.py"), m_dir.path(), QStringLiteral("surgery.json"));
        QVERIFY2(cases.ok, cases.log.right(4000).constData());
        m_doc = cases.json;
        QVERIFY(m_doc["cases"].size() >= 20);
    }

    // Each case through `ckpt`: the exit status; a refusal names what its
    // case lists; a result verifies; a --json run prints one JSON object;
    // the sources' files are byte for byte what they were.
    void cliCases_data() { ckpt::testing::addCaseRows(m_doc); }
    void cliCases() {
        QFETCH(int, index);
        const json& c = caseAt(index);
        const auto before = hashAll(c["unchanged"]);
        QVERIFY(!before.empty());
        const QStringList args = arguments(c["args"]);
        const auto run = ckpt::testing::runCkpt(args);
        const QByteArray log = ckpt::testing::cliRunLog(args, run);
        QCOMPARE(hashAll(c["unchanged"]), before);
        if (c["ok"].get<bool>()) {
            QVERIFY2(run.exitCode == 0, log.constData());
        } else {
            QVERIFY2(run.exitCode != 0, log.constData());
            for (const json& fragment : c["errors"])
                QVERIFY2((run.out + run.err).contains(QByteArray::fromStdString(fragment.get<std::string>())),
                         ("the error does not name " + fragment.get<std::string>() + "\n" + log.toStdString()).c_str());
        }
        if (args.contains(QStringLiteral("--json")) && run.exitCode == 0) {
            const json out = json::parse(run.out.toStdString(), nullptr, false);
            QVERIFY2(out.is_object(), log.constData());
            // An average names every tensor it took from the latest source.
            std::string notes;
            for (const json& n : out.value("notes", json::array())) notes += n.get<std::string>() + "\n";
            for (const json& key : c.value("notes", json::array()))
                QVERIFY2(notes.find(key.get<std::string>()) != std::string::npos,
                         ("no note names " + key.get<std::string>() + "\n" + log.toStdString()).c_str());
            // An average says which source its step comes from, and the step.
            if (c.contains("base")) {
                QVERIFY2(out.contains("base"), log.constData());
                QCOMPARE(out["base"]["prefix"].get<std::string>(), c["base"].get<std::string>());
                QCOMPARE(out["base"]["step"], c["base_step"]);
            }
        }
        for (const json& fragment : c.value("stdout", json::array()))
            QVERIFY2(run.out.contains(QByteArray::fromStdString(fragment.get<std::string>())), log.constData());
        if (c.contains("dst") && c["ok"].get<bool>()) {
            const auto verify = ckpt::testing::runCkpt({QStringLiteral("verify"), QString::fromStdString(c["dst"])});
            QVERIFY2(verify.exitCode == 0, (verify.out + verify.err).constData());
        }
    }

    // TensorFlow reads every result (surgery_fixtures.py --check).
    void tensorFlowReadsResults() {
        const auto judged = ckpt::testing::judgeOutputs(QStringLiteral("surgery_fixtures.py"), m_dir.path());
        QVERIFY2(judged.ok, judged.log.right(4000).constData());
        m_checks = judged.json;
    }

    // One row per case, its problems listed.
    void tensorFlowChecks_data() { ckpt::testing::addCaseRows(m_doc, /*judgedOnly=*/true); }
    void tensorFlowChecks() {
        QFETCH(int, index);
        const std::string failure = ckpt::testing::judgedCaseFailure(m_checks, caseAt(index)["name"]);
        QVERIFY2(failure.empty(), failure.c_str());
    }
};

QTEST_GUILESS_MAIN(TstSurgeryInterop)
#include "tst_surgery_interop.moc"

// `ckpt demo-train DIR --world N`: each checkpoint saved by N real processes
// (ckpt/distributed_save.h), started by ckpt itself or one by one with
// --rank or a launcher's variables, in a directory and on the loopback S3
// server. TensorFlow restores the result (tf.train.Checkpoint with
// assert_consumed); --world 1 writes today's single-process bytes; the
// bucket holds the same bytes as the directory; an absent rank makes rank
// 0 fail within --commit-timeout naming it, nothing committed, and a rerun
// succeeds; launcher variables that disagree are refused. With --no-commit
// the ranks leave each commit to a separate `ckpt merge --save-id`, whose
// index is byte for byte rank 0's, and which names a missing rank.

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>

#include <nlohmann/json.hpp>

#include "s3_test_server.h"
#include "storage/dispatch.h"
#include "test_support.h"

using namespace ckpt;
using nlohmann::json;

namespace {

QString ckptBinary() { return testing::binaryDir() + QStringLiteral("/app/cli/ckpt"); }

// One rank started by hand, as a launcher would, with extra variables.
std::unique_ptr<QProcess> startRank(const QStringList& args, const QMap<QString, QString>& env = {}) {
    auto p = std::make_unique<QProcess>();
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (auto it = env.begin(); it != env.end(); ++it) e.insert(it.key(), it.value());
    p->setProcessEnvironment(e);
    p->start(ckptBinary(), args);
    return p;
}

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

// The bytes of a file in a directory or on the bucket ("<missing>" if absent).
QByteArray anyFileBytes(const QString& path) {
    if (!path.startsWith(QLatin1String("s3://"))) return fileBytes(path);
    auto bytes = storage::readSmallFile(path.toStdString());
    return bytes.ok() ? QByteArray::fromStdString(*bytes) : QByteArray("<missing>");
}

QStringList demoWorld(const QString& dir, int world, const QString& runId) {
    return {QStringLiteral("demo-train"),   dir,
            QStringLiteral("--world"),      QString::number(world),
            QStringLiteral("--steps"),      QStringLiteral("20"),
            QStringLiteral("--save-every"), QStringLiteral("20"),
            QStringLiteral("--run-id"),     runId};
}

QStringList checkpointFiles(const QString& dir) {
    return QDir(dir).entryList({QStringLiteral("ckpt-*")}, QDir::Files | QDir::Hidden, QDir::Name);
}

}  // namespace

class TstCliDemoTrainWorld : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    std::string m_s3Root;
    QString path(const QString& name) const { return m_tmp.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QString why;
        const auto root = testing::s3RootThroughDispatch("tst_cli_demo_train_world", &why);
        QVERIFY2(root.has_value(), qPrintable(why));
        m_s3Root = *root;
    }

    // ckpt starts the 4 ranks itself; TensorFlow restores what they saved.
    void fourRanksStartedByCkpt() {
        const QString dir = path(QStringLiteral("spawned"));
        const auto run = testing::runCkpt({QStringLiteral("demo-train"), dir, QStringLiteral("--world"), QStringLiteral("4"),
                                           QStringLiteral("--steps"), QStringLiteral("40"), QStringLiteral("--save-every"),
                                           QStringLiteral("20"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const json out = json::parse(run.out.toStdString());
        QCOMPARE(out["ok"].get<bool>(), true);
        QCOMPARE(out["world"].get<int>(), 4);
        QCOMPARE(out["ranks"].size(), size_t(4));
        for (int r = 0; r < 4; ++r) {
            QCOMPARE(out["ranks"][size_t(r)]["exit_code"].get<int>(), 0);
            QCOMPARE(out["ranks"][size_t(r)]["result"]["rank"].get<int>(), r);
            QCOMPARE(out["ranks"][size_t(r)]["result"]["run_id"], out["run_id"]);
            QCOMPARE(out["ranks"][size_t(r)]["result"]["saves"].size(), size_t(2));
        }
        QVERIFY(QFile::exists(dir + "/ckpt-2.data-00003-of-00004"));
        QCOMPARE(checkpointFiles(dir).size(), 10);  // 2 x (index + 4 data files): no parts area left
        QVERIFY(QDir(dir).entryList({QStringLiteral(".*parts*")}, QDir::AllEntries | QDir::Hidden).isEmpty());
        const auto verify = testing::runCkpt({QStringLiteral("verify"), dir});
        QVERIFY2(verify.exitCode == 0, verify.out.constData());
        const auto latest = testing::runCkpt({QStringLiteral("latest"), dir});
        QVERIFY(latest.out.trimmed().endsWith("ckpt-2"));
        // The same run again: refused, what is there untouched.
        const QByteArray data = fileBytes(dir + "/ckpt-1.data-00002-of-00004");
        const auto again = testing::runCkpt({QStringLiteral("demo-train"), dir, QStringLiteral("--world"), QStringLiteral("4"),
                                             QStringLiteral("--steps"), QStringLiteral("40"), QStringLiteral("--save-every"),
                                             QStringLiteral("20"), QStringLiteral("--json")});
        QCOMPARE(again.exitCode, 1);
        const json refused = json::parse(again.out.toStdString());
        QCOMPARE(refused["ok"].get<bool>(), false);
        QCOMPARE(refused["error"]["code"].get<std::string>(), std::string("AlreadyExists"));
        QCOMPARE(fileBytes(dir + "/ckpt-1.data-00002-of-00004"), data);

        const QByteArray python = qgetenv("CKPT_PYTHON");
        if (python.isEmpty()) CKPT_MISSING_PYTHON("CKPT_PYTHON is not set: no Python with TensorFlow to check interop against");
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(QString::fromLocal8Bit(python),
                {testing::sourceDir() + QStringLiteral("/tests/interop/tf_restore_check.py"), dir + "/ckpt-1", dir + "/ckpt-2"});
        QVERIFY(p.waitForFinished(240000));
        const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        for (const QByteArray& line : lines) QVERIFY2(json::parse(line.toStdString())["ok"].get<bool>(), line.constData());
        QCOMPARE(p.exitCode(), 0);
    }

    // One writer is today's single-process save, byte for byte.
    void oneRankIsTheSingleProcessSave() {
        const QString one = path(QStringLiteral("one")), plain = path(QStringLiteral("plain"));
        QCOMPARE(testing::runCkpt({QStringLiteral("demo-train"), one, QStringLiteral("--world"), QStringLiteral("1"),
                                   QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--save-every"),
                                   QStringLiteral("20")})
                     .exitCode,
                 0);
        QCOMPARE(testing::runCkpt({QStringLiteral("demo-train"), plain, QStringLiteral("--steps"), QStringLiteral("20"),
                                   QStringLiteral("--save-every"), QStringLiteral("20")})
                     .exitCode,
                 0);
        for (const char* name : {"ckpt-1.index", "ckpt-1.data-00000-of-00001"})
            QVERIFY2(fileBytes(one + "/" + name) == fileBytes(plain + "/" + name), name);
    }

    // Ranks started one by one (a launcher's job): flags and launcher variables.
    void ranksStartedByALauncher() {
        const QString dir = path(QStringLiteral("launched"));
        const QStringList common = {QStringLiteral("demo-train"),   dir,
                                    QStringLiteral("--world"),      QStringLiteral("3"),
                                    QStringLiteral("--steps"),      QStringLiteral("20"),
                                    QStringLiteral("--save-every"), QStringLiteral("20")};
        // torchrun's variables for ranks 0 and 1, a flag for rank 2.
        auto r0 = startRank(common, {{"RANK", "0"}, {"WORLD_SIZE", "3"}, {"TORCHELASTIC_RUN_ID", "job7"}});
        auto r1 = startRank(common, {{"RANK", "1"}, {"WORLD_SIZE", "3"}, {"TORCHELASTIC_RUN_ID", "job7"}});
        auto r2 = startRank(common + QStringList{QStringLiteral("--rank"), QStringLiteral("2"), QStringLiteral("--run-id"),
                                                 QStringLiteral("job7")});
        for (auto* p : {r0.get(), r1.get(), r2.get()}) {
            QVERIFY(p->waitForFinished(60000));
            QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
        }
        QVERIFY(QFile::exists(dir + "/ckpt-1.index"));
        QVERIFY(QFile::exists(dir + "/ckpt-1.data-00002-of-00003"));
        // Variables that contradict the flag, or themselves, are refused before anything is written.
        auto bad =
            startRank({QStringLiteral("demo-train"), path(QStringLiteral("bad")), QStringLiteral("--world"), QStringLiteral("2")},
                      {{"RANK", "3"}, {"WORLD_SIZE", "4"}});
        QVERIFY(bad->waitForFinished(60000));
        QCOMPARE(bad->exitCode(), 2);
        QVERIFY2(bad->readAllStandardError().contains("differs from torchrun's (RANK=3, WORLD_SIZE=4)"), "no reason");
        auto noRunId = startRank({QStringLiteral("demo-train"), path(QStringLiteral("bad")), QStringLiteral("--world"),
                                  QStringLiteral("2"), QStringLiteral("--rank"), QStringLiteral("1")});
        QVERIFY(noRunId->waitForFinished(60000));
        QCOMPARE(noRunId->exitCode(), 2);
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("bad"))));
    }

    // Rank 2 never starts: rank 0 gives up within --commit-timeout naming
    // it, nothing is committed, and a rerun (a new run id) commits.
    void absentRankFailsTheCommitNamingIt() {
        const QString dir = path(QStringLiteral("absent"));
        const QStringList common = {QStringLiteral("demo-train"),       dir,
                                    QStringLiteral("--world"),          QStringLiteral("3"),
                                    QStringLiteral("--steps"),          QStringLiteral("20"),
                                    QStringLiteral("--save-every"),     QStringLiteral("20"),
                                    QStringLiteral("--commit-timeout"), QStringLiteral("2")};
        QElapsedTimer timer;
        timer.start();
        auto r0 = startRank(common + QStringList{QStringLiteral("--rank"), QStringLiteral("0"), QStringLiteral("--run-id"),
                                                 QStringLiteral("a1"), QStringLiteral("--json")});
        auto r1 = startRank(common + QStringList{QStringLiteral("--rank"), QStringLiteral("1"), QStringLiteral("--run-id"),
                                                 QStringLiteral("a1")});
        QVERIFY(r0->waitForFinished(60000));
        const qint64 ms = timer.elapsed();
        QCOMPARE(r0->exitCode(), 1);
        const json error = json::parse(r0->readAllStandardOutput().toStdString());
        const std::string message = error["error"]["message"].get<std::string>();
        QVERIFY2(message.find("no done marker from rank 2 ") != std::string::npos, message.c_str());
        QVERIFY2(ms >= 2000 && ms < 15000, std::to_string(ms).c_str());
        QVERIFY(r1->waitForFinished(60000));
        QVERIFY(!QFile::exists(dir + "/ckpt-1.index"));
        QVERIFY(!QFile::exists(dir + "/checkpoint"));
        // The rerun, all three ranks started by ckpt.
        const auto rerun = testing::runCkpt({QStringLiteral("demo-train"), dir, QStringLiteral("--world"), QStringLiteral("3"),
                                             QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--save-every"),
                                             QStringLiteral("20")});
        QVERIFY2(rerun.exitCode == 0, rerun.err.constData());
        QCOMPARE(testing::runCkpt({QStringLiteral("verify"), dir}).exitCode, 0);
    }

    // Rank 2 is killed (SIGKILL) after the first checkpoint: rank 0's next
    // commit fails naming it within --commit-timeout, every checkpoint
    // before stays committed and whole, none after it has an index.
    void killedRankFailsTheNextCommit() {
        const QString dir = path(QStringLiteral("killed"));
        QStringList common = {QStringLiteral("demo-train"),
                              dir,
                              QStringLiteral("--world"),
                              QStringLiteral("3"),
                              QStringLiteral("--steps"),
                              QStringLiteral("200000"),
                              QStringLiteral("--save-every"),
                              QStringLiteral("400"),
                              QStringLiteral("--commit-timeout"),
                              QStringLiteral("3"),
                              QStringLiteral("--run-id"),
                              QStringLiteral("k1"),
                              QStringLiteral("--rank")};
        std::vector<std::unique_ptr<QProcess>> ranks;
        for (int r = 0; r < 3; ++r) ranks.push_back(startRank(common + QStringList{QString::number(r)}));
        QElapsedTimer timer;
        timer.start();
        while (!QFile::exists(dir + "/ckpt-1.index") && timer.elapsed() < 60000) QTest::qWait(20);
        QVERIFY(QFile::exists(dir + "/ckpt-1.index"));
        ::kill(static_cast<pid_t>(ranks[2]->processId()), SIGKILL);
        timer.restart();
        QVERIFY(ranks[0]->waitForFinished(60000));
        QCOMPARE(ranks[0]->exitCode(), 1);
        const QByteArray err = ranks[0]->readAllStandardError();
        QVERIFY2(err.contains("no done marker from rank 2 "), err.constData());
        QVERIFY2(timer.elapsed() < 15000, std::to_string(timer.elapsed()).c_str());
        ranks[1]->kill();
        for (auto& p : ranks) p->waitForFinished(60000);
        // Whatever committed is whole; the state file names only those.
        const auto verify = testing::runCkpt({QStringLiteral("verify"), dir});
        QVERIFY2(verify.exitCode == 0, verify.out.constData());
        const QStringList indexes = QDir(dir).entryList({QStringLiteral("*.index")}, QDir::Files);
        QVERIFY(!indexes.isEmpty());
        for (const QString& index : indexes) {
            const auto one = testing::runCkpt({QStringLiteral("verify"), dir + "/" + index});
            QVERIFY2(one.exitCode == 0, one.out.constData());
        }
        const auto list = testing::runCkpt({QStringLiteral("list"), dir});
        QCOMPARE(list.exitCode, 0);
        QCOMPARE(list.out.count("3 shard(s)"), indexes.size());
    }

    // --no-commit: the ranks only write their parts; `ckpt merge --save-id`
    // commits them as rank 0 would have, to the byte, in a directory and on
    // the bucket.
    void separateMergerCommits_data() {
        QTest::addColumn<bool>("remote");
        QTest::newRow("directory") << false;
        QTest::newRow("bucket") << true;
    }
    void separateMergerCommits() {
        QFETCH(bool, remote);
        const QString root = remote ? QString::fromStdString(m_s3Root + "merger") : path(QStringLiteral("merger"));
        const QString byRank0 = root + "/rank0", byMerger = root + "/apart";
        const auto committed = testing::runCkpt(demoWorld(byRank0, 3, QStringLiteral("m1")));
        QVERIFY2(committed.exitCode == 0, committed.err.constData());
        const auto written = testing::runCkpt(demoWorld(byMerger, 3, QStringLiteral("m1")) +
                                              QStringList{QStringLiteral("--no-commit"), QStringLiteral("--json")});
        QVERIFY2(written.exitCode == 0, written.err.constData());
        const json ranks = json::parse(written.out.toStdString());
        QCOMPARE(ranks["ranks"][0]["result"]["saves"][0]["save_id"].get<std::string>(), std::string("ckpt-1-m1"));
        QCOMPARE(ranks["ranks"][0]["result"]["committed_by_rank_0"].get<bool>(), false);
        // Nothing is committed until the merger runs.
        QCOMPARE(anyFileBytes(byMerger + "/ckpt-1.index"), QByteArray("<missing>"));
        QCOMPARE(testing::runCkpt({QStringLiteral("latest"), byMerger}).exitCode, 1);
        const auto merged = testing::runCkpt({QStringLiteral("merge"), byMerger + "/ckpt-1", QStringLiteral("--save-id"),
                                              QStringLiteral("ckpt-1-m1"), QStringLiteral("--world"), QStringLiteral("3"),
                                              QStringLiteral("--json")});
        QVERIFY2(merged.exitCode == 0, merged.err.constData());
        const json out = json::parse(merged.out.toStdString());
        QCOMPARE(out["committed"].get<bool>(), true);
        QCOMPARE(out["world"].get<int>(), 3);
        QCOMPARE(out["tensors"].get<int>(), 20);
        QCOMPARE(out["save_id"].get<std::string>(), std::string("ckpt-1-m1"));
        for (const char* name : {"ckpt-1.index", "ckpt-1.data-00000-of-00003", "ckpt-1.data-00002-of-00003"}) {
            const QByteArray bytes = anyFileBytes(byMerger + "/" + name);
            QVERIFY2(bytes != "<missing>" && bytes == anyFileBytes(byRank0 + "/" + name), name);
        }
        const auto verify = testing::runCkpt({QStringLiteral("verify"), byMerger});
        QVERIFY2(verify.exitCode == 0, verify.out.constData());
        QVERIFY(testing::runCkpt({QStringLiteral("latest"), byMerger}).out.trimmed().endsWith("ckpt-1"));
        // A second merger of the same save finds it committed and changes nothing.
        const auto again = testing::runCkpt({QStringLiteral("merge"), byMerger + "/ckpt-1", QStringLiteral("--save-id"),
                                             QStringLiteral("ckpt-1-m1"), QStringLiteral("--world"), QStringLiteral("3")});
        QCOMPARE(again.exitCode, 1);
        QVERIFY2(again.err.contains("AlreadyExists"), again.err.constData());
    }

    // A rank that never writes: the separate merger exits 1 within
    // --commit-timeout naming it, commits nothing and aborts the save; a
    // rerun (a new run id) commits.
    void separateMergerNamesAMissingRank() {
        const QString dir = QString::fromStdString(m_s3Root + "missing");
        for (int r = 0; r < 2; ++r) {
            const auto part =
                testing::runCkpt(demoWorld(dir, 3, QStringLiteral("x1")) +
                                 QStringList{QStringLiteral("--rank"), QString::number(r), QStringLiteral("--no-commit")});
            QVERIFY2(part.exitCode == 0, part.err.constData());
        }
        const QStringList merge = {QStringLiteral("merge"),
                                   dir + "/ckpt-1",
                                   QStringLiteral("--world"),
                                   QStringLiteral("3"),
                                   QStringLiteral("--commit-timeout"),
                                   QStringLiteral("2"),
                                   QStringLiteral("--json"),
                                   QStringLiteral("--save-id")};
        QElapsedTimer timer;
        timer.start();
        const auto failed = testing::runCkpt(merge + QStringList{QStringLiteral("ckpt-1-x1")});
        const qint64 ms = timer.elapsed();
        QCOMPARE(failed.exitCode, 1);
        const std::string message = json::parse(failed.out.toStdString())["error"]["message"].get<std::string>();
        QVERIFY2(message.find("no done marker from rank 2 ") != std::string::npos, message.c_str());
        QVERIFY2(ms >= 2000 && ms < 15000, std::to_string(ms).c_str());
        QCOMPARE(anyFileBytes(dir + "/ckpt-1.index"), QByteArray("<missing>"));
        QCOMPARE(anyFileBytes(dir + "/checkpoint"), QByteArray("<missing>"));
        // The abort marker stops a late rank 2 of that attempt at once.
        QVERIFY(anyFileBytes(dir + "/.ckpt-1.parts-ckpt-1-x1/abort-merger").contains("no done marker from rank 2"));
        const auto late =
            testing::runCkpt(demoWorld(dir, 3, QStringLiteral("x1")) +
                             QStringList{QStringLiteral("--rank"), QStringLiteral("2"), QStringLiteral("--no-commit")});
        QCOMPARE(late.exitCode, 1);
        QVERIFY2(late.err.contains("aborted by the merger"), late.err.constData());
        // The rerun: every rank, then the merger.
        const auto rerun = testing::runCkpt(demoWorld(dir, 3, QStringLiteral("x2")) + QStringList{QStringLiteral("--no-commit")});
        QVERIFY2(rerun.exitCode == 0, rerun.err.constData());
        const auto merged = testing::runCkpt(merge + QStringList{QStringLiteral("ckpt-1-x2")});
        QVERIFY2(merged.exitCode == 0, merged.out.constData());
        QCOMPARE(testing::runCkpt({QStringLiteral("verify"), dir}).exitCode, 0);
    }

    // On the bucket: the same bytes as in a directory, read back by list and verify.
    void fourRanksIntoTheBucket() {
        const QString remote = QString::fromStdString(m_s3Root + "w4");
        const QString dir = path(QStringLiteral("local4"));
        for (const QString& to : {remote, dir}) {
            const auto run = testing::runCkpt({QStringLiteral("demo-train"), to, QStringLiteral("--world"), QStringLiteral("4"),
                                               QStringLiteral("--steps"), QStringLiteral("40"), QStringLiteral("--save-every"),
                                               QStringLiteral("20")});
            QVERIFY2(run.exitCode == 0, run.err.constData());
        }
        const QStringList files = checkpointFiles(dir);
        QCOMPARE(files.size(), 10);
        for (const QString& name : files) {
            auto bytes = storage::readSmallFile((remote + "/" + name).toStdString());
            QVERIFY2(bytes.ok(), bytes.status().toString().c_str());
            QVERIFY2(QByteArray::fromStdString(*bytes) == fileBytes(dir + "/" + name), qPrintable(name));
        }
        const auto list = testing::runCkpt({QStringLiteral("list"), remote});
        QVERIFY2(list.exitCode == 0 && list.out.contains("ckpt-2  step 40") && list.out.contains("4 shard(s)"),
                 list.out.constData());
        QCOMPARE(testing::runCkpt({QStringLiteral("verify"), remote}).exitCode, 0);
        // No object of a parts area is left in the bucket (SeaweedFS may
        // still list the emptied prefix as a folder: docs/remote.md).
        std::vector<std::string> areas;
        QVERIFY(storage::list(remote.toStdString(), {}, [&](const storage::ListEntry& e) {
                    if (e.name.find(".parts-") != std::string::npos) areas.push_back(e.name);
                    return true;
                }).isOk());
        int leftover = 0;
        for (const std::string& area : areas)
            QVERIFY(storage::list(remote.toStdString() + "/" + area, {}, [&](const storage::ListEntry&) {
                        ++leftover;
                        return true;
                    }).isOk());
        QCOMPARE(leftover, 0);
    }
};

QTEST_GUILESS_MAIN(TstCliDemoTrainWorld)
#include "tst_cli_demo_train_world.moc"

// Writes to s3:// locations by several writers at once (docs/remote.md,
// "Writing"), against SeaweedFS on loopback: two saves of one checkpoint
// never both write it (a claim on the prefix, created only if absent), a
// claim whose writer is gone is taken over, a save never replaces a
// committed checkpoint, the state file is updated by compare-and-swap so
// that no writer's entry is lost, and saves killed at random points leave
// only committed checkpoints behind, which `ckpt gc` then cleans up after.

#include <QDir>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>

#include <nlohmann/json.hpp>

#include <set>
#include <thread>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_state.h"
#include "pipeline/save_claim.h"
#include "platform/clock.h"
#include "s3_test_server.h"
#include "storage/owner_token.h"
#include "test_support.h"

using namespace ckpt;
using Run = testing::CliRun;

class TstCliRemoteWrites : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    std::unique_ptr<objstore::ObjectClient> m_client;
    QTemporaryDir m_tmp;
    QString m_local;       // a local checkpoint to copy from: <tmp>/run/ckpt-1
    std::string m_prefix;  // this run's key prefix, "<test>/<random>/"

    QString url(const std::string& key) const {
        return QString::fromStdString("s3://" + m_server->bucket + "/" + m_prefix + key);
    }
    std::string key(const std::string& name) const { return m_prefix + name; }
    bool objectExists(const std::string& name) const { return m_client->stat({m_server->bucket, key(name)}).ok(); }
    std::set<std::string> keysUnder(const std::string& name) const {
        std::set<std::string> out;
        auto page = m_client->listAll(m_server->bucket, key(name), "", 100000);
        if (page.ok())
            for (const auto& o : page->objects) out.insert(o.key.substr(key(name).size()));
        return out;
    }
    QProcess* startCkpt(const QStringList& args) {
        auto* p = new QProcess(this);
        p->start(testing::binaryDir() + QStringLiteral("/app/cli/ckpt"), args);
        return p;
    }
    // SIGKILL to a child still running (never kill(0): a child that already
    // ended has process id 0, and that would kill this test's process group;
    // and waitForFinished() is false for a child that already ended).
    static void killNow(QProcess& p) {
        if (p.state() != QProcess::NotRunning && p.processId() > 0) ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    }
    void putClaim(const std::string& checkpoint, const nlohmann::json& claim) {
        const std::string body = claim.dump();
        QVERIFY(m_client->put({m_server->bucket, key(checkpoint + std::string(pipeline::kSaveClaimSuffix))}, body).ok());
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        testing::setStoreEnvironment(m_server->variables());
        m_client = testing::testClient(m_server->variables());
        QVERIFY(m_client);
        m_prefix = testing::uniquePrefix("tst_cli_remote_writes");
        const QString run = m_tmp.filePath(QStringLiteral("run"));
        QCOMPARE(testing::runCkpt({"demo-train", run, "--steps", "4", "--save-every", "4"}).exitCode, 0);
        m_local = run + QStringLiteral("/ckpt-1");
    }

    // Three writers of each destination at once, three times: exactly one
    // writes it, the others are refused before they touch a byte (before
    // the claim, a loser removed the winner's data files as it gave up, and
    // the winner's verify failed: "missing data shard").
    void concurrentSaversOfOneStep() {
        for (int round = 0; round < 3; ++round) {
            const QString dest = url("same/ckpt-" + std::to_string(round + 1));
            std::vector<QProcess*> writers;
            for (const char* shards : {"2", "2", "3"})
                writers.push_back(startCkpt({"reshard", m_local, dest, "--shards", shards}));
            int committed = 0;
            for (QProcess* p : writers) {
                QVERIFY(p->waitForFinished(120000));
                const QByteArray err = p->readAllStandardError();
                if (p->exitCode() == 0) {
                    ++committed;
                } else {
                    QVERIFY2(err.contains("is being saved by") || err.contains("a checkpoint exists at"), err.constData());
                }
            }
            QCOMPARE(committed, 1);
            const Run verify = testing::runCkpt({"verify", dest});
            QVERIFY2(verify.exitCode == 0, verify.err.constData());
            QVERIFY(!objectExists("same/ckpt-" + std::to_string(round + 1) + std::string(pipeline::kSaveClaimSuffix)));
        }
    }

    // A claim held by a live writer refuses the save, naming the holder, and
    // nothing is written; one whose writer has ended (this boot, a pid that
    // is gone) or that is older than kStaleClaimSeconds (another machine) is
    // taken over, and removed once the checkpoint is committed.
    void claims() {
        const storage::ProcessIdentity me = storage::thisProcess();
        putClaim("claims/live", {{"owner", me.token}, {"host", "testhost"}, {"claimed", platform::unixSeconds()}});
        const Run refused = testing::runCkpt({"reshard", m_local, url("claims/live"), "--shards", "2"});
        QVERIFY(refused.exitCode != 0);
        QVERIFY2(refused.err.contains("is being saved by a writer on testhost (pid " + QByteArray::number(qint64(me.pid))),
                 refused.err.constData());
        QCOMPARE(keysUnder("claims/live."), std::set<std::string>{"save-claim"});

        QProcess ended;
        ended.start(QStringLiteral("true"));
        QVERIFY(ended.waitForStarted());
        const qint64 deadPid = ended.processId();
        QVERIFY(ended.waitForFinished());
        putClaim("claims/dead", {{"owner", std::to_string(deadPid) + "-1-" + storage::bootPrefix()},
                                 {"host", "testhost"},
                                 {"claimed", platform::unixSeconds()}});
        putClaim("claims/old", {{"owner", "4242-1-0000beef"},
                                {"host", "elsewhere"},
                                {"claimed", platform::unixSeconds() - pipeline::kStaleClaimSeconds - 60}});
        for (const char* name : {"claims/dead", "claims/old"}) {
            const Run taken = testing::runCkpt({"reshard", m_local, url(name), "--shards", "2"});
            QVERIFY2(taken.exitCode == 0, taken.err.constData());
            QVERIFY(!objectExists(name + std::string(pipeline::kSaveClaimSuffix)));
            QCOMPARE(testing::runCkpt({"verify", url(name)}).exitCode, 0);
        }
    }

    // A run saved to the bucket is never overwritten by a second run into
    // the same directory (locally TensorFlow's manager replaces ckpt-1; on a
    // store the save refuses): the first run's checkpoints stay as they were.
    void secondRunNeverReplaces() {
        const QString run = url("twice");
        QCOMPARE(testing::runCkpt({"demo-train", run, "--steps", "8", "--save-every", "4"}).exitCode, 0);
        const Run before = testing::runCkpt({"list", run, "--json"});
        QCOMPARE(before.exitCode, 0);
        const Run again = testing::runCkpt({"demo-train", run, "--steps", "12", "--save-every", "4"});
        QVERIFY(again.exitCode != 0);
        QVERIFY2(again.err.contains("a checkpoint exists at " + run.toUtf8() + "/ckpt-1"), again.err.constData());
        const Run after = testing::runCkpt({"list", run, "--json"});
        QCOMPARE(after.out, before.out);
    }

    // --overwrite cannot be honoured on a store (a replacement could not be
    // written beside and swapped in): the destination rule refuses it as
    // cannot-replace before anything is written, and the checkpoint stays
    // (before, the refusal advised "--overwrite replaces it", and with it
    // the write was refused again, by another rule).
    void overwriteRefusedOnAStore() {
        const QString dest = url("kept/ckpt-1");
        QCOMPARE(testing::runCkpt({"reshard", m_local, dest, "--shards", "2"}).exitCode, 0);
        for (const char* flag : {"--json", "--overwrite"}) {
            const Run again = testing::runCkpt({"reshard", m_local, dest, "--shards", "3", "--json", flag});
            QCOMPARE(again.exitCode, 1);
            const nlohmann::json error = nlohmann::json::parse(again.out.toStdString())["error"];
            QCOMPARE(error["destination"]["problem"].get<std::string>(), std::string("cannot-replace"));
            QVERIFY2(!again.err.contains("--overwrite replaces it"), again.err.constData());
        }
        const Run verify = testing::runCkpt({"verify", dest, "--json"});
        QCOMPARE(verify.exitCode, 0);
        QVERIFY(objectExists("kept/ckpt-1.data-00001-of-00002") && !objectExists("kept/ckpt-1.data-00002-of-00003"));
    }

    // Eight threads, each adding its own entries to one state file on the
    // bucket through updateCheckpointState: every entry is there at the
    // end (a read-modify-write without the compare-and-swap loses some).
    void stateFileUpdatesAreNotLost() {
        const std::string dir = url("cas").toStdString();
        constexpr int kThreads = 8, kEach = 4;
        for (int i = 0; i < kThreads * kEach; ++i)
            QVERIFY(m_client->put({m_server->bucket, key("cas/ckpt-" + std::to_string(i) + ".index")}, "x").ok());
        std::vector<std::thread> threads;
        std::vector<Status> results(kThreads);
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                for (int k = 0; k < kEach && results[t].isOk(); ++k) {
                    const std::string name = "ckpt-" + std::to_string(t * kEach + k);
                    results[t] = updateCheckpointState(dir, [&](const std::optional<CheckpointState>& current) {
                        CheckpointState next = current.value_or(CheckpointState{});
                        next.allModelCheckpointPaths.push_back(name);
                        next.allModelCheckpointTimestamps.push_back(1.0);
                        next.modelCheckpointPath = name;
                        return std::optional<CheckpointState>(next);
                    });
                }
            });
        }
        for (auto& t : threads) t.join();
        for (const Status& s : results) QVERIFY2(s.isOk(), s.toString().c_str());
        auto state = readCheckpointState(dir);
        QVERIFY(state.ok() && *state);
        const std::set<std::string> listed((*state)->allModelCheckpointPaths.begin(), (*state)->allModelCheckpointPaths.end());
        QCOMPARE(listed.size(), size_t(kThreads * kEach));
        QCOMPARE((*state)->allModelCheckpointPaths.size(), size_t(kThreads * kEach));
    }

    // Retention over 200 checkpoints on the bucket, killed at a random
    // instant while it deletes, three times, then run to the end: the state
    // file is rewritten before anything is deleted, so at every instant it
    // names only checkpoints whose index is there, and `latest` verifies.
    void retentionKilledWhileDeleting() {
        const QDir run(m_local.left(m_local.lastIndexOf(QLatin1Char('/'))));
        const QByteArray index = testing::readAll(run.filePath(QStringLiteral("ckpt-1.index")));
        const QByteArray data = testing::readAll(run.filePath(QStringLiteral("ckpt-1.data-00000-of-00001")));
        constexpr int kCheckpoints = 200;
        std::string state = "model_checkpoint_path: \"ckpt-" + std::to_string(kCheckpoints) + "\"\n";
        for (int i = 1; i <= kCheckpoints; ++i) {
            const std::string name = "retention/ckpt-" + std::to_string(i);
            QVERIFY(m_client->put({m_server->bucket, key(name + ".index")}, std::string_view(index.data(), size_t(index.size())))
                        .ok());
            QVERIFY(m_client
                        ->put({m_server->bucket, key(name + ".data-00000-of-00001")},
                              std::string_view(data.data(), size_t(data.size())))
                        .ok());
            state += "all_model_checkpoint_paths: \"ckpt-" + std::to_string(i) + "\"\n";
        }
        QVERIFY(m_client->put({m_server->bucket, key("retention/checkpoint")}, state).ok());
        const QString dir = url("retention");
        const QStringList apply{"retention", "apply", dir, "--keep-latest", "5", "--adopt"};
        // What the plan keeps: every copy has the same step and nearly the
        // same time, so which five are the latest is the planner's business.
        const Run plan = testing::runCkpt({"retention", "plan", dir, "--keep-latest", "5", "--adopt", "--json"});
        QVERIFY2(plan.exitCode == 0, plan.err.constData());
        const nlohmann::json decisions = nlohmann::json::parse(plan.out.toStdString());
        std::set<std::string> planned;
        for (const auto& c : decisions["checkpoints"])
            if (c["verdict"] != "delete") planned.insert(c["name"].get<std::string>() + ".index");
        QVERIFY(planned.size() >= 5 && planned.count("ckpt-200.index"));
        QRandomGenerator random(7);
        for (int round = 0; round < 3; ++round) {
            QProcess* p = startCkpt(apply);
            QVERIFY(p->waitForStarted());
            QTest::qWait(100 + static_cast<int>(random.bounded(600)));
            killNow(*p);
            QVERIFY(p->state() == QProcess::NotRunning || p->waitForFinished(10000));
            auto named = readCheckpointState(dir.toStdString());
            QVERIFY(named.ok() && *named);
            for (const std::string& entry : (*named)->allModelCheckpointPaths)
                QVERIFY2(objectExists("retention/" + entry + ".index"), entry.c_str());
            const Run latest = testing::runCkpt({"latest", dir});
            QVERIFY2(latest.exitCode == 0, latest.err.constData());
            QCOMPARE(testing::runCkpt({"verify", latest.out.trimmed()}).exitCode, 0);
        }
        const Run finished = testing::runCkpt(QStringList(apply) << QStringLiteral("--json"));
        QVERIFY2(finished.exitCode == 0, finished.err.constData());
        std::set<std::string> indexes;
        for (const std::string& k : keysUnder("retention/"))
            if (k.ends_with(".index")) indexes.insert(k);
        QCOMPARE(indexes, planned);
        auto after = readCheckpointState(dir.toStdString());
        QVERIFY(after.ok() && *after);
        QCOMPARE((*after)->modelCheckpointPath, std::string("ckpt-200"));
        std::set<std::string> named;
        for (const std::string& entry : (*after)->allModelCheckpointPaths) named.insert(entry + ".index");
        QCOMPARE(named, indexes);
    }

    // Saves through 10% 503 SlowDown, 2% resets before an answer and 3%
    // lost replies (the request applied, the answer reset), and with the
    // first answer to every conditional write lost: every save commits, the
    // retries are reported, and a create-only or compare-and-swap write
    // whose answer was lost is not mistaken for a conflict when its retry
    // finds its own bytes there (before, the claim's lost answer failed the
    // first save with "is being saved by").
    void savesThroughFaults() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0.10, 0.02, 0.0, 11, false, 0.03, /*loseConditionalReplies=*/true));
        const QString run = url("faults");
        const QStringList endpoint{"--endpoint-url", QString::fromStdString(proxy.endpoint()), "--stats"};
        const Run train = testing::runCkpt(QStringList{"demo-train", run, "--steps", "40", "--save-every", "4"} << endpoint);
        QVERIFY2(train.exitCode == 0, train.err.constData());
        const Run copy =
            testing::runCkpt(QStringList{"reshard", m_local, url("faults-copy/ckpt-1"), "--shards", "3"} << endpoint);
        QVERIFY2(copy.exitCode == 0, copy.err.constData());
        const QString counters = proxy.stop();
        qInfo("proxy: %s", qPrintable(counters));
        QVERIFY2(train.err.contains(" retries") && !train.err.contains(" 0 retries"), train.err.constData());
        QVERIFY2(!counters.contains(QStringLiteral("lostreply 0")), qPrintable(counters));
        const Run list = testing::runCkpt({"list", run, "--json"});
        QCOMPARE(list.exitCode, 0);
        QCOMPARE(nlohmann::json::parse(list.out.toStdString())["checkpoints"].size(), size_t(5));
        QCOMPARE(testing::runCkpt({"verify", run}).exitCode, 0);
        QCOMPARE(testing::runCkpt({"verify", url("faults-copy/ckpt-1")}).exitCode, 0);
    }

    // Twenty saving runs killed at random points (saves every step, with
    // retention deleting behind them): whatever `list` and `latest` show is
    // complete and verifies, the state file never names a checkpoint without
    // its index, and after `ckpt gc --apply --grace 0s` only committed
    // checkpoints' files and the state file are left.
    void killedSavesLeaveOnlyCommitted() {
        QRandomGenerator random(20261127);
        for (int i = 0; i < 20; ++i) {
            const std::string name = "kills/" + std::to_string(i);
            const QString run = url(name);
            QProcess* p = startCkpt({"demo-train", run, "--steps", "400", "--save-every", "1", "--max-to-keep", "2"});
            QVERIFY(p->waitForStarted());
            QTest::qWait(150 + static_cast<int>(random.bounded(1500)));
            killNow(*p);
            QVERIFY(p->state() == QProcess::NotRunning || p->waitForFinished(10000));

            const Run list = testing::runCkpt({"list", run, "--json"});
            QVERIFY2(list.exitCode == 0, list.err.constData());
            const nlohmann::json listed = nlohmann::json::parse(list.out.toStdString());
            std::set<std::string> committed;
            for (const auto& c : listed["checkpoints"]) {
                QVERIFY2(c.value("missing_shards", 0) == 0 && !c.contains("error"), list.out.constData());
                const std::string prefix = c["prefix"].get<std::string>();
                committed.insert(prefix.substr(prefix.rfind('/') + 1));
            }
            if (auto state = readCheckpointState(run.toStdString()); state.ok() && *state) {
                for (const std::string& entry : (*state)->allModelCheckpointPaths)
                    QVERIFY2(committed.count(entry), entry.c_str());
                const Run latest = testing::runCkpt({"latest", run});
                QVERIFY2(latest.exitCode == 0, latest.err.constData());
                QCOMPARE(testing::runCkpt({"verify", latest.out.trimmed()}).exitCode, 0);
            }
            const Run gc = testing::runCkpt({"gc", run, "--apply", "--grace", "0s"});
            QVERIFY2(gc.exitCode == 0, gc.err.constData());
            for (const std::string& k : keysUnder(name + "/")) {
                if (k == kCheckpointStateFile) continue;
                const std::string base = k.substr(0, k.find('.'));
                QVERIFY2(committed.count(base), (name + "/" + k + " is left over").c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstCliRemoteWrites)
#include "tst_cli_remote_writes.moc"

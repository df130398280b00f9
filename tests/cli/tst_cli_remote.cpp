// The read commands on s3:// locations (docs/remote.md): a demo run written
// locally, uploaded to SeaweedFS on loopback, then browsed, verified,
// listed and compared there. The remote output is the local output with the
// location replaced, request counts (ckpt --stats) stay within what
// docs/remote.md promises, and no output of any run, failing or not, shows
// the secret.

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>
#include <regex>
#include <vector>

#include "s3_test_server.h"
#include "test_support.h"

using namespace ckpt;
using Run = testing::CliRun;

namespace {

// "ckpt: object store: N requests, R retries, ..." from --stats.
struct Stats {
    int requests = -1;
    int retries = -1;
    int maxAttempts = 0;
};
Stats statsOf(const Run& r) {
    Stats s;
    const std::string err = r.err.toStdString();
    std::smatch m;
    if (std::regex_search(err, m, std::regex("object store: (\\d+) requests, (\\d+) retries"))) {
        s.requests = std::stoi(m[1]);
        s.retries = std::stoi(m[2]);
    }
    if (std::regex_search(err, m, std::regex("at most (\\d+) attempts"))) s.maxAttempts = std::stoi(m[1]);
    return s;
}

}  // namespace

class TstCliRemote : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    QTemporaryDir m_tmp;
    QString m_local;           // the demo run on disk
    QString m_remote;          // s3://bucket/<prefix>demo
    QByteArrayList m_outputs;  // every output of every run, for the secret check

    Run ckpt(const QStringList& args) {
        Run r = testing::runCkpt(args);
        m_outputs << r.out << r.err;
        return r;
    }
    QString local(const QString& name) const { return m_local + QLatin1Char('/') + name; }
    QString remote(const QString& name) const { return m_remote + QLatin1Char('/') + name; }
    // Remote output, with the location written as the local one.
    QByteArray localized(const QByteArray& out) const {
        QByteArray o = out;
        return o.replace(m_remote.toUtf8(), m_local.toUtf8());
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        testing::setStoreEnvironment(m_server->variables());
        m_local = m_tmp.filePath(QStringLiteral("demo"));
        Run train =
            ckpt({QStringLiteral("demo-train"), m_local, QStringLiteral("--steps"), QStringLiteral("60"),
                  QStringLiteral("--save-every"), QStringLiteral("20"), QStringLiteral("--max-to-keep"), QStringLiteral("3")});
        QCOMPARE(train.exitCode, 0);
        const std::string prefix = testing::uniquePrefix("tst_cli_remote") + "demo/";
        auto client = testing::testClient(m_server->variables());
        QVERIFY(client);
        QVERIFY(testing::uploadDirectory(*client, m_local, m_server->bucket, prefix).isOk());
        m_remote = QString::fromStdString("s3://" + m_server->bucket + "/" + prefix);
        m_remote.chop(1);
    }

    void sameOutputAsLocal_data() {
        QTest::addColumn<QStringList>("args");  // "@" stands for the checkpoint or run
        QTest::addColumn<QString>("target");
        QTest::newRow("inspect") << QStringList{"inspect", "@"} << "ckpt-3";
        QTest::newRow("inspect --json") << QStringList{"inspect", "@", "--json"} << "ckpt-3";
        QTest::newRow("tree") << QStringList{"tree", "@"} << "ckpt-3";
        QTest::newRow("verify") << QStringList{"verify", "@"} << "ckpt-3";
        QTest::newRow("cat") << QStringList{"cat", "@", "model/layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE"} << "ckpt-2";
        QTest::newRow("stats") << QStringList{"stats", "@", "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"}
                               << "ckpt-3";
        QTest::newRow("list") << QStringList{"list", "@"} << "";
        QTest::newRow("latest") << QStringList{"latest", "@"} << "";
        QTest::newRow("a directory resolves through its state file") << QStringList{"inspect", "@"} << "";
        QTest::newRow("history") << QStringList{"history", "@"} << "";
    }
    void sameOutputAsLocal() {
        QFETCH(QStringList, args);
        QFETCH(QString, target);
        QStringList l = args, r = args;
        l.replace(l.indexOf(QStringLiteral("@")), target.isEmpty() ? m_local : local(target));
        r.replace(r.indexOf(QStringLiteral("@")), target.isEmpty() ? m_remote : remote(target));
        const Run lr = ckpt(l);
        const Run rr = ckpt(r << QStringLiteral("--stats"));
        QCOMPARE(rr.exitCode, lr.exitCode);
        QCOMPARE(localized(rr.out), lr.out);
        const Stats s = statsOf(rr);
        QVERIFY2(s.requests > 0, rr.err.constData());
        qInfo("%s: %d requests", qPrintable(args.join(QLatin1Char(' '))), s.requests);
    }

    // inspect of a prefix in exactly 3 requests, whatever the sizes: one
    // listing of the checkpoint's names (whether the index exists, and every
    // file's size and ETag, so no open needs a request), the index in one GET
    // (announced whole by the index reader), and the object graph in one
    // ranged GET that also brings the data file's tail. "large": 1,000
    // replicas of every variable, a 515 KiB index and a 5.6 MiB data file
    // whose object graph starts before its last 256 KiB (before: a HEAD of
    // the index, the index, a tail GET as the data file opened, then the
    // graph: 4).
    void inspectRequestCount_data() {
        QTest::addColumn<QString>("run");
        QTest::newRow("demo") << QString();
        QTest::newRow("large") << QStringLiteral("large");
    }
    void inspectRequestCount() {
        QFETCH(QString, run);
        QString localPrefix = local(QStringLiteral("ckpt-3"));
        QString remotePrefix = remote(QStringLiteral("ckpt-3"));
        QTemporaryDir dir;
        if (!run.isEmpty()) {
            const QString localRun = dir.filePath(run);
            QCOMPARE(
                ckpt({QStringLiteral("demo-train"), localRun, QStringLiteral("--steps"), QStringLiteral("1"),
                      QStringLiteral("--save-every"), QStringLiteral("1"), QStringLiteral("--replicas"), QStringLiteral("1000")})
                    .exitCode,
                0);
            QVERIFY(QFileInfo(localRun + QStringLiteral("/ckpt-1.index")).size() > 256 * 1024);
            const std::string prefix = testing::uniquePrefix("tst_cli_remote") + run.toStdString() + "/";
            auto client = testing::testClient(m_server->variables());
            QVERIFY(client);
            QVERIFY(testing::uploadDirectory(*client, localRun, m_server->bucket, prefix).isOk());
            localPrefix = localRun + QStringLiteral("/ckpt-1");
            remotePrefix = QString::fromStdString("s3://" + m_server->bucket + "/" + prefix + "ckpt-1");
        }
        const Run l = ckpt({QStringLiteral("inspect"), localPrefix});
        const Run r = ckpt({QStringLiteral("inspect"), remotePrefix, QStringLiteral("--stats")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QByteArray(r.out).replace(remotePrefix.toUtf8(), localPrefix.toUtf8()), l.out);
        QCOMPARE(statsOf(r).requests, 3);
    }

    // Equal stored checksums: the diff fetches the two indexes and nothing else.
    void diffLocalAgainstRemote() {
        const Run r = ckpt({QStringLiteral("diff"), local(QStringLiteral("ckpt-3")), remote(QStringLiteral("ckpt-3")),
                            QStringLiteral("--stats")});
        QCOMPARE(r.exitCode, 0);
        const Stats s = statsOf(r);
        // The index (its HEAD answered by the open), the values' checksums,
        // and one tail read checking the index's footer and metaindex (a
        // damaged side is reported even when the values compare equal).
        QVERIFY2(s.requests >= 1 && s.requests <= 4, r.err.constData());
        const Run differ = ckpt({QStringLiteral("diff"), local(QStringLiteral("ckpt-1")), remote(QStringLiteral("ckpt-3"))});
        QCOMPARE(differ.exitCode, 1);
    }

    // verify reads each shard in windows of up to 16 MiB (one ranged GET
    // each), not one request per tensor: t2t_transformer_2shards holds 250
    // tensors in 1.6 MiB (shard 0 24 bytes, shard 1 1.6 MiB). What it costs:
    // the listing that finds the index (and tells every file's size, so no
    // shard's open is a request), one GET of the index for the footer check
    // and the reader together, then one window per 16 MiB of each shard (2):
    // 4. No listing counts the data files (every shard holds entries) and a
    // path naming a checkpoint is not probed for a state file. One GET per
    // tensor was 245; before the index was shared and the probes dropped, 8.
    void verifyMergesNeighbours() {
        if (testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
        const std::string prefix = testing::uniquePrefix("tst_cli_remote") + "t2t/";
        auto client = testing::testClient(m_server->variables());
        QVERIFY(client);
        QVERIFY(
            testing::uploadDirectory(*client, testing::realTestData("t2t_transformer_2shards"), m_server->bucket, prefix).isOk());
        const QString url = QString::fromStdString("s3://" + m_server->bucket + "/" + prefix + "model.ckpt-1");
        const Run r = ckpt({QStringLiteral("verify"), url, QStringLiteral("--json"), QStringLiteral("--stats")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("\"tensors_checked\": 250"), r.out.constData());
        QVERIFY2(r.out.contains("\"ok\": true"), r.out.constData());
        const Stats s = statsOf(r);
        qInfo("verify of 250 tensors in 2 shards: %d requests", s.requests);
        QVERIFY2(s.requests >= 1 && s.requests <= 4, r.err.constData());
    }

    // One flipped byte in the remote data file: verify names it, exit 1.
    void flippedByte() {
        QByteArray data = testing::readAll(local(QStringLiteral("ckpt-3.data-00000-of-00001")));
        data[data.size() / 2] = char(data[data.size() / 2] ^ 0x01);
        auto client = testing::testClient(m_server->variables());
        const std::string key =
            m_remote.mid(QStringLiteral("s3://").size() + qsizetype(m_server->bucket.size()) + 1).toStdString() + "-flipped/";
        QTemporaryDir copy;
        QVERIFY(testing::copyDirectory(m_local, copy.path()));
        QVERIFY(testing::writeAll(copy.filePath(QStringLiteral("ckpt-3.data-00000-of-00001")), data));
        QVERIFY(testing::uploadDirectory(*client, copy.path(), m_server->bucket, key).isOk());
        const QString flipped = QString::fromStdString("s3://" + m_server->bucket + "/" + key + "ckpt-3");
        const Run r = ckpt({QStringLiteral("verify"), flipped});
        QCOMPARE(r.exitCode, 1);
        // Named as for a local checkpoint: the data file and the tensor.
        const QByteArray all = r.out + r.err;
        QVERIFY2(all.contains("DataLoss: checksum mismatch") && all.contains("ckpt-3.data-00000-of-00001"), all.constData());
    }

    void errors_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("missing object") << "missing"
                                        << "NotFound";
        QTest::newRow("missing bucket") << "no-bucket"
                                        << "NoSuchBucket";
        QTest::newRow("wrong secret") << "wrong-secret"
                                      << "SignatureDoesNotMatch";
        QTest::newRow("no credentials") << "no-credentials"
                                        << "no credentials for s3://";
        QTest::newRow("nothing listening") << "no-server"
                                           << "after 5 attempts";
        QTest::newRow("plain http elsewhere") << "remote-http"
                                              << "plain http to http://10.255.255.1";
    }
    void errors() {
        QFETCH(QString, what);
        QFETCH(QString, fragment);
        auto vars = m_server->variables();
        QString target = remote(QStringLiteral("ckpt-3"));
        if (what == QLatin1String("missing")) target = remote(QStringLiteral("ckpt-99"));
        if (what == QLatin1String("no-bucket")) target = QStringLiteral("s3://ckpt-no-such-bucket/run/ckpt-3");
        if (what == QLatin1String("wrong-secret")) vars["AWS_SECRET_ACCESS_KEY"] = "WrongSecretValue-123";
        if (what == QLatin1String("no-credentials")) {
            vars.erase("AWS_ACCESS_KEY_ID");
            vars.erase("AWS_SECRET_ACCESS_KEY");
        }
        if (what == QLatin1String("no-server"))
            vars["AWS_ENDPOINT_URL"] = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort());
        if (what == QLatin1String("remote-http")) vars["AWS_ENDPOINT_URL"] = "http://10.255.255.1:9000";
        testing::setStoreEnvironment(vars);
        const Run r = ckpt({QStringLiteral("inspect"), target});
        testing::setStoreEnvironment(m_server->variables());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(fragment.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains("s3://"), r.err.constData());
        QVERIFY2(!r.err.contains("WrongSecretValue-123"), r.err.constData());
    }

    // 10% SlowDown and 2% resets: every command still succeeds, in at most
    // 5 attempts per request.
    void throughFaults() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0.10, 0.02, 0.02, 5));
        for (const QStringList& args :
             {QStringList{"inspect", remote(QStringLiteral("ckpt-3"))}, QStringList{"verify", remote(QStringLiteral("ckpt-3"))},
              QStringList{"list", m_remote}, QStringList{"latest", m_remote},
              QStringList{"diff", local(QStringLiteral("ckpt-3")), remote(QStringLiteral("ckpt-3"))}}) {
            const Run r = ckpt(QStringList(args) << QStringLiteral("--endpoint-url") << QString::fromStdString(proxy.endpoint())
                                                 << QStringLiteral("--stats"));
            QVERIFY2(r.exitCode == 0, qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromUtf8(r.err)));
            QVERIFY2(statsOf(r).maxAttempts <= 5, r.err.constData());
        }
        qInfo("proxy: %s", qPrintable(proxy.stop()));
    }

    // A remote run in the catalog: added, scanned (--stats after a nested
    // subcommand), listed by its URLs; a rescan finds nothing changed
    // without reading any checkpoint (their ETags are unchanged).
    void catalogOfARemoteRun() {
        QTemporaryDir data;
        qputenv("XDG_DATA_HOME", data.path().toUtf8());
        const Run add = ckpt({QStringLiteral("catalog"), QStringLiteral("add"), m_remote});
        QVERIFY2(add.exitCode == 0, add.err.constData());
        const Run scan = ckpt({QStringLiteral("catalog"), QStringLiteral("scan"), QStringLiteral("--stats")});
        QVERIFY2(scan.exitCode == 0, scan.err.constData());
        QVERIFY2(scan.out.contains("scanned 3 checkpoint(s)") && scan.out.contains(" 0 unreadable"), scan.out.constData());
        QVERIFY2(statsOf(scan).requests > 0, scan.err.constData());
        const Run list = ckpt({QStringLiteral("catalog"), QStringLiteral("list")});
        QVERIFY2(list.out.contains(remote(QStringLiteral("ckpt-3")).toUtf8()), list.out.constData());
        const Run again = ckpt({QStringLiteral("catalog"), QStringLiteral("scan"), QStringLiteral("--stats")});
        QVERIFY2(again.out.contains("3 unchanged"), again.out.constData());
        // Unchanged checkpoints cost nothing but the directory's listing,
        // the state file and the probes of the root: no index, data file or
        // sidecar is read (17 requests for this run before, 3 a checkpoint).
        qInfo("catalog scan after add: %d requests, rescan %d", statsOf(scan).requests, statsOf(again).requests);
        QVERIFY2(statsOf(again).requests <= 8, again.err.constData());
        qunsetenv("XDG_DATA_HOME");
    }

    // --cache-dir (or CKPT_CACHE_DIR) keeps what an open downloads, by
    // ETag: a second run of inspect costs the listing that says nothing
    // changed (docs/remote.md, "Caching"); a directory's state file costs a
    // 304. Four runs at once share the directory and all succeed.
    void cacheAcrossRuns() {
        QTemporaryDir cacheDir;
        const QString dir = cacheDir.filePath(QStringLiteral("cache"));
        const QStringList inspect = {QStringLiteral("inspect"), remote(QStringLiteral("ckpt-3")), QStringLiteral("--stats"),
                                     QStringLiteral("--cache-dir"), dir};
        const Run first = ckpt(inspect), again = ckpt(inspect);
        QCOMPARE(first.exitCode, 0);
        QCOMPARE(again.out, first.out);
        qInfo("inspect with --cache-dir: first %d requests, again %d", statsOf(first).requests, statsOf(again).requests);
        QCOMPARE(statsOf(first).requests, 3);
        QCOMPARE(statsOf(again).requests, 1);
        QVERIFY2(!again.err.contains("warning"), again.err.constData());
        // A directory: the state file revalidated, the index and graph from the cache.
        qputenv("CKPT_CACHE_DIR", dir.toUtf8());
        const QStringList run = {QStringLiteral("inspect"), m_remote, QStringLiteral("--stats")};
        const Run runFirst = ckpt(run), runAgain = ckpt(run);
        qunsetenv("CKPT_CACHE_DIR");
        QCOMPARE(runAgain.out, runFirst.out);
        const Run uncached = ckpt(run);
        QCOMPARE(uncached.out, runFirst.out);
        qInfo("inspect of the run with CKPT_CACHE_DIR: %d requests, again %d; without the cache %d", statsOf(runFirst).requests,
              statsOf(runAgain).requests, statsOf(uncached).requests);
        QVERIFY(statsOf(runAgain).requests < statsOf(uncached).requests);
        // Processes sharing the directory.
        std::vector<std::unique_ptr<QProcess>> procs;
        for (int i = 0; i < 4; ++i) {
            procs.push_back(std::make_unique<QProcess>());
            procs.back()->start(testing::binaryDir() + QStringLiteral("/app/cli/ckpt"),
                                {QStringLiteral("inspect"), remote(i % 2 ? QStringLiteral("ckpt-2") : QStringLiteral("ckpt-1")),
                                 QStringLiteral("--cache-dir"), dir});
        }
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(60000));
            QCOMPARE(p->exitCode(), 0);
            m_outputs << p->readAllStandardOutput() << p->readAllStandardError();
        }
        // A cache that cannot be made: a warning, and the command works.
        const QString file = cacheDir.filePath(QStringLiteral("file"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        const Run unusable = ckpt({QStringLiteral("inspect"), remote(QStringLiteral("ckpt-3")), QStringLiteral("--cache-dir"),
                                   file + QStringLiteral("/cache")});
        QCOMPARE(unusable.exitCode, 0);
        QCOMPARE(unusable.out, first.out);
        QVERIFY2(unusable.err.contains("warning: not caching remote objects"), unusable.err.constData());
    }

    // Last: every output above, of runs that failed and runs that did not.
    void noSecretInAnyOutput() {
        QVERIFY(m_outputs.size() > 20);
        for (const QByteArray& o : m_outputs) {
            QVERIFY2(!o.contains(QByteArray::fromStdString(m_server->secret)), o.constData());
            QVERIFY(!o.contains("WrongSecretValue-123"));
        }
    }
};

QTEST_GUILESS_MAIN(TstCliRemote)
#include "tst_cli_remote.moc"

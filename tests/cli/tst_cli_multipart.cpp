// Large writes to object storage through `ckpt`, and `ckpt gc` on a bucket
// (docs/remote.md, "Multipart uploads" and "Garbage collection"), against
// SeaweedFS on loopback with 5 MiB parts (CKPT_S3_PART_SIZE_MIB):
//  - `ckpt reshard` of a checkpoint whose data file is over a part writes it
//    as a multipart upload, `ckpt verify` passes, and every object is
//    byte-equal to a local reshard of the same checkpoint;
//  - the same through the fault proxy (503 SlowDown, resets): it commits,
//    and --stats reports the retries;
//  - a `ckpt` killed (SIGKILL) in the middle of an upload leaves it open;
//    `ckpt gc` lists it (kept within the grace period) and `--apply
//    --grace 0s` aborts it;
//  - an empty "folder" that SeaweedFS keeps after a save's temporary shard
//    objects were deleted is removed by `gc --apply` for real, and gc says
//    "removed" only for what is gone.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <random>
#include <regex>
#include <thread>

#include "ckpt/bundle_writer.h"
#include "s3_test_server.h"
#include "test_support.h"
#include "test_tensors.h"

using namespace ckpt;
using Run = testing::CliRun;

namespace {

constexpr int64_t kFloatsPerTensor = 1 << 20;  // 4 MiB

// A checkpoint of 'tensors' random float tensors of 4 MiB each.
bool writeCheckpoint(const std::string& prefix, int tensors) {
    auto w = BundleWriter::create(prefix);
    if (!w.ok()) return false;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-1, 1);
    for (int i = 0; i < tensors; ++i) {
        std::vector<float> v(static_cast<size_t>(kFloatsPerTensor));
        for (float& x : v) x = value(rng);
        char key[64];
        std::snprintf(key, sizeof key, "model/w%03d/.ATTRIBUTES/VARIABLE_VALUE", i);
        if (!(*w)->add(key, testing::makeTensor<float>(DataType::Float, {kFloatsPerTensor}, v)).isOk()) return false;
    }
    return (*w)->finish().isOk();
}

int retriesOf(const Run& r) {
    std::smatch m;
    const std::string err = r.err.toStdString();
    if (std::regex_search(err, m, std::regex("object store: \\d+ requests, (\\d+) retries"))) return std::stoi(m[1]);
    return -1;
}

QJsonObject jsonOf(const Run& r) { return QJsonDocument::fromJson(r.out).object(); }

}  // namespace

class TstCliMultipart : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    std::unique_ptr<objstore::ObjectClient> m_client;
    std::string m_prefix;  // <unique>/
    QTemporaryDir m_tmp;
    QString m_big;  // a local checkpoint with a 24 MiB data file

    QString url(const std::string& name) const {
        return QString::fromStdString("s3://" + m_server->bucket + "/" + m_prefix + name);
    }
    size_t openUploads(const std::string& under) {
        auto uploads = m_client->listUploads(m_server->bucket, m_prefix + under, 1000);
        return uploads ? uploads->size() : size_t(-1);
    }
    std::string object(const std::string& name) {
        auto whole = m_client->readObject({m_server->bucket, m_prefix + name}, 256u << 20);
        return whole ? whole->first : std::string("<missing>");
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        auto vars = m_server->variables();
        vars["CKPT_S3_PART_SIZE_MIB"] = "5";
        testing::setStoreEnvironment(vars);
        qputenv("CKPT_S3_PART_SIZE_MIB", "5");
        m_client = testing::testClient(m_server->variables());
        QVERIFY(m_client);
        m_prefix = testing::uniquePrefix("tst_cli_multipart");
        m_big = m_tmp.filePath(QStringLiteral("big/ckpt-1"));
        QVERIFY(QDir().mkpath(m_tmp.filePath(QStringLiteral("big"))));
        QVERIFY(writeCheckpoint(m_big.toStdString(), 6));
    }

    // The real save path: reshard to the bucket, verify there, and compare
    // every object with a local reshard of the same checkpoint.
    void reshardOverAPartThenVerify() {
        const QString local = m_tmp.filePath(QStringLiteral("local/ckpt-1"));
        QCOMPARE(testing::runCkpt({"reshard", m_big, local, "--shards", "1"}).exitCode, 0);
        const Run r = testing::runCkpt({"reshard", m_big, url("resharded/ckpt-1"), "--shards", "1", "--stats"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Run v = testing::runCkpt({"verify", url("resharded/ckpt-1")});
        QVERIFY2(v.exitCode == 0, (v.out + v.err).constData());
        for (const char* suffix : {".index", ".data-00000-of-00001"}) {
            const QByteArray expected = testing::readAll(local + QString::fromLatin1(suffix));
            QVERIFY(expected.size() > 0);
            QVERIFY2(object("resharded/ckpt-1" + std::string(suffix)) == expected.toStdString(), suffix);
        }
        // The data file went up in parts: its ETag is a multipart one ("-5").
        auto head = m_client->stat({m_server->bucket, m_prefix + "resharded/ckpt-1.data-00000-of-00001"});
        QVERIFY(head.ok());
        QVERIFY2(QString::fromStdString(head->etag).endsWith(QStringLiteral("-5")), head->etag.c_str());
        QCOMPARE(openUploads("resharded/"), size_t(0));
    }

    void reshardThroughFaults() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0.10, 0.03, 0.0, 3));
        const Run r = testing::runCkpt({"reshard", m_big, url("faults/ckpt-1"), "--shards", "1", "--endpoint-url",
                                        QString::fromStdString(proxy.endpoint()), "--stats"});
        const QString counters = proxy.stop();
        QVERIFY2(r.exitCode == 0, (r.err + counters.toUtf8()).constData());
        qInfo("%s; proxy: %s", r.err.trimmed().constData(), qPrintable(counters));
        QVERIFY2(retriesOf(r) > 0, r.err.constData());
        const Run v = testing::runCkpt({"verify", url("faults/ckpt-1")});
        QVERIFY2(v.exitCode == 0, (v.out + v.err).constData());
        auto head = m_client->stat({m_server->bucket, m_prefix + "faults/ckpt-1.data-00000-of-00001"});
        QVERIFY(head.ok());
        QVERIFY2(QString::fromStdString(head->etag).endsWith(QStringLiteral("-5")), head->etag.c_str());
        QCOMPARE(openUploads("faults/"), size_t(0));
    }

    // SIGKILL while an upload is open: the upload stays (nothing in the
    // process could abort it); gc lists it, keeps it within the grace
    // period, and aborts it with --apply --grace 0s.
    void killedUploadAbortedByGc() {
        const QString bigger = m_tmp.filePath(QStringLiteral("bigger/ckpt-1"));
        QVERIFY(QDir().mkpath(m_tmp.filePath(QStringLiteral("bigger"))));
        QVERIFY(writeCheckpoint(bigger.toStdString(), 40));
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CKPT_S3_MAX_IN_FLIGHT"), QStringLiteral("1"));  // slower: a wider window to kill in
        child.setProcessEnvironment(env);
        child.start(testing::binaryDir() + QStringLiteral("/app/cli/ckpt"),
                    {"reshard", bigger, url("killed/ckpt-1"), "--shards", "1"});
        QVERIFY(child.waitForStarted());
        bool open = false;
        for (int i = 0; i < 6000 && !open && child.state() == QProcess::Running; ++i) {
            open = openUploads("killed/") > 0 && openUploads("killed/") != size_t(-1);
            if (!open) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        child.kill();  // SIGKILL
        child.waitForFinished();
        QVERIFY2(open, "no upload was seen open while the save ran");
        QVERIFY(openUploads("killed/") >= 1);

        const Run dry = testing::runCkpt({"gc", url("killed"), "--json"});
        QCOMPARE(dry.exitCode, 0);
        int listed = 0;
        for (const QJsonValue item : jsonOf(dry)[QStringLiteral("items")].toArray()) {
            if (item[QStringLiteral("kind")].toString() != QStringLiteral("open upload")) continue;
            ++listed;
            QVERIFY(!item[QStringLiteral("removable")].toBool());  // younger than the default 24 h
            QVERIFY(!item[QStringLiteral("upload_id")].toString().isEmpty());
            QVERIFY(item[QStringLiteral("path")].toString().startsWith(url("killed/")));
            QVERIFY(item[QStringLiteral("age_seconds")].toDouble() < 600);
        }
        QVERIFY2(listed >= 1, dry.out.constData());
        QVERIFY(openUploads("killed/") >= 1);

        const Run text = testing::runCkpt({"gc", url("killed"), "--grace", "0s"});
        QVERIFY2(text.out.contains("would abort   " + url("killed/ckpt-1.data-").toUtf8()), text.out.constData());

        const Run apply = testing::runCkpt({"gc", url("killed"), "--grace", "0s", "--apply", "--json"});
        QVERIFY2(apply.exitCode == 0, (apply.out + apply.err).constData());
        int aborted = 0;
        for (const QJsonValue item : jsonOf(apply)[QStringLiteral("items")].toArray())
            if (item[QStringLiteral("kind")].toString() == QStringLiteral("open upload") &&
                item[QStringLiteral("removed")].toBool())
                ++aborted;
        QCOMPARE(aborted, listed);
        QCOMPARE(openUploads("killed/"), size_t(0));
        const Run after = testing::runCkpt({"gc", url("killed"), "--json"});
        QCOMPARE(jsonOf(after)[QStringLiteral("items")].toArray().size(), 0);
    }

    // SeaweedFS keeps an empty folder once its last object is deleted (a
    // save's temporary shard prefix): gc must remove it for real, and a
    // save must not leave one.
    void emptyFolderRemovedForReal() {
        const std::string folder = m_prefix + "folder/ckpt-1_temp_0123abcd/";
        QVERIFY(m_client->put({m_server->bucket, folder + "part-00000-of-00001.data-00000-of-00001"}, "x").ok());
        QVERIFY(m_client->remove({m_server->bucket, folder + "part-00000-of-00001.data-00000-of-00001"}).isOk());
        const Run before = testing::runCkpt({"gc", url("folder"), "--json"});
        QCOMPARE(jsonOf(before)[QStringLiteral("items")].toArray().size(), 1);
        const Run apply = testing::runCkpt({"gc", url("folder"), "--apply", "--grace", "0s"});
        QVERIFY2(apply.exitCode == 0, (apply.out + apply.err).constData());
        QVERIFY2(apply.out.contains("removed 1"), apply.out.constData());
        const Run after = testing::runCkpt({"gc", url("folder"), "--json"});
        QVERIFY2(jsonOf(after)[QStringLiteral("items")].toArray().isEmpty(), after.out.constData());

        // A sharded save to the bucket leaves nothing for gc.
        const Run save = testing::runCkpt({"reshard", m_big, url("saved/ckpt-1"), "--shards", "2"});
        QVERIFY2(save.exitCode == 0, save.err.constData());
        const Run left = testing::runCkpt({"gc", url("saved"), "--json"});
        QVERIFY2(jsonOf(left)[QStringLiteral("items")].toArray().isEmpty(), left.out.constData());
    }
};

QTEST_GUILESS_MAIN(TstCliMultipart)
#include "tst_cli_multipart.moc"

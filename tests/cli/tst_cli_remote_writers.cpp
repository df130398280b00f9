// Every writer of `ckpt` into a bucket (issue 33, docs/remote.md "Writing"),
// against SeaweedFS on loopback: reshard, merge, merge --average, edit,
// import, export (safetensors, npz) and restore --out each write into
// s3://… exactly the objects, byte for byte, that the same command writes
// into a local directory; a checkpoint written there passes `ckpt verify`;
// the same command again is refused and leaves every object as it was,
// with --overwrite too for a checkpoint (a store cannot swap one in), while
// --overwrite replaces an exported file whole. A schedule archives a local
// run into the bucket as it would into a directory.

#include <QDir>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

#include "convert/npz.h"
#include "s3_test_server.h"
#include "test_support.h"

using namespace ckpt;
using Run = testing::CliRun;

class TstCliRemoteWriters : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    std::unique_ptr<objstore::ObjectClient> m_client;
    std::string m_prefix;  // <unique>/
    QTemporaryDir m_tmp;
    QString m_run;  // a local demo run: ckpt-1 .. ckpt-3

    QString url(const QString& name) const { return QString::fromStdString("s3://" + m_server->bucket + "/" + m_prefix) + name; }
    // Every object under <prefix><dir>/, by name relative to it.
    std::map<QString, QByteArray> objectsUnder(const QString& dir) {
        std::map<QString, QByteArray> out;
        const std::string under = m_prefix + dir.toStdString() + "/";
        auto listed = m_client->listAll(m_server->bucket, under, "", 1000);
        if (!listed) return {{QStringLiteral("<listing failed>"), QByteArray::fromStdString(listed.status().toString())}};
        for (const auto& o : listed->objects) {
            auto whole = m_client->readObject({m_server->bucket, o.key}, 64u << 20);
            out[QString::fromStdString(o.key.substr(under.size()))] =
                whole ? QByteArray::fromStdString(whole->first) : QByteArray("<unreadable>");
        }
        return out;
    }
    // Every regular file under a local directory, by relative name.
    static std::map<QString, QByteArray> filesUnder(const QString& dir) {
        std::map<QString, QByteArray> out;
        QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            out[QDir(dir).relativeFilePath(path)] = testing::readAll(path);
        }
        return out;
    }
    // Byte for byte, except an .npz: a zip entry carries the time it was
    // written (libzip, as numpy's savez), so two exports a second apart
    // differ there; their members must still be the same.
    bool sameContent(const QString& name, const QByteArray& a, const QByteArray& b) {
        if (a == b) return true;
        if (!name.endsWith(QStringLiteral(".npz"))) return false;
        std::vector<std::unique_ptr<convert::NpzReader>> readers;
        for (const QByteArray* bytes : {&a, &b}) {
            const QString path = m_tmp.filePath(QStringLiteral("compare-%1.npz").arg(readers.size()));
            QFile f(path);
            if (!f.open(QIODevice::WriteOnly) || f.write(*bytes) != bytes->size()) return false;
            f.close();
            auto reader = convert::NpzReader::open(path.toStdString());
            if (!reader.ok()) return false;
            readers.push_back(std::move(*reader));
        }
        const auto& left = readers[0]->members();
        const auto& right = readers[1]->members();
        if (left.size() != right.size()) return false;
        for (size_t i = 0; i < left.size(); ++i) {
            if (left[i].name != right[i].name) return false;
            auto x = readers[0]->read(left[i]);
            auto y = readers[1]->read(right[i]);
            if (x.ok() != y.ok()) return false;
            if (x.ok() && (x->dtype != y->dtype || x->shape != y->shape || x->bytes != y->bytes)) return false;
            if (!x.ok()) {
                auto xs = readers[0]->readString(left[i]);
                auto ys = readers[1]->readString(right[i]);
                if (!xs.ok() || !ys.ok() || *xs != *ys) return false;
            }
        }
        return true;
    }
    static QStringList withDestination(QStringList args, const QString& destination) {
        for (QString& a : args) a.replace(QStringLiteral("@out"), destination);
        return args;
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        const auto run = testing::uploadedDemoRun(*m_server, m_tmp.filePath(QStringLiteral("run")), "tst_cli_remote_writers",
                                                  {"--steps", "60", "--save-every", "20", "--max-to-keep", "3"}, &why);
        QVERIFY2(run.has_value(), qPrintable(why));
        m_run = run->local;
        m_prefix = run->prefix;
        m_client = testing::testClient(m_server->variables());
        QVERIFY(m_client);
        // The inputs of import: the last checkpoint's arrays and its spec.
        QCOMPARE(testing::runCkpt({"export", m_run + "/ckpt-3", m_tmp.filePath(QStringLiteral("in.safetensors"))}).exitCode, 0);
        const Run spec = testing::runCkpt({"spec", m_run + "/ckpt-3"});
        QCOMPARE(spec.exitCode, 0);
        QFile f(m_tmp.filePath(QStringLiteral("spec.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(spec.out);
    }

    void sameObjectsAsADirectory_data() {
        QTest::addColumn<QStringList>("args");    // "@out" stands for the destination directory
        QTest::addColumn<QString>("checkpoint");  // the checkpoint written, to verify ("" for a file)
        const QString run = m_run, in = m_tmp.filePath(QStringLiteral("in.safetensors"));
        const QString spec = m_tmp.filePath(QStringLiteral("spec.json"));
        QTest::newRow("reshard") << QStringList{"reshard", run + "/ckpt-3", "@out/ckpt-3", "--shards", "2"} << "@out/ckpt-3";
        QTest::newRow("merge --average") << QStringList{"merge", "--average", "@out/avg", run + "/ckpt-2", run + "/ckpt-3"}
                                         << "@out/avg";
        QTest::newRow("edit") << QStringList{"edit", run + "/ckpt-3", "@out/edited", "--strip-optimizer"} << "@out/edited";
        QTest::newRow("import") << QStringList{"import", in, "@out/imported", "--spec", spec} << "@out/imported";
        QTest::newRow("restore --out") << QStringList{"restore", run + "/ckpt-3", "--into",     spec,
                                                      "--out",   "@out/restored", "--no-record"}
                                       << "@out/restored";
        QTest::newRow("export safetensors") << QStringList{"export", run + "/ckpt-3", "@out/model.safetensors"} << "";
        QTest::newRow("export npz") << QStringList{"export", run + "/ckpt-3", "@out/model.npz"} << "";
    }

    void sameObjectsAsADirectory() {
        QFETCH(QStringList, args);
        QFETCH(QString, checkpoint);
        const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_'));
        const QString localDir = m_tmp.filePath(QStringLiteral("local/") + tag);
        QVERIFY(QDir().mkpath(localDir));
        const Run local = testing::runCkpt(withDestination(args, localDir));
        QVERIFY2(local.exitCode == 0, (local.out + local.err).constData());
        const Run remote = testing::runCkpt(withDestination(args, url(tag)));
        QVERIFY2(remote.exitCode == 0, (remote.out + remote.err).constData());

        const std::map<QString, QByteArray> expected = filesUnder(localDir);
        QVERIFY(!expected.empty());
        const std::map<QString, QByteArray> written = objectsUnder(tag);
        QStringList names;
        for (const auto& [name, bytes] : written) names << name;
        QCOMPARE(names.size(), int(expected.size()));
        for (const auto& [name, bytes] : expected) {
            const auto it = written.find(name);
            QVERIFY2(it != written.end(), qPrintable(name + " is missing from the bucket; it has: " + names.join(u' ')));
            QVERIFY2(sameContent(name, it->second, bytes), qPrintable(name + " differs from the local write"));
        }
        if (!checkpoint.isEmpty()) {
            const Run verify = testing::runCkpt(withDestination({"verify", checkpoint}, url(tag)));
            QVERIFY2(verify.exitCode == 0, (verify.out + verify.err).constData());
        }

        // Again into the same place: refused without --overwrite; a
        // checkpoint is refused with it too (a store cannot swap one in),
        // while a file is replaced whole by one PUT. Nothing else changes.
        for (const bool overwrite : {false, true}) {
            QStringList again = withDestination(args, url(tag));
            if (overwrite) again << QStringLiteral("--overwrite");
            if (overwrite && args.first() == QLatin1String("restore")) again << QStringLiteral("--force");
            const Run refused = testing::runCkpt(again);
            if (overwrite && checkpoint.isEmpty()) {
                QVERIFY2(refused.exitCode == 0, (refused.out + refused.err).constData());
                // Rewritten whole: the same content (an .npz a second later
                // carries a later zip time), under the same names.
                const std::map<QString, QByteArray> rewritten = objectsUnder(tag);
                QCOMPARE(rewritten.size(), written.size());
                for (const auto& [name, bytes] : written) {
                    const auto it = rewritten.find(name);
                    QVERIFY2(it != rewritten.end() && sameContent(name, it->second, bytes), qPrintable(name));
                }
                continue;
            }
            QVERIFY2(refused.exitCode != 0, (refused.out + refused.err).constData());
            QVERIFY2(refused.err.contains("exists") || refused.err.contains("cannot be replaced") ||
                         refused.err.contains("cannot replace"),
                     refused.err.constData());
            QVERIFY(objectsUnder(tag) == written);
        }
    }

    // A schedule archiving a local run into the bucket (the realistic
    // backup): the copy equals the one a local destination gets, verifies
    // there, and a second run with nothing new copies nothing.
    void scheduledArchiveIntoABucket() {
        const QString store = m_tmp.filePath(QStringLiteral("schedules.db"));
        const QString localDest = m_tmp.filePath(QStringLiteral("archive-local"));
        const QString remoteDest = url(QStringLiteral("archive"));
        for (const auto& [name, dest] :
             {std::pair{QStringLiteral("tolocal"), localDest}, std::pair{QStringLiteral("tobucket"), remoteDest}}) {
            const Run add = testing::runCkpt({"schedule", "add", name, "--source", m_run, "--dest", dest, "--every", "1h",
                                              "--keep-latest", "2", "--store", store});
            QVERIFY2(add.exitCode == 0, (add.out + add.err).constData());
            const Run run = testing::runCkpt({"schedule", "run-now", name, "--store", store, "--json"});
            QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());
        }
        const std::map<QString, QByteArray> local = filesUnder(localDest);
        const std::map<QString, QByteArray> remote = objectsUnder(QStringLiteral("archive"));
        for (const char* name : {"ckpt-3.index", "ckpt-3.data-00000-of-00001"}) {
            const QString n = QString::fromLatin1(name);
            QVERIFY2(local.count(n) == 1, name);
            QVERIFY2(remote.count(n) == 1, name);
            QVERIFY2(remote.at(n) == local.at(n), name);
        }
        QVERIFY2(remote.count(QStringLiteral("checkpoint")) == 1, "the archive's state file");
        const Run verify = testing::runCkpt({"verify", remoteDest + "/ckpt-3"});
        QVERIFY2(verify.exitCode == 0, (verify.out + verify.err).constData());
        const Run latest = testing::runCkpt({"latest", remoteDest});
        QVERIFY2(latest.exitCode == 0 && latest.out.contains("ckpt-3"), (latest.out + latest.err).constData());

        const Run again = testing::runCkpt({"schedule", "run-now", "tobucket", "--store", store, "--json"});
        QVERIFY2(again.exitCode == 0, (again.out + again.err).constData());
        QVERIFY2(again.out.contains("skipped"), again.out.constData());
        QVERIFY(objectsUnder(QStringLiteral("archive")) == remote);
    }
};

QTEST_GUILESS_MAIN(TstCliRemoteWriters)
#include "tst_cli_remote_writers.moc"

// The probe of conditional writes (objstore/conditional_writes.h) against
// SeaweedFS on loopback: honoured, the first conditional write to a bucket
// costs 3 requests more, once, and leaves nothing behind; behind a proxy
// that strips the conditions (a server that ignores them) every
// conditional write is refused naming the endpoint, with nothing written,
// while plain writes go on; and a save by N writers through `ckpt` stops
// before it writes anything there.

#include <QProcess>
#include <QtTest>

#include "objstore/conditional_writes.h"
#include "objstore/object_location.h"
#include "objstore/object_storage.h"
#include "s3_test_server.h"
#include "storage/owner_token.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::objstore;

class TstConditionalWrites : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    std::string m_prefix;  // <unique>/ in the bucket

    // A client and backend on 'endpoint' (a fresh proxy: a store no probe
    // of this process has seen yet).
    struct Store {
        std::shared_ptr<ObjectClient> client;
        std::shared_ptr<storage::Storage> storage;
        uint64_t requests() const { return client->stats().requests; }
    };
    Store storeAt(const std::string& endpoint) const {
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = endpoint;
        Store s;
        s.client = testing::testClient(vars);
        if (s.client) s.storage = makeObjectStorage(s.client);
        return s;
    }
    std::string url(const std::string& name) const { return "s3://" + m_server->bucket + "/" + m_prefix + name; }
    // The names under <prefix><dir>/ as the server lists them (objects only).
    std::vector<std::string> objectsIn(const std::string& dir) const {
        std::vector<std::string> names;
        auto direct = testing::testClient(m_server->variables());
        auto page = direct->listAll(m_server->bucket, m_prefix + dir + "/", "", 100);
        if (page.ok())
            for (const auto& o : page->objects) names.push_back(o.key.substr(m_prefix.size() + dir.size() + 1));
        return names;
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        m_prefix = testing::uniquePrefix("tst_conditional_writes");
    }

    // Honoured: 3 requests once (PUT, the refused PUT, DELETE), then none;
    // the probe object is gone and the conditions still work.
    void honouredCostsThreeRequestsOnce() {
        testing::FaultProxy proxy;  // no faults: only a store of its own
        QVERIFY(proxy.start(m_server->endpoint, 0, 0, 0));
        Store s = storeAt(proxy.endpoint());
        QVERIFY(s.client);
        uint64_t before = s.requests();
        QVERIFY(s.storage->writeObject(url("ok/plain"), "plain", storage::WriteCondition::none()).ok());
        QCOMPARE(s.requests() - before, uint64_t(1));  // no condition: no probe
        before = s.requests();
        auto first = s.storage->writeObject(url("ok/first"), "first", storage::WriteCondition::ifAbsent());
        QVERIFY2(first.ok(), first.status().toString().c_str());
        QCOMPARE(s.requests() - before, uint64_t(1 + 3));
        before = s.requests();
        QVERIFY(s.storage->writeObject(url("ok/second"), "second", storage::WriteCondition::ifAbsent()).ok());
        QVERIFY(s.storage->writeObject(url("ok/first"), "again", storage::WriteCondition::ifMatch(*first)).ok());
        QCOMPARE(s.storage->writeObject(url("ok/second"), "x", storage::WriteCondition::ifAbsent()).status().code(),
                 StatusCode::AlreadyExists);
        QCOMPARE(s.requests() - before, uint64_t(1 + 1 + 2));  // no probe again; a refusal costs a HEAD (a lost answer?)
        const std::vector<std::string> left = objectsIn("ok");
        QCOMPARE(left, (std::vector<std::string>{"first", "plain", "second"}));
    }

    // Ignored: refused before anything is written, naming the endpoint;
    // the verdict is kept (no new probe); writes without a condition go on.
    void ignoredConditionsAreRefused() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0, 0, 0, 1, false, 0, false, true));
        Store s = storeAt(proxy.endpoint());
        QVERIFY(s.client);
        // The proxy really lets a create-only PUT overwrite.
        PutCondition createOnly;
        createOnly.ifNoneMatch = true;
        const ObjectRef raw{m_server->bucket, m_prefix + "raw/x"};
        QVERIFY(s.client->put(raw, "1").ok());
        QVERIFY(s.client->putOnce(raw, "2", createOnly).ok());

        uint64_t before = s.requests();
        const auto refused = s.storage->writeObject(url("bad/index"), "i", storage::WriteCondition::ifAbsent());
        QCOMPARE(refused.status().code(), StatusCode::Unimplemented);
        const std::string message = refused.status().message();
        QVERIFY2(message.find("endpoint " + proxy.endpoint()) != std::string::npos, message.c_str());
        QVERIFY2(message.find("does not honour create-only writes") != std::string::npos, message.c_str());
        // The probe's name is an owned temporary one (leftoverProbeIsCollected).
        const std::string probeName = "/bad/.ckpt-write-probe.tmp-" + storage::thisProcess().token + "-";
        QVERIFY2(message.find(probeName) != std::string::npos, message.c_str());
        QCOMPARE(s.requests() - before, uint64_t(3));
        QVERIFY(objectsIn("bad").empty());  // neither the object nor the probe
        before = s.requests();
        storage::CreateOptions options;
        options.condition = storage::WriteCondition::ifAbsent();
        QCOMPARE(s.storage->create(url("bad/data"), options).status().code(), StatusCode::Unimplemented);
        QCOMPARE(s.requests() - before, uint64_t(0));
        QVERIFY(s.storage->writeObject(url("bad/plain"), "p", storage::WriteCondition::none()).ok());
        QCOMPARE(objectsIn("bad"), (std::vector<std::string>{"plain"}));
    }

    // A probe object left by a process killed mid-probe is an owned
    // temporary name: `ckpt gc` removes it once its process is gone.
    void leftoverProbeIsCollected() {
        auto direct = testing::testClient(m_server->variables());
        QVERIFY(direct);
        // pid 4194303 (the kernel's largest) does not run here.
        const std::string probe = ".ckpt-write-probe.tmp-4194303-12345-" + storage::bootPrefix() + "-0";
        QVERIFY(direct->put({m_server->bucket, m_prefix + "gc/" + probe}, "ckpt conditional-write probe 1\n").ok());
        QVERIFY(direct->put({m_server->bucket, m_prefix + "gc/keep"}, "k").ok());
        testing::setStoreEnvironment(m_server->variables());
        const auto gc = testing::runCkpt({QStringLiteral("gc"), QString::fromStdString(url("gc")), QStringLiteral("--apply"),
                                          QStringLiteral("--grace"), QStringLiteral("0s")});
        QVERIFY2(gc.exitCode == 0, gc.err.constData());
        QVERIFY2(gc.out.contains(QByteArray::fromStdString(probe)), gc.out.constData());
        QCOMPARE(objectsIn("gc"), (std::vector<std::string>{"keep"}));
    }

    // Through ckpt: a save by 2 writers refuses the store and commits nothing.
    void multiWriterSaveRefused() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0, 0, 0, 1, false, 0, false, true));
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const auto& [k, v] : m_server->variables()) env.insert(QString::fromStdString(k), QString::fromStdString(v));
        env.insert(QStringLiteral("AWS_ENDPOINT_URL"), QString::fromStdString(proxy.endpoint()));
        p.setProcessEnvironment(env);
        p.start(testing::binaryDir() + QStringLiteral("/app/cli/ckpt"),
                {QStringLiteral("demo-train"), QString::fromStdString(url("run")), QStringLiteral("--world"), QStringLiteral("2"),
                 QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--commit-timeout"), QStringLiteral("5")});
        QVERIFY(p.waitForFinished(120000));
        const QByteArray out = p.readAllStandardOutput() + p.readAllStandardError();
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(out.contains("does not honour create-only writes"), out.constData());
        QVERIFY2(out.contains(QByteArray::fromStdString(proxy.endpoint())), out.constData());
        for (const std::string& name : objectsIn("run"))
            QVERIFY2(name.find(".index") == std::string::npos && name != "checkpoint", name.c_str());
    }
};

QTEST_GUILESS_MAIN(TstConditionalWrites)
#include "tst_conditional_writes.moc"

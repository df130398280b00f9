// ObjectClient against a real S3 server on loopback (SeaweedFS, started by
// the `s3` CTest fixture): ranged, suffix and parallel reads, listings in
// pages, awkward keys, conditional PUTs, a wrong secret (403, the secret
// never shown), a server that is not there, and 503 SlowDown, resets and
// mid-body resets from the fault proxy (every request still succeeds, in
// at most 5 attempts, and a broken read resumes instead of starting over).

#include <QtTest>

#include <random>

#include "objstore/object_client.h"
#include "s3_test_server.h"

using namespace ckpt;
using namespace ckpt::objstore;

namespace {

std::string randomBytes(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
}

std::string asString(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

}  // namespace

class TstObjectClient : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    std::string m_prefix;

    std::unique_ptr<ObjectClient> client(std::map<std::string, std::string> vars, int maxAttempts = 5) {
        auto settings = resolveStoreSettings(StoreKind::S3, testing::lookupFrom(std::move(vars)));
        if (!settings) {
            qWarning("%s", settings.status().toString().c_str());
            return nullptr;
        }
        settings->transfer.retry.baseDelay = std::chrono::milliseconds(20);
        settings->transfer.retry.maxDelay = std::chrono::milliseconds(200);
        settings->transfer.retry.maxAttempts = maxAttempts;
        auto c = ObjectClient::create(std::move(*settings));
        return c ? std::move(*c) : nullptr;
    }
    std::unique_ptr<ObjectClient> client() { return client(m_server->variables()); }
    ObjectRef ref(const std::string& name) const { return {m_server->bucket, m_prefix + name}; }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        m_prefix = testing::uniquePrefix("tst_object_client");
    }

    void putAndRead() {
        auto c = client();
        QVERIFY(c);
        const std::string data = randomBytes(3u << 20, 1);
        auto put = c->put(ref("blob"), data);
        QVERIFY2(put.ok(), put.status().toString().c_str());
        QVERIFY(!put->etag.empty());

        auto info = c->stat(ref("blob"));
        QVERIFY2(info.ok(), info.status().toString().c_str());
        QCOMPARE(info->size, uint64_t(data.size()));
        QCOMPARE(QString::fromStdString(info->etag), QString::fromStdString(put->etag));

        for (auto [offset, length] :
             {std::pair<uint64_t, size_t>{0, 1}, {1000, 5000}, {data.size() - 7, 7}, {1u << 20, 1u << 20}}) {
            std::vector<uint8_t> buf(length);
            auto r = c->read(ref("blob"), offset, buf, info->etag);
            QVERIFY2(r.ok(), r.status().toString().c_str());
            QCOMPARE(asString(buf), data.substr(offset, length));
        }
        // One request for the last 64 KiB, and the size with it.
        const uint64_t before = c->stats().requests;
        auto tail = c->readTail(ref("blob"), 64u << 10);
        QVERIFY2(tail.ok(), tail.status().toString().c_str());
        QCOMPARE(c->stats().requests - before, uint64_t(1));
        QCOMPARE(tail->second.size, uint64_t(data.size()));
        QCOMPARE(asString(tail->first), data.substr(data.size() - (64u << 10)));
        // A suffix longer than the object is the whole object.
        auto whole = c->readTail(ref("blob"), 8u << 20);
        QVERIFY(whole.ok());
        QCOMPARE(asString(whole->first), data);

        // 16 ranges at once.
        std::vector<std::vector<uint8_t>> bufs(16, std::vector<uint8_t>(100000));
        std::vector<RangeRead> ranges;
        for (size_t i = 0; i < bufs.size(); ++i) ranges.push_back({ref("blob"), i * 150000, bufs[i], {}, {}, {}});
        QVERIFY(c->readRanges(ranges).isOk());
        for (size_t i = 0; i < bufs.size(); ++i) QCOMPARE(asString(bufs[i]), data.substr(i * 150000, 100000));

        // Past the end, a missing object.
        std::vector<uint8_t> buf(10);
        auto past = c->read(ref("blob"), data.size() - 5, buf);
        QVERIFY(!past.ok());
        QCOMPARE(past.status().code(), StatusCode::OutOfRange);
        auto missing = c->stat(ref("nothing-here"));
        QCOMPARE(missing.status().code(), StatusCode::NotFound);
        QVERIFY2(QString::fromStdString(missing.status().message())
                     .contains(QString::fromStdString("s3://" + m_server->bucket + "/" + m_prefix + "nothing-here")),
                 missing.status().toString().c_str());
        auto missingRead = c->read(ref("nothing-here"), 0, buf);
        QCOMPARE(missingRead.status().code(), StatusCode::NotFound);
        QVERIFY2(QString::fromStdString(missingRead.status().message()).contains(QStringLiteral("NoSuchKey")),
                 missingRead.status().toString().c_str());
    }

    void emptyObject() {
        auto c = client();
        QVERIFY(c);
        QVERIFY(c->put(ref("empty"), "").ok());
        auto tail = c->readTail(ref("empty"), 1024);
        QVERIFY2(tail.ok(), tail.status().toString().c_str());
        QCOMPARE(tail->second.size, uint64_t(0));
        QVERIFY(tail->first.empty());
    }

    void awkwardKeys_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("space and reserved") << QStringLiteral("a b/c+d=e?f#g&h%i;j,k'l(m)");
        QTest::newRow("utf-8") << QString::fromUtf8("üñí/ሴ.index");
        QTest::newRow("tilde and star") << QStringLiteral("~x*y!z");
    }
    void awkwardKeys() {
        QFETCH(QString, name);
        auto c = client();
        QVERIFY(c);
        const std::string key = "keys/" + name.toStdString();
        const std::string body = "body of " + key;
        auto put = c->put(ref(key), body);
        QVERIFY2(put.ok(), put.status().toString().c_str());
        std::vector<uint8_t> buf(body.size());
        auto r = c->read(ref(key), 0, buf);
        QVERIFY2(r.ok(), r.status().toString().c_str());
        QCOMPARE(asString(buf), body);
        auto listed = c->listAll(m_server->bucket, m_prefix + key, "", 10);
        QVERIFY2(listed.ok(), listed.status().toString().c_str());
        QCOMPARE(listed->objects.size(), size_t(1));
        QCOMPARE(QString::fromStdString(listed->objects[0].key), QString::fromStdString(m_prefix + key));
    }

    // Keys with "." and ".." segments are sent literally (never squashed
    // into another key: tst_request_target checks the URL); SeaweedFS
    // refuses them with 400, which must come back naming the key.
    void dotSegmentKeys() {
        auto c = client();
        QVERIFY(c);
        for (const char* name : {"keys/a/./b", "keys/a/../c"}) {
            auto put = c->put(ref(name), "x");
            QVERIFY(!put.ok());
            QCOMPARE(put.status().code(), StatusCode::InvalidArgument);
            QVERIFY2(QString::fromStdString(put.status().message()).contains(QString::fromStdString(m_prefix + name)),
                     put.status().toString().c_str());
        }
    }

    void listingPages() {
        auto c = client();
        QVERIFY(c);
        for (int i = 0; i < 25; ++i) {
            const std::string name = "list/obj-" + std::to_string(100 + i);
            QVERIFY(c->put(ref(name), name).ok());
        }
        QVERIFY(c->put(ref("list/sub/one"), "1").ok());
        QVERIFY(c->put(ref("list/sub/two"), "2").ok());
        std::string token;
        std::vector<size_t> pageSizes;
        std::vector<std::string> keys;
        for (int page = 0; page < 10; ++page) {
            auto p = c->listPage(m_server->bucket, m_prefix + "list/", "/", token, 10);
            QVERIFY2(p.ok(), p.status().toString().c_str());
            pageSizes.push_back(p->objects.size() + p->commonPrefixes.size());
            for (const auto& o : p->objects) keys.push_back(o.key);
            for (const auto& pre : p->commonPrefixes) keys.push_back(pre);
            if (!p->isTruncated) break;
            token = p->nextContinuationToken;
        }
        QCOMPARE(keys.size(), size_t(26));  // 25 objects and one common prefix
        QVERIFY2(pageSizes.size() >= 3, "10 keys a page: at least 3 pages");
        QCOMPARE(QString::fromStdString(keys.front()), QString::fromStdString(m_prefix + "list/obj-100"));
        QVERIFY(std::find(keys.begin(), keys.end(), m_prefix + "list/sub/") != keys.end());
        auto all = c->listAll(m_server->bucket, m_prefix + "list/", "", 1000);
        QVERIFY(all.ok());
        QCOMPARE(all->objects.size(), size_t(27));
        auto capped = c->listAll(m_server->bucket, m_prefix + "list/", "", 20);
        QCOMPARE(capped.status().code(), StatusCode::ResourceExhausted);
    }

    void conditionalPut() {
        auto c = client();
        QVERIFY(c);
        PutCondition absent;
        absent.ifNoneMatch = true;
        auto first = c->put(ref("cond"), "one", absent);
        QVERIFY2(first.ok(), first.status().toString().c_str());
        auto again = c->put(ref("cond"), "two", absent);
        QVERIFY2(!again.ok(), "If-None-Match: * on an existing object must fail");
        QCOMPARE(again.status().code(), StatusCode::FailedPrecondition);
        PutCondition match;
        match.ifMatch = "0123456789abcdef0123456789abcdef";
        auto stale = c->put(ref("cond"), "three", match);
        QCOMPARE(stale.status().code(), StatusCode::FailedPrecondition);
        match.ifMatch = first->etag;
        auto swapped = c->put(ref("cond"), "four", match);
        QVERIFY2(swapped.ok(), swapped.status().toString().c_str());
        std::vector<uint8_t> buf(4);
        QVERIFY(c->read(ref("cond"), 0, buf).ok());
        QCOMPARE(asString(buf), std::string("four"));
    }

    void wrongSecret() {
        auto good = client();
        QVERIFY(good);
        QVERIFY(good->put(ref("secret-test"), "x").ok());
        auto vars = m_server->variables();
        const std::string wrong = "Wr0ngSecretThatMustNotAppear";
        vars["AWS_SECRET_ACCESS_KEY"] = wrong;
        auto c = client(vars);
        QVERIFY(c);
        auto s = c->stat(ref("secret-test"));
        QCOMPARE(s.status().code(), StatusCode::PermissionDenied);
        std::vector<uint8_t> buf(1);
        auto r = c->read(ref("secret-test"), 0, buf);
        QCOMPARE(r.status().code(), StatusCode::PermissionDenied);
        const QString msg = QString::fromStdString(r.status().toString());
        QVERIFY2(msg.contains(QStringLiteral("SignatureDoesNotMatch")), qPrintable(msg));
        QVERIFY2(msg.contains(QString::fromStdString("s3://" + m_server->bucket + "/")), qPrintable(msg));
        QVERIFY2(!msg.contains(QString::fromStdString(wrong)), qPrintable(msg));
        QVERIFY2(!msg.contains(QString::fromStdString(m_server->secret)), qPrintable(msg));
        // 403 is final: one request, no retries.
        QCOMPARE(c->stats().retries, uint64_t(0));

        vars = m_server->variables();
        vars["AWS_ACCESS_KEY_ID"] = "AKIDUNKNOWN";
        auto unknown = client(vars);
        auto u = unknown->stat(ref("secret-test"));
        QCOMPARE(u.status().code(), StatusCode::PermissionDenied);
    }

    void serverNotThere() {
        // A port that was just free: connection refused, retried, then a clear error.
        const int port = testing::freeLoopbackPort();
        QVERIFY(port > 0);
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = "http://127.0.0.1:" + std::to_string(port);
        auto c = client(vars);
        QVERIFY(c);
        auto s = c->stat(ref("x"));
        QVERIFY(!s.ok());
        const QString msg = QString::fromStdString(s.status().toString());
        QVERIFY2(msg.contains(QStringLiteral("after 5 attempts")), qPrintable(msg));
        QVERIFY2(msg.contains(QString::number(port)), qPrintable(msg));
        QCOMPARE(c->stats().requests, uint64_t(5));
    }

    // 10% SlowDown, 2% resets before an answer, 5% resets halfway through a
    // body: every operation still succeeds, no request takes more than 5
    // attempts, and the bytes are right.
    void retriesThroughFaults() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0.10, 0.02, 0.05, 7));
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = proxy.endpoint();
        auto c = client(vars);
        QVERIFY(c);
        const std::string data = randomBytes(1u << 20, 2);
        for (int i = 0; i < 20; ++i) {
            auto put = c->put(ref("faults/obj-" + std::to_string(i)), data.substr(size_t(i) * 1000, 50000));
            QVERIFY2(put.ok(), put.status().toString().c_str());
        }
        for (int i = 0; i < 20; ++i) {
            std::vector<uint8_t> buf(50000);
            auto r = c->read(ref("faults/obj-" + std::to_string(i)), 0, buf);
            QVERIFY2(r.ok(), r.status().toString().c_str());
            QCOMPARE(asString(buf), data.substr(size_t(i) * 1000, 50000));
            auto t = c->readTail(ref("faults/obj-" + std::to_string(i)), 100);
            QVERIFY2(t.ok(), t.status().toString().c_str());
        }
        auto all = c->listAll(m_server->bucket, m_prefix + "faults/", "", 100);
        QVERIFY2(all.ok(), all.status().toString().c_str());
        QCOMPARE(all->objects.size(), size_t(20));
        const TransferStats st = c->stats();
        const QString counters = proxy.stop();
        qInfo("client: %llu requests, %llu retries, max %d attempts; proxy: %s", static_cast<unsigned long long>(st.requests),
              static_cast<unsigned long long>(st.retries), st.maxAttempts, qPrintable(counters));
        QVERIFY2(st.retries > 0, "the proxy injected faults: some requests must have been retried");
        QVERIFY(st.maxAttempts <= 5);
    }

    // Every GET is cut halfway once in a while: the read resumes from the
    // first missing byte, so the bytes received add up to the object's size.
    void resumeAfterReset() {
        auto c0 = client();
        const std::string data = randomBytes(4u << 20, 3);
        QVERIFY(c0->put(ref("resume"), data).ok());
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0, 0, 0.5, 11));
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = proxy.endpoint();
        auto c = client(vars);
        std::vector<uint8_t> buf(data.size());
        auto r = c->read(ref("resume"), 0, buf);
        const QString counters = proxy.stop();
        QVERIFY2(r.ok(), r.status().toString().c_str());
        QCOMPARE(asString(buf), data);
        qInfo("%llu requests for one read; proxy: %s", static_cast<unsigned long long>(c->stats().requests),
              qPrintable(counters));
        QVERIFY2(c->stats().retries > 0, qPrintable(counters));
        QCOMPARE(c->stats().bytesReceived, uint64_t(data.size()));
    }

    // A server that ignores Range and answers 200 with the whole object:
    // the right bytes still come back, and the transfer stops once they have.
    void serverIgnoresRange() {
        auto c0 = client();
        const std::string data = randomBytes(8u << 20, 4);
        QVERIFY(c0->put(ref("no-range"), data).ok());
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0, 0, 0, 1, true));
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = proxy.endpoint();
        auto c = client(vars);
        std::vector<uint8_t> buf(1000);
        auto r = c->read(ref("no-range"), 1u << 20, buf);
        proxy.stop();
        QVERIFY2(r.ok(), r.status().toString().c_str());
        QCOMPARE(asString(buf), data.substr(1u << 20, 1000));
        QVERIFY2(c->stats().bytesReceived < (3u << 20), "the rest of the object was downloaded");
    }

    // A server that always answers SlowDown: five attempts, then an error
    // that says so.
    void slowDownExhaustsAttempts() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 1.0, 0, 0));
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = proxy.endpoint();
        auto c = client(vars);
        std::vector<uint8_t> buf(4);
        auto s = c->read(ref("x"), 0, buf);
        QCOMPARE(s.status().code(), StatusCode::ResourceExhausted);
        const QString msg = QString::fromStdString(s.status().message());
        QVERIFY2(msg.contains(QStringLiteral("SlowDown")) && msg.contains(QStringLiteral("after 5 attempts")), qPrintable(msg));
        QCOMPARE(c->stats().requests, uint64_t(5));
        // A HEAD answer has no body: the status is named instead.
        auto h = c->stat(ref("x"));
        proxy.stop();
        QVERIFY2(QString::fromStdString(h.status().message()).contains(QStringLiteral("503 Service Unavailable")),
                 h.status().toString().c_str());
    }

    void cancellation() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 1.0, 0, 0));
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = proxy.endpoint();
        auto c = client(vars, 10);
        CancellationToken cancel;
        cancel.cancel();
        auto s = c->stat(ref("x"), &cancel);
        QCOMPARE(s.status().code(), StatusCode::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TstObjectClient)
#include "tst_object_client.moc"

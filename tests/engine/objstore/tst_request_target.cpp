// requestTarget(): the one builder of request URLs. The URL curl sends must
// carry exactly the canonical URI and query that are signed, for any key.

#include <QtTest>

#include "objstore/request_target.h"

using namespace ckpt::objstore;

Q_DECLARE_METATYPE(Addressing)

class TstRequestTarget : public QObject {
    Q_OBJECT
private slots:
    void target_data() {
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<Addressing>("addressing");
        QTest::addColumn<QString>("bucket");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("host");
        const auto P = Addressing::Path;
        const auto V = Addressing::VirtualHost;
        QTest::newRow("path style") << "http://127.0.0.1:9000" << P << "bkt"
                                    << "runs/ckpt-1.index"
                                    << "http://127.0.0.1:9000/bkt/runs/ckpt-1.index"
                                    << "127.0.0.1:9000";
        QTest::newRow("virtual host") << "https://s3.eu-west-1.amazonaws.com" << V << "bkt"
                                      << "a/b"
                                      << "https://bkt.s3.eu-west-1.amazonaws.com/a/b"
                                      << "bkt.s3.eu-west-1.amazonaws.com";
        QTest::newRow("dotted bucket falls back to path") << "https://s3.amazonaws.com" << V << "my.bkt"
                                                          << "k"
                                                          << "https://s3.amazonaws.com/my.bkt/k"
                                                          << "s3.amazonaws.com";
        QTest::newRow("IP endpoint falls back to path") << "http://127.0.0.1:9000" << V << "bkt"
                                                        << "k"
                                                        << "http://127.0.0.1:9000/bkt/k"
                                                        << "127.0.0.1:9000";
        QTest::newRow("default port left out") << "https://storage.googleapis.com:443" << P << "bkt"
                                               << "k"
                                               << "https://storage.googleapis.com/bkt/k"
                                               << "storage.googleapis.com";
        QTest::newRow("reserved characters") << "http://localhost:1" << P << "bkt"
                                             << "a b/c+d=e?f#g&h%i"
                                             << "http://localhost:1/bkt/a%20b/c%2Bd%3De%3Ff%23g%26h%25i"
                                             << "localhost:1";
        QTest::newRow("utf-8") << "http://localhost:1" << P << "bkt" << QString::fromUtf8("ü/ሴ")
                               << "http://localhost:1/bkt/%C3%BC/%E1%88%B4"
                               << "localhost:1";
        QTest::newRow("dot segments kept") << "http://localhost:1" << P << "bkt"
                                           << "a/./b/../c//d"
                                           << "http://localhost:1/bkt/a/./b/../c//d"
                                           << "localhost:1";
        QTest::newRow("bucket itself") << "http://localhost:1" << P << "bkt"
                                       << ""
                                       << "http://localhost:1/bkt"
                                       << "localhost:1";
        QTest::newRow("IPv6") << "http://[::1]:9000" << P << "bkt"
                              << "k"
                              << "http://[::1]:9000/bkt/k"
                              << "[::1]:9000";
    }
    void target() {
        QFETCH(QString, endpoint);
        QFETCH(Addressing, addressing);
        QFETCH(QString, bucket);
        QFETCH(QString, key);
        QFETCH(QString, url);
        QFETCH(QString, host);
        auto ep = parseEndpoint(endpoint.toStdString());
        QVERIFY2(ep.ok(), ep.status().toString().c_str());
        const RequestTarget t = requestTarget(*ep, addressing, bucket.toStdString(), key.toStdString());
        QCOMPARE(QString::fromStdString(t.url), url);
        QCOMPARE(QString::fromStdString(t.host), host);
        // The URL is scheme://host + exactly the signed path and query.
        QCOMPARE(QString::fromStdString(t.url), QString::fromStdString(ep->scheme + "://" + t.host + t.canonicalUri));
    }

    // curl 7.88's signer neither sorts the query (curl/curl#9717) nor signs
    // a value-less parameter the way S3 does (curl/curl#10129): ours does both.
    void querySortedAndValueless() {
        auto ep = parseEndpoint("http://127.0.0.1:9000");
        QVERIFY(ep.ok());
        const RequestTarget t = requestTarget(
            *ep, Addressing::Path, "bkt", "",
            {{"prefix", "runs/a b"}, {"list-type", "2"}, {"uploads", ""}, {"continuation-token", "1/+="}, {"delimiter", "/"}});
        QCOMPARE(QString::fromStdString(t.canonicalQuery),
                 QStringLiteral("continuation-token=1%2F%2B%3D&delimiter=%2F&list-type=2&prefix=runs%2Fa%20b&uploads="));
        QVERIFY(QString::fromStdString(t.url).endsWith(QStringLiteral("/bkt?") + QString::fromStdString(t.canonicalQuery)));
    }

    void uriCoding() {
        QCOMPARE(QString::fromStdString(uriEncode("-._~AZaz09", true)), QStringLiteral("-._~AZaz09"));
        QCOMPARE(QString::fromStdString(uriEncode("a/b", true)), QStringLiteral("a%2Fb"));
        QCOMPARE(QString::fromStdString(uriEncode("a/b", false)), QStringLiteral("a/b"));
        QCOMPARE(QString::fromStdString(*uriDecode("a%2Fb%20c%e1%88%b4")), QString::fromUtf8("a/b cሴ"));
        QVERIFY(!uriDecode("abc%2").ok());
        QVERIFY(!uriDecode("abc%zz").ok());
        QVERIFY(!uriDecode("%").ok());
    }

    void endpointRefusals_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("no scheme") << "127.0.0.1:9000"
                                   << "expected http";
        QTest::newRow("ftp") << "ftp://host"
                             << "not http or https";
        QTest::newRow("user info") << "https://AKID:hunter2@host"
                                   << "credentials in the URL";
        QTest::newRow("path") << "https://host/prefix"
                              << "no path";
        QTest::newRow("query") << "https://host?x=1"
                               << "no path";
        QTest::newRow("port zero") << "https://host:0"
                                   << "port";
        QTest::newRow("port too big") << "https://host:70000"
                                      << "port";
        QTest::newRow("port not a number") << "https://host:8x"
                                           << "port";
        QTest::newRow("empty port") << "https://host:"
                                    << "port";
        QTest::newRow("no host") << "https://"
                                 << "no host";
        QTest::newRow("bad host") << "https://ho st"
                                  << "not allowed";
    }
    void endpointRefusals() {
        QFETCH(QString, url);
        QFETCH(QString, fragment);
        auto ep = parseEndpoint(url.toStdString(), "AWS_ENDPOINT_URL");
        QVERIFY(!ep.ok());
        const QString msg = QString::fromStdString(ep.status().message());
        QVERIFY2(msg.contains(fragment), qPrintable(msg));
        QVERIFY2(msg.startsWith(QStringLiteral("AWS_ENDPOINT_URL")), qPrintable(msg));
        QVERIFY2(!msg.contains(QStringLiteral("hunter2")), qPrintable(msg));
    }

    void loopback() {
        for (const char* yes : {"http://127.0.0.1:1", "http://127.1.2.3", "http://localhost:9", "http://[::1]:9"})
            QVERIFY2(isLoopback(*parseEndpoint(yes)), yes);
        for (const char* no :
             {"http://127.0.0.1.example.com", "http://128.0.0.1", "http://10.0.0.1", "http://[::2]", "http://localhost.evil"})
            QVERIFY2(!isLoopback(*parseEndpoint(no)), no);
    }

    void bucketNames() {
        for (const char* ok : {"abc", "my-bucket.v2", "a_b-c", "0ab"}) QVERIFY2(isValidBucketName(ok), ok);
        for (const char* bad : {"ab", "", "Upper", "-ab", "ab-", "a/b", "a b", "a%2f"}) QVERIFY2(!isValidBucketName(bad), bad);
        QVERIFY(!isValidBucketName(std::string(223, 'a')));
    }
};

QTEST_GUILESS_MAIN(TstRequestTarget)
#include "tst_request_target.moc"

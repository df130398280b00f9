// How a write's condition is spelled for each store (no network: GCS is
// not reachable from the tests, so requests are built and inspected):
// S3's If-None-Match / If-Match on the ETag, GCS's XML API
// x-goog-if-generation-match with 0 or the generation that x-goog-generation
// reported, and the generation token a response gives.

#include <QtTest>

#include "objstore/object_client.h"
#include "objstore/remote_writable_file.h"

using namespace ckpt;
using namespace ckpt::objstore;

Q_DECLARE_METATYPE(StoreKind)

namespace {

QString headerText(const HeaderList& headers) {
    QStringList lines;
    for (const auto& [name, value] : headers) lines << QString::fromStdString(name + ": " + value);
    return lines.join(QLatin1Char('\n'));
}

std::unique_ptr<ObjectClient> clientOf(StoreKind kind, const std::string& endpoint) {
    StoreSettings settings;
    settings.kind = kind;
    settings.endpoint = *parseEndpoint(endpoint);
    settings.region = kind == StoreKind::Gcs ? "auto" : "us-east-1";
    settings.credentials.accessKeyId = "AKIDEXAMPLE";
    settings.credentials.secretAccessKey = Secret("not-a-real-secret");
    auto client = ObjectClient::create(std::move(settings));
    return client.ok() ? std::move(*client) : nullptr;
}

}  // namespace

class TstWriteConditions : public QObject {
    Q_OBJECT
private slots:
    void headers_data() {
        QTest::addColumn<StoreKind>("kind");
        QTest::addColumn<bool>("ifNoneMatch");
        QTest::addColumn<QString>("ifMatch");
        QTest::addColumn<QString>("expected");
        QTest::newRow("s3 none") << StoreKind::S3 << false << ""
                                 << "";
        QTest::newRow("s3 create-only") << StoreKind::S3 << true << ""
                                        << "If-None-Match: *";
        QTest::newRow("s3 compare-and-swap") << StoreKind::S3 << false << "9b2cf535f27731c974343645a3985328"
                                             << "If-Match: \"9b2cf535f27731c974343645a3985328\"";
        QTest::newRow("gcs none") << StoreKind::Gcs << false << ""
                                  << "";
        QTest::newRow("gcs create-only") << StoreKind::Gcs << true << ""
                                         << "x-goog-if-generation-match: 0";
        QTest::newRow("gcs compare-and-swap on a generation") << StoreKind::Gcs << false << "1700000000123456"
                                                              << "x-goog-if-generation-match: 1700000000123456";
        QTest::newRow("gcs compare-and-swap on an etag (no generation known)")
            << StoreKind::Gcs << false << "9b2cf535f27731c974343645a3985328"
            << "If-Match: \"9b2cf535f27731c974343645a3985328\"";
    }
    void headers() {
        QFETCH(StoreKind, kind);
        QFETCH(bool, ifNoneMatch);
        QFETCH(QString, ifMatch);
        QFETCH(QString, expected);
        PutCondition c;
        c.ifNoneMatch = ifNoneMatch;
        c.ifMatch = ifMatch.toStdString();
        QCOMPARE(headerText(conditionHeaders(c, kind)), expected);
    }

    // The storage layer's conditions become the same headers.
    void storageConditions() {
        const PutCondition absent = putConditionOf(storage::WriteCondition::ifAbsent());
        QCOMPARE(headerText(conditionHeaders(absent, StoreKind::Gcs)), QStringLiteral("x-goog-if-generation-match: 0"));
        const PutCondition swap = putConditionOf(storage::WriteCondition::ifMatch(storage::Generation::of("42")));
        QCOMPARE(headerText(conditionHeaders(swap, StoreKind::Gcs)), QStringLiteral("x-goog-if-generation-match: 42"));
        QCOMPARE(headerText(conditionHeaders(swap, StoreKind::S3)), QStringLiteral("If-Match: \"42\""));
        QVERIFY(conditionHeaders(putConditionOf(storage::WriteCondition::none()), StoreKind::Gcs).empty());
    }

    // The generation token: GCS's x-goog-generation when a response has it,
    // else the ETag.
    void generationTokens() {
        HttpResponseHead gcs;
        gcs.status = 200;
        gcs.headers = {{"etag", "\"9b2cf535f27731c974343645a3985328\""},
                       {"x-goog-generation", "1700000000123456"},
                       {"x-goog-metageneration", "1"}};
        const ObjectInfo fromGcs = objectInfoFromHead(gcs);
        QCOMPARE(QString::fromStdString(fromGcs.etag), QStringLiteral("9b2cf535f27731c974343645a3985328"));
        QCOMPARE(QString::fromStdString(fromGcs.generation), QStringLiteral("1700000000123456"));
        QCOMPARE(generationOf(fromGcs), storage::Generation::of("1700000000123456"));
        HttpResponseHead s3;
        s3.status = 200;
        s3.headers = {{"etag", "\"9b2cf535f27731c974343645a3985328\""}};
        QCOMPARE(generationOf(objectInfoFromHead(s3)), storage::Generation::of("9b2cf535f27731c974343645a3985328"));
        QVERIFY(generationOf(ObjectInfo{}).isUnknown());
        // What a GCS read gave is what its compare-and-swap sends.
        const PutCondition swap = putConditionOf(storage::WriteCondition::ifMatch(generationOf(fromGcs)));
        QCOMPARE(headerText(conditionHeaders(swap, StoreKind::Gcs)),
                 QStringLiteral("x-goog-if-generation-match: 1700000000123456"));
    }

    // A whole signed PUT for gs://: the condition travels unsigned beside
    // the signed headers, as for S3.
    void signedGcsRequest() {
        auto client = clientOf(StoreKind::Gcs, "https://storage.googleapis.com");
        QVERIFY(client);
        PutCondition c;
        c.ifNoneMatch = true;
        const HttpRequest req = client->signedRequest("PUT", {"bkt", "runs/ckpt-1.index"}, {},
                                                      conditionHeaders(c, client->settings().kind), "x", "hash");
        QCOMPARE(QString::fromStdString(req.url), QStringLiteral("https://storage.googleapis.com/bkt/runs/ckpt-1.index"));
        const QString text = headerText(req.headers);
        QVERIFY2(text.contains(QStringLiteral("x-goog-if-generation-match: 0")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("If-None-Match")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("SignedHeaders=host;x-amz-content-sha256;x-amz-date,")), qPrintable(text));
    }
};

QTEST_GUILESS_MAIN(TstWriteConditions)
#include "tst_write_conditions.moc"

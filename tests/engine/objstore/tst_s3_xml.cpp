// (No raw string literals here: moc does not parse them.)
// ListObjectsV2, error and multipart upload documents through libexpat,
// and what a hostile server can send instead: every bound holds while
// parsing. The store's two time formats.

#include <QtTest>

#include "objstore/s3_xml.h"
#include "objstore/timestamps.h"

using namespace ckpt::objstore;

namespace {
std::string page(const std::string& contents, const std::string& tail = "<IsTruncated>false</IsTruncated>") {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>bkt</Name><Prefix>runs/</Prefix>" +
           tail + contents + "</ListBucketResult>";
}
}  // namespace

class TstS3Xml : public QObject {
    Q_OBJECT
private slots:
    void listPage() {
        const std::string xml = page(
            "<Contents><Key>runs/a%20b/ckpt-1.index</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>\n"
            "<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>1234</Size><StorageClass>STANDARD</StorageClass></"
            "Contents>\n"
            "<Contents><Key>runs/%E1%88%B4</Key><ETag>\"abc-2\"</ETag><Size>0</Size></Contents>\n"
            "<CommonPrefixes><Prefix>runs/sub%2Fdir/</Prefix></CommonPrefixes>",
            "<IsTruncated>true</IsTruncated><NextContinuationToken>tok/+=</NextContinuationToken>");
        auto p = parseListObjectsV2(xml, true);
        QVERIFY2(p.ok(), p.status().toString().c_str());
        QCOMPARE(p->objects.size(), size_t(2));
        QCOMPARE(QString::fromStdString(p->objects[0].key), QStringLiteral("runs/a b/ckpt-1.index"));
        QCOMPARE(p->objects[0].size, uint64_t(1234));
        QCOMPARE(QString::fromStdString(p->objects[0].etag), QStringLiteral("9b2cf535f27731c974343645a3985328"));
        QCOMPARE(QString::fromStdString(p->objects[0].lastModified), QStringLiteral("2026-01-01T00:00:00.000Z"));
        QCOMPARE(QString::fromStdString(p->objects[1].key), QString::fromUtf8("runs/ሴ"));
        QCOMPARE(QString::fromStdString(p->objects[1].etag), QStringLiteral("abc-2"));
        QCOMPARE(p->commonPrefixes.size(), size_t(1));
        QCOMPARE(QString::fromStdString(p->commonPrefixes[0]), QStringLiteral("runs/sub/dir/"));
        QVERIFY(p->isTruncated);
        QCOMPARE(QString::fromStdString(p->nextContinuationToken), QStringLiteral("tok/+="));
        // Without encoding-type=url the keys are taken as they are.
        auto raw = parseListObjectsV2(xml, false);
        QVERIFY(raw.ok());
        QCOMPARE(QString::fromStdString(raw->objects[0].key), QStringLiteral("runs/a%20b/ckpt-1.index"));
    }

    void hostile_data() {
        QTest::addColumn<QByteArray>("xml");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("not XML") << QByteArray("HTTP 200 but no XML") << "malformed XML";
        QTest::newRow("truncated") << QByteArray::fromStdString(page("<Contents><Key>a</Key>").substr(0, 150)) << "malformed XML";
        QTest::newRow("wrong root") << QByteArray("<Error><Code>x</Code></Error>") << "expected a ListBucketResult";
        QTest::newRow("billion laughs")
            << QByteArray(
                   "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;\">]>\n"
                   "<ListBucketResult><Contents><Key>&lol2;</Key></Contents></ListBucketResult>")
            << "DOCTYPE";
        QTest::newRow("external entity")
            << QByteArray(
                   "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n"
                   "<ListBucketResult><Contents><Key>&e;</Key></Contents></ListBucketResult>")
            << "DOCTYPE";
        QTest::newRow("size not a number") << QByteArray::fromStdString(page("<Contents><Key>a</Key><Size>-1</Size></Contents>"))
                                           << "Size that is not a number";
        QTest::newRow("size overflows") << QByteArray::fromStdString(
                                               page("<Contents><Key>a</Key><Size>99999999999999999999</Size></Contents>"))
                                        << "Size that is not a number";
        QTest::newRow("entry without key") << QByteArray::fromStdString(page("<Contents><Size>1</Size></Contents>"))
                                           << "without a Key";
        QTest::newRow("bad escape") << QByteArray::fromStdString(page("<Contents><Key>a%zz</Key></Contents>"))
                                    << "malformed %-encoded key";
        QTest::newRow("truncated without token")
            << QByteArray::fromStdString(page("", "<IsTruncated>true</IsTruncated>")) << "no NextContinuationToken";
        std::string deep = "<ListBucketResult>";
        for (int i = 0; i < 20; ++i) deep += "<a>";
        QTest::newRow("deep nesting") << QByteArray::fromStdString(deep) << "nests deeper";
        QTest::newRow("long key") << QByteArray::fromStdString(
                                         page("<Contents><Key>" + std::string(9000, 'k') + "</Key></Contents>"))
                                  << "longer than 8192";
        std::string many;
        for (size_t i = 0; i <= kMaxListEntries; ++i) many += "<Contents><Key>k</Key></Contents>";
        QTest::newRow("too many entries") << QByteArray::fromStdString(page(many)) << "more than 10000 entries";
        QTest::newRow("over the size limit") << QByteArray(int(kMaxXmlBytes + 1), ' ') << "over the limit";
    }
    void hostile() {
        QFETCH(QByteArray, xml);
        QFETCH(QString, fragment);
        auto p = parseListObjectsV2(std::string_view(xml.constData(), size_t(xml.size())), true);
        QVERIFY(!p.ok());
        QCOMPARE(p.status().code(), ckpt::StatusCode::DataLoss);
        QVERIFY2(QString::fromStdString(p.status().message()).contains(fragment), p.status().toString().c_str());
    }

    void errorBody() {
        auto e = parseErrorBody(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<Error><Code>PermanentRedirect</Code><Message>Use the "
            "endpoint.</Message><Endpoint>bkt.s3.eu-west-1.amazonaws.com</Endpoint>\n"
            "<Region>eu-west-1</Region><RequestId>1</RequestId></Error>");
        QVERIFY(e.has_value());
        QCOMPARE(QString::fromStdString(e->code), QStringLiteral("PermanentRedirect"));
        QCOMPARE(QString::fromStdString(e->message), QStringLiteral("Use the endpoint."));
        QCOMPARE(QString::fromStdString(e->region), QStringLiteral("eu-west-1"));
        QCOMPARE(QString::fromStdString(e->endpoint), QStringLiteral("bkt.s3.eu-west-1.amazonaws.com"));
        QVERIFY(!parseErrorBody("<html>Bad gateway</html>").has_value());
        QVERIFY(!parseErrorBody("").has_value());
        QVERIFY(!parseErrorBody("<!DOCTYPE x [<!ENTITY a 'b'>]><Error><Code>&a;</Code></Error>").has_value());
    }

    void multipartDocuments() {
        auto id = parseInitiateMultipartUpload(
            "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>up-1</UploadId>"
            "</InitiateMultipartUploadResult>");
        QVERIFY(id.ok());
        QCOMPARE(QString::fromStdString(*id), QStringLiteral("up-1"));
        QVERIFY(!parseInitiateMultipartUpload("<InitiateMultipartUploadResult/>").ok());
        QVERIFY(!parseInitiateMultipartUpload("<Other><UploadId>x</UploadId></Other>").ok());

        auto done = parseCompleteMultipartUpload(
            "<CompleteMultipartUploadResult><Key>k</Key><ETag>&quot;abc-3&quot;</ETag></CompleteMultipartUploadResult>");
        QVERIFY(done.ok());
        QCOMPARE(QString::fromStdString(done->etag), QStringLiteral("abc-3"));
        QVERIFY(!done->error.has_value());
        // "200 OK" with an error inside: S3's way of failing a completion late.
        auto late = parseCompleteMultipartUpload("<Error><Code>InternalError</Code><Message>retry</Message></Error>");
        QVERIFY(late.ok());
        QVERIFY(late->error.has_value());
        QCOMPARE(QString::fromStdString(late->error->code), QStringLiteral("InternalError"));

        QCOMPARE(QString::fromStdString(completeMultipartUploadXml({{1, "a"}, {2, "b<&"}})),
                 QStringLiteral("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"a\"</ETag></Part>"
                                "<Part><PartNumber>2</PartNumber><ETag>\"b&lt;&amp;\"</ETag></Part></CompleteMultipartUpload>"));
    }

    void uploadList() {
        const std::string xml =
            "<ListMultipartUploadsResult><Bucket>b</Bucket><IsTruncated>true</IsTruncated>"
            "<NextKeyMarker>runs/a%20b</NextKeyMarker><NextUploadIdMarker>u2</NextUploadIdMarker>"
            "<Upload><Key>runs/a%20b</Key><UploadId>u1</UploadId><Initiated>2026-11-27T23:30:00.500Z</Initiated></Upload>"
            "<Upload><Key>runs/c</Key><UploadId>u2</UploadId><Initiated>yesterday</Initiated></Upload>"
            "</ListMultipartUploadsResult>";
        auto page = parseListMultipartUploads(xml, true);
        QVERIFY2(page.ok(), page.status().toString().c_str());
        QCOMPARE(page->uploads.size(), size_t(2));
        QCOMPARE(QString::fromStdString(page->uploads[0].key), QStringLiteral("runs/a b"));
        QCOMPARE(QString::fromStdString(page->uploads[0].uploadId), QStringLiteral("u1"));
        QCOMPARE(page->uploads[0].initiatedNs, int64_t(1795822200500000000));
        QCOMPARE(page->uploads[1].initiatedNs, int64_t(0));  // unreadable: unknown, never "ancient"
        QVERIFY(page->isTruncated);
        QCOMPARE(QString::fromStdString(page->nextKeyMarker), QStringLiteral("runs/a b"));
        // Hostile: truncated without markers, entries without ids, the wrong root.
        QVERIFY(!parseListMultipartUploads("<ListMultipartUploadsResult><IsTruncated>true</IsTruncated>"
                                           "</ListMultipartUploadsResult>",
                                           false)
                     .ok());
        QVERIFY(!parseListMultipartUploads("<ListMultipartUploadsResult><Upload><Key>k</Key></Upload>"
                                           "</ListMultipartUploadsResult>",
                                           false)
                     .ok());
        QVERIFY(!parseListMultipartUploads("<ListBucketResult/>", false).ok());
    }

    void times() {
        QCOMPARE(parseIso8601Ns("1970-01-01T00:00:00Z").value_or(-1), int64_t(0));
        QCOMPARE(parseIso8601Ns("2026-11-27T23:30:00.000Z").value_or(-1), int64_t(1795822200) * 1000000000);
        QCOMPARE(parseHttpDateNs("Fri, 27 Nov 2026 23:30:00 GMT").value_or(-1), int64_t(1795822200) * 1000000000);
        QCOMPARE(parseStoreTimeNs("Fri, 27 Nov 2026 23:30:00 GMT"), parseStoreTimeNs("2026-11-27T23:30:00Z"));
        QCOMPARE(parseIso8601Ns("2024-02-29T12:00:00Z").value_or(-1), int64_t(1709208000) * 1000000000);
        for (const char* bad : {"", "2026-13-01T00:00:00Z", "2026-11-27 23:30:00Z", "2026-11-27T23:30:00",
                                "2026-11-27T23:30:00.x", "Fri, 27 Foo 2026 23:30:00 GMT", "Fri, 27 Nov 2026 23:30:00 UTC"})
            QVERIFY2(!parseStoreTimeNs(bad).has_value(), bad);
    }
};

QTEST_GUILESS_MAIN(TstS3Xml)
#include "tst_s3_xml.moc"

// SigV4 against AWS's published test suite (tests/data/aws-sig-v4-test-suite,
// Apache-2.0, see its LICENSE and NOTICE): each vector's raw request (.req)
// is parsed here, canonicalised with request_target.h's encoding and
// sigv4.h's canonical request, and must give the suite's canonical request
// (.creq), string to sign (.sts) and Authorization header (.authz).

#include <QtTest>

#include <algorithm>
#include <chrono>

#include "objstore/digest.h"
#include "objstore/request_target.h"
#include "objstore/sigv4.h"
#include "test_support.h"

using namespace ckpt::objstore;

namespace {

const Secret kSecret("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
constexpr const char* kKeyId = "AKIDEXAMPLE";

QString suiteDir() { return ckpt::testing::sourceDir() + QStringLiteral("/tests/data/aws-sig-v4-test-suite"); }

struct ParsedRequest {
    std::string method;
    std::string path;  // decoded
    std::vector<QueryParam> query;
    HeaderList headers;
    std::string body;
    std::string amzDate;
};

std::string decoded(std::string_view s) {
    auto d = uriDecode(s);
    return d ? *d : std::string(s);
}

// The suite's .req files: a request line, "Name:value" headers (a line
// starting with whitespace continues the previous header's values, joined
// with ','), a blank line and the body. Lines end in \n.
ParsedRequest parseReq(const std::string& text) {
    ParsedRequest r;
    size_t pos = text.find('\n');
    const std::string requestLine = text.substr(0, pos);
    const size_t sp1 = requestLine.find(' ');
    const size_t sp2 = requestLine.rfind(' ');
    r.method = requestLine.substr(0, sp1);
    const std::string target = requestLine.substr(sp1 + 1, sp2 - sp1 - 1);
    const size_t q = target.find('?');
    r.path = decoded(target.substr(0, q));
    if (q != std::string::npos) {
        std::string_view query = std::string_view(target).substr(q + 1);
        while (!query.empty()) {
            const size_t amp = query.find('&');
            const std::string_view pair = query.substr(0, amp);
            const size_t eq = pair.find('=');
            r.query.push_back(
                {decoded(pair.substr(0, eq)), eq == std::string_view::npos ? std::string() : decoded(pair.substr(eq + 1))});
            query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        }
    }
    while (pos != std::string::npos && pos + 1 < text.size()) {
        const size_t next = text.find('\n', pos + 1);
        const std::string line = text.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
        pos = next;
        if (line.empty()) {
            if (pos != std::string::npos) r.body = text.substr(pos + 1);
            break;
        }
        if (line.front() == ' ' || line.front() == '\t') {
            // Each continuation is one more value, trimmed like any value.
            r.headers.back().second += "," + line.substr(line.find_first_not_of(" \t"));
            continue;
        }
        const size_t colon = line.find(':');
        r.headers.emplace_back(line.substr(0, colon), line.substr(colon + 1));
        if (QByteArray::fromStdString(line.substr(0, colon)).toLower() == "x-amz-date") r.amzDate = line.substr(colon + 1);
    }
    return r;
}

std::string readText(const QString& path) { return ckpt::testing::readAll(path).toStdString(); }

// S3 never normalises a path ("a/../b" is a key), so the suite's
// path-normalisation vectors that collapse segments do not apply to it.
const QStringList kNotS3 = {
    QStringLiteral("get-relative"),        QStringLiteral("get-relative-relative"),   QStringLiteral("get-slash"),
    QStringLiteral("get-slash-dot-slash"), QStringLiteral("get-slash-pointless-dot"), QStringLiteral("get-slashes")};

// Two vectors of the published suite are inconsistent: their .creq lists
// Content-Length, but their .sts and .authz were not computed from that
// .creq (its sha256 is not the hash in the .sts). post-x-www-form-urlencoded
// was signed without Content-Length: its signature is checked against that
// request. For post-x-www-form-urlencoded-parameters no variant we tried
// gives its .sts, so only its .creq is checked.
const QStringList kSignedWithoutContentLength = {QStringLiteral("post-x-www-form-urlencoded")};
const QStringList kCanonicalRequestOnly = {QStringLiteral("post-x-www-form-urlencoded-parameters")};

}  // namespace

class TstSigV4 : public QObject {
    Q_OBJECT
private slots:
    void suite_data() {
        QTest::addColumn<QString>("dir");
        QDirIterator it(suiteDir(), {QStringLiteral("*.req")}, QDir::Files, QDirIterator::Subdirectories);
        int rows = 0;
        while (it.hasNext()) {
            const QFileInfo req(it.next());
            const QString name = req.completeBaseName();
            if (kNotS3.contains(name)) continue;
            QTest::newRow(qPrintable(name)) << req.absolutePath();
            ++rows;
        }
        // The committed suite: a missing or emptied folder must not pass silently.
        QVERIFY2(rows >= 25, qPrintable(QStringLiteral("only %1 vectors under %2").arg(rows).arg(suiteDir())));
    }
    void suite() {
        QFETCH(QString, dir);
        const QString base = dir + QLatin1Char('/') + QFileInfo(dir).fileName();
        const ParsedRequest r = parseReq(readText(base + QStringLiteral(".req")));
        const std::string payloadHash = sha256Hex(r.body);
        const std::string canonicalUri = uriEncode(r.path, false);
        const std::string canonicalQuery = canonicalQueryString(r.query);
        SigningInput in{r.method, canonicalUri, canonicalQuery, r.headers, payloadHash};
        const SigningScope scope{r.amzDate.substr(0, 8), "us-east-1", "service"};

        const CanonicalRequest creq = canonicalRequest(in);
        QCOMPARE(QString::fromStdString(creq.text), QString::fromStdString(readText(base + QStringLiteral(".creq"))));
        if (kCanonicalRequestOnly.contains(QFileInfo(dir).fileName())) return;
        if (kSignedWithoutContentLength.contains(QFileInfo(dir).fileName())) {
            QCOMPARE(QString::fromStdString(sha256Hex(creq.text)),
                     QString::fromStdString(sha256Hex(readText(base + QStringLiteral(".creq")))));
            std::erase_if(in.headers, [](const auto& h) { return h.first == "Content-Length"; });
            const CanonicalRequest signedCreq = canonicalRequest(in);
            QCOMPARE(QString::fromStdString(stringToSign(r.amzDate, scope, signedCreq.text)),
                     QString::fromStdString(readText(base + QStringLiteral(".sts"))));
            QCOMPARE(QString::fromStdString(authorizationHeader(kKeyId, kSecret, scope, r.amzDate, in)),
                     QString::fromStdString(readText(base + QStringLiteral(".authz"))));
            return;
        }
        const std::string sts = stringToSign(r.amzDate, scope, creq.text);
        QCOMPARE(QString::fromStdString(sts), QString::fromStdString(readText(base + QStringLiteral(".sts"))));
        QCOMPARE(QString::fromStdString(authorizationHeader(kKeyId, kSecret, scope, r.amzDate, in)),
                 QString::fromStdString(readText(base + QStringLiteral(".authz"))));
    }

    // AWS's S3 documentation example (GET Object with a Range header):
    // the payload hash header is signed, Range is not.
    void s3DocumentationExample() {
        const Endpoint ep{"https", "examplebucket.s3.amazonaws.com", 0};
        const RequestTarget t = requestTarget(ep, Addressing::Path, "examplebucket", "test.txt");
        // The documented request is virtual-hosted: path "/test.txt" on the bucket's host.
        SigningInput in{"GET",
                        "/test.txt",
                        "",
                        {{"host", "examplebucket.s3.amazonaws.com"},
                         {"range", "bytes=0-9"},
                         {"x-amz-content-sha256", std::string(kEmptyPayloadSha256)},
                         {"x-amz-date", "20130524T000000Z"}},
                        kEmptyPayloadSha256};
        const SigningScope scope{"20130524", "us-east-1", "s3"};
        const Secret secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
        QCOMPARE(QString::fromStdString(authorizationHeader("AKIAIOSFODNN7EXAMPLE", secret, scope, "20130524T000000Z", in)),
                 QStringLiteral("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                                "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                                "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
        QCOMPARE(QString::fromStdString(t.canonicalUri), QStringLiteral("/examplebucket/test.txt"));
    }

    // Content-MD5 values as RFC 1864 spells them (the base64 of the raw
    // digest), from RFC 1321's test suite.
    void contentMd5() {
        QCOMPARE(ckpt::objstore::md5Base64(""), std::string("1B2M2Y8AsgTpgAmY7PhCfg=="));
        QCOMPARE(ckpt::objstore::md5Base64("abc"), std::string("kAFQmDzST7DWlj99KOF/cg=="));
        QCOMPARE(ckpt::objstore::md5Base64("The quick brown fox jumps over the lazy dog"),
                 std::string("nhB9nTcrtoJr2B01QqQZ1g=="));
    }

    void amzDateIsUtc() {
        const auto t =
            std::chrono::sys_days(std::chrono::year(2015) / 8 / 30) + std::chrono::hours(12) + std::chrono::minutes(36);
        QCOMPARE(QString::fromStdString(amzDate(t)), QStringLiteral("20150830T123600Z"));
    }
};

QTEST_GUILESS_MAIN(TstSigV4)
#include "tst_sigv4.moc"

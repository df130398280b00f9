// Multipart uploads of the object-store backend (objstore/remote_writable_file.h)
// against SeaweedFS on loopback, with 5 MiB parts (CKPT_S3_PART_SIZE_MIB,
// S3's minimum) so a few MiB make several parts: an object over one part
// is sent in parts as it is written and read back byte-equal; an object of
// exactly one part is still one PUT; a create-only write over an existing
// key fails with AlreadyExists and leaves no upload open; a file dropped
// without close() aborts its upload; a completion whose answer was lost is
// recognised as done by its ETag; uploads are listed in pages; and
// through the fault proxy (503 SlowDown, resets) a multipart write still
// completes, with the retries counted.

#include <QtTest>

#include <random>

#include "objstore/digest.h"
#include "objstore/object_client.h"
#include "objstore/object_storage.h"
#include "objstore/remote_writable_file.h"
#include "s3_test_server.h"

using namespace ckpt;
using namespace ckpt::objstore;

namespace {

constexpr size_t kMiB = 1u << 20;

std::string randomBytes(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
}

// Writes 'bytes' through create() in uneven appends (a save's pieces).
Status writeInPieces(storage::Storage& storage, const std::string& location, const std::string& bytes,
                     storage::WriteCondition condition = {}) {
    storage::CreateOptions options;
    options.condition = std::move(condition);
    CKPT_ASSIGN_OR_RETURN(auto out, storage.create(location, options));
    size_t at = 0, piece = 777;
    while (at < bytes.size()) {
        const size_t n = std::min(piece, bytes.size() - at);
        CKPT_RETURN_IF_ERROR(out->append(bytes.data() + at, n));
        at += n;
        piece = piece * 3 % (3 * kMiB) + 1;
    }
    return out->close();
}

}  // namespace

class TstMultipart : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    std::string m_prefix;  // <unique>/
    std::shared_ptr<ObjectClient> m_client;
    std::shared_ptr<storage::Storage> m_storage;

    std::map<std::string, std::string> variables() const {
        auto vars = m_server->variables();
        vars["CKPT_S3_PART_SIZE_MIB"] = "5";
        return vars;
    }
    std::string url(const std::string& name) const { return "s3://" + m_server->bucket + "/" + m_prefix + name; }
    ObjectRef ref(const std::string& name) const { return {m_server->bucket, m_prefix + name}; }
    std::string readBack(const std::string& name) {
        auto whole = m_client->readObject(ref(name), 64 * kMiB);
        return whole ? whole->first : "<" + whole.status().toString() + ">";
    }
    size_t openUploads(const std::string& under) {
        auto uploads = m_client->listUploads(m_server->bucket, m_prefix + under, 1000);
        if (!uploads) qWarning("%s", uploads.status().toString().c_str());
        return uploads ? uploads->size() : size_t(-1);
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        m_prefix = testing::uniquePrefix("tst_multipart");
        m_client = testing::testClient(variables());
        QVERIFY(m_client);
        QCOMPARE(m_client->settings().transfer.partBytes, uint64_t(5 * kMiB));
        m_storage = makeObjectStorage(m_client);
    }

    // Part sizes: the setting, at least S3's 5 MiB, large enough that the
    // announced size fits in 10,000 parts, doubled every 1,000 parts so an
    // object of unknown size up to 5 TiB fits too.
    void partSizes() {
        QCOMPARE(uploadPartBytes(8 * kMiB, 0, 1), uint64_t(8 * kMiB));
        QCOMPARE(uploadPartBytes(1 * kMiB, 0, 1), uint64_t(5 * kMiB));
        QCOMPARE(uploadPartBytes(8 * kMiB, uint64_t(1) << 40, 1), uint64_t(105 * kMiB));  // 1 TiB / 10,000, in whole MiB
        QCOMPARE(uploadPartBytes(8 * kMiB, 0, 1000), uint64_t(8 * kMiB));
        QCOMPARE(uploadPartBytes(8 * kMiB, 0, 1001), uint64_t(16 * kMiB));
        QCOMPARE(uploadPartBytes(4096 * kMiB, 0, 3001), kMaxPartBytes);
        uint64_t total = 0;
        for (int part = 1; part <= kMaxUploadParts; ++part) total += uploadPartBytes(8 * kMiB, 0, part);
        QVERIFY2(total >= kMaxObjectBytes, "10,000 parts of unknown size hold 5 TiB");
    }

    // 17 MiB: parts of 5, 5, 5 and 2 MiB, sent while the file is written.
    void writtenInPartsAndReadBack() {
        const std::string data = randomBytes(17 * kMiB + 123, 1);
        const uint64_t before = m_client->stats().requests;
        storage::CreateOptions options;
        auto out = m_storage->create(url("big.bin"), options);
        QVERIFY(out.ok());
        QVERIFY((*out)->append(data.data(), 11 * kMiB).isOk());
        // Two parts are full and a third has begun: the upload is open
        // before close(), its first parts on their way (one listing request).
        QCOMPARE(openUploads(""), size_t(1));
        QVERIFY((*out)->append(data.data() + 11 * kMiB, data.size() - 11 * kMiB).isOk());
        const Status closed = (*out)->close();
        QVERIFY2(closed.isOk(), closed.toString().c_str());
        // Create, 4 parts, complete (and the listing above).
        QCOMPARE(m_client->stats().requests - before, uint64_t(7));
        QVERIFY((*out)->generation().isKnown());
        QVERIFY(readBack("big.bin") == data);
        auto head = m_client->stat(ref("big.bin"));
        QVERIFY(head.ok());
        QCOMPARE(head->size, uint64_t(data.size()));
        QCOMPARE(openUploads(""), size_t(0));
    }

    // Exactly one part, and less: a single PUT each.
    void onePartIsOnePut() {
        for (const size_t size : {size_t(5 * kMiB), size_t(100)}) {
            const std::string data = randomBytes(size, 2);
            const uint64_t before = m_client->stats().requests;
            const Status s = writeInPieces(*m_storage, url("one-" + std::to_string(size)), data);
            QVERIFY2(s.isOk(), s.toString().c_str());
            QCOMPARE(m_client->stats().requests - before, uint64_t(1));
            QVERIFY(readBack("one-" + std::to_string(size)) == data);
        }
    }

    // A create-only write (the index, the commit point) over an existing
    // key: the completion's If-None-Match: * fails, the error is the one a
    // single PUT gives, the upload is aborted, the object unchanged.
    void createOnlyOverExistingKey() {
        QVERIFY(m_storage->writeObject(url("exists/ckpt-1.index"), "first", storage::WriteCondition::ifAbsent()).ok());
        const uint64_t before = m_client->stats().requests;
        const Status s =
            writeInPieces(*m_storage, url("exists/ckpt-1.index"), randomBytes(12 * kMiB, 3), storage::WriteCondition::ifAbsent());
        QCOMPARE(s.code(), StatusCode::AlreadyExists);
        QVERIFY2(
            QString::fromStdString(s.message()).contains(QString::fromStdString(url("exists/ckpt-1.index") + " already exists")),
            s.toString().c_str());
        // Create, 3 parts, the refused completion, a HEAD (is the object
        // there this upload's? no), the abort.
        QCOMPARE(m_client->stats().requests - before, uint64_t(7));
        QCOMPARE(openUploads("exists/"), size_t(0));
        QCOMPARE(readBack("exists/ckpt-1.index"), std::string("first"));
        // The same write where nothing is: committed.
        const std::string data = randomBytes(12 * kMiB, 4);
        const Status fresh = writeInPieces(*m_storage, url("exists/ckpt-2.index"), data, storage::WriteCondition::ifAbsent());
        QVERIFY2(fresh.isOk(), fresh.toString().c_str());
        QVERIFY(readBack("exists/ckpt-2.index") == data);
    }

    // Compare-and-swap by completion: If-Match on the generation read.
    void compareAndSwapCompletion() {
        auto g1 = m_storage->writeObject(url("cas/state"), "one", storage::WriteCondition::ifAbsent());
        QVERIFY(g1.ok());
        const std::string data = randomBytes(11 * kMiB, 5);
        Status s = writeInPieces(*m_storage, url("cas/state"), data, storage::WriteCondition::ifMatch(*g1));
        QVERIFY2(s.isOk(), s.toString().c_str());
        QVERIFY(readBack("cas/state") == data);
        auto head = m_client->stat(ref("cas/state"));
        QVERIFY(head.ok());
        QVERIFY2(QString::fromStdString(head->etag).endsWith(QStringLiteral("-3")), head->etag.c_str());  // a multipart ETag
        s = writeInPieces(*m_storage, url("cas/state"), randomBytes(11 * kMiB, 6), storage::WriteCondition::ifMatch(*g1));
        QCOMPARE(s.code(), StatusCode::FailedPrecondition);
        QVERIFY(readBack("cas/state") == data);
        QCOMPARE(openUploads("cas/"), size_t(0));
    }

    // A completion whose answer was lost: its retry finds no upload (404)
    // or, create-only, the object it made itself (412). The object's ETag
    // is the one S3 derives from the parts' ETags, so the client knows the
    // object is this upload's and reports the completion done.
    void completionAnswerLost() {
        const ObjectRef object = ref("lost/ckpt-1.index");
        auto id = m_client->createMultipartUpload(object);
        QVERIFY(id.ok());
        const std::string first = randomBytes(5 * kMiB, 9), second = "tail";
        auto e1 = m_client->uploadPart(object, *id, 1, first);
        auto e2 = m_client->uploadPart(object, *id, 2, second);
        QVERIFY(e1.ok() && e2.ok());
        const std::vector<CompletedPart> parts = {{1, *e1}, {2, *e2}};
        PutCondition createOnly;
        createOnly.ifNoneMatch = true;
        auto done = m_client->completeMultipartUpload(object, *id, parts, createOnly, first.size() + second.size());
        QVERIFY2(done.ok(), done.status().toString().c_str());
        QCOMPARE(QString::fromStdString(done->etag), QString::fromStdString(multipartEtag({*e1, *e2})));
        for (const PutCondition& condition : {PutCondition{}, createOnly}) {
            auto again = m_client->completeMultipartUpload(object, *id, parts, condition, first.size() + second.size());
            QVERIFY2(again.ok(), again.status().toString().c_str());
            QCOMPARE(again->etag, done->etag);
        }
        // Another upload's parts over it: refused, not mistaken for ours.
        auto other = m_client->createMultipartUpload(object);
        QVERIFY(other.ok());
        auto o1 = m_client->uploadPart(object, *other, 1, randomBytes(5 * kMiB, 10));
        QVERIFY(o1.ok());
        auto refused = m_client->completeMultipartUpload(object, *other, {{1, *o1}}, createOnly, 5 * kMiB);
        QCOMPARE(refused.status().code(), StatusCode::FailedPrecondition);
        QVERIFY(m_client->abortMultipartUpload(object, *other).isOk());
        QCOMPARE(openUploads("lost/"), size_t(0));
    }

    // Dropped without close() (an error upstream): the upload is aborted,
    // nothing appears.
    void abandonedFileAbortsItsUpload() {
        {
            auto out = m_storage->create(url("dropped/data"), {});
            QVERIFY(out.ok());
            const std::string data = randomBytes(16 * kMiB, 7);
            QVERIFY((*out)->append(data).isOk());
            QCOMPARE(openUploads("dropped/"), size_t(1));
        }
        QCOMPARE(openUploads("dropped/"), size_t(0));
        auto head = m_client->stat(ref("dropped/data"));
        QCOMPARE(head.status().code(), StatusCode::NotFound);
    }

    // Uploads listed in pages (ListMultipartUploads' markers), and the
    // storage's pending writes are those uploads.
    void listedInPages() {
        std::vector<std::pair<ObjectRef, std::string>> started;
        for (const char* name : {"pending/a", "pending/b", "pending/sub/c"}) {
            auto id = m_client->createMultipartUpload(ref(name));
            QVERIFY2(id.ok(), id.status().toString().c_str());
            started.emplace_back(ref(name), *id);
        }
        auto page = m_client->listUploadsPage(m_server->bucket, m_prefix + "pending/", "", "", 1);
        QVERIFY2(page.ok(), page.status().toString().c_str());
        QCOMPARE(page->uploads.size(), size_t(1));
        QVERIFY(page->isTruncated);
        QCOMPARE(openUploads("pending/"), size_t(3));
        std::vector<storage::PendingWrite> pending;
        QVERIFY(m_storage
                    ->listPendingWrites(url("pending"),
                                        [&](const storage::PendingWrite& w) {
                                            pending.push_back(w);
                                            return true;
                                        })
                    .isOk());
        QCOMPARE(pending.size(), size_t(3));
        const double now =
            double(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
        for (const storage::PendingWrite& w : pending) {
            QVERIFY2(std::abs(double(w.startedNs) * 1e-9 - now) < 600, w.location.c_str());
            QVERIFY(m_storage->abortPendingWrite(w).isOk());
        }
        QCOMPARE(openUploads("pending/"), size_t(0));
        // Aborting one already gone is fine.
        QVERIFY(m_client->abortMultipartUpload(started[0].first, started[0].second).isOk());
    }

    // 10% SlowDown, 3% resets before an answer: a multipart write still
    // completes, byte-equal, with retries counted and no request over 5
    // attempts.
    void throughFaults() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0.10, 0.03, 0.0, 5));
        auto vars = variables();
        vars["AWS_ENDPOINT_URL"] = proxy.endpoint();
        std::shared_ptr<ObjectClient> client = testing::testClient(vars);
        QVERIFY(client);
        auto storage = makeObjectStorage(client);
        const std::string data = randomBytes(26 * kMiB, 8);
        for (int i = 0; i < 3; ++i) {
            const Status s = writeInPieces(*storage, url("faults/obj-" + std::to_string(i)), data);
            QVERIFY2(s.isOk(), s.toString().c_str());
        }
        const TransferStats st = client->stats();
        const QString counters = proxy.stop();
        qInfo("client: %llu requests, %llu retries, at most %d attempts; proxy: %s", static_cast<unsigned long long>(st.requests),
              static_cast<unsigned long long>(st.retries), st.maxAttempts, qPrintable(counters));
        // 3 x (create, 6 parts, complete) at least.
        QVERIFY2(st.requests >= 24, qPrintable(counters));
        QVERIFY2(st.retries > 0, qPrintable(counters));
        QVERIFY(st.maxAttempts <= 5);
        for (int i = 0; i < 3; ++i) QVERIFY(readBack("faults/obj-" + std::to_string(i)) == data);
        QCOMPARE(openUploads("faults/"), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TstMultipart)
#include "tst_multipart.moc"

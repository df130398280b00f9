// The object-store backend of the storage layer against SeaweedFS on
// loopback: the storage.h contracts (reads checked against the size,
// generations, conditional writes, idempotent deletes, one-level listings)
// and what each call costs in requests, counted by the client.

#include <QTemporaryDir>
#include <QtTest>

#include <random>
#include <set>

#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint.h"
#include "ckpt/object_store.h"
#include "format/index_table.h"
#include "objstore/object_location.h"
#include "objstore/object_storage.h"
#include "s3_test_server.h"
#include "storage/dispatch.h"
#include "test_support.h"
#include "test_tensors.h"

using namespace ckpt;
using namespace ckpt::objstore;

namespace {
std::string randomBytes(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
}
}  // namespace

class TstObjectStorage : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    std::string m_root;  // s3://bucket/<unique>/
    std::shared_ptr<ObjectClient> m_client;
    std::shared_ptr<storage::Storage> m_storage;

    uint64_t requests() const { return m_client->stats().requests; }
    // Requests of the process's own clients: what s3:// locations opened
    // through storage/dispatch.h cost.
    static uint64_t dispatchedRequests() { return ckpt::objectStoreStats().requests; }
    void useServerThroughDispatch() {
        for (const auto& [k, v] : m_server->variables()) qputenv(k.c_str(), QByteArray::fromStdString(v));
        QVERIFY(ckpt::configureObjectStores({}).isOk());
    }
    // Writes a checkpoint of 'count' small tensors locally and uploads its
    // files under at(name); returns the remote prefix.
    std::string uploadCheckpoint(const std::string& name, int count) {
        QTemporaryDir dir;
        const std::string prefix = dir.filePath(QStringLiteral("ckpt-1")).toStdString();
        auto w = BundleWriter::create(prefix);
        if (!w.ok()) return {};
        for (int i = 0; i < count; ++i) {
            char key[96];
            std::snprintf(key, sizeof key, "model/layer_%06d/kernel/.ATTRIBUTES/VARIABLE_VALUE", i);
            if (!(*w)->add(key, testing::zeroFloats(2)).isOk()) return {};
        }
        if (!(*w)->finish().isOk()) return {};
        for (const char* suffix : {".index", ".data-00000-of-00001"}) {
            const QByteArray bytes = testing::readAll(QString::fromStdString(prefix + suffix));
            if (!m_storage->writeObject(at(name + "ckpt-1" + suffix), bytes.toStdString(), storage::WriteCondition::none()).ok())
                return {};
        }
        return at(name + "ckpt-1");
    }
    std::string at(const std::string& name) const { return m_root + name; }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        m_root = "s3://" + m_server->bucket + "/" + testing::uniquePrefix("tst_object_storage");
        auto settings = resolveStoreSettings(StoreKind::S3, testing::lookupFrom(m_server->variables()));
        QVERIFY2(settings.ok(), settings.status().toString().c_str());
        auto client = ObjectClient::create(std::move(*settings));
        QVERIFY(client.ok());
        m_client = std::move(*client);
        m_storage = makeObjectStorage(m_client);
    }

    void locations() {
        auto l = parseObjectLocation("gs://my-bucket/runs/a b/ckpt-1.index");
        QVERIFY(l.ok());
        QVERIFY(l->kind == StoreKind::Gcs);
        QCOMPARE(QString::fromStdString(l->bucket), QStringLiteral("my-bucket"));
        QCOMPARE(QString::fromStdString(l->key), QStringLiteral("runs/a b/ckpt-1.index"));
        for (const char* bad : {"s3://", "s3:///key", "s3://UPPER/key", "s3://ab/k", "http://bkt/key", "s3://bkt/a\nb"})
            QVERIFY2(!parseObjectLocation(bad).ok(), bad);
        QVERIFY(!parseObjectLocation("s3://bkt/" + std::string(1025, 'k')).ok());
        QCOMPARE(QString::fromStdString(directoryPrefix("runs")), QStringLiteral("runs/"));
        QCOMPARE(QString::fromStdString(directoryPrefix("")), QString());
    }

    // Open: one suffix GET. The tail is served from memory; any other range
    // is one GET; reads past the end fail without a request.
    void openAndRead() {
        const std::string data = randomBytes(1u << 20, 1);
        QVERIFY(m_storage->writeObject(at("file.bin"), data, storage::WriteCondition::none()).ok());
        uint64_t before = requests();
        auto file = m_storage->openRandomAccess(at("file.bin"));
        QVERIFY2(file.ok(), file.status().toString().c_str());
        QCOMPARE(requests() - before, uint64_t(1));
        QCOMPARE((*file)->size(), uint64_t(data.size()));
        QVERIFY((*file)->generation().isKnown());
        QCOMPARE(QString::fromStdString((*file)->location()), QString::fromStdString(at("file.bin")));

        std::string buf(48, '\0');
        before = requests();
        QVERIFY((*file)->read(data.size() - 48, 48, buf.data()).isOk());
        QVERIFY((*file)->read(data.size() - kOpenTailBytes, 48, buf.data()).isOk());
        QCOMPARE(requests() - before, uint64_t(0));
        QVERIFY((*file)->read(1000, 48, buf.data()).isOk());
        QCOMPARE(buf, data.substr(1000, 48));
        QCOMPARE(requests() - before, uint64_t(1));
        // Straddling the cached tail: only the part before it is fetched.
        std::string straddle(1000, '\0');
        const uint64_t at0 = data.size() - kOpenTailBytes - 500;
        QVERIFY((*file)->read(at0, straddle.size(), straddle.data()).isOk());
        QCOMPARE(straddle, data.substr(at0, 1000));

        before = requests();
        const Status past = (*file)->read(data.size() - 10, 11, buf.data());
        QCOMPARE(past.code(), StatusCode::DataLoss);
        QVERIFY2(QString::fromStdString(past.message()).contains(QString::fromStdString(at("file.bin"))),
                 past.toString().c_str());
        QCOMPARE(requests() - before, uint64_t(0));
        QVERIFY(!(*file)->map(0, 10).ok());
    }

    // Resolving a checkpoint checks that its index exists, then opens it:
    // the open reuses what the HEAD said, and one GET brings the whole
    // object (two requests for an index, whatever its size).
    void statThenOpen() {
        const std::string data = randomBytes(2u << 20, 6);
        QVERIFY(m_storage->writeObject(at("stat-open.index"), data, storage::WriteCondition::none()).ok());
        uint64_t before = requests();
        auto info = m_storage->stat(at("stat-open.index"));
        QVERIFY(info.ok() && info->has_value());
        auto file = m_storage->openRandomAccess(at("stat-open.index"));
        QVERIFY(file.ok());
        QCOMPARE(requests() - before, uint64_t(1));
        QCOMPARE((*file)->size(), uint64_t(data.size()));
        (*file)->adviseSequential(0, (*file)->size());
        std::string buf(48, '\0');
        QVERIFY((*file)->read(data.size() - 48, 48, buf.data()).isOk());
        QVERIFY((*file)->read(1000, 48, buf.data()).isOk());
        QCOMPARE(buf, data.substr(1000, 48));
        QCOMPARE(requests() - before, uint64_t(2));

        // Without adviseSequential the tail comes with the first read that needs it.
        before = requests();
        QVERIFY(m_storage->stat(at("stat-open.index")).ok());
        auto again = m_storage->openRandomAccess(at("stat-open.index"));
        QVERIFY(again.ok());
        QVERIFY((*again)->read(data.size() - 48, 48, buf.data()).isOk());
        QVERIFY((*again)->read(data.size() - 100000, 48, buf.data()).isOk());
        QCOMPARE(buf, data.substr(data.size() - 100000, 48));
        QCOMPARE(requests() - before, uint64_t(1));  // the HEAD was remembered too
        // A write forgets what was remembered.
        QVERIFY(m_storage->writeObject(at("stat-open.index"), "short", storage::WriteCondition::none()).ok());
        auto after = m_storage->stat(at("stat-open.index"));
        QCOMPARE((*after)->size, uint64_t(5));
    }

    // Neighbouring ranges are coalesced: 64 ranges 1 KiB apart are one request.
    void batchCoalesces() {
        const std::string data = randomBytes(4u << 20, 2);
        QVERIFY(m_storage->writeObject(at("batch.bin"), data, storage::WriteCondition::none()).ok());
        auto file = m_storage->openRandomAccess(at("batch.bin"));
        QVERIFY(file.ok());
        std::vector<std::string> bufs(64, std::string(100, '\0'));
        std::vector<storage::ReadRange> ranges;
        for (size_t i = 0; i < bufs.size(); ++i) ranges.push_back({1000 + i * 1024, 100, bufs[i].data()});
        // ...and one far away, its own request.
        std::string far(100, '\0');
        ranges.push_back({3u << 20, 100, far.data()});
        const uint64_t before = requests();
        QVERIFY((*file)->readBatch(ranges).isOk());
        QCOMPARE(requests() - before, uint64_t(2));
        for (size_t i = 0; i < bufs.size(); ++i) QCOMPARE(bufs[i], data.substr(1000 + i * 1024, 100));
        QCOMPARE(far, data.substr(3u << 20, 100));
    }

    // adviseSequential over the whole object: one more GET, then memory.
    void wholeObjectInTwoRequests() {
        const std::string data = randomBytes(3u << 20, 3);
        QVERIFY(m_storage->writeObject(at("index.bin"), data, storage::WriteCondition::none()).ok());
        const uint64_t before = requests();
        auto file = m_storage->openRandomAccess(at("index.bin"));
        QVERIFY(file.ok());
        (*file)->adviseSequential(0, (*file)->size());
        std::string buf(4096, '\0');
        for (uint64_t off = 0; off + buf.size() <= data.size(); off += 100000) {
            QVERIFY((*file)->read(off, buf.size(), buf.data()).isOk());
            QCOMPARE(buf, data.substr(off, buf.size()));
        }
        QCOMPARE(requests() - before, uint64_t(2));
    }

    // adviseSequential over a part (what verify and restore do before
    // reading a 16 MiB part in chunks): one GET, the chunks from memory.
    void readAheadOfAPart() {
        const std::string data = randomBytes(6u << 20, 5);
        QVERIFY(m_storage->writeObject(at("part.bin"), data, storage::WriteCondition::none()).ok());
        auto file = m_storage->openRandomAccess(at("part.bin"));
        QVERIFY(file.ok());
        const uint64_t offset = 12345, length = 4u << 20;
        const uint64_t before = requests();
        (*file)->adviseSequential(offset, length);
        std::string chunk(1u << 20, '\0');
        for (uint64_t done = 0; done < length; done += chunk.size()) {
            QVERIFY((*file)->read(offset + done, chunk.size(), chunk.data()).isOk());
            QVERIFY(chunk == data.substr(offset + done, chunk.size()));
        }
        QCOMPARE(requests() - before, uint64_t(1));
        // Consumed once, the buffer is gone: the same range is fetched again.
        QVERIFY((*file)->read(offset, chunk.size(), chunk.data()).isOk());
        QCOMPARE(requests() - before, uint64_t(2));
    }

    void sequential() {
        const std::string data = randomBytes((20u << 20) + 123, 4);
        QVERIFY(m_storage->writeObject(at("seq.bin"), data, storage::WriteCondition::none()).ok());
        auto file = m_storage->openSequential(at("seq.bin"));
        QVERIFY2(file.ok(), file.status().toString().c_str());
        QCOMPARE((*file)->size(), uint64_t(data.size()));
        std::string got;
        std::string chunk(1u << 20, '\0');
        QVERIFY((*file)->skip(10).isOk());
        for (;;) {
            auto n = (*file)->read(chunk.size(), chunk.data());
            QVERIFY2(n.ok(), n.status().toString().c_str());
            if (*n == 0) break;
            got.append(chunk.data(), *n);
        }
        QCOMPARE(got.size(), data.size() - 10);
        QVERIFY(got == data.substr(10));
    }

    void readObjectAndConditions() {
        auto absent = m_storage->readObject(at("state"), 1024);
        QCOMPARE(absent.status().code(), StatusCode::NotFound);
        auto g1 = m_storage->writeObject(at("state"), "one", storage::WriteCondition::ifAbsent());
        QVERIFY2(g1.ok(), g1.status().toString().c_str());
        auto again = m_storage->writeObject(at("state"), "two", storage::WriteCondition::ifAbsent());
        QCOMPARE(again.status().code(), StatusCode::AlreadyExists);
        auto read = m_storage->readObject(at("state"), 1024);
        QVERIFY(read.ok());
        QCOMPARE(QString::fromStdString(read->bytes), QStringLiteral("one"));
        QVERIFY(read->generation == *g1);
        auto swapped = m_storage->writeObject(at("state"), "three", storage::WriteCondition::ifMatch(read->generation));
        QVERIFY2(swapped.ok(), swapped.status().toString().c_str());
        auto stale = m_storage->writeObject(at("state"), "four", storage::WriteCondition::ifMatch(read->generation));
        QCOMPARE(stale.status().code(), StatusCode::FailedPrecondition);
        auto tooBig = m_storage->readObject(at("state"), 2);
        QCOMPARE(tooBig.status().code(), StatusCode::InvalidArgument);
        QVERIFY2(QString::fromStdString(tooBig.status().message()).contains(QStringLiteral("5 bytes")),
                 tooBig.status().toString().c_str());

        // create(): nothing appears before close(), the whole object after.
        storage::CreateOptions opts;
        opts.condition = storage::WriteCondition::ifAbsent();
        auto out = m_storage->create(at("created"), opts);
        QVERIFY(out.ok());
        QVERIFY((*out)->append("hello ").isOk());
        auto early = m_storage->stat(at("created"));
        QVERIFY(early.ok() && !early->has_value());
        QVERIFY((*out)->append("world").isOk());
        QVERIFY((*out)->close().isOk());
        QVERIFY((*out)->generation().isKnown());
        auto whole = m_storage->readObject(at("created"), 100);
        QCOMPARE(QString::fromStdString(whole->bytes), QStringLiteral("hello world"));

        QVERIFY(m_storage->remove(at("created")).isOk());
        QVERIFY(m_storage->remove(at("created")).isOk());  // idempotent
        QVERIFY(!m_storage->stat(at("created"))->has_value());
    }

    void statAndList() {
        for (const char* name : {"dir/a.index", "dir/a.data-00000-of-00001", "dir/b.index", "dir/sub/x", "dir/sub/y"})
            QVERIFY(m_storage->writeObject(at(name), name, storage::WriteCondition::none()).ok());
        auto file = m_storage->stat(at("dir/a.index"));
        QVERIFY(file.ok() && file->has_value());
        QVERIFY((*file)->kind == storage::ObjectKind::File);
        QCOMPARE((*file)->size, uint64_t(strlen("dir/a.index")));
        auto dir = m_storage->stat(at("dir"));
        QVERIFY(dir.ok() && dir->has_value());
        QVERIFY((*dir)->kind == storage::ObjectKind::Directory);
        auto none = m_storage->stat(at("nothing"));
        QVERIFY(none.ok() && !none->has_value());

        std::vector<std::pair<std::string, storage::ObjectKind>> seen;
        QVERIFY(m_storage
                    ->list(at("dir"), {},
                           [&](const storage::ListEntry& e) {
                               seen.emplace_back(e.name, e.kind);
                               return true;
                           })
                    .isOk());
        std::sort(seen.begin(), seen.end());
        QCOMPARE(seen.size(), size_t(4));
        QCOMPARE(QString::fromStdString(seen[0].first), QStringLiteral("a.data-00000-of-00001"));
        QCOMPARE(QString::fromStdString(seen[3].first), QStringLiteral("sub"));
        QVERIFY(seen[3].second == storage::ObjectKind::Directory);
        seen.clear();
        storage::ListOptions only;
        only.namePrefix = "a.";
        QVERIFY(m_storage
                    ->list(at("dir/"), only,
                           [&](const storage::ListEntry& e) {
                               seen.emplace_back(e.name, e.kind);
                               return true;
                           })
                    .isOk());
        QCOMPARE(seen.size(), size_t(2));
        // Stopping early is fine.
        int visits = 0;
        QVERIFY(m_storage->list(at("dir"), {}, [&](const storage::ListEntry&) { return ++visits < 2; }).isOk());
        QCOMPARE(visits, 2);
        // A directory that does not exist lists nothing.
        int empty = 0;
        QVERIFY(m_storage->list(at("no-such-dir"), {}, [&](const storage::ListEntry&) { return ++empty > 0; }).isOk());
        QCOMPARE(empty, 0);
    }

    // 2,100 objects: three ListObjectsV2 pages of at most 1,000, every name once.
    void listManyPages() {
        for (int i = 0; i < 2100; ++i)
            QVERIFY(m_client->put({m_server->bucket, parseObjectLocation(at("many/o" + std::to_string(i)))->key}, "x").ok());
        const uint64_t before = requests();
        std::set<std::string> names;
        QVERIFY(m_storage
                    ->list(at("many"), {},
                           [&](const storage::ListEntry& e) {
                               names.insert(e.name);
                               return true;
                           })
                    .isOk());
        QCOMPARE(names.size(), size_t(2100));
        QCOMPARE(requests() - before, uint64_t(3));
    }

    // s3:// and gs:// locations reach this backend through storage/dispatch.h
    // (registered when the engine loads), with the process's settings; gs://
    // signs for region "auto", which the loopback server accepts like any.
    void dispatchedByScheme() {
        QVERIFY(m_storage->writeObject(at("dispatch.txt"), "via dispatch", storage::WriteCondition::none()).ok());
        for (const auto& [k, v] : m_server->variables()) qputenv(k.c_str(), QByteArray::fromStdString(v));
        qputenv("CKPT_GS_ENDPOINT_URL", QByteArray::fromStdString(m_server->endpoint));
        for (const std::string scheme : {"s3", "gs"}) {
            const std::string location = scheme + at("dispatch.txt").substr(2);
            auto text = storage::readSmallFile(location, 100);
            QVERIFY2(text.ok(), text.status().toString().c_str());
            QCOMPARE(QString::fromStdString(*text), QStringLiteral("via dispatch"));
            QVERIFY(storage::isFile(location));
        }
        QVERIFY(storage::checkLocation("s3://" + m_server->bucket + "/x").isOk());
        // Settings that do not resolve fail naming the location.
        qunsetenv("AWS_ACCESS_KEY_ID");
        qunsetenv("AWS_SECRET_ACCESS_KEY");
        QVERIFY(ckpt::configureObjectStores({}).isOk());  // drops the clients made above
        auto none = storage::readSmallFile(at("dispatch.txt"), 100);
        QCOMPARE(none.status().code(), StatusCode::PermissionDenied);
        QVERIFY2(QString::fromStdString(none.status().message()).contains(QString::fromStdString(at("dispatch.txt"))),
                 none.status().toString().c_str());
        QVERIFY2(QString::fromStdString(none.status().message()).contains(QStringLiteral("no credentials")),
                 none.status().toString().c_str());
        for (const auto& [k, v] : m_server->variables()) qputenv(k.c_str(), QByteArray::fromStdString(v));
        QVERIFY(ckpt::configureObjectStores({}).isOk());
    }

    // A whole index scan (list, inspect, diff) announces the table as read
    // front to back: an index far larger than the opening tail costs its
    // tail GET and one GET for the rest, not one per block.
    void indexScanInFewRequests() {
        useServerThroughDispatch();
        const std::string prefix = uploadCheckpoint("big/", 20000);
        QVERIFY(!prefix.empty());
        auto size = storage::fileSize(prefix + ".index");
        QVERIFY(size.ok());
        QVERIFY2(*size > 4 * kOpenTailBytes, std::to_string(*size).c_str());
        const uint64_t before = dispatchedRequests();
        size_t entries = 0;
        QVERIFY(format::scanIndexTable(prefix + ".index", [&](std::string_view, std::string_view) {
                    ++entries;
                    return okStatus();
                }).isOk());
        QCOMPARE(entries, size_t(20001));  // the header entry and the tensors
        QVERIFY2(dispatchedRequests() - before <= 2, std::to_string(dispatchedRequests() - before).c_str());
    }

    // A directory resolves through its state file, read before any other
    // probe of the directory (a SavedModel's variables, a listing).
    void directoryThroughStateFile() {
        useServerThroughDispatch();
        const std::string prefix = uploadCheckpoint("run/", 3);
        QVERIFY(!prefix.empty());
        QVERIFY(storage::writeObject(at("run/checkpoint"), "model_checkpoint_path: \"ckpt-1\"\n").ok());
        const uint64_t before = dispatchedRequests();
        auto resolved = resolveCheckpoint(at("run"));
        QVERIFY2(resolved.ok(), resolved.status().toString().c_str());
        QCOMPARE(resolved->how, std::string("state file"));
        QCOMPARE(resolved->prefix, prefix);
        // "run.index" and "run" probed (HEAD and a one-key listing each), the
        // state file (GET), its index (HEAD): no SavedModel probe, no listing of run/.
        QVERIFY2(dispatchedRequests() - before <= 6, std::to_string(dispatchedRequests() - before).c_str());
    }

    void refusals() {
        QCOMPARE(m_storage->openRandomAccess(at("dir/")).status().code(), StatusCode::InvalidArgument);
        QCOMPARE(m_storage->openRandomAccess("s3://" + m_server->bucket).status().code(), StatusCode::InvalidArgument);
        auto missing = m_storage->openRandomAccess(at("missing.index"));
        QCOMPARE(missing.status().code(), StatusCode::NotFound);
        QVERIFY2(QString::fromStdString(missing.status().message()).contains(QString::fromStdString(at("missing.index"))),
                 missing.status().toString().c_str());
        QCOMPARE(m_storage->rename(at("a"), at("b"), {}).code(), StatusCode::Unimplemented);
        QVERIFY(!m_storage->capabilities().rename);
        QVERIFY(!m_storage->capabilities().localPaths);
    }
};

QTEST_GUILESS_MAIN(TstObjectStorage)
#include "tst_object_storage.moc"

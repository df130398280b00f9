// The on-disk cache of remote objects (objstore/object_cache.h,
// storage/blob_cache.h) against SeaweedFS on loopback, counted with the
// client's request counters: a reopen costs one listing, or one 304 without
// a body; a replaced object is fetched again; a damaged entry is never
// served; an unusable cache directory costs the cache, not the open. And a
// cancelled open of a slow store returns within a second.

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <cstring>
#include <thread>

#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint.h"
#include "ckpt/object_store.h"
#include "s3_test_server.h"
#include "storage/dispatch.h"
#include "test_support.h"
#include "test_tensors.h"

using namespace ckpt;

namespace {

struct Cost {
    uint64_t requests = 0;
    uint64_t bytes = 0;
};

// What 'work' cost in requests and body bytes, on fresh clients (no
// object information remembered from earlier calls: as a new process).
template <typename F>
Cost costOf(F&& work) {
    if (!configureObjectStores({}).isOk()) return {~0ull, ~0ull};
    const ObjectStoreStats before = objectStoreStats();
    work();
    const ObjectStoreStats after = objectStoreStats();
    return {after.requests - before.requests, after.bytesReceived - before.bytesReceived};
}

QStringList entryFiles(const QString& dir) {
    QStringList out;
    for (QDirIterator it(dir, {QStringLiteral("*.entry")}, QDir::Files); it.hasNext();) out << it.next();
    out.sort();
    return out;
}

qint64 totalSize(const QString& dir) {
    qint64 total = 0;
    for (const QString& f : entryFiles(dir)) total += QFileInfo(f).size();
    return total;
}

}  // namespace

class TstObjectCache : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    std::string m_root;
    QTemporaryDir m_local;

    // A checkpoint of 'count' tensors, each [8] floats of 'value', written
    // locally and uploaded to m_root + name; returns the remote prefix.
    std::string upload(const std::string& name, int count, float value) {
        const std::string local = m_local.filePath(QString::fromStdString(name)).toStdString();
        QDir().mkpath(QString::fromStdString(local));
        const std::string prefix = local + "/ckpt-1";
        auto w = BundleWriter::create(prefix);
        if (!w.ok()) return {};
        for (int i = 0; i < count; ++i) {
            const std::string key = "layer_" + std::to_string(i) + "/kernel/.ATTRIBUTES/VARIABLE_VALUE";
            if (!(*w)->add(key, testing::makeTensor<float>(DataType::Float, {8}, std::vector<float>(8, value))).isOk()) return {};
        }
        if (!(*w)->finish().isOk()) return {};
        const std::string remote = m_root + name + "/ckpt-1";
        for (const char* suffix : {".index", ".data-00000-of-00001"}) {
            const QByteArray bytes = testing::readAll(QString::fromStdString(prefix + suffix));
            if (!storage::writeObject(remote + suffix, bytes.toStdString(), storage::WriteCondition::none()).ok()) return {};
        }
        return remote;
    }

    // Opens 'prefix' and reads its first tensor: its tensor count and value.
    static std::pair<size_t, float> openAndRead(const std::string& prefix, QString* error) {
        auto ckpt = Checkpoint::open(prefix);
        if (!ckpt.ok()) {
            *error = QString::fromStdString(ckpt.status().toString());
            return {0, 0.f};
        }
        const auto& tensors = (*ckpt)->bundle().tensors();
        auto t = (*ckpt)->bundle().read(tensors.front());
        if (!t.ok()) {
            *error = QString::fromStdString(t.status().toString());
            return {0, 0.f};
        }
        float v = 0;
        std::memcpy(&v, t->bytes.data(), sizeof v);
        return {tensors.size(), v};
    }

private slots:
    void initTestCase() {
        QString why;
        const auto root = testing::s3RootThroughDispatch("tst_object_cache", &why);
        QVERIFY2(root.has_value(), qPrintable(why));
        m_root = *root;
        m_server = testing::s3TestServer(&why);
        QVERIFY(m_local.isValid());
    }

    void cleanup() { (void)configureObjectCache({}); }

    // A reopen with the cache costs the listing that says the index and
    // data file are unchanged, nothing else; without the cache, the index
    // and the tensor again.
    void reopenCostsOneListing() {
        const std::string prefix = upload("reopen", 50, 3.f);
        QVERIFY(!prefix.empty());
        QString error;
        const Cost uncached = costOf([&] { QCOMPARE(openAndRead(prefix, &error).first, size_t(50)); });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QTemporaryDir cacheDir;
        const ObjectCacheState state = configureObjectCache({cacheDir.path().toStdString(), {}, 0});
        QVERIFY2(state.warning.empty(), state.warning.c_str());
        QCOMPARE(state.maxBytes, uint64_t(1) << 30);
        const Cost first = costOf([&] { QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(50), 3.f)); });
        const Cost again = costOf([&] { QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(50), 3.f)); });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        qInfo("open: uncached %llu requests %llu B; first with cache %llu requests %llu B; reopen %llu requests %llu B",
              (unsigned long long)uncached.requests, (unsigned long long)uncached.bytes, (unsigned long long)first.requests,
              (unsigned long long)first.bytes, (unsigned long long)again.requests, (unsigned long long)again.bytes);
        QCOMPARE(first.requests, uncached.requests);
        QCOMPARE(again.requests, uint64_t(1));  // the listing of ckpt-1.*
        QVERIFY(again.bytes < first.bytes / 2);
        // The directory is private; no entry holds a credential.
        struct stat st {};
        QCOMPARE(::stat(cacheDir.path().toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
        const QStringList entries = entryFiles(cacheDir.path());
        QCOMPARE(entries.size(), 2);  // the index, the tensor read
        for (const QString& f : entries) {
            const QByteArray bytes = testing::readAll(f);
            QVERIFY(!bytes.contains(QByteArray::fromStdString(m_server->secret)));
            QVERIFY(!bytes.contains(QByteArray::fromStdString(m_server->accessKeyId)));
        }
    }

    // Opened with nothing known about the object, the cached index is
    // revalidated with If-None-Match: one request, a 304, no body.
    void revalidatesWith304() {
        const std::string prefix = upload("revalidate", 20, 1.f);
        QVERIFY(!prefix.empty());
        QTemporaryDir cacheDir;
        QVERIFY(configureObjectCache({cacheDir.path().toStdString(), {}, 0}).warning.empty());
        QString error;
        (void)costOf([&] { QCOMPARE(openAndRead(prefix, &error).first, size_t(20)); });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        std::string whole;
        const Cost cost = costOf([&] {
            auto file = storage::openRandomAccess(prefix + ".index");
            QVERIFY2(file.ok(), file.status().toString().c_str());
            whole.resize((*file)->size());
            QVERIFY((*file)->read(0, whole.size(), whole.data()).isOk());
        });
        QCOMPARE(cost.requests, uint64_t(1));
        QCOMPARE(cost.bytes, uint64_t(0));
        QCOMPARE(QByteArray::fromStdString(whole), testing::readAll(m_local.filePath(QStringLiteral("revalidate/ckpt-1.index"))));
        // A data file's tail (what its open fetches: footer, object graph)
        // is kept too: the second open of it is a 304.
        const std::string data = prefix + ".data-00000-of-00001";
        const QByteArray local = testing::readAll(m_local.filePath(QStringLiteral("revalidate/ckpt-1.data-00000-of-00001")));
        for (int round = 0; round < 2; ++round) {
            const Cost open = costOf([&] {
                auto file = storage::openRandomAccess(data);
                QVERIFY2(file.ok(), file.status().toString().c_str());
                std::string bytes((*file)->size(), '\0');
                QVERIFY((*file)->read(0, bytes.size(), bytes.data()).isOk());
                QCOMPARE(QByteArray::fromStdString(bytes), local);
            });
            QCOMPARE(open.requests, uint64_t(1));
            QCOMPARE(open.bytes, round == 0 ? uint64_t(local.size()) : uint64_t(0));
        }
    }

    // A file read front to back in parts (verify, restore: adviseSequential
    // of a part) keeps nothing on disk: its reads always come from the store.
    void readsInPartsAreNotKept() {
        const std::string prefix = upload("parts", 12000, 2.f);  // a data file over the open tail (256 KiB)
        QVERIFY(!prefix.empty());
        QTemporaryDir cacheDir;
        QVERIFY(configureObjectCache({cacheDir.path().toStdString(), {}, 0}).warning.empty());
        const std::string data = prefix + ".data-00000-of-00001";
        for (int round = 0; round < 2; ++round) {
            const Cost cost = costOf([&] {
                auto file = storage::openRandomAccess(data);
                QVERIFY(file.ok());
                const uint64_t half = (*file)->size() / 2;
                (*file)->adviseSequential(0, half);
                std::string bytes(32, '\0');
                for (uint64_t at = 0; at + 32 <= half; at += 32) QVERIFY((*file)->read(at, 32, bytes.data()).isOk());
            });
            QCOMPARE(cost.requests, uint64_t(2));  // the open's tail (a 304 the second time), the part
        }
        QCOMPARE(entryFiles(cacheDir.path()).size(), 1);  // the open's tail only
    }

    // A small object read whole (a state file): a 304 the second time; once
    // it is replaced, the new bytes.
    void smallObjectReplaced() {
        QTemporaryDir cacheDir;
        QVERIFY(configureObjectCache({cacheDir.path().toStdString(), {}, 0}).warning.empty());
        const std::string location = m_root + "small/checkpoint";
        QVERIFY(storage::writeObject(location, "model_checkpoint_path: \"ckpt-1\"\n", storage::WriteCondition::none()).ok());
        std::string text;
        const Cost first = costOf([&] { text = *storage::readSmallFile(location, 1024); });
        QCOMPARE(text, std::string("model_checkpoint_path: \"ckpt-1\"\n"));
        const Cost again = costOf([&] { text = *storage::readSmallFile(location, 1024); });
        QCOMPARE(text, std::string("model_checkpoint_path: \"ckpt-1\"\n"));
        QCOMPARE(first.requests, uint64_t(1));
        QCOMPARE(again.requests, uint64_t(1));
        QCOMPARE(again.bytes, uint64_t(0));
        QVERIFY(storage::writeObject(location, "model_checkpoint_path: \"ckpt-2\"\n", storage::WriteCondition::none()).ok());
        const Cost changed = costOf([&] { text = *storage::readSmallFile(location, 1024); });
        QCOMPARE(text, std::string("model_checkpoint_path: \"ckpt-2\"\n"));
        QCOMPARE(changed.requests, uint64_t(1));
        QVERIFY(changed.bytes > 0);
        // The generation is the object's now, for compare-and-swap.
        auto contents = storage::readObject(location, 1024);
        QVERIFY(contents.ok());
        QVERIFY(storage::writeObject(location, "x", storage::WriteCondition::ifMatch(contents->generation)).ok());
    }

    // The checkpoint replaced between two opens (new ETags): the new one
    // is read, never the cached one.
    void replacedObjectRefetched() {
        QTemporaryDir cacheDir;
        QVERIFY(configureObjectCache({cacheDir.path().toStdString(), {}, 0}).warning.empty());
        const std::string prefix = upload("replaced", 10, 1.f);
        QString error;
        (void)costOf([&] { QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(10), 1.f)); });
        QCOMPARE(upload("replaced", 12, 7.f), prefix);
        const Cost cost = costOf([&] { QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(12), 7.f)); });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(cost.requests >= 3);
        // The same through the 304 path: the suffix GET answers 206, not 304.
        QCOMPARE(upload("replaced", 14, 9.f), prefix);
        (void)costOf([&] {
            auto file = storage::openRandomAccess(prefix + ".index");
            QVERIFY(file.ok());
            std::string whole((*file)->size(), '\0');
            QVERIFY((*file)->read(0, whole.size(), whole.data()).isOk());
            QCOMPARE(QByteArray::fromStdString(whole),
                     testing::readAll(m_local.filePath(QStringLiteral("replaced/ckpt-1.index"))));
        });
    }

    // Entries with a flipped byte or cut short: detected, removed, fetched
    // again, never served.
    void damagedEntriesAreRefetched_data() {
        QTest::addColumn<bool>("truncate");
        QTest::newRow("byte flipped") << false;
        QTest::newRow("truncated") << true;
    }
    void damagedEntriesAreRefetched() {
        QFETCH(bool, truncate);
        QTemporaryDir cacheDir;
        QVERIFY(configureObjectCache({cacheDir.path().toStdString(), {}, 0}).warning.empty());
        const std::string prefix = upload(truncate ? "truncated" : "flipped", 30, 5.f);
        QString error;
        const Cost first = costOf([&] { QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(30), 5.f)); });
        const QStringList entries = entryFiles(cacheDir.path());
        QCOMPARE(entries.size(), 2);
        for (const QString& path : entries) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadWrite));
            QByteArray bytes = f.readAll();
            if (truncate) {
                bytes.truncate(bytes.size() / 2);
            } else {
                // A byte of the payload (the last 4 are the checksum).
                bytes[bytes.size() - 10] = static_cast<char>(bytes[bytes.size() - 10] ^ 0x40);
            }
            QVERIFY(f.resize(0));
            QVERIFY(f.seek(0));
            QCOMPARE(f.write(bytes), bytes.size());
        }
        const Cost again = costOf([&] { QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(30), 5.f)); });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(again.requests, first.requests);  // everything fetched again
        QCOMPARE(again.bytes, first.bytes);
        // Written again, and served from then on.
        const Cost third = costOf([&] { QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(30), 5.f)); });
        QCOMPARE(third.requests, uint64_t(1));
    }

    // A directory that cannot be made (its parent is a file), or that goes
    // away while in use: no cache, a warning, and every open still works.
    void unusableDirectoryDegrades() {
        QTemporaryDir scratch;
        const QString file = scratch.filePath(QStringLiteral("not-a-directory"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        const ObjectCacheState state = configureObjectCache({(file + QStringLiteral("/cache")).toStdString(), {}, 0});
        QVERIFY(state.directory.empty());
        QVERIFY2(state.warning.find("not-a-directory") != std::string::npos, state.warning.c_str());
        const std::string prefix = upload("unusable", 5, 2.f);
        QString error;
        QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(5), 2.f));
        QVERIFY2(error.isEmpty(), qPrintable(error));

        const QString gone = scratch.filePath(QStringLiteral("gone"));
        QVERIFY(configureObjectCache({gone.toStdString(), {}, 0}).warning.empty());
        QVERIFY(QDir(gone).removeRecursively());
        (void)costOf([&] { QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(5), 2.f)); });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const std::string warning = objectCacheWarning();
        QVERIFY2(warning.find("gone") != std::string::npos, warning.c_str());
    }

    // The total stays under the bound: least recently used entries go; an
    // object over a quarter of it is not kept at all.
    void boundedByBytes() {
        QString error;
        // What one checkpoint's open leaves in the cache: its index and a tensor.
        QTemporaryDir probeDir;
        QVERIFY(configureObjectCache({probeDir.path().toStdString(), {}, 0}).warning.empty());
        const std::string probe = upload("bounded-probe", 40, 1.f);
        (void)costOf([&] { QCOMPARE(openAndRead(probe, &error).first, size_t(40)); });
        const uint64_t perCheckpoint = uint64_t(totalSize(probeDir.path()));
        QVERIFY(perCheckpoint > 0);
        // Room for three.
        QTemporaryDir cacheDir;
        const uint64_t bound = 3 * perCheckpoint + perCheckpoint / 2;
        QVERIFY(configureObjectCache({cacheDir.path().toStdString(), {}, bound}).warning.empty());
        std::vector<std::string> prefixes;
        for (int i = 0; i < 6; ++i) {
            prefixes.push_back(upload("bounded" + std::to_string(i), 40, float(i)));
            (void)costOf([&] { QCOMPARE(openAndRead(prefixes.back(), &error), std::make_pair(size_t(40), float(i))); });
            QVERIFY2(uint64_t(totalSize(cacheDir.path())) <= bound, qPrintable(QString::number(totalSize(cacheDir.path()))));
        }
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // The last three are served from the cache; the first, least
        // recently used, was evicted.
        for (size_t i = 3; i < prefixes.size(); ++i)
            QCOMPARE(costOf([&] { (void)openAndRead(prefixes[i], &error); }).requests, uint64_t(1));
        QVERIFY(costOf([&] { QCOMPARE(openAndRead(prefixes.front(), &error), std::make_pair(size_t(40), 0.f)); }).requests > 1);
        // An index over bound / 4 is never kept.
        const std::string big = upload("bounded-big", 400, 1.f);
        QVERIFY(QFileInfo(m_local.filePath(QStringLiteral("bounded-big/ckpt-1.index"))).size() > qint64(bound / 4));
        (void)costOf([&] { QCOMPARE(openAndRead(big, &error).first, size_t(400)); });
        const Cost again = costOf([&] { QCOMPARE(openAndRead(big, &error).first, size_t(400)); });
        QCOMPARE(again.requests, uint64_t(2));  // the listing and the index; the tensor was kept
    }

    // Cancel during the open of a slow store (every request held 3 s):
    // the open returns Cancelled within a second of the Cancel.
    void cancelStopsSlowOpen() {
        const std::string prefix = upload("slow", 5, 1.f);
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0, 0, 0, 1, false, 0, false, false, /*delaySeconds=*/3.0));
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = proxy.endpoint();
        testing::setStoreEnvironment(vars);
        QVERIFY(configureObjectStores({}).isOk());
        CancellationToken token;
        Status result;
        QElapsedTimer sinceCancel;
        std::thread opener([&] {
            CheckpointOpenOptions options;
            options.cancel = &token;
            auto opened = Checkpoint::open(prefix, options);
            result = opened.status();
        });
        QTest::qWait(300);
        sinceCancel.start();
        token.cancel();
        opener.join();
        const qint64 ms = sinceCancel.elapsed();
        testing::setStoreEnvironment(m_server->variables());
        QVERIFY(configureObjectStores({}).isOk());
        qInfo("cancelled open returned %lld ms after Cancel: %s", static_cast<long long>(ms), result.toString().c_str());
        QCOMPARE(result.code(), StatusCode::Cancelled);
        QVERIFY2(ms < 1000, qPrintable(QString::number(ms)));
        // The store itself is fine: without the proxy the open succeeds.
        QString error;
        QCOMPARE(openAndRead(prefix, &error), std::make_pair(size_t(5), 1.f));
    }
};

QTEST_GUILESS_MAIN(TstObjectCache)
#include "tst_object_cache.moc"

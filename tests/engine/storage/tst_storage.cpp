// The storage interface's contract, held by both kinds of backend: the
// local file system and an object store in memory (tests/support/
// memory_storage.h), as Arrow runs one suite over its file systems. Then
// the local backend's own capabilities (mapped reads, directories,
// symlinks), the dispatch by location, and a checkpoint's whole life on a
// store without rename: saved, rotated, listed, verified and restored at
// "mem://bucket/run" through the same engine calls as on disk.

#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/surgery.h"
#include "ckpt/verify.h"
#include "memory_storage.h"
#include "numbered_checkpoints.h"
#include "platform/file.h"
#include "storage/dispatch.h"
#include "storage/local_storage.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::storage;

namespace {

std::string readAllOf(const std::string& location) {
    auto contents = readObject(location, 1 << 20);
    return contents.ok() ? contents->bytes : "<" + contents.status().toString() + ">";
}

Status writeWhole(const std::string& location, std::string_view bytes, const CreateOptions& options = {}) {
    CKPT_ASSIGN_OR_RETURN(auto file, create(location, options));
    CKPT_RETURN_IF_ERROR(file->append(bytes));
    return file->close();
}

}  // namespace

class TstStorage : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::shared_ptr<testing::MemoryStorage> m_memory = std::make_shared<testing::MemoryStorage>();
    int m_case = 0;

    // A fresh directory of the backend the row names.
    std::string freshRoot(const QString& backend) {
        ++m_case;
        if (backend == QLatin1String("local")) {
            const std::string dir = m_tmp.filePath(QStringLiteral("case%1").arg(m_case)).toStdString();
            return createDirectories(dir).isOk() ? dir : std::string();
        }
        return "mem://bucket/case" + std::to_string(m_case);
    }

    static void backends() {
        QTest::addColumn<QString>("backend");
        QTest::newRow("local") << QStringLiteral("local");
        QTest::newRow("object store") << QStringLiteral("memory");
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        registerStorage("mem", [memory = m_memory](std::string_view) -> Result<std::shared_ptr<Storage>> {
            return std::shared_ptr<Storage>(memory);
        });
    }
    void cleanupTestCase() { QVERIFY(unregisterStorage("mem")); }

    void writeAndRead_data() { backends(); }
    void writeAndRead() {
        QFETCH(QString, backend);
        const std::string dir = freshRoot(backend);
        const std::string a = dir + "/a.bin";
        QVERIFY(writeWhole(a, "0123456789").isOk());
        auto file = openRandomAccess(a);
        QVERIFY2(file.ok(), file.status().toString().c_str());
        QCOMPARE((*file)->size(), uint64_t{10});
        QVERIFY((*file)->generation().isKnown());
        char buf[4] = {};
        QVERIFY((*file)->read(3, 4, buf).isOk());
        QCOMPARE(std::string(buf, 4), std::string("3456"));
        // Batches read every range.
        char x[2] = {}, y[3] = {};
        const ReadRange ranges[] = {{0, 2, x}, {7, 3, y}};
        QVERIFY((*file)->readBatch(ranges).isOk());
        QCOMPARE(std::string(x, 2) + std::string(y, 3), std::string("01789"));
        // Past the end: DataLoss naming the object, nothing read.
        const Status past = (*file)->read(8, 4, buf);
        QCOMPARE(past.code(), StatusCode::DataLoss);
        QVERIFY2(past.message().find(a) != std::string::npos, past.toString().c_str());
        // Whole small objects, bounded before anything is allocated.
        QCOMPARE(readAllOf(a), std::string("0123456789"));
        QCOMPARE(readObject(a, 9).status().code(), StatusCode::InvalidArgument);
        QCOMPARE(openRandomAccess(dir + "/missing").status().code(), StatusCode::NotFound);
        auto info = stat(a);
        QVERIFY(info.ok() && *info);
        QCOMPARE((*info)->kind, storage::ObjectKind::File);
        QCOMPARE((*info)->size, uint64_t{10});
        QVERIFY(stat(dir + "/missing").ok() && !*stat(dir + "/missing"));
        // Sequential reads see the same bytes.
        auto seq = openSequential(a);
        QVERIFY(seq.ok());
        std::string all;
        for (char chunk[3];;) {
            auto n = (*seq)->read(sizeof chunk, chunk);
            QVERIFY(n.ok());
            if (*n == 0) break;
            all.append(chunk, *n);
        }
        QCOMPARE(all, std::string("0123456789"));
    }

    // Create-only: the commit point of a checkpoint's index.
    void createOnlyIfAbsent_data() { backends(); }
    void createOnlyIfAbsent() {
        QFETCH(QString, backend);
        const std::string dir = freshRoot(backend);
        const std::string index = dir + "/ckpt-1.index";
        CreateOptions ifAbsent;
        ifAbsent.condition = WriteCondition::ifAbsent();
        {
            auto file = create(index, ifAbsent);
            QVERIFY(file.ok());
            QVERIFY((*file)->append("first").isOk());
            // Complete or nothing: not there before close().
            QVERIFY(!exists(index));
            QVERIFY((*file)->close().isOk());
        }
        QCOMPARE(readAllOf(index), std::string("first"));
        const Status again = writeWhole(index, "second", ifAbsent);
        QCOMPARE(again.code(), StatusCode::AlreadyExists);
        QVERIFY(isWriteConflict(again));
        QCOMPARE(readAllOf(index), std::string("first"));
        // A conditional write abandoned before close leaves nothing.
        {
            auto file = create(dir + "/abandoned", ifAbsent);
            QVERIFY(file.ok());
            QVERIFY((*file)->append("x").isOk());
        }
        QVERIFY(!exists(dir + "/abandoned"));
    }

    // Compare-and-swap on a generation: the state file's replace.
    void compareAndSwap_data() { backends(); }
    void compareAndSwap() {
        QFETCH(QString, backend);
        const std::string dir = freshRoot(backend);
        const std::string state = dir + "/checkpoint";
        auto first = writeObject(state, "v1", WriteCondition::ifAbsent());
        QVERIFY2(first.ok(), first.status().toString().c_str());
        auto read = readObject(state, 1024);
        QVERIFY(read.ok());
        QCOMPARE(read->generation, *first);
        // Another writer replaces it: the reader's generation is stale.
        auto other = writeObject(state, "v2 by someone else");
        QVERIFY(other.ok());
        QVERIFY(!(*other == *first));
        const auto stale = writeObject(state, "v2 from a stale read", WriteCondition::ifMatch(read->generation));
        QCOMPARE(stale.status().code(), StatusCode::FailedPrecondition);
        QVERIFY(isWriteConflict(stale.status()));
        QCOMPARE(readAllOf(state), std::string("v2 by someone else"));
        // With the current generation it goes through.
        auto fresh = readObject(state, 1024);
        QVERIFY(fresh.ok());
        QVERIFY(writeObject(state, "v3", WriteCondition::ifMatch(fresh->generation)).ok());
        QCOMPARE(readAllOf(state), std::string("v3"));
        QCOMPARE(writeObject(dir + "/absent", "x", WriteCondition::ifMatch(fresh->generation)).status().code(),
                 StatusCode::FailedPrecondition);
    }

    // Only a lost race is a conflict: a store that cannot do conditional
    // writes (objstore/conditional_writes.h) or fails otherwise is not one,
    // so no writer retries it or takes it for another's claim.
    void conflictsAreLostRacesOnly() {
        QVERIFY(isWriteConflict(Status(StatusCode::AlreadyExists, "x already exists")));
        QVERIFY(isWriteConflict(failedPrecondition("412")));
        QVERIFY(!isWriteConflict(okStatus()));
        QVERIFY(!isWriteConflict(unimplemented("does not honour create-only writes")));
        QVERIFY(!isWriteConflict(notFound("gone")));
        QVERIFY(!isWriteConflict(Status(StatusCode::PermissionDenied, "denied")));
    }

    // Listings: one level, a visitor over pages (the store's page holds 3),
    // a name prefix, subdirectories as directories.
    void listing_data() { backends(); }
    void listing() {
        QFETCH(QString, backend);
        const std::string dir = freshRoot(backend);
        for (int i = 0; i < 7; ++i) QVERIFY(writeWhole(dir + "/ckpt-" + std::to_string(i) + ".index", "x").isOk());
        QVERIFY(createDirectories(dir + "/sub").isOk());
        QVERIFY(writeWhole(dir + "/sub/inner", "y").isOk());
        QVERIFY(writeWhole(dir + "/other", "zz").isOk());
        std::map<std::string, storage::ObjectKind> seen;
        QVERIFY(list(dir, {}, [&](const ListEntry& e) {
                    seen[e.name] = e.kind;
                    return true;
                }).isOk());
        QCOMPARE(seen.size(), size_t{9});
        QCOMPARE(seen["sub"], storage::ObjectKind::Directory);
        QCOMPARE(seen["other"], storage::ObjectKind::File);
        ListOptions prefix;
        prefix.namePrefix = "ckpt-";
        int n = 0;
        QVERIFY(list(dir, prefix, [&](const ListEntry&) { return ++n < 5; }).isOk());  // stops early
        QCOMPARE(n, 5);
        // Deletes are idempotent; removeAll takes a whole tree.
        QVERIFY(remove(dir + "/other").isOk());
        QVERIFY(remove(dir + "/other").isOk());
        QVERIFY(removeAll(dir).isOk());
        QVERIFY(!exists(dir + "/sub/inner"));
        QVERIFY(!exists(dir + "/ckpt-3.index"));
    }

    // The local backend's own capabilities.
    void localCapabilities() {
        const std::string dir = freshRoot(QStringLiteral("local"));
        const Capabilities caps = capabilitiesFor(dir);
        QVERIFY(caps.rename && caps.directories && caps.mappedReads && caps.directWrites && caps.localPaths);
        QVERIFY(!capabilitiesFor("mem://bucket/x").rename);
        // O_DIRECT (or its buffered fallback) writes what it was given.
        CreateOptions direct;
        direct.mode = WriteMode::Direct;
        std::string big((9u << 20) + 5, '\0');
        for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31);
        QVERIFY(writeWhole(dir + "/big", big, direct).isOk());
        auto file = openRandomAccess(dir + "/big");
        QVERIFY(file.ok());
        QCOMPARE((*file)->size(), uint64_t{big.size()});
        std::string back(big.size(), '\0');
        QVERIFY((*file)->read(0, back.size(), back.data()).isOk());
        QVERIFY(back == big);
        auto view = (*file)->map(4096, 100);
        QVERIFY2(view.ok(), view.status().toString().c_str());
        QVERIFY(std::memcmp(view->data(), big.data() + 4096, 100) == 0);
        QCOMPARE((*file)->map(big.size() - 10, 100).status().code(), StatusCode::DataLoss);
        // A replaced file is a new generation.
        const Generation before = (*stat(dir + "/big"))->generation;
        QVERIFY(writeObject(dir + "/big", "small").ok());
        QVERIFY(!((*stat(dir + "/big"))->generation == before));
        // removeAll never follows a symlink out of the tree.
        const std::string outside = m_tmp.filePath(QStringLiteral("outside-%1").arg(m_case)).toStdString();
        QVERIFY(writeWhole(outside, "keep").isOk());
        QVERIFY(createDirectories(dir + "/tree/deeper").isOk());
        QCOMPARE(::symlink(outside.c_str(), (dir + "/tree/deeper/link").c_str()), 0);
        QCOMPARE(::symlink(m_tmp.path().toStdString().c_str(), (dir + "/tree/dirlink").c_str()), 0);
        QVERIFY(removeAll(dir + "/tree").isOk());
        QVERIFY(!exists(dir + "/tree"));
        QCOMPARE(readAllOf(outside), std::string("keep"));
        // Without rename there is nothing to rename with.
        QCOMPARE(m_memory->rename("mem://bucket/a", "mem://bucket/b", {}).code(), StatusCode::Unimplemented);
    }

    void dispatch() {
        QCOMPARE(locationScheme("runs/a/ckpt-1"), std::string_view());
        QCOMPARE(locationScheme("/abs/path"), std::string_view());
        QCOMPARE(locationScheme("s3://bucket/key"), std::string_view("s3"));
        QCOMPARE(locationScheme("weird:name/x"), std::string_view());
        const Status refused = checkLocation("foo://bucket/run");
        QCOMPARE(refused.code(), StatusCode::InvalidArgument);
        QVERIFY2(refused.message().find("unsupported storage scheme \"foo://\"") != std::string::npos,
                 refused.toString().c_str());
        QCOMPARE(createDirectories("foo://bucket/run").code(), StatusCode::InvalidArgument);
        QVERIFY(checkLocation("mem://bucket/run").isOk());
        QCOMPARE(normalizeLocation("mem://bucket/a/../b/"), std::string("mem://bucket/b"));
        QCOMPARE(normalizeLocation("/x/./y/"), std::string("/x/y"));
    }

    // A checkpoint's whole life on a store without rename or directories.
    void checkpointsOnObjectStore() {
        constexpr int kVariables = 3;
        constexpr int64_t kElements = 4096;
        const std::string dir = "mem://bucket/run";
        const auto before = m_memory->objects().size();
        testing::NumberedProgram program(kVariables, kElements);
        CheckpointManagerOptions options;
        options.maxToKeep = 2;
        options.save.policy = std::make_shared<FixedShardCountPolicy>(2);
        auto manager = CheckpointManager::create(program.root, dir, options);
        QVERIFY2(manager.ok(), manager.status().toString().c_str());
        for (int n = 1; n <= 3; ++n) {
            program.fill(static_cast<float>(n));
            auto saved = (*manager)->save();
            QVERIFY2(saved.ok(), saved.status().toString().c_str());
        }
        QVERIFY((*manager)->close().isOk());
        // Rotated, committed, listed and restorable, as on disk.
        QCOMPARE(QString::fromStdString(testing::checkDirectory(dir, kVariables, kElements)), QString());
        QCOMPARE(QString::fromStdString(testing::checkNumbered(dir + "/ckpt-3", kVariables, kElements)), QString());
        auto latest = latestCheckpoint(dir);
        QVERIFY(latest.ok() && *latest);
        QCOMPARE(**latest, dir + "/ckpt-3");
        auto listing = listCheckpoints(dir);
        QVERIFY2(listing.ok(), listing.status().toString().c_str());
        QCOMPARE(listing->checkpoints.size(), size_t{2});
        QCOMPARE(listing->checkpoints.back().shards, 2);
        QCOMPARE(listing->checkpoints.back().missingShards, 0);
        // What the bucket holds: the two kept checkpoints and the state file,
        // no temp object left behind.
        std::vector<std::string> names;
        for (const auto& [name, bytes] : m_memory->objects())
            if (name.starts_with(dir + "/")) names.push_back(name.substr(dir.size() + 1));
        QCOMPARE(names, (std::vector<std::string>{"checkpoint", "ckpt-2.data-00000-of-00002", "ckpt-2.data-00001-of-00002",
                                                  "ckpt-2.index", "ckpt-2.info.json", "ckpt-3.data-00000-of-00002",
                                                  "ckpt-3.data-00001-of-00002", "ckpt-3.index", "ckpt-3.info.json"}));
        QVERIFY(m_memory->objects().size() > before);
        QVERIFY(m_memory->requests().at("list") > 0);
        // A save over an existing prefix on the store: the index is created
        // only if absent, so a concurrent writer's index is never replaced.
        CreateOptions ifAbsent;
        ifAbsent.condition = WriteCondition::ifAbsent();
        QCOMPARE(writeWhole(dir + "/ckpt-3.index", "not an index", ifAbsent).code(), StatusCode::AlreadyExists);
        QVERIFY(verifyBundle(dir + "/ckpt-3")->ok());

        // Rewrites and comparisons read through the same layer: a copy
        // written onto the store (verified by the surgery's own check) and
        // the original on disk compare equal, value by value.
        const std::string local = m_tmp.filePath(QStringLiteral("local/ckpt-7")).toStdString();
        QVERIFY(createDirectories(platform::dirName(local)).isOk());
        program.fill(7);
        QVERIFY(writeCheckpoint(*program.root, local, {}).ok());
        SurgeryOptions copy;
        copy.save.policy = std::make_shared<FixedShardCountPolicy>(3);
        auto copied = saveCheckpointAs(local, "mem://bucket/copies/ckpt-7", copy);
        QVERIFY2(copied.ok(), copied.status().toString().c_str());
        QCOMPARE(copied->stats.shards, 3);
        auto diff = diffCheckpoints(local, "mem://bucket/copies/ckpt-7");
        QVERIFY2(diff.ok(), diff.status().toString().c_str());
        QVERIFY(diff->equal());
        QVERIFY(diff->bytesRead > 0 || diff->fromChecksums > 0);
    }
};

QTEST_GUILESS_MAIN(TstStorage)
#include "tst_storage.moc"

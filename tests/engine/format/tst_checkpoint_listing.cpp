// Bundle file names (ckpt/bundle_naming.h) and the directory listing that
// `ckpt list` and the explorer's sidebar share (ckpt/checkpoint_listing.h):
// one sort order, shard accounting that ignores stale data files, the state
// file's view, unreadable checkpoints and bad paths.

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <cstring>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_state.h"
#include "test_support.h"
#include "test_tensors.h"

using namespace ckpt;

namespace {

Tensor int64Scalar(int64_t v) {
    Tensor t;
    t.dtype = DataType::Int64;
    t.bytes.resize(8);
    std::memcpy(t.bytes.data(), &v, 8);
    return t;
}

// A one-shard bundle with a weight and, when given, a stored training step.
void writeBundle(const QString& dir, const QString& name, std::optional<int64_t> step) {
    auto w = BundleWriter::create((dir + QLatin1Char('/') + name).toStdString());
    QVERIFY2(w.ok(), w.status().toString().c_str());
    QVERIFY((*w)->add("w/.ATTRIBUTES/VARIABLE_VALUE", ckpt::testing::zeroFloats(10)).isOk());
    if (step) QVERIFY((*w)->add("step/.ATTRIBUTES/VARIABLE_VALUE", int64Scalar(*step)).isOk());
    QVERIFY((*w)->finish().isOk());
}

std::vector<std::string> names(const CheckpointListing& l) {
    std::vector<std::string> out;
    for (const CheckpointListEntry& e : l.checkpoints) out.push_back(e.name);
    return out;
}

const CheckpointListEntry& entry(const CheckpointListing& l, const std::string& name) {
    for (const CheckpointListEntry& e : l.checkpoints)
        if (e.name == name) return e;
    qFatal("no entry %s", name.c_str());
}

}  // namespace

class TstCheckpointListing : public QObject {
    Q_OBJECT

private slots:
    void dataFileNames() {
        QCOMPARE(dataFileName("/r/ckpt-3", 1, 4), std::string("/r/ckpt-3.data-00001-of-00004"));
        QCOMPARE(dataFileName("p", 123456, 200000), std::string("p.data-123456-of-200000"));  // wider than the padding
        QCOMPARE(indexFileName("/r/ckpt-3"), std::string("/r/ckpt-3.index"));
        auto d = parseDataFileName("/r/ckpt-3.data-00001-of-00004");
        QVERIFY(d.has_value());
        QCOMPARE(d->prefix, std::string("/r/ckpt-3"));
        QCOMPARE(d->shardId, 1);
        QCOMPARE(d->numShards, 4);
        QCOMPARE(parseDataFileName("p.data-123456-of-200000")->shardId, 123456);
        // A prefix may itself contain ".data-".
        QCOMPARE(parseDataFileName("a.data-b.data-00000-of-00001")->prefix, std::string("a.data-b"));
        for (const char* bad : {"p.data-0000-of-00001", "p.data-00001-of-00001", "p.data-00000-of-0000x", "p.data-00000-00001",
                                "p.data-00000-of-00001.tmp", "p.index", "p.data--0001-of-00002", "p.data-00000-of-99999999999"})
            QVERIFY2(!parseDataFileName(bad).has_value(), bad);
        QCOMPARE(bundlePrefixOf("/r/ckpt-3.index"), std::string("/r/ckpt-3"));
        QCOMPARE(bundlePrefixOf("/r/ckpt-3.data-00000-of-00002"), std::string("/r/ckpt-3"));
        QCOMPARE(bundlePrefixOf("/r/ckpt-3"), std::string("/r/ckpt-3"));
        QCOMPARE(bundlePrefixOf(".index"), std::string(".index"));
    }

    void sortsByStepThenNumber() {
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        writeBundle(dir, QStringLiteral("ckpt-2"), 300);  // numbered by save_counter, step stored
        writeBundle(dir, QStringLiteral("ckpt-10"), 100);
        writeBundle(dir, QStringLiteral("ckpt-1"), std::nullopt);  // the number stands in: step 1
        writeBundle(dir, QStringLiteral("final"), std::nullopt);   // neither: last
        writeBundle(dir, QStringLiteral("best"), 100);             // same step as ckpt-10, no number
        auto l = listCheckpoints(dir.toStdString());
        QVERIFY2(l.ok(), l.status().toString().c_str());
        QCOMPARE(names(*l), (std::vector<std::string>{"ckpt-1", "ckpt-10", "best", "ckpt-2", "final"}));
        const CheckpointListEntry& c2 = entry(*l, "ckpt-2");
        QCOMPARE(c2.step.step.value_or(-1), 300);
        QCOMPARE(c2.step.number.value_or(-1), 2);
        QCOMPARE(c2.step.source, std::string("step/.ATTRIBUTES/VARIABLE_VALUE"));
        QCOMPARE(c2.tensors, int64_t{2});
        QCOMPARE(c2.shards, 1);
        QVERIFY(c2.error.isOk());
        QVERIFY(c2.modified > 1.6e9);
        QCOMPARE(c2.prefix, (dir + QStringLiteral("/ckpt-2")).toStdString());
        QCOMPARE(entry(*l, "ckpt-1").step.source, std::string("checkpoint number"));
        QVERIFY(!entry(*l, "final").step.step.has_value());

        // Without counting tensors (index lookups only): the same listing.
        CheckpointListOptions light;
        light.countTensors = false;
        auto quick = listCheckpoints(dir.toStdString(), light);
        QVERIFY(quick.ok());
        QCOMPARE(names(*quick), names(*l));
        for (size_t i = 0; i < l->checkpoints.size(); ++i) {
            const CheckpointListEntry& a = l->checkpoints[i];
            const CheckpointListEntry& b = quick->checkpoints[i];
            QCOMPARE(b.step.step, a.step.step);
            QCOMPARE(b.step.source, a.step.source);
            QCOMPARE(b.bytes, a.bytes);
            QCOMPARE(b.shards, a.shards);
            QCOMPARE(b.tensors, int64_t{-1});
        }
    }

    void countsOnlyTheHeadersShards() {
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        writeBundle(dir, QStringLiteral("ckpt-1"), 10);
        const auto size = [&](const QString& name) { return QFileInfo(dir + QLatin1Char('/') + name).size(); };
        const qint64 own = size(QStringLiteral("ckpt-1.index")) + size(QStringLiteral("ckpt-1.data-00000-of-00001"));
        // Left by an earlier save at the same prefix with two shards; and a
        // file of another checkpoint whose name merely starts the same.
        QVERIFY(ckpt::testing::writeAll(dir + QStringLiteral("/ckpt-1.data-00001-of-00002"), QByteArray(5000, 'x')));
        QVERIFY(ckpt::testing::writeAll(dir + QStringLiteral("/ckpt-10.data-00000-of-00001"), QByteArray(7000, 'x')));
        auto l = listCheckpoints(dir.toStdString());
        QVERIFY(l.ok());
        QCOMPARE(l->checkpoints.size(), size_t{1});  // no ckpt-10.index: not a checkpoint
        const CheckpointListEntry& e = l->checkpoints[0];
        QCOMPARE(static_cast<qint64>(e.bytes), own);
        QCOMPARE(e.staleDataFiles, 1);
        QCOMPARE(e.missingShards, 0);

        QVERIFY(QFile::remove(dir + QStringLiteral("/ckpt-1.data-00000-of-00001")));
        l = listCheckpoints(dir.toStdString());
        QVERIFY(l.ok());
        QCOMPARE(l->checkpoints[0].missingShards, 1);
        QCOMPARE(static_cast<qint64>(l->checkpoints[0].bytes), size(QStringLiteral("ckpt-1.index")));
    }

    void stateFileMembership() {
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        for (int i = 1; i <= 3; ++i) writeBundle(dir, QStringLiteral("ckpt-%1").arg(i), i * 10);
        CheckpointState state;
        state.modelCheckpointPath = "ckpt-3";
        state.allModelCheckpointPaths = {"ckpt-2", (dir + QStringLiteral("/./ckpt-3")).toStdString()};
        QVERIFY(writeCheckpointState(dir.toStdString(), state).isOk());
        auto l = listCheckpoints(dir.toStdString());
        QVERIFY(l.ok());
        QVERIFY(l->stateFileError.isOk());
        QVERIFY(!entry(*l, "ckpt-1").inStateFile);
        QVERIFY(entry(*l, "ckpt-2").inStateFile && !entry(*l, "ckpt-2").isLatest);
        QVERIFY(entry(*l, "ckpt-3").inStateFile && entry(*l, "ckpt-3").isLatest);

        QVERIFY(ckpt::testing::writeAll(dir + QStringLiteral("/checkpoint"), "model_checkpoint_path: \"unterminated\n"));
        l = listCheckpoints(dir.toStdString());
        QVERIFY(l.ok());
        QVERIFY(!l->stateFileError.isOk());
        QVERIFY2(l->stateFileError.message().find("checkpoint") != std::string::npos, l->stateFileError.toString().c_str());
        QCOMPARE(l->checkpoints.size(), size_t{3});
    }

    void unreadableCheckpointsAreListedWithTheirError() {
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        writeBundle(dir, QStringLiteral("ckpt-1"), 5);
        QVERIFY(ckpt::testing::writeAll(dir + QStringLiteral("/ckpt-2.index"), QByteArray("not an sstable")));
        QVERIFY(QDir(dir).mkdir(QStringLiteral("sub.index")));  // a directory is not a checkpoint
        auto l = listCheckpoints(dir.toStdString());
        QVERIFY(l.ok());
        // Ordered by the number that stands in for its step (2 < ckpt-1's stored 5).
        QCOMPARE(names(*l), (std::vector<std::string>{"ckpt-2", "ckpt-1"}));
        for (bool countTensors : {true, false}) {
            CheckpointListOptions options;
            options.countTensors = countTensors;
            l = listCheckpoints(dir.toStdString(), options);
            QVERIFY(l.ok());
            const CheckpointListEntry& broken = entry(*l, "ckpt-2");
            QVERIFY(!broken.error.isOk());
            QVERIFY2(broken.error.message().find("ckpt-2.index") != std::string::npos, broken.error.toString().c_str());
            QCOMPARE(broken.tensors, int64_t{-1});
            QCOMPARE(broken.step.step.value_or(-1), 2);
        }
    }

    void specialFilesAreRefusedNotWaitedOn() {
        // A FIFO with no writer blocks an ordinary open() forever.
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        writeBundle(dir, QStringLiteral("ckpt-1"), 5);
        QCOMPARE(::mkfifo((dir + QStringLiteral("/ckpt-2.index")).toLocal8Bit().constData(), 0600), 0);
        QCOMPARE(::mkfifo((dir + QStringLiteral("/checkpoint")).toLocal8Bit().constData(), 0600), 0);
        for (bool countTensors : {true, false}) {
            CheckpointListOptions options;
            options.countTensors = countTensors;
            auto l = listCheckpoints(dir.toStdString(), options);
            QVERIFY(l.ok());
            QVERIFY(!l->stateFileError.isOk());
            QVERIFY2(l->stateFileError.message().find("FIFO") != std::string::npos, l->stateFileError.toString().c_str());
            QCOMPARE(names(*l), (std::vector<std::string>{"ckpt-1"}));  // a FIFO named *.index is no checkpoint
        }
        auto index = BundleReader::open((dir + QStringLiteral("/ckpt-2")).toStdString());
        QVERIFY(!index.ok());
        QCOMPARE(index.status().code(), StatusCode::InvalidArgument);
        QVERIFY2(index.status().message().find("ckpt-2.index is a FIFO") != std::string::npos, index.status().toString().c_str());
        // A data file that is a FIFO: reading the tensor fails, it does not hang.
        const QString data = dir + QStringLiteral("/ckpt-1.data-00000-of-00001");
        QVERIFY(QFile::remove(data));
        QCOMPARE(::mkfifo(data.toLocal8Bit().constData(), 0600), 0);
        auto reader = BundleReader::open((dir + QStringLiteral("/ckpt-1")).toStdString());
        QVERIFY(reader.ok());
        auto value = (*reader)->read(*(*reader)->find("w/.ATTRIBUTES/VARIABLE_VALUE"));
        QVERIFY(!value.ok());
        QVERIFY2(value.status().message().find("FIFO") != std::string::npos, value.status().toString().c_str());
    }

    void badDirectories() {
        QTemporaryDir tmp;
        auto missing = listCheckpoints((tmp.path() + QStringLiteral("/nope")).toStdString());
        QVERIFY(!missing.ok());
        QCOMPARE(missing.status().code(), StatusCode::NotFound);
        QVERIFY(missing.status().message().find("nope") != std::string::npos);
        auto empty = listCheckpoints(tmp.path().toStdString());
        QVERIFY(empty.ok());
        QVERIFY(empty->checkpoints.empty());
    }

    void directoryForOpenedPaths() {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("saved/variables")));
        QVERIFY(ckpt::testing::writeAll(tmp.path() + QStringLiteral("/saved/variables/variables.index"), "x"));
        QVERIFY(ckpt::testing::writeAll(tmp.path() + QStringLiteral("/ckpt-3.index"), "x"));
        QCOMPARE(checkpointDirectoryFor(dir), dir);
        QCOMPARE(checkpointDirectoryFor(dir + "/"), dir);
        QCOMPARE(checkpointDirectoryFor(dir + "/ckpt-3"), dir);
        QCOMPARE(checkpointDirectoryFor(dir + "/ckpt-3.index"), dir);
        QCOMPARE(checkpointDirectoryFor(dir + "/saved"), dir + "/saved/variables");
        QCOMPARE(checkpointDirectoryFor(dir + "/nothing-here"), dir + "/nothing-here");
        QVERIFY(!listCheckpoints(checkpointDirectoryFor(dir + "/nothing-here")).ok());
        QVERIFY(QDir::setCurrent(tmp.path()));
        QCOMPARE(checkpointDirectoryFor("ckpt-3"), std::string("."));
    }
};

QTEST_GUILESS_MAIN(TstCheckpointListing)
#include "tst_checkpoint_listing.moc"

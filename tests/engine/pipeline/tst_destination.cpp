// ckpt/destination.h: the one destination rule, as data. Every refusal
// (bad paths, directories, sources and open checkpoints in every
// spelling, files of a checkpoint, read-only directories), what an
// existing destination is described as, and that overwrite changes only
// the Exists verdict (issue #29, finding 1).

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

#include "ckpt/bundle_naming.h"
#include "ckpt/destination.h"
#include "ckpt/save.h"
#include "numbered_checkpoints.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::testing;

Q_DECLARE_METATYPE(ckpt::DestinationProblem)

class TstDestination : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::string m_run;     // <tmp>/run
    std::string m_source;  // <tmp>/run/ckpt-3: 2 variables, 2 shards
    std::string m_other;   // <tmp>/out/ckpt-7: what a destination may replace

    std::string at(const char* relative) const { return m_tmp.filePath(QString::fromUtf8(relative)).toStdString(); }

    static bool save(const std::string& prefix, float value, int shards) {
        NumberedProgram p(2, 64);
        p.fill(value);
        (void)saveCounter(*p.root);
        SaveOptions o;
        o.policy = std::make_shared<FixedShardCountPolicy>(shards);
        return writeCheckpoint(*p.root, prefix, o).ok();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        m_run = at("run");
        m_source = m_run + "/ckpt-3";
        m_other = at("out/ckpt-7");
        QVERIFY(save(m_source, 3, 2));
        QVERIFY(save(m_other, 7, 1));
        QVERIFY(QFile::link(QString::fromStdString(m_run), m_tmp.filePath(QStringLiteral("run-link"))));
        QVERIFY(QDir(m_tmp.path()).mkpath(QStringLiteral("plain-dir")));
        QVERIFY(writeAll(m_tmp.filePath(QStringLiteral("input.safetensors")), "not really"));
    }

    void refusals_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("kind");  // DestinationKind
        QTest::addColumn<bool>("overwrite");
        QTest::addColumn<DestinationProblem>("problem");
        QTest::addColumn<QString>("fragment");
        const auto dir = [this](const char* r) { return QString::fromStdString(at(r)); };
        const int ckpt = static_cast<int>(DestinationKind::Checkpoint);
        const int file = static_cast<int>(DestinationKind::File);
        QTest::newRow("empty") << QString() << ckpt << true << DestinationProblem::BadPath << "is empty";
        QTest::newRow("newline") << dir("out/a\nb") << ckpt << true << DestinationProblem::BadPath << "control character (0x0a)";
        QTest::newRow("escape") << dir("out/a\x1b[31m") << file << true << DestinationProblem::BadPath
                                << "control character (0x1b)";
        QTest::newRow("delete char") << dir("out/a\x7f") << ckpt << true << DestinationProblem::BadPath
                                     << "control character (0x7f)";
        QTest::newRow("trailing slash") << dir("out/") << ckpt << true << DestinationProblem::BadPath << "has no file name";
        QTest::newRow("dot") << dir("out/.") << ckpt << true << DestinationProblem::BadPath << "has no file name";
        QTest::newRow("dot-dot") << dir("out/..") << file << true << DestinationProblem::BadPath << "has no file name";
        QTest::newRow("parent is a file") << dir("input.safetensors/ckpt") << ckpt << true << DestinationProblem::BadPath
                                          << "is a file, not a directory";
        QTest::newRow("a directory") << dir("plain-dir") << ckpt << true << DestinationProblem::IsDirectory << "is a directory";
        QTest::newRow("source prefix") << dir("run/ckpt-3") << ckpt << true << DestinationProblem::IsSource << "a source";
        QTest::newRow("source .index") << dir("run/ckpt-3.index") << ckpt << true << DestinationProblem::IsSource << "a source";
        QTest::newRow("source data file") << dir("run/ckpt-3.data-00001-of-00002") << ckpt << true << DestinationProblem::IsSource
                                          << "a source";
        QTest::newRow("source via ..") << dir("out/../run/./ckpt-3") << ckpt << true << DestinationProblem::IsSource
                                       << "a source";
        QTest::newRow("source via symlink") << dir("run-link/ckpt-3") << ckpt << true << DestinationProblem::IsSource
                                            << "a source";
        QTest::newRow("inside a source directory")
            << dir("run/sub/avg") << ckpt << true << DestinationProblem::InsideSource << "lies inside";
        QTest::newRow("export onto source index")
            << dir("run/ckpt-3.index") << file << true << DestinationProblem::IsSource << "a source";
        QTest::newRow("export onto source data")
            << dir("run-link/ckpt-3.data-00000-of-00002") << file << true << DestinationProblem::IsSource << "a source";
        QTest::newRow("export onto a checkpoint's index")
            << dir("out/ckpt-7.index") << file << true << DestinationProblem::IsCheckpointFile << "a checkpoint's file";
        QTest::newRow("export onto the state file")
            << dir("run-state/checkpoint") << file << true << DestinationProblem::IsCheckpointFile << "a checkpoint's file";
        QTest::newRow("import onto its input")
            << dir("input.safetensors") << ckpt << true << DestinationProblem::IsSource << "a source";
        QTest::newRow("the open checkpoint")
            << dir("out/ckpt-7.index") << ckpt << true << DestinationProblem::IsOpen << "the open checkpoint";
        QTest::newRow("existing checkpoint")
            << dir("out/ckpt-7") << ckpt << false << DestinationProblem::Exists << "a checkpoint exists at";
        QTest::newRow("existing file") << dir("input.safetensors") << file << false << DestinationProblem::Exists
                                       << "a file exists at";
        QTest::newRow("free") << dir("out/new") << ckpt << false << DestinationProblem::None << "";
        QTest::newRow("free, missing directories") << dir("out/a/b/c/new") << ckpt << false << DestinationProblem::None << "";
    }
    void refusals() {
        QFETCH(QString, path);
        QFETCH(int, kind);
        QFETCH(bool, overwrite);
        QFETCH(DestinationProblem, problem);
        QFETCH(QString, fragment);
        QVERIFY(QDir(m_tmp.path()).mkpath(QStringLiteral("run-state")));
        QVERIFY(writeAll(m_tmp.filePath(QStringLiteral("run-state/checkpoint")), "model_checkpoint_path: \"ckpt-1\"\n"));
        DestinationRequest r;
        r.path = path.toStdString();
        r.kind = static_cast<DestinationKind>(kind);
        r.overwrite = overwrite;
        const bool opened = QString::fromLatin1(QTest::currentDataTag()) == QLatin1String("the open checkpoint");
        if (opened) r.open = {m_other};
        else if (QString::fromLatin1(QTest::currentDataTag()).startsWith(QLatin1String("import")))
            r.sources = {at("input.safetensors")};
        else if (QString::fromLatin1(QTest::currentDataTag()).startsWith(QLatin1String("inside"))) r.sources = {m_run};
        else if (QString::fromLatin1(QTest::currentDataTag()) != QLatin1String("existing file")) r.sources = {m_source};
        const DestinationCheck c = checkDestination(r);
        QVERIFY2(c.problem == problem, qPrintable(QStringLiteral("%1: %2")
                                                      .arg(QString::fromLatin1(destinationProblemName(c.problem)))
                                                      .arg(QString::fromStdString(c.message))));
        QVERIFY2(QString::fromStdString(c.message).contains(fragment), c.message.c_str());
        // Messages never carry the raw control character.
        for (char ch : c.message) QVERIFY(static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f);
        QCOMPARE(c.ok(), problem == DestinationProblem::None);
        QCOMPARE(c.status().isOk(), c.ok());
        if (problem == DestinationProblem::Exists) QCOMPARE(c.status().code(), StatusCode::AlreadyExists);
        else if (problem != DestinationProblem::None) QCOMPARE(c.status().code(), StatusCode::InvalidArgument);
        if (problem == DestinationProblem::IsSource || problem == DestinationProblem::IsOpen) QVERIFY(!c.conflict.empty());
    }

    // What is there, as data: the step, tensor count, size on disk, shards.
    void describesExisting() {
        DestinationCheck c = checkDestination({.path = m_other});
        QCOMPARE(c.problem, DestinationProblem::Exists);
        QVERIFY(c.existing.has_value());
        QVERIFY(c.existing->checkpoint);
        QCOMPARE(c.existing->tensors, int64_t{4});  // two variables, save_counter, the object graph
        QCOMPARE(c.existing->shards, 1);
        const uint64_t onDisk = static_cast<uint64_t>(QFileInfo(QString::fromStdString(indexFileName(m_other))).size() +
                                                      QFileInfo(QString::fromStdString(dataFileName(m_other, 0, 1))).size());
        QCOMPARE(c.existing->bytes, onDisk);
        QVERIFY(c.existing->step.has_value());
        QCOMPARE(*c.existing->step, int64_t{7});  // the number stands in for the step
        QVERIFY2(c.message.find("step 7, 4 tensors") != std::string::npos, c.message.c_str());
        // The same with overwrite: no problem, still described, replaces().
        c = checkDestination({.path = m_other, .overwrite = true});
        QVERIFY(c.ok());
        QVERIFY(c.replaces());
        QCOMPARE(c.existing->tensors, int64_t{4});
        // The .index spelling is the same destination, written at the prefix.
        c = checkDestination({.path = m_other + ".index", .overwrite = true});
        QVERIFY(c.replaces());
        QCOMPARE(c.path, m_other);
        // A damaged index is still something there (and said so).
        const std::string broken = at("out/broken");
        QVERIFY(writeAll(QString::fromStdString(indexFileName(broken)), "garbage"));
        c = checkDestination({.path = broken});
        QCOMPARE(c.problem, DestinationProblem::Exists);
        QCOMPARE(c.existing->tensors, int64_t{-1});
        QVERIFY(!c.existing->error.empty());
        QVERIFY2(c.message.find("unreadable index") != std::string::npos, c.message.c_str());
    }

    // A directory the writer cannot write into (checked as an unprivileged
    // user in a child, so that it holds when the suite runs as root).
    void notWritable() {
        const QString locked = m_tmp.filePath(QStringLiteral("locked"));
        QVERIFY(QDir().mkpath(locked));
        // The unprivileged user must reach it: the temporary directory is 0700.
        QVERIFY(::chmod(QFile::encodeName(m_tmp.path()).constData(), 0755) == 0);
        const std::string dst = (locked + QStringLiteral("/ckpt")).toStdString();
        // A checkpoint already there: a replacement is written beside it, so
        // the directory refuses it too, rather than a "replace?" that fails
        // on Write (issue #30, item 15).
        const std::string there = (locked + QStringLiteral("/ckpt-5")).toStdString();
        QVERIFY(save(there, 5, 1));
        QVERIFY(::chmod(QFile::encodeName(locked).constData(), 0555) == 0);
        const int status = runInChild([&] {
            if (::getuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) return 3;
            const DestinationCheck c = checkDestination({.path = dst});
            if (c.problem != DestinationProblem::NotWritable) return 4;
            if (c.status().code() != StatusCode::PermissionDenied) return 5;
            for (bool overwrite : {false, true}) {
                const DestinationCheck e = checkDestination({.path = there, .overwrite = overwrite});
                if (e.problem != DestinationProblem::NotWritable) return 6;
                if (!e.existing) return 7;  // still says what is there
            }
            return 0;
        });
        ::chmod(QFile::encodeName(locked).constData(), 0755);
        QCOMPARE(status, 0);
    }
};

QTEST_GUILESS_MAIN(TstDestination)
#include "tst_destination.moc"

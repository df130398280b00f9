// Faults at every write-side operation of a checkpoint manager's save,
// injected below the engine through the storage layer
// (tests/support/fault_storage.h): with ckpt-1 and ckpt-2 committed, the
// save of ckpt-3 (which also rotates ckpt-1 out) is run once per
// operation and per fault: ENOSPC, EIO, a failed fsync that loses the
// file's unsynced bytes, and a power loss right after the operation. After
// each, the directory must hold its invariants (numbered_checkpoints.h),
// ckpt-2 must verify and restore, a failed save must say which file failed
// and how, a checkpoint whose commit was made durable must survive the
// power loss, and a fresh manager must save again. Last, a real tmpfs is
// filled until a save runs out of space.

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/checkpoint_state.h"
#include "fault_storage.h"
#include "numbered_checkpoints.h"
#include "test_support.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <filesystem>
#include <sys/mount.h>
#include <unistd.h>

using namespace ckpt;
using namespace ckpt::testing;

namespace {

constexpr int kVariables = 3;
constexpr int64_t kElements = 1024;

CheckpointManagerOptions managerOptions() {
    CheckpointManagerOptions o;
    o.maxToKeep = 2;
    o.owner = "fault-test";  // the same in every copy of the template directory
    return o;
}

// Saves ckpt-<n> with a fresh manager; the status of the save.
Status saveNumbered(const std::string& dir, int64_t n) {
    NumberedProgram p(kVariables, kElements);
    p.setSaveCounter(n - 1);
    p.fill(static_cast<float>(n));
    auto m = CheckpointManager::create(p.root, dir, managerOptions());
    if (!m.ok()) return m.status();
    return (*m)->save().status();
}

// tmpfs where there is one: the model decides durability, so real fsyncs
// need not cost a disk's time.
QString scratchTemplate() {
    return QFileInfo(QStringLiteral("/dev/shm")).isWritable() ? QStringLiteral("/dev/shm/ckpt-faults-XXXXXX") : QString();
}

enum class Fault { NoSpace, Io, FsyncLoss, PowerLoss, PowerLossKeepEntries };

const char* faultName(Fault f) {
    switch (f) {
    case Fault::NoSpace: return "ENOSPC";
    case Fault::Io: return "EIO";
    case Fault::FsyncLoss: return "failed fsync";
    case Fault::PowerLoss: return "power loss";
    case Fault::PowerLossKeepEntries: return "power loss keeping entries";
    }
    return "?";
}

struct Outcome {
    Status saved;
    std::vector<FileOpRecord> ops;
};

}  // namespace

class TstFaultInjection : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp{scratchTemplate().isEmpty() ? QDir::tempPath() + QStringLiteral("/ckpt-faults-XXXXXX")
                                                    : scratchTemplate()};
    std::string m_template;
    int m_case = 0;

    std::string freshCopy() {
        const std::string dir = m_tmp.filePath(QStringLiteral("case%1").arg(++m_case)).toStdString();
        std::filesystem::copy(m_template, dir, std::filesystem::copy_options::recursive);
        return dir;
    }

    // The save of ckpt-3 in 'dir' under 'fault' (armed before it starts).
    Outcome faultedSave(const std::string& dir, FaultStorage& ops, const FileFault& fault) {
        ops.arm(fault);
        Outcome out;
        {
            ScopedStorage installed(ops);
            out.saved = saveNumbered(dir, 3);
        }
        out.ops = ops.operations();
        return out;
    }

    // What every fault must leave: the directory's invariants, ckpt-2
    // restorable, and a manager that can save again.
    QString checkAfter(const std::string& dir, int64_t next) {
        if (std::string e = checkDirectory(dir, kVariables, kElements); !e.empty()) return QString::fromStdString(e);
        if (std::string e = checkNumbered(dir + "/ckpt-2", kVariables, kElements); !e.empty())
            return QStringLiteral("the committed ckpt-2: ") + QString::fromStdString(e);
        const Status again = saveNumbered(dir, next);
        if (!again.isOk()) return QStringLiteral("the next save failed: ") + QString::fromStdString(again.toString());
        if (std::string e = checkDirectory(dir, kVariables, kElements); !e.empty())
            return QStringLiteral("after the next save: ") + QString::fromStdString(e);
        auto latest = latestCheckpoint(dir);
        if (!latest.ok() || !*latest || **latest != dir + "/ckpt-" + std::to_string(next))
            return QStringLiteral("the next save is not the latest");
        return {};
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        m_template = m_tmp.filePath(QStringLiteral("template")).toStdString();
        QVERIFY(saveNumbered(m_template, 1).isOk());
        QVERIFY(saveNumbered(m_template, 2).isOk());
        QCOMPARE(QString::fromStdString(checkDirectory(m_template, kVariables, kElements)), QString());
    }

    void everyOperation() {
        QElapsedTimer timer;
        timer.start();
        // A clean run names the operations.
        const std::string clean = freshCopy();
        FaultStorage cleanOps(clean);
        const Outcome dry = faultedSave(clean, cleanOps, {});
        QVERIFY2(dry.saved.isOk(), dry.saved.toString().c_str());
        const std::vector<FileOpRecord> ops = dry.ops;
        QVERIFY(ops.size() > 10);
        int64_t commitOp = 0;  // the directory fsync that makes ckpt-3.index durable
        int fsyncs = 0;
        for (size_t i = 0; i < ops.size(); ++i) {
            qInfo("op %3zu %-9s %s", i + 1, fileOpKindName(ops[i].kind).data(), ops[i].path.c_str());
            if (ops[i].kind == FileOpKind::Sync || ops[i].kind == FileOpKind::SyncDir) ++fsyncs;
            if (ops[i].kind == FileOpKind::Rename && ops[i].path.ends_with("/ckpt-3.index")) {
                for (size_t j = i + 1; j < ops.size() && !commitOp; ++j)
                    if (ops[j].kind == FileOpKind::SyncDir) commitOp = static_cast<int64_t>(j + 1);
            }
        }
        QVERIFY2(commitOp > 0, "no directory fsync after ckpt-3.index is renamed into place");

        int cases = 0;
        for (Fault fault : {Fault::NoSpace, Fault::Io, Fault::FsyncLoss, Fault::PowerLoss, Fault::PowerLossKeepEntries}) {
            for (size_t i = 0; i < ops.size(); ++i) {
                const FileOpRecord& op = ops[i];
                const bool isFsync = op.kind == FileOpKind::Sync || op.kind == FileOpKind::SyncDir;
                if (fault == Fault::FsyncLoss && !isFsync) continue;
                const int64_t at = static_cast<int64_t>(i + 1);
                FileFault f;
                f.at = at;
                if (fault == Fault::NoSpace) f.error = ENOSPC;
                if (fault == Fault::Io) f.error = EIO;
                if (fault == Fault::FsyncLoss) {
                    f.error = EIO;
                    f.dropUnsynced = true;
                }
                const bool powerLoss = fault == Fault::PowerLoss || fault == Fault::PowerLossKeepEntries;
                f.powerLoss = powerLoss;
                const std::string dir = freshCopy();
                FaultStorage faults(dir);
                const Outcome out = faultedSave(dir, faults, f);
                const QByteArray where = QStringLiteral("%1 at op %2 (%3 %4): ")
                                             .arg(QLatin1String(faultName(fault)))
                                             .arg(at)
                                             .arg(QLatin1String(fileOpKindName(op.kind).data()), QString::fromStdString(op.path))
                                             .toUtf8();
                // The same save makes the same operations up to the fault.
                QVERIFY2(out.ops.size() >= static_cast<size_t>(at) && out.ops[i].kind == op.kind, where + "another sequence");
                if (powerLoss) {
                    const std::string restored =
                        faults.restoreDurableImage(fault == Fault::PowerLoss ? CrashImage::UndoEntries : CrashImage::KeepEntries);
                    QVERIFY2(restored.empty(), where + restored.c_str());
                    const bool committed = at >= commitOp;
                    if (out.saved.isOk() || committed) {
                        // The commit promise: what was made durable survives.
                        const std::string e = checkNumbered(dir + "/ckpt-3", kVariables, kElements);
                        QVERIFY2(e.empty(), where + "ckpt-3 was committed but " + e.c_str());
                    }
                } else if (!out.saved.isOk()) {
                    // Clear errors: the failed file by name, the cause by kind.
                    const std::string message = out.saved.message();
                    QVERIFY2(message.find(out.ops[i].path) != std::string::npos,
                             where + "the error does not name the file: " + out.saved.toString().c_str());
                    const StatusCode expected = fault == Fault::NoSpace ? StatusCode::ResourceExhausted : StatusCode::Internal;
                    QVERIFY2(out.saved.code() == expected, where + out.saved.toString().c_str());
                } else {
                    // Only a failure in a clean-up whose error does not matter lets the save succeed.
                    const std::string e = checkNumbered(dir + "/ckpt-3", kVariables, kElements);
                    QVERIFY2(e.empty(), where + "the save succeeded but " + e.c_str());
                }
                const QString after = checkAfter(dir, 4);
                QVERIFY2(after.isEmpty(), where + after.toUtf8());
                std::filesystem::remove_all(dir);
                ++cases;
            }
        }
        qInfo(
            "%zu write-side operations (%d fsyncs) in the save; %d fault cases (ENOSPC, EIO, failed fsync, power loss) "
            "in %lld ms (power loss twice: un-fsynced entries undone, and kept)",
            ops.size(), fsyncs, cases, static_cast<long long>(timer.elapsed()));
        QCOMPARE(cases, static_cast<int>(4 * ops.size()) + fsyncs);
    }

    // A real file system that runs out of space.
    void realTmpfsFills() {
        QTemporaryDir mountPoint;
        const std::string dir = mountPoint.path().toStdString();
        if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=1m") != 0) {
            if (errno == EPERM) QSKIP("mounting a tmpfs is not permitted here");
            QFAIL(qPrintable(QStringLiteral("mount tmpfs: %1").arg(QString::fromLocal8Bit(std::strerror(errno)))));
        }
        struct Unmount {
            std::string dir;
            ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
        } unmount{dir};
        // 48 KiB per checkpoint, none rotated: about twenty fit.
        NumberedProgram p(kVariables, 4096);
        CheckpointManagerOptions o;
        o.maxToKeep.reset();
        auto m = CheckpointManager::create(p.root, dir, o);
        QVERIFY(m.ok());
        Status last;
        int64_t saved = 0;
        for (int64_t n = 1; n <= 100 && last.isOk(); ++n) {
            p.fill(static_cast<float>(n));
            last = (*m)->save().status();
            if (last.isOk()) saved = n;
        }
        QVERIFY2(!last.isOk(), "1 MiB held 100 checkpoints");
        qInfo("tmpfs full after %lld checkpoints: %s", static_cast<long long>(saved), last.toString().c_str());
        QCOMPARE(last.code(), StatusCode::ResourceExhausted);
        QVERIFY2(last.message().find(dir) != std::string::npos, last.toString().c_str());
        QVERIFY(saved >= 2);
        for (int64_t n = 1; n <= saved; ++n) {
            const std::string e = checkNumbered(dir + "/ckpt-" + std::to_string(n), kVariables, 4096, n == saved);
            QVERIFY2(e.empty(), e.c_str());
        }
        QCOMPARE(QString::fromStdString(checkDirectory(dir, kVariables, 4096)), QString());
    }
};

QTEST_GUILESS_MAIN(TstFaultInjection)
#include "tst_fault_injection.moc"

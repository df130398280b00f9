// Saves, restores and rewrites take a CancellationToken and report
// progress like every other long operation (ckpt/cancellation.h): a save
// cancelled before its commit leaves nothing at the prefix and an earlier
// checkpoint there untouched; a cancelled restore returns Cancelled; a
// surgery write cancelled mid-save leaves nothing at its destination; and
// progress runs from 0 to the total, through "committing" for a save.

#include <QTemporaryDir>
#include <QtTest>

#include <mutex>

#include "ckpt/bundle_naming.h"
#include "ckpt/restore.h"
#include "ckpt/save.h"
#include "ckpt/surgery.h"
#include "ckpt/verify.h"
#include "numbered_checkpoints.h"
#include "storage/dispatch.h"
#include "test_support.h"

using namespace ckpt;

namespace {

constexpr int kVariables = 8;
constexpr int64_t kElements = 64 * 1024;  // 256 KiB each: several progress steps

struct Recorded {
    std::mutex mutex;
    std::vector<std::tuple<int64_t, int64_t, std::string>> calls;  // Guarded by mutex.
    ProgressSink sink(CancellationToken* cancelAfterFirst = nullptr) {
        return [this, cancelAfterFirst](int64_t done, int64_t total, std::string_view phase) {
            std::lock_guard lock(mutex);
            calls.emplace_back(done, total, std::string(phase));
            if (cancelAfterFirst) cancelAfterFirst->cancel();
        };
    }
};

}  // namespace

class TstCancelProgress : public QObject {
    Q_OBJECT

private slots:
    void saveReportsProgress() {
        QTemporaryDir tmp;
        testing::NumberedProgram p(kVariables, kElements);
        p.fill(1);
        Recorded seen;
        SaveOptions options;
        options.progress = seen.sink();
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-1")).toStdString();
        auto stats = writeCheckpoint(*p.root, prefix, options);
        QVERIFY2(stats.ok(), stats.status().toString().c_str());
        QVERIFY(seen.calls.size() > static_cast<size_t>(kVariables));
        const auto& [lastDone, lastTotal, lastPhase] = seen.calls.back();
        QCOMPARE(lastPhase, std::string("committing"));
        QCOMPARE(lastDone, lastTotal);
        QVERIFY(lastTotal >= kVariables * kElements * 4);
        int64_t previous = -1;
        for (const auto& [done, total, phase] : seen.calls) {
            QCOMPARE(total, lastTotal);
            if (phase == "writing") QVERIFY(done > previous);  // from several threads, still growing per call
            previous = std::max(previous, done);
        }
    }

    void cancelledSaveLeavesNothing() {
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-1")).toStdString();
        testing::NumberedProgram p(kVariables, kElements);
        p.fill(1);
        QVERIFY(writeCheckpoint(*p.root, prefix, {}).ok());
        // Overwriting it, cancelled as soon as the first tensor is written.
        p.fill(2);
        CancellationToken cancel;
        Recorded seen;
        SaveOptions options;
        options.cancel = &cancel;
        options.progress = seen.sink(&cancel);
        auto stats = writeCheckpoint(*p.root, prefix, options);
        QCOMPARE(stats.status().code(), StatusCode::Cancelled);
        for (const auto& [done, total, phase] : seen.calls) QVERIFY(phase != "committing");
        // The earlier checkpoint is untouched, and no temp directory is left.
        QCOMPARE(QString::fromStdString(testing::checkNumbered(prefix, kVariables, kElements, false)), QString());
        QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 (QStringList{QStringLiteral("ckpt-1.data-00000-of-00001"), QStringLiteral("ckpt-1.index")}));
        // Cancelled before it starts: nothing is written at a new prefix.
        const std::string fresh = tmp.filePath(QStringLiteral("ckpt-2")).toStdString();
        QCOMPARE(writeCheckpoint(*p.root, fresh, options).status().code(), StatusCode::Cancelled);
        QVERIFY(!storage::exists(indexFileName(fresh)));
    }

    void restoreCancelsAndReports() {
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-3")).toStdString();
        testing::NumberedProgram p(kVariables, kElements);
        p.fill(3);
        QVERIFY(writeCheckpoint(*p.root, prefix, {}).ok());

        testing::NumberedProgram target(kVariables, kElements);
        Recorded seen;
        RestoreOptions options;
        options.progress = seen.sink();
        auto restored = restoreCheckpoint(prefix, target.root, options);
        QVERIFY2(restored.ok(), restored.status().toString().c_str());
        QVERIFY(!seen.calls.empty());
        const auto& [done, total, phase] = seen.calls.back();
        QCOMPARE(phase, std::string("reading"));
        QCOMPARE(done, total);
        QVERIFY(total >= kVariables * kElements * 4);
        QCOMPARE(target.vars.front()->value().as<float>()[0], 3.0f);

        // Cancelled: the call says so, and no value arrives afterwards.
        testing::NumberedProgram other(kVariables, kElements);
        other.fill(-1);
        CancellationToken cancel;
        cancel.cancel();
        RestoreOptions cancelled;
        cancelled.cancel = &cancel;
        QCOMPARE(restoreCheckpoint(prefix, other.root, cancelled).status().code(), StatusCode::Cancelled);
        for (const auto& v : other.vars) QCOMPARE(v->value().as<float>()[0], -1.0f);
    }

    // A rewrite (here an average) cancelled while its save writes: nothing
    // at the destination, sources untouched.
    void surgeryCancelledMidWrite() {
        QTemporaryDir tmp;
        std::vector<std::string> sources;
        for (int n = 1; n <= 2; ++n) {
            testing::NumberedProgram p(kVariables, kElements);
            p.fill(static_cast<float>(n));
            sources.push_back(tmp.filePath(QStringLiteral("ckpt-%1").arg(n)).toStdString());
            QVERIFY(writeCheckpoint(*p.root, sources.back(), {}).ok());
        }
        CancellationToken cancel;
        SurgeryOptions options;
        options.cancel = &cancel;
        options.progress = [&cancel](int64_t done, int64_t, std::string_view phase) {
            if (phase == "write" && done > 0) cancel.cancel();
        };
        const std::string dst = tmp.filePath(QStringLiteral("avg")).toStdString();
        auto result = averageCheckpoints(sources, dst, {}, options);
        QCOMPARE(result.status().code(), StatusCode::Cancelled);
        QVERIFY(!storage::exists(indexFileName(dst)));
        QVERIFY(!storage::exists(dataFileName(dst, 0, 1)));
        QVERIFY(!storage::exists(dst + "_temp"));
        for (const std::string& s : sources) QVERIFY(verifyBundle(s)->ok());
    }
};

QTEST_GUILESS_MAIN(TstCancelProgress)
#include "tst_cancel_progress.moc"

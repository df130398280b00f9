#include <QtTest>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "platform/cancellation_scope.h"
#include "platform/parallel.h"

using namespace ckpt;
using namespace ckpt::platform;

// The contract of platform/parallel.h: every item once, the documented
// range split, no exception past the pool, and the caller's cancellation
// scope in force on every worker (platform/cancellation_scope.h).
class TstParallel : public QObject {
    Q_OBJECT
private slots:
    void defaultsToAtLeastOneThread() {
        QVERIFY(hardwareThreads() >= 1);
        QCOMPARE(threadsOrDefault(3), size_t{3});
        QCOMPARE(threadsOrDefault(0), hardwareThreads());
        QCOMPARE(threadsOrDefault(-1), hardwareThreads());
    }

    void everyItemExactlyOnce() {
        std::vector<std::atomic<int>> seen(1000);
        std::vector<std::atomic<int>> byWorker(4);
        const Status s = forEachItem(seen.size(), 4, [&](size_t worker, size_t i) {
            ++seen[i];
            ++byWorker[worker];
        });
        QVERIFY(s.isOk());
        for (const auto& n : seen) QCOMPARE(n.load(), 1);
        int total = 0;
        for (const auto& n : byWorker) total += n.load();
        QCOMPARE(total, 1000);
    }

    void noItemsStillReturns() {
        QVERIFY(forEachItem(0, 8, [](size_t, size_t) { QFAIL("no item to run"); }).isOk());
    }

    void rangesSplitEvenly() {
        std::vector<std::pair<int64_t, int64_t>> runs(3);
        QVERIFY(forEachRange(10, 3, [&](size_t w, int64_t b, int64_t e) { runs[w] = {b, e}; }).isOk());
        QCOMPARE(runs[0], (std::pair<int64_t, int64_t>{0, 3}));
        QCOMPARE(runs[1], (std::pair<int64_t, int64_t>{3, 6}));
        QCOMPARE(runs[2], (std::pair<int64_t, int64_t>{6, 10}));
    }

    void exceptionBecomesStatus() {
        std::atomic<int> finished{0};
        const Status s = runWorkers(4, [&](size_t worker) {
            if (worker == 2) throw std::runtime_error("boom");
            ++finished;
        });
        QCOMPARE(s.code(), StatusCode::Internal);
        QVERIFY2(s.message().find("boom") != std::string::npos, s.message().c_str());
        QCOMPARE(finished.load(), 3);
    }

    void workersInheritTheCallersCancellation() {
        CancellationToken token;
        std::vector<const CancellationToken*> seen(4, nullptr);
        {
            const CancellationScope scope(&token);
            QVERIFY(runWorkers(4, [&](size_t worker) { seen[worker] = currentCancellation(); }).isOk());
        }
        for (const CancellationToken* t : seen) QCOMPARE(t, &token);
        QCOMPARE(currentCancellation(), nullptr);  // the scope ended with its block
        // Without a scope, workers have none either.
        QVERIFY(runWorkers(4, [&](size_t worker) { seen[worker] = currentCancellation(); }).isOk());
        for (const CancellationToken* t : seen) QCOMPARE(t, nullptr);
    }

    void runCancellableSaysCancelledOnlyWhenTheTokenFired() {
        CancellationToken token;
        auto failing = [&] { return Result<int>(Status(StatusCode::Internal, "connection dropped")); };
        auto value = runCancellable(&token, "reading x", [] { return Result<int>(7); });
        QVERIFY(value.ok());
        QCOMPARE(*value, 7);
        QCOMPARE(runCancellable(&token, "reading x", failing).status().code(), StatusCode::Internal);
        // A transfer the token dropped is no failure of the data's.
        const CancellationToken* inForce = nullptr;
        auto dropped = runCancellable(&token, "reading x", [&] {
            token.cancel();
            inForce = currentCancellation();
            return failing();
        });
        QCOMPARE(inForce, &token);
        QCOMPARE(dropped.status().code(), StatusCode::Cancelled);
        QVERIFY(dropped.status().message().find("stopped reading x") != std::string::npos);
        QCOMPARE(runCancellable(nullptr, "reading x", failing).status().code(), StatusCode::Internal);
    }
};

QTEST_GUILESS_MAIN(TstParallel)
#include "tst_parallel.moc"

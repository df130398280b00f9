#include <QtTest>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "platform/parallel.h"

using namespace ckpt;
using namespace ckpt::platform;

// The contract of platform/parallel.h: every item once, the documented
// range split, and no exception past the pool.
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
};

QTEST_GUILESS_MAIN(TstParallel)
#include "tst_parallel.moc"

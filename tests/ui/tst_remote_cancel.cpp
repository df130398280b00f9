// Cancel stops every fetch the explorer makes from object storage, not only
// an open's (issue #32: "progress and cancel for every fetch"): a run in
// the bucket (the `s3` fixture) is opened through a fault proxy at full
// speed, then the proxy holds every request 5 s, as a slow store does, and
// a sidebar listing, a verification and a tensor's values are each
// started and cancelled with Esc (View ▸ Cancel Background Work). Each
// worker is free again within a second, not when the store answers, and
// what the window showed before stays: the sidebar's rows, a badge that
// says "not verified" (never "damaged"), the offer to read the values.

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <optional>

#include "automation/explorer_page.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/object_store.h"
#include "explorer_test.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "models/directory_model.h"
#include "s3_test_server.h"
#include "test_support.h"
#include "views/checkpoint_sidebar.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/tensor_inspector.h"
#include "window_test_support.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

// 4 MiB of values: most of the data file lies before the tail an open
// fetches, so reading them is a request of its own.
constexpr int64_t kBigElements = int64_t{1} << 20;
// How long a cancelled worker may take to let go of its request: the
// transport looks at the token at least every 100 ms.
constexpr int kLetGoMs = 1000;

// A name-based checkpoint: "big" (kBigElements floats), then "small".
bool writeCheckpoint(const QString& prefix, float shift) {
    auto writer = BundleWriter::create(prefix.toStdString());
    if (!writer.ok()) return false;
    Tensor big;
    big.dtype = DataType::Float;
    big.shape.dims = {kBigElements};
    big.bytes.resize(static_cast<size_t>(kBigElements * 4));
    auto* values = reinterpret_cast<float*>(big.bytes.data());
    for (int64_t i = 0; i < kBigElements; ++i) values[i] = static_cast<float>(i % 977) * 1e-3f + shift;
    Tensor small;
    small.dtype = DataType::Float;
    small.shape.dims = {4};
    small.bytes.assign(16, 0);
    return (*writer)->add("big", big).isOk() && (*writer)->add("small", small).isOk() && (*writer)->finish().isOk();
}

}  // namespace

class TstRemoteCancel : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    testing::FaultProxy m_proxy;
    QTemporaryDir m_tmp;
    QString m_remote;  // s3://bucket/<prefix>run
    QString m_slow;    // while this file exists, the proxy holds each request 5 s

    QString remote(const QString& name) const { return m_remote + QLatin1Char('/') + name; }
    void setSlow(bool slow) {
        if (slow) QVERIFY(testing::writeAll(m_slow, "hold"));
        else QFile::remove(m_slow);
    }
    // The window with the run's ckpt-2 open, at full speed.
    void openFast(MainWindow& w) {
        setSlow(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(testing::openAndWait(w, remote(QStringLiteral("ckpt-2"))));
    }
    // Esc's Cancel, then the pool's workers are free within kLetGoMs.
    static void cancelAndWaitForWorkers(ExplorerPage& page, const char* what) {
        QElapsedTimer sinceCancel;
        sinceCancel.start();
        page.jobs()->cancelByUser();
        QTRY_VERIFY_WITH_TIMEOUT(jobPool()->activeThreadCount() == 0, kLetGoMs);
        qInfo("%s: the worker ended %lld ms after Cancel", what, static_cast<long long>(sinceCancel.elapsed()));
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        const QString local = m_tmp.filePath(QStringLiteral("run"));
        QVERIFY(QDir().mkpath(local));
        QVERIFY(writeCheckpoint(local + QStringLiteral("/ckpt-1"), 0.0f));
        QVERIFY(writeCheckpoint(local + QStringLiteral("/ckpt-2"), 0.5f));
        auto client = testing::testClient(m_server->variables());
        QVERIFY(client);
        const std::string prefix = testing::uniquePrefix("tst_remote_cancel");
        QVERIFY(testing::uploadDirectory(*client, local, m_server->bucket, prefix + "run/").isOk());
        m_remote = QString::fromStdString("s3://" + m_server->bucket + "/" + prefix + "run");
        m_slow = m_tmp.filePath(QStringLiteral("slow"));
        QVERIFY(m_proxy.start(m_server->endpoint, 0, 0, 0, 1, false, 0, false, false, /*delaySeconds=*/5.0, m_slow));
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = m_proxy.endpoint();
        testing::setStoreEnvironment(vars);
        QVERIFY(configureObjectStores({}).isOk());
    }

    void cleanupTestCase() {
        QFile::remove(m_slow);
        m_proxy.stop();
    }

    // View ▸ Refresh lists the run again; the store holds the listing.
    void cancelStopsAListing() {
        MainWindow w;
        ExplorerPage page(w);
        openFast(w);
        const QString opened = remote(QStringLiteral("ckpt-2"));
        QVERIFY(page.sidebarRow(opened).isValid());
        setSlow(true);
        page.sidebar()->relistAll();
        QTest::qWait(300);  // the listing is waiting on the store
        QCOMPARE(jobPool()->activeThreadCount(), 1);
        cancelAndWaitForWorkers(page, "listing");
        QTRY_VERIFY(page.isIdle());
        QVERIFY2(page.sidebarRow(opened).isValid(), "a cancelled listing removed the rows listed before");
        QVERIFY(page.sidebarRow(remote(QStringLiteral("ckpt-1"))).isValid());
        setSlow(false);
    }

    // The sidebar's Verify on another checkpoint of the run.
    void cancelStopsAVerification() {
        MainWindow w;
        ExplorerPage page(w);
        openFast(w);
        const QString other = remote(QStringLiteral("ckpt-1"));
        const QModelIndex row = page.sidebarRow(other);
        QVERIFY(row.isValid());
        setSlow(true);
        CheckpointSidebar* sidebar = page.sidebar();
        sidebar->scrollTo(row);
        QTimer::singleShot(100, [] {
            auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
            if (!menu) return;
            for (QAction* a : menu->actions())
                if (a->text() == QStringLiteral("&Verify")) a->trigger();
            menu->close();
        });
        emit sidebar->customContextMenuRequested(sidebar->visualRect(row).center());
        QTRY_COMPARE(page.directories()->data(page.directories()->indexForPrefix(other), DirectoryModel::HealthRole).toInt(),
                     static_cast<int>(Health::Verifying));
        QTest::qWait(300);  // the verification is waiting on the store
        QCOMPARE(jobPool()->activeThreadCount(), 1);
        cancelAndWaitForWorkers(page, "verification");
        QTRY_VERIFY(page.isIdle());
        // Not verified: a request cut short says nothing about the checkpoint.
        QCOMPARE(page.directories()->data(page.directories()->indexForPrefix(other), DirectoryModel::HealthRole).toInt(),
                 static_cast<int>(Health::Unknown));
        setSlow(false);
    }

    // Selecting "big" reads its 4 MiB of values.
    void cancelStopsATensorRead() {
        MainWindow w;
        ExplorerPage page(w);
        openFast(w);
        setSlow(true);
        QSignalSpy ready(page.inspector(), &TensorInspector::valuesReady);
        QVERIFY(page.treePane()->selectKey(QStringLiteral("big")));
        QTRY_VERIFY(!page.isIdle());
        QTest::qWait(300);  // the read is waiting on the store
        QCOMPARE(jobPool()->activeThreadCount(), 1);
        cancelAndWaitForWorkers(page, "tensor read");
        QTRY_COMPARE(ready.size(), 1);
        QCOMPARE(ready.first().first().toBool(), false);
        QVERIFY(page.isIdle());
        // Asked again at full speed (the offer stayed), the values come.
        setSlow(false);
        QPushButton* load = nullptr;
        for (auto* b : page.inspector()->findChildren<QPushButton*>())
            if (b->accessibleName() == QStringLiteral("Load tensor values")) load = b;
        QVERIFY(load && load->isVisible());
        load->click();
        QTRY_COMPARE_WITH_TIMEOUT(ready.size(), 2, 20000);
        QCOMPARE(ready.last().first().toBool(), true);
    }
};

CKPT_EXPLORER_TEST_MAIN(TstRemoteCancel)
#include "tst_remote_cancel.moc"

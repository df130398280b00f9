// The explorer on object storage (issue #32; docs/explorer.md, its Open
// Location paragraph): a demo run written locally and uploaded to SeaweedFS on
// loopback (the `s3` fixture), then opened through File ▸ Open Location as
// a user would: the dialog checks the text as it is typed without a
// request, a remote checkpoint shows the tree its local copy shows, a
// remote run lists its checkpoints in the sidebar, a slow open can be
// cancelled, and each failure (wrong secret, no credentials, missing key or
// bucket, nothing listening) names the URL and never a secret.

#include <QComboBox>
#include <QElapsedTimer>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSocketNotifier>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <memory>
#include <optional>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "automation/explorer_page.h"
#include "ckpt/object_store.h"
#include "explorer_test.h"
#include "jobs/job_pool.h"
#include "models/object_tree_model.h"
#include "s3_test_server.h"
#include "stall_meter.h"
#include "test_support.h"
#include "views/main_window.h"
#include "views/open_location_dialog.h"
#include "views/values_page.h"
#include "window_test_support.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

constexpr const char* kBias = "model/layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE";

// Every row of the tree as "path | key": what the user sees, and which
// tensor each row reads.
QStringList treeRows(const CheckpointSnapshot& s) {
    QStringList rows;
    for (const TreeEntry& e : s.entries)
        rows << pathText(e) + QStringLiteral(" | ") + (e.tensor ? QString::fromStdString(e.tensor->key) : QString());
    return rows;
}

// A server on 127.0.0.1, run by this (the GUI) thread's event loop, that
// holds each connection a second without answering, then resets it.
class HoldingServer {
public:
    HoldingServer() : m_fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(m_fd, 16) != 0 ||
            ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
            return;
        m_port = ntohs(addr.sin_port);
        m_notifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Read);
        QObject::connect(m_notifier.get(), &QSocketNotifier::activated, m_notifier.get(), [this] {
            for (int c; (c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) {
                QTimer::singleShot(1000, m_notifier.get(), [c] {
                    const linger reset{1, 0};  // close with a reset, as a dropped connection
                    ::setsockopt(c, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
                    ::close(c);
                });
            }
        });
    }
    ~HoldingServer() {
        m_notifier.reset();
        if (m_fd >= 0) ::close(m_fd);
    }
    HoldingServer(const HoldingServer&) = delete;
    HoldingServer& operator=(const HoldingServer&) = delete;
    int port() const { return m_port; }

private:
    int m_fd;
    int m_port = 0;
    std::unique_ptr<QSocketNotifier> m_notifier;
};

}  // namespace

class TstRemoteExplorer : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    QTemporaryDir m_tmp;
    QString m_local;      // the demo run on disk
    QString m_remote;     // s3://bucket/<prefix>run (no trailing slash)
    QStringList m_shown;  // every message the window showed, for the secret check

    void setEnvironment(const std::map<std::string, std::string>& vars) {
        testing::setStoreEnvironment(vars);
        // Clients are made once per process from the environment: drop them.
        QVERIFY(configureObjectStores({}).isOk());
    }
    QString remote(const QString& name) const { return m_remote + QLatin1Char('/') + name; }

    // Types 'location' into File ▸ Open Location and presses Open.
    void openThroughDialog(MainWindow& w, const QString& location) {
        OpenLocationDialog* d = w.openLocationDialog();
        QVERIFY(d);
        d->locationBox()->lineEdit()->clear();
        QTest::keyClicks(d->locationBox()->lineEdit(), location);
        QVERIFY2(d->canOpen(), qPrintable(d->message()));
        auto* buttons = d->findChild<QDialogButtonBox*>();
        buttons->button(QDialogButtonBox::Open)->click();
    }
    // Opens 'location' through the dialog and waits until the open is over;
    // whether it opened.
    bool openRemote(MainWindow& w, const QString& location) {
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        openThroughDialog(w, location);
        if (!opened.wait(30000)) return false;
        return opened.first().first().toBool() && testing::waitIdle(w);
    }
    // The error panel's text after a failed open of 'location'.
    QString failedOpen(MainWindow& w, const QString& location) {
        ExplorerPage page(w);
        const bool ok = openRemote(w, location);
        if (ok || !page.isErrorShown()) return QStringLiteral("<opened, or no error shown>");
        QString text = page.errorPanel()->messageText();
        m_shown << text << w.windowTitle();
        return text;
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        setEnvironment(m_server->variables());
        m_local = m_tmp.filePath(QStringLiteral("run"));
        const testing::CliRun train = testing::runCkpt(
            {QStringLiteral("demo-train"), m_local, QStringLiteral("--steps"), QStringLiteral("60"),
             QStringLiteral("--save-every"), QStringLiteral("20"), QStringLiteral("--max-to-keep"), QStringLiteral("3")});
        QCOMPARE(train.exitCode, 0);
        const std::string prefix = testing::uniquePrefix("tst_remote_explorer") + "run/";
        auto client = testing::testClient(m_server->variables());
        QVERIFY(client);
        QVERIFY(testing::uploadDirectory(*client, m_local, m_server->bucket, prefix).isOk());
        m_remote = QString::fromStdString("s3://" + m_server->bucket + "/" + prefix);
        m_remote.chop(1);
    }

    void cleanupTestCase() {
        // Nothing the explorer did may have made a local folder named for a scheme.
        QVERIFY(!QFileInfo::exists(QDir::current().filePath(QStringLiteral("s3:"))));
        for (const QString& text : std::as_const(m_shown))
            QVERIFY2(!text.contains(QString::fromStdString(m_server->secret)), qPrintable(text));
    }

    // The dialog judges the text alone, as it is typed: a clear reason and
    // Open disabled for what cannot be opened, and not one request made.
    void dialogChecksAsYouType_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");  // empty: may be opened
        QTest::newRow("empty") << ""
                               << "Type a location";
        QTest::newRow("no bucket") << "s3://"
                                   << "no bucket name";
        QTest::newRow("bad bucket") << "s3://My_Bucket!/run"
                                    << "not a valid bucket name";
        QTest::newRow("one slash") << "s3:/bucket/run"
                                   << "is not a URL: write s3://BUCKET/KEY";
        QTest::newRow("no slash") << "gs:bucket/run"
                                  << "write gs://BUCKET/KEY";
        QTest::newRow("unknown scheme") << "ftp://host/run"
                                        << "unsupported storage scheme \"ftp://\"";
        QTest::newRow("upper-case scheme") << "S3://bucket/run"
                                           << "not an s3:// or gs:// location";
        QTest::newRow("a checkpoint") << "s3://bucket/run/ckpt-5"
                                      << "";
        QTest::newRow("a run") << "gs://bucket/run/"
                               << "";
        QTest::newRow("a bucket") << "s3://bucket"
                                  << "";
        QTest::newRow("a local path") << "runs/exp1"
                                      << "";
    }
    void dialogChecksAsYouType() {
        QFETCH(QString, text);
        QFETCH(QString, says);
        MainWindow w;
        OpenLocationDialog* d = w.openLocationDialog();
        const uint64_t requestsBefore = objectStoreStats().requests;
        QTest::keyClicks(d->locationBox()->lineEdit(), text);
        auto* open = d->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open);
        QCOMPARE(open->isEnabled(), says.isEmpty());
        if (!says.isEmpty()) QVERIFY2(d->message().contains(says), qPrintable(d->message()));
        QCOMPARE(objectStoreStats().requests, requestsBefore);
        d->reject();
    }

    // Ctrl+L anywhere in the window opens the dialog.
    void ctrlLOpensDialog() {
        MainWindow w;
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_L, Qt::ControlModifier);
        auto* d = w.findChild<OpenLocationDialog*>(QStringLiteral("openLocationDialog"));
        QVERIFY(d);
        QTRY_VERIFY(d->isVisible());
        d->reject();
    }

    // Open Location on a remote checkpoint: the opening panel while it
    // opens, then the tree its local copy shows, values on request, the URL
    // remembered; no local folder called "s3:".
    void remoteCheckpointShowsLocalTree() {
        MainWindow local;
        QVERIFY(testing::openAndWait(local, m_local + QStringLiteral("/ckpt-3")));
        const QStringList expected = treeRows(*ExplorerPage(local).snapshot());

        MainWindow w;
        ExplorerPage page(w);
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        openThroughDialog(w, remote(QStringLiteral("ckpt-3")));
        QVERIFY(page.isOpeningShown());
        QVERIFY2(page.openingPanel()->text().contains(remote(QStringLiteral("ckpt-3"))), qPrintable(page.openingPanel()->text()));
        QVERIFY(opened.wait(30000));
        QVERIFY2(opened.first().first().toBool(), qPrintable(page.errorPanel()->messageText()));
        QVERIFY(!page.isOpeningShown());
        QCOMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), remote(QStringLiteral("ckpt-3")));
        QCOMPARE(treeRows(*page.snapshot()), expected);
        QVERIFY(page.treePane()->model()->rowCount() > 0);
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("ckpt-3")), qPrintable(w.windowTitle()));

        // Values on request, read from the store.
        QSignalSpy values(page.inspector(), &TensorInspector::valuesReady);
        QVERIFY(page.treePane()->selectKey(QString::fromLatin1(kBias)));
        QVERIFY(values.wait(20000));
        QVERIFY2(values.first().first().toBool(), qPrintable(page.inspector()->valuesPage()->message()));
        QVERIFY(testing::waitIdle(w));

        // Remembered: File ▸ Open Recent and the next dialog's drop-down.
        QCOMPARE(page.recentFiles().value(0), remote(QStringLiteral("ckpt-3")));
        emit page.recentMenu()->aboutToShow();
        QCOMPARE(page.recentMenu()->actions().value(0)->text(), remote(QStringLiteral("ckpt-3")));
        OpenLocationDialog* again = w.openLocationDialog();
        QVERIFY(again->locationBox()->findText(remote(QStringLiteral("ckpt-3"))) >= 0);
        again->reject();
        QVERIFY(!QFileInfo::exists(QDir::current().filePath(QStringLiteral("s3:"))));
    }

    // A run's URL opens its latest checkpoint (the state file's) and the
    // sidebar lists the run from the store's listing; clicking a row opens
    // that step; the opened one is verified.
    void remoteRunInSidebar() {
        MainWindow w;
        ExplorerPage page(w);
        QVERIFY(openRemote(w, m_remote + QLatin1Char('/')));
        QCOMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), remote(QStringLiteral("ckpt-3")));
        QTRY_VERIFY_WITH_TIMEOUT(page.directories()->indexForDirectory(m_remote).isValid(), 20000);
        const QModelIndex dir = page.directories()->indexForDirectory(m_remote);
        QCOMPARE(dir.data().toString(), m_remote);  // a URL, not "run"
        QStringList listed;
        for (int r = 0; r < page.directories()->rowCount(dir); ++r)
            listed << page.directories()->index(r, 0, dir).data(DirectoryModel::PrefixRole).toString();
        QCOMPARE(listed, (QStringList{remote(QStringLiteral("ckpt-1")), remote(QStringLiteral("ckpt-2")),
                                      remote(QStringLiteral("ckpt-3"))}));
        QCOMPARE(page.sidebar()->currentIndex(), page.sidebarRow(remote(QStringLiteral("ckpt-3"))));
        // The opened checkpoint is verified over the network; the others wait to be asked.
        QTRY_COMPARE_WITH_TIMEOUT(
            page.directories()->indexForPrefix(remote(QStringLiteral("ckpt-3"))).data(DirectoryModel::HealthRole).toInt(),
            static_cast<int>(Health::Healthy), 20000);
        QCOMPARE(page.directories()->indexForPrefix(remote(QStringLiteral("ckpt-1"))).data(DirectoryModel::HealthRole).toInt(),
                 static_cast<int>(Health::Unknown));

        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        const QModelIndex first = page.sidebarRow(remote(QStringLiteral("ckpt-1")));
        page.sidebar()->scrollTo(first);
        QTest::mouseClick(page.sidebar()->viewport(), Qt::LeftButton, {}, page.sidebar()->visualRect(first).center());
        QVERIFY(opened.wait(30000));
        QVERIFY(opened.first().first().toBool());
        QCOMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), remote(QStringLiteral("ckpt-1")));
        QVERIFY(testing::waitIdle(w));

        // Two remote steps picked in the sidebar compare as local ones do.
        page.selectCheckpoints({remote(QStringLiteral("ckpt-1")), remote(QStringLiteral("ckpt-3"))});
        w.compareSelected();
        QTRY_VERIFY_WITH_TIMEOUT(page.compareView()->snapshot() && !page.compareView()->isComparing(), 30000);
        QVERIFY2(page.compareView()->error().isEmpty(), qPrintable(page.compareView()->error()));
        MainWindow local;
        local.compare(m_local + QStringLiteral("/ckpt-1"), m_local + QStringLiteral("/ckpt-3"));
        CompareView* expected = ExplorerPage(local).compareView();
        QTRY_VERIFY_WITH_TIMEOUT(expected->snapshot() && !expected->isComparing(), 30000);
        QCOMPARE(page.compareView()->snapshot()->diff.entries.size(), expected->snapshot()->diff.entries.size());
        QVERIFY(!expected->snapshot()->diff.entries.empty());
        QVERIFY(testing::waitIdle(w));
    }

    // Settings the store refuses or cannot use: the error names the URL and
    // the reason, never a secret (the wrong one or the right one), in the
    // error panel, the status line or any other label of the window.
    void settingsFailure_data() {
        QTest::addColumn<QStringList>("unset");  // variables taken away
        QTest::addColumn<QString>("variable");   // and one set to 'value'
        QTest::addColumn<QString>("value");      // "@port": a free loopback port
        QTest::addColumn<QStringList>("says");
        const QString wrong = QStringLiteral("wrongSecretDoNotShow0123456789abcdefXYZ");
        QTest::newRow("wrong secret") << QStringList() << "AWS_SECRET_ACCESS_KEY" << wrong
                                      << QStringLiteral("PermissionDenied|SignatureDoesNotMatch").split(QLatin1Char('|'));
        QTest::newRow("no credentials") << QStringLiteral("AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY").split(QLatin1Char('|'))
                                        << QString() << QString()
                                        << QStringLiteral("PermissionDenied|no credentials for s3://").split(QLatin1Char('|'));
        // Nothing listens there: the store's retries, then curl's reason.
        QTest::newRow("connection refused")
            << QStringList() << "AWS_ENDPOINT_URL"
            << "@port" << QStringLiteral("Couldn't connect to server|after 5 attempts").split(QLatin1Char('|'));
    }
    void settingsFailure() {
        QFETCH(QStringList, unset);
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QStringList, says);
        if (value == QLatin1String("@port")) value = QStringLiteral("http://127.0.0.1:%1").arg(testing::freeLoopbackPort());
        auto vars = m_server->variables();
        for (const QString& name : unset) vars.erase(name.toStdString());
        if (!variable.isEmpty()) vars[variable.toStdString()] = value.toStdString();
        setEnvironment(vars);
        MainWindow w;
        const QString url = remote(QStringLiteral("ckpt-3"));
        const QString text = failedOpen(w, url);
        setEnvironment(m_server->variables());
        QVERIFY2(text.contains(url), qPrintable(text));
        for (const QString& reason : says) QVERIFY2(text.contains(reason), qPrintable(text));
        for (const QLabel* label : w.findChildren<QLabel*>()) {
            m_shown << label->text();
            if (variable == QLatin1String("AWS_SECRET_ACCESS_KEY"))
                QVERIFY2(!label->text().contains(value), qPrintable(label->text()));
        }
        if (variable == QLatin1String("AWS_SECRET_ACCESS_KEY")) QVERIFY2(!text.contains(value), qPrintable(text));
        QVERIFY2(!text.contains(QString::fromStdString(m_server->secret)), qPrintable(text));
    }

    void missingKeyOrBucket_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("says");
        QTest::newRow("no such checkpoint") << QStringLiteral("@/ckpt-9") << QStringLiteral("NotFound: no checkpoint at");
        QTest::newRow("no such run") << QStringLiteral("@-nothing-here/") << QStringLiteral("NotFound");
        // A key is literal: "run/./ckpt-3" is not "run/ckpt-3" (docs/remote.md, "Locations").
        QTest::newRow("dot segment kept") << QStringLiteral("@/./ckpt-3") << QStringLiteral("/./ckpt-3");
        QTest::newRow("no such bucket") << QStringLiteral("s3://no-such-bucket-ckpt/run/ckpt-1")
                                        << QStringLiteral("NoSuchBucket");
    }
    void missingKeyOrBucket() {
        QFETCH(QString, url);
        QFETCH(QString, says);
        url.replace(QLatin1Char('@'), m_remote);
        MainWindow w;
        const QString text = failedOpen(w, url);
        QString shown = url;
        if (shown.endsWith(QLatin1Char('/'))) shown.chop(1);
        QVERIFY2(text.contains(shown), qPrintable(text));
        QVERIFY2(text.contains(says), qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("ckpt verify found")));  // nothing to verify there
    }

    // A store that takes its time (here: every connection held a second,
    // then reset, so the open retries and fails after some seconds): the
    // event loop keeps turning throughout. A network call on the GUI thread
    // would stop it until curl gave up, since this server runs on that
    // thread too.
    void guiStaysResponsive() {
        HoldingServer server;
        QVERIFY(server.port() > 0);
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = "http://127.0.0.1:" + std::to_string(server.port());
        setEnvironment(vars);
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        testing::StallMeter meter;
        meter.start();
        const QString text = failedOpen(w, remote(QStringLiteral("ckpt-3")));
        setEnvironment(m_server->variables());
        QVERIFY2(text.contains(remote(QStringLiteral("ckpt-3"))), qPrintable(text));
        qInfo("longest event-loop gap while opening: %lld ms", static_cast<long long>(meter.longest()));
        QVERIFY2(meter.longest() < 5000, qPrintable(QString::number(meter.longest())));
    }

    // A slow store (every request held 5 s): Cancel stops the open's
    // requests, and its worker thread is free again within a second, not
    // when the store answers.
    void cancelStopsTheOpensRequests() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, 0, 0, 0, 1, false, 0, false, false, /*delaySeconds=*/5.0));
        MainWindow w;
        ExplorerPage page(w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY_WITH_TIMEOUT(jobPool()->activeThreadCount() == 0, 10000);  // the window's own start-up work
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = proxy.endpoint();
        setEnvironment(vars);
        openThroughDialog(w, remote(QStringLiteral("ckpt-3")));
        QVERIFY(page.isOpeningShown());
        QTest::qWait(300);  // the open is waiting on its first request
        QCOMPARE(jobPool()->activeThreadCount(), 1);
        QElapsedTimer sinceCancel;
        sinceCancel.start();
        page.openingPanel()->cancelButton()->click();
        QVERIFY(!page.isOpeningShown());
        QTRY_VERIFY_WITH_TIMEOUT(jobPool()->activeThreadCount() == 0, 1000);
        qInfo("the open's worker ended %lld ms after Cancel", static_cast<long long>(sinceCancel.elapsed()));
        setEnvironment(m_server->variables());
        QVERIFY(page.isIdle());
        QVERIFY(!page.isErrorShown());
    }

    // A store that keeps answering 503 SlowDown: the open retries with
    // backoff, and Cancel gives the window back at once, showing the
    // checkpoint that was open before, and stops the open's retries.
    void cancelSlowOpen() {
        testing::FaultProxy proxy;
        QVERIFY(proxy.start(m_server->endpoint, /*slowdown=*/1.0, 0, 0));
        MainWindow w;
        ExplorerPage page(w);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QVERIFY(testing::openAndWait(w, m_local + QStringLiteral("/ckpt-2")));
        auto vars = m_server->variables();
        vars["AWS_ENDPOINT_URL"] = proxy.endpoint();
        setEnvironment(vars);
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        openThroughDialog(w, remote(QStringLiteral("ckpt-3")));
        QVERIFY(page.isOpeningShown());
        QVERIFY(!page.isIdle());
        page.openingPanel()->cancelButton()->click();
        QVERIFY(!page.isOpeningShown());
        QVERIFY(page.isIdle());  // abandoned: the status bar no longer waits on it
        QCOMPARE(opened.size(), 1);
        QCOMPARE(opened.first().first().toBool(), false);
        QCOMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), m_local + QStringLiteral("/ckpt-2"));
        QVERIFY(!page.isErrorShown());
        // Esc (View > Cancel Background Work) does the same.
        openThroughDialog(w, remote(QStringLiteral("ckpt-3")));
        QVERIFY(page.isOpeningShown());
        QTRY_VERIFY(w.isActiveWindow());
        QTest::keyClick(&w, Qt::Key_Escape);
        QVERIFY(!page.isOpeningShown());
        QVERIFY(page.isIdle());
        QCOMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), m_local + QStringLiteral("/ckpt-2"));
        // The window is usable: another open works while the abandoned one retries.
        QVERIFY(testing::openAndWait(w, m_local + QStringLiteral("/ckpt-1")));
        QTest::qWait(3000);  // past the abandoned open's retries
        setEnvironment(m_server->variables());
        QCOMPARE(QString::fromStdString(page.snapshot()->checkpoint->prefix()), m_local + QStringLiteral("/ckpt-1"));
        QVERIFY(!page.isErrorShown());
        // Cancel stopped both opens: at most the attempt in flight at each
        // Cancel reached the store (an abandoned open used to go on through
        // its 5 attempts a request).
        const QString counters = proxy.stop();
        const QRegularExpressionMatch counted = QRegularExpression(QStringLiteral("slowdown (\\d+)")).match(counters);
        QVERIFY2(counted.hasMatch() && counted.captured(1).toInt() <= 2, qPrintable(counters));
    }
};

CKPT_EXPLORER_TEST_MAIN(TstRemoteExplorer)
#include "tst_remote_explorer.moc"

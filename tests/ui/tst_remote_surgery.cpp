// The explorer's Checkpoint menu with object storage (issues #32, #33;
// docs/explorer.md): against SeaweedFS on loopback (the `s3` fixture),
//  - Save As of a local checkpoint into s3://… writes the checkpoint there
//    (verified with the engine, every file byte-equal to a local Save As)
//    and never a local folder named "s3:";
//  - a remote checkpoint offers the same actions: Strip Optimizer writes a
//    local checkpoint from it, and Export writes a safetensors file into
//    the bucket;
//  - a second Save As to the same URL is refused in the dialog, before
//    Write, as the engine refuses it (a store cannot replace a checkpoint);
//  - the GUI thread does no work that grows with the job while the dialogs
//    judge remote destinations and the jobs run (its CPU time between two
//    5 ms ticks stays small).

#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

#include "automation/explorer_page.h"
#include "ckpt/checkpoint.h"
#include "ckpt/object_store.h"
#include "ckpt/verify.h"
#include "explorer_test.h"
#include "jobs/job_tracker.h"
#include "s3_test_server.h"
#include "stall_meter.h"
#include "test_support.h"
#include "views/edit_dialog.h"
#include "views/export_dialog.h"
#include "views/main_window.h"
#include "views/surgery_controller.h"
#include "views/surgery_dialog.h"
#include "window_test_support.h"

using namespace ckpt;
using namespace ckpt::ui;

class TstRemoteSurgery : public QObject {
    Q_OBJECT
private:
    std::optional<testing::S3TestServer> m_server;
    std::unique_ptr<objstore::ObjectClient> m_client;
    std::string m_prefix;  // <unique>/
    QTemporaryDir m_tmp;
    QString m_local;   // a local demo run
    QString m_remote;  // the same run in the bucket

    QString url(const QString& name) const { return QString::fromStdString("s3://" + m_server->bucket + "/" + m_prefix) + name; }
    QByteArray object(const QString& name) {
        auto whole = m_client->readObject({m_server->bucket, m_prefix + name.toStdString()}, 64u << 20);
        return whole ? QByteArray::fromStdString(whole->first) : QByteArray();
    }
    static bool waitChecked(SurgeryDialog* dialog) {
        return QTest::qWaitFor([dialog] { return dialog->isChecked(); }, 20000);
    }
    // Opens 'location' and waits for the open's end; whether it opened.
    static bool open(MainWindow& w, const QString& location) {
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        w.openPath(location);
        return opened.wait(30000) && opened.first().first().toBool() && testing::waitIdle(w);
    }
    struct Finish {
        bool ok = false;
        QString prefix, message;
    };
    // Clicks Write and waits for the job's end.
    static Finish write(MainWindow& w, SurgeryDialog* dialog) {
        const ExplorerPage explorer(w);
        QSignalSpy finished(explorer.surgery(), &SurgeryController::finished);
        dialog->okButton()->click();
        Finish out;
        if (!finished.wait(60000)) return {false, {}, QStringLiteral("the job never finished")};
        out.ok = finished.first()[0].toBool();
        out.prefix = finished.first()[2].toString();
        out.message = finished.first()[3].toString();
        testing::waitIdle(w);
        return out;
    }

private slots:
    void initTestCase() {
        QString why;
        m_server = testing::s3TestServer(&why);
        QVERIFY2(m_server.has_value(), qPrintable(why));
        const auto run = testing::uploadedDemoRun(
            *m_server, m_tmp.filePath(QStringLiteral("run")), "tst_remote_surgery",
            {QStringLiteral("--steps"), QStringLiteral("60"), QStringLiteral("--save-every"), QStringLiteral("20")}, &why);
        QVERIFY2(run.has_value(), qPrintable(why));
        m_local = run->local;
        m_remote = run->remote;
        m_prefix = run->prefix;
        m_client = testing::testClient(m_server->variables());
        QVERIFY(m_client);
    }

    void cleanupTestCase() { QVERIFY(!QFileInfo::exists(QDir::current().filePath(QStringLiteral("s3:")))); }

    void saveAsIntoTheBucket() {
        MainWindow w;
        ExplorerPage explorer(w);
        QVERIFY(open(w, m_local));
        const QString source = QString::fromStdString(explorer.snapshot()->checkpoint->prefix());
        testing::StallMeter stalls;
        stalls.start();
        SurgeryDialog* dialog = explorer.surgery()->saveAsDialog();
        QVERIFY(dialog);
        const QString destination = url(QStringLiteral("saved/ckpt-3"));
        dialog->destinationEdit()->setText(destination);
        QCOMPARE(dialog->destination(), destination);  // a URL stays a URL
        QVERIFY(waitChecked(dialog));
        QVERIFY2(dialog->okButton()->isEnabled(), qPrintable(dialog->reason()));
        const Finish done = write(w, dialog);
        QVERIFY2(done.ok, qPrintable(done.message));
        QCOMPARE(done.prefix, destination);
        QVERIFY2(stalls.longestBusy() < 150, qPrintable(QString::number(stalls.longestBusy())));

        auto report = verifyBundle(destination.toStdString(), VerifyOptions{});
        QVERIFY2(report.ok(), report.status().toString().c_str());
        QVERIFY(report->ok());
        // The same bytes a local Save As writes.
        const QString local = m_tmp.filePath(QStringLiteral("local-copy/ckpt-3"));
        QCOMPARE(testing::runCkpt({QStringLiteral("reshard"), source, local, QStringLiteral("--by-task")}).exitCode, 0);
        for (const QString& suffix : {QStringLiteral(".index"), QStringLiteral(".data-00000-of-00001")})
            QVERIFY2(object(QStringLiteral("saved/ckpt-3") + suffix) == testing::readAll(local + suffix), qPrintable(suffix));

        // Again: the dialog says no before Write, overwrite or not.
        SurgeryDialog* again = explorer.surgery()->saveAsDialog();
        QVERIFY(again);
        again->destinationEdit()->setText(destination);
        QVERIFY(waitChecked(again));
        QVERIFY(!again->okButton()->isEnabled());
        QVERIFY2(again->reason().contains(QStringLiteral("never replaced")), qPrintable(again->reason()));
        again->reject();
    }

    void surgeryOnARemoteCheckpoint() {
        MainWindow w;
        ExplorerPage explorer(w);
        QVERIFY(open(w, m_remote));
        const QString source = QString::fromStdString(explorer.snapshot()->checkpoint->prefix());
        QVERIFY2(source.startsWith(QStringLiteral("s3://")), qPrintable(source));
        testing::StallMeter stalls;
        stalls.start();

        // Strip Optimizer into a local directory.
        EditDialog* strip = explorer.surgery()->stripOptimizerDialog();
        QVERIFY(strip);
        const QString stripped = m_tmp.filePath(QStringLiteral("edits/stripped"));
        strip->destinationEdit()->setText(stripped);
        QVERIFY(waitChecked(strip));
        QVERIFY2(strip->okButton()->isEnabled(), qPrintable(strip->reason()));
        const Finish edited = write(w, strip);
        QVERIFY2(edited.ok, qPrintable(edited.message));
        auto result = Checkpoint::open(stripped.toStdString());
        QVERIFY2(result.ok(), result.status().toString().c_str());
        for (const TensorInfo& t : (*result)->bundle().tensors())
            QVERIFY2(t.key.find("optimizer") == std::string::npos, t.key.c_str());

        // Export into the bucket.
        ExportDialog* exporting = explorer.surgery()->exportDialog();
        QVERIFY(exporting);
        const QString output = url(QStringLiteral("exported/model.safetensors"));
        exporting->destinationEdit()->setText(output);
        QVERIFY(waitChecked(exporting));
        QVERIFY2(exporting->okButton()->isEnabled(), qPrintable(exporting->reason()));
        const Finish exported = write(w, exporting);
        QVERIFY2(exported.ok, qPrintable(exported.message));
        const QString localExport = m_tmp.filePath(QStringLiteral("model.safetensors"));
        QCOMPARE(testing::runCkpt({QStringLiteral("export"), source, localExport}).exitCode, 0);
        QCOMPARE(object(QStringLiteral("exported/model.safetensors")), testing::readAll(localExport));
        QVERIFY2(stalls.longestBusy() < 150, qPrintable(QString::number(stalls.longestBusy())));
    }
};

CKPT_EXPLORER_TEST_MAIN(TstRemoteSurgery)
#include "tst_remote_surgery.moc"

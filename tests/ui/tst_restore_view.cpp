// The restore view end to end, as a newcomer would use it: generate the demo
// checkpoints from the welcome page's job, open them, match a model spec
// that lacks a layer (assert_consumed fails naming it, existing objects
// pass), toggle expect_partial, edit the assignment map and watch the live
// verdict change, then Restore... into a new prefix that verifies and
// reopens, without stalling the event loop for more than 100 ms. A restore
// that fails writes nothing until the user confirms.

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <set>

#include "explorer_test.h"
#include "automation/explorer_page.h"
#include "stall_meter.h"
#include "test_support.h"
#include "ckpt/checkpoint.h"
#include "ckpt/model_spec.h"
#include "ckpt/surgery.h"
#include "ckpt/verify.h"
#include "models/match_overlay.h"
#include "models/object_tree_model.h"
#include "views/edit_dialog.h"
#include "views/entry_elide_delegate.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/restore_view.h"

using namespace ckpt;
using ckpt::testing::StallMeter;
using namespace ckpt::ui;

namespace {

// The checkpoint's own spec with model.<layer> removed: its edge, the
// objects only it reached, and the optimizer slots of its variables.
QByteArray specWithoutLayer(const Checkpoint& ckpt, const QString& layer) {
    auto program = programFromCheckpoint(ckpt);
    if (!program.ok()) return {};
    QJsonObject spec = QJsonDocument::fromJson(QByteArray::fromStdString(modelSpecJson(**program))).object();
    QJsonArray objects = spec.value(QStringLiteral("objects")).toArray();
    std::map<int, QJsonObject> byId;
    for (const QJsonValue& v : objects) byId[v.toObject().value(QStringLiteral("id")).toInt()] = v.toObject();
    // Keras also reaches a layer as "layer-<i>": drop every edge to it.
    int layerId = -1;
    for (const auto& [id, o] : byId)
        for (const QJsonValue& c : o.value(QStringLiteral("children")).toArray())
            if (c.toObject().value(QStringLiteral("name")).toString() == layer)
                layerId = c.toObject().value(QStringLiteral("id")).toInt();
    if (layerId < 0) return {};
    for (auto& [id, o] : byId) {
        if (!o.contains(QStringLiteral("children"))) continue;
        QJsonArray kept;
        for (const QJsonValue& c : o.value(QStringLiteral("children")).toArray())
            if (c.toObject().value(QStringLiteral("id")).toInt() != layerId) kept.append(c);
        o[QStringLiteral("children")] = kept;
    }
    std::set<int> reachable;
    std::vector<int> todo{spec.value(QStringLiteral("root")).toInt(0)};
    while (!todo.empty()) {
        const int id = todo.back();
        todo.pop_back();
        if (!reachable.insert(id).second) continue;
        for (const QJsonValue& c : byId[id].value(QStringLiteral("children")).toArray())
            todo.push_back(c.toObject().value(QStringLiteral("id")).toInt());
    }
    QJsonArray out;
    for (auto& [id, o] : byId) {
        if (!reachable.count(id)) continue;
        if (o.contains(QStringLiteral("slots"))) {
            QJsonArray keptSlots;
            for (const QJsonValue& s : o.value(QStringLiteral("slots")).toArray())
                if (reachable.count(s.toObject().value(QStringLiteral("variable")).toInt())) keptSlots.append(s);
            o[QStringLiteral("slots")] = keptSlots;
        }
        out.append(o);
    }
    spec[QStringLiteral("objects")] = out;
    return QJsonDocument(spec).toJson();
}

// The checkpoint's own spec with every variable of one shape given another:
// restoring into it records a shape mismatch, so the restore fails.
QByteArray specWithReshapedVariables(const Checkpoint& ckpt, const QJsonArray& from, const QJsonArray& to) {
    auto program = programFromCheckpoint(ckpt);
    if (!program.ok()) return {};
    QJsonObject spec = QJsonDocument::fromJson(QByteArray::fromStdString(modelSpecJson(**program))).object();
    QJsonArray objects;
    bool changed = false;
    for (const QJsonValue& v : spec.value(QStringLiteral("objects")).toArray()) {
        QJsonObject o = v.toObject();
        if (o.value(QStringLiteral("shape")).toArray() == from) {
            o[QStringLiteral("shape")] = to;
            changed = true;
        }
        objects.append(o);
    }
    if (!changed) return {};
    spec[QStringLiteral("objects")] = objects;
    return QJsonDocument(spec).toJson();
}

// md5 of a checkpoint's index and data files: what "unchanged" means.
QByteArray fingerprint(const QString& prefix) {
    const QFileInfo info(prefix);
    const QStringList names = info.dir().entryList(
        {info.fileName() + QStringLiteral(".index"), info.fileName() + QStringLiteral(".data-*")}, QDir::Files, QDir::Name);
    QCryptographicHash hash(QCryptographicHash::Md5);
    for (const QString& n : names) hash.addData(ckpt::testing::readAll(info.dir().filePath(n)));
    return names.isEmpty() ? QByteArray() : hash.result().toHex();
}

using ckpt::testing::answerBox;

// Adam's m and v of one variable, cut to fit a narrow name column, still
// read apart in 'view' (issue #30, item 13: cut on the left, both read
// "…or model/encoder/kernel"). Empty when they do, else what went wrong.
QString slotRowsStayApart(QTreeView* view, ObjectTreeModel* model) {
    const auto* delegate = dynamic_cast<const EntryElideDelegate*>(view->itemDelegateForColumn(ObjectTreeModel::NameColumn));
    if (!delegate) return QStringLiteral("the name column has no EntryElideDelegate");
    QStringList shown;
    const auto& entries = model->snapshot()->entries;
    for (size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].kind != EntryKind::SlotVariable) continue;
        const QModelIndex row = model->indexForEntry(static_cast<int32_t>(i));
        if (!row.isValid()) continue;
        shown << view->fontMetrics().elidedText(row.data().toString(), delegate->elideMode(row), 140);
    }
    if (shown.size() < 2) return QStringLiteral("%1 slot row(s) shown").arg(shown.size());
    const QSet<QString> distinct(shown.begin(), shown.end());
    if (distinct.size() != shown.size()) return QStringLiteral("slot rows read alike: ") + shown.join(QStringLiteral(" | "));
    return {};
}

}  // namespace

class TstRestoreView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void demoToRestoreAndBack() {
        MainWindow window;
        ExplorerPage explorer(window);
        window.show();
        RestoreView* view = explorer.restoreView();
        QAbstractItemModelTester tester(view->treePane()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        // First run: the welcome page's demo offer trains and opens.
        QVERIFY(explorer.demoButton()->isVisible());
        const QString demoDir = m_dir.filePath(QStringLiteral("demo"));
        QSignalSpy generated(&window, &MainWindow::demoGenerated);
        QSignalSpy opened(&window, &MainWindow::checkpointOpened);
        window.generateDemo(demoDir);
        QVERIFY(generated.wait(60000) || generated.count() == 1);
        QVERIFY2(generated.first().at(0).toBool(), "demo training failed");
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
        QVERIFY(opened.first().at(0).toBool());
        QVERIFY(explorer.snapshot());
        const QString prefix = QString::fromStdString(explorer.snapshot()->checkpoint->prefix());
        QVERIFY2(prefix.startsWith(demoDir), qPrintable(prefix));

        // The Restore tab sits next to the object graph.
        QTabWidget* tabs = explorer.workspace();
        QVERIFY(tabs);
        QCOMPARE(tabs->tabText(tabs->indexOf(view)), QStringLiteral("Restore"));
        tabs->setCurrentWidget(view);

        // Its own structure matches completely.
        QTRY_VERIFY_WITH_TIMEOUT(view->report() && !view->isMatching(), 20000);
        for (Assertion a : {Assertion::Consumed, Assertion::ExistingObjectsMatched, Assertion::NontrivialMatch})
            QVERIFY2(view->verdictLabel(a)->text().contains(QStringLiteral("passes")), qPrintable(view->messageLabel(a)->text()));

        // A spec without the second dense layer.
        const QByteArray spec = specWithoutLayer(*explorer.snapshot()->checkpoint, QStringLiteral("layer_with_weights-1"));
        QVERIFY(!spec.isEmpty());
        const QString specPath = m_dir.filePath(QStringLiteral("no_layer1.json"));
        QFile f(specPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(spec);
        f.close();
        QSignalSpy updated(view, &RestoreView::previewUpdated);
        view->setTarget(specPath);
        QVERIFY(updated.wait(20000));
        QVERIFY(view->report());
        const AssertionVerdict& consumed = view->report()->verdicts[0];
        QVERIFY(!consumed.passed);
        const QString consumedText = view->messageLabel(Assertion::Consumed)->text();
        QCOMPARE(consumedText, QString::fromStdString(consumed.status.message()));
        QVERIFY2(consumedText.contains(QStringLiteral("Unresolved object in checkpoint")), qPrintable(consumedText));
        QVERIFY2(consumedText.contains(QStringLiteral("layer_with_weights-1")), qPrintable(consumedText));
        QVERIFY(view->verdictLabel(Assertion::Consumed)->text().contains(QStringLiteral("fails")));
        QVERIFY(view->verdictLabel(Assertion::ExistingObjectsMatched)->text().contains(QStringLiteral("passes")));
        QVERIFY(view->verdictLabel(Assertion::NontrivialMatch)->text().contains(QStringLiteral("passes")));

        // The tree is coloured: the missing layer's row is "unresolved".
        ObjectTreeModel* model = view->treePane()->model();
        const auto& entries = model->snapshot()->entries;
        int32_t layerEntry = -1;
        for (size_t i = 0; i < entries.size(); ++i)
            if (pathText(entries[i]) == QStringLiteral("(root).model.layer_with_weights-1.kernel"))
                layerEntry = static_cast<int32_t>(i);
        QVERIFY(layerEntry >= 0);
        const QModelIndex layerIndex = model->indexForEntry(layerEntry);
        QVERIFY(layerIndex.isValid());
        QCOMPARE(layerIndex.data(Qt::BackgroundRole).value<QColor>(), matchColor(MatchCategory::Unresolved));
        // Its ancestors never read "matched" over it, collapsed or not
        // (issue #30, item 20: only full expansion showed the failure); a
        // wholly matched layer still does.
        const auto rowAt = [&](const QString& path) {
            for (size_t i = 0; i < entries.size(); ++i)
                if (pathText(entries[i]) == path) return model->indexForEntry(static_cast<int32_t>(i));
            return QModelIndex();
        };
        const QModelIndex modelRow = rowAt(QStringLiteral("(root).model"));
        QVERIFY(modelRow.isValid());
        QCOMPARE(modelRow.data(Qt::BackgroundRole).value<QColor>(), matchColor(MatchCategory::Unresolved));
        const QString modelTip = modelRow.data(Qt::ToolTipRole).toString();
        QVERIFY2(modelTip.contains(QStringLiteral("Below it: ")) && modelTip.contains(QStringLiteral("unresolved")),
                 qPrintable(modelTip));
        const QModelIndex keptLayer = rowAt(QStringLiteral("(root).model.layer_with_weights-0"));
        QVERIFY(keptLayer.isValid());
        QCOMPARE(keptLayer.data(Qt::BackgroundRole).value<QColor>(), matchColor(MatchCategory::Matched));
        // Slot rows stay apart when cut, here and in the edit preview.
        const QString apart = slotRowsStayApart(view->treePane()->view(), model);
        QVERIFY2(apart.isEmpty(), qPrintable(apart));
        EditDialog rename(EditDialog::Rename, explorer.snapshot(), QStringLiteral("model.layer_with_weights-0"), &window);
        rename.newNameEdit()->setText(QStringLiteral("model.encoder"));
        QTRY_VERIFY_WITH_TIMEOUT(rename.plan() && !rename.isPreviewing(), 20000);
        const QString apartInPreview = slotRowsStayApart(rename.previewView(), rename.previewModel());
        QVERIFY2(apartInPreview.isEmpty(), qPrintable(apartInPreview));
        QVERIFY(view->warningList()->count() > 0);
        const QString firstWarning = view->warningList()->item(0)->text();
        QVERIFY2(firstWarning.contains(QStringLiteral("layer_with_weights-1")), qPrintable(firstWarning));

        // expect_partial silences the logged warnings; the assertions still fail.
        view->expectPartialBox()->click();
        QVERIFY(updated.wait(20000));
        QVERIFY(view->report()->expectPartial);
        QVERIFY(view->report()->warnings.empty());
        QVERIFY(view->verdictLabel(Assertion::Consumed)->text().contains(QStringLiteral("fails")));

        // A mapping row that sends layer 0 elsewhere unbinds the program's
        // layer 0: existing-objects now fails, live, after the debounce.
        view->addMappingRow();
        QCOMPARE(view->mappingTable()->rowCount(), 1);
        view->mappingTable()->item(0, 0)->setText(QStringLiteral("model/layer_with_weights-0/"));
        view->mappingTable()->item(0, 1)->setText(QStringLiteral("model/elsewhere/"));
        QVERIFY(updated.wait(20000));
        QTRY_VERIFY_WITH_TIMEOUT(!view->isMatching(), 20000);
        QVERIFY2(view->verdictLabel(Assertion::ExistingObjectsMatched)->text().contains(QStringLiteral("fails")),
                 qPrintable(view->messageLabel(Assertion::ExistingObjectsMatched)->text()));
        QVERIFY(view->unboundList()->count() > 0);
        QVERIFY2(view->unboundList()->item(0)->text().contains(QStringLiteral("layer_with_weights-0")),
                 qPrintable(view->unboundList()->item(0)->text()));
        // Removing the row restores the earlier verdicts.
        view->mappingTable()->setCurrentCell(0, 0);
        view->mappingTable()->removeRow(0);
        view->addMappingRow();  // an empty row is ignored
        QVERIFY(updated.wait(20000));
        QTRY_VERIFY_WITH_TIMEOUT(!view->isMatching(), 20000);
        QVERIFY(view->verdictLabel(Assertion::ExistingObjectsMatched)->text().contains(QStringLiteral("passes")));

        // Restore... into a temp prefix: progress in the status bar, no stalls.
        const QString out = m_dir.filePath(QStringLiteral("restored/ckpt"));
        QSignalSpy finished(view, &RestoreView::restoreFinished);
        StallMeter meter;
        meter.start();
        view->restoreTo(out);
        QVERIFY(view->isRestoring());
        QVERIFY(finished.wait(60000));
        qInfo("longest stall during restore %lld ms", meter.longest());
        QVERIFY2(meter.longest() < 100, qPrintable(QStringLiteral("event loop stalled %1 ms").arg(meter.longest())));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(view->resultLabel()->text()));
        QVERIFY(view->resultLabel()->text().contains(QStringLiteral("verify found no problems")));
        auto report = verifyBundle(out.toStdString());
        QVERIFY(report.ok());
        QVERIFY(report->ok());

        // ...and reopens from the result's button.
        auto* openResult = [&]() -> QPushButton* {
            for (QPushButton* b : view->findChildren<QPushButton*>())
                if (b->text() == QStringLiteral("Open Restored Checkpoint")) return b;
            return nullptr;
        }();
        QVERIFY(openResult && openResult->isVisible());
        opened.clear();
        openResult->click();
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
        QVERIFY(opened.first().at(0).toBool());
        QCOMPARE(QString::fromStdString(explorer.snapshot()->checkpoint->prefix()), out);
        // The restored checkpoint has the spec's structure: no second layer.
        QTRY_VERIFY_WITH_TIMEOUT(view->report() && !view->isMatching(), 20000);
        for (const CheckpointNodeMatch& n : view->report()->checkpointNodes)
            QVERIFY2(!QString::fromStdString(n.path).contains(QStringLiteral("layer_with_weights-1")), n.path.c_str());
    }

    // Every legend entry reads whole in a 1024x700 window (issue #30, item
    // 13: "Slot waiting for optimize" and "Unresolved in checkpoi" were cut).
    void legendReadsWholeInASmallWindow() {
        MainWindow window;
        ExplorerPage explorer(window);
        window.resize(1024, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        RestoreView* view = explorer.restoreView();
        explorer.workspace()->setCurrentWidget(view);
        QTRY_VERIFY(view->isVisible());
        QTest::qWait(50);
        for (MatchCategory c : kMatchCategories) {
            QLabel* words = nullptr;
            for (QLabel* l : view->findChildren<QLabel*>())
                if (l->text() == matchShortLabel(c)) words = l;
            QVERIFY2(words, qPrintable(matchShortLabel(c)));
            QCOMPARE(words->toolTip(), matchLabel(c));
            const int shown = words->visibleRegion().boundingRect().width();
            QVERIFY2(shown >= words->sizeHint().width(), qPrintable(QStringLiteral("%1 of %2 px of \"%3\" in sight")
                                                                        .arg(shown)
                                                                        .arg(words->sizeHint().width())
                                                                        .arg(words->text())));
        }
    }

    void refusesToWriteAFailedRestoreUnlessConfirmed() {
        // The engine's one policy (ckpt/restored_write.h): after a failed
        // restore nothing is written until the user says so.
        MainWindow window;
        ExplorerPage explorer(window);
        window.show();
        RestoreView* view = explorer.restoreView();
        QSignalSpy opened(&window, &MainWindow::checkpointOpened);
        window.openDemo(m_dir.filePath(QStringLiteral("demo")));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60000);
        QVERIFY(opened.first().at(0).toBool());
        explorer.workspace()->setCurrentWidget(view);
        const QByteArray spec = specWithReshapedVariables(*explorer.snapshot()->checkpoint, QJsonArray{8, 32}, QJsonArray{8, 16});
        QVERIFY(!spec.isEmpty());
        const QString specPath = m_dir.filePath(QStringLiteral("reshaped.json"));
        QVERIFY(ckpt::testing::writeAll(specPath, spec));
        QSignalSpy updated(view, &RestoreView::previewUpdated);
        view->setTarget(specPath);
        QTRY_VERIFY_WITH_TIMEOUT(view->report() && !view->isMatching() && view->report()->mismatches > 0, 20000);

        QStringList asked;
        bool answer = false;
        view->setConfirmWrite([&](const QString&, const QString& failure) {
            asked << failure;
            return answer;
        });
        const QString out = m_dir.filePath(QStringLiteral("refused/ckpt"));
        QSignalSpy finished(view, &RestoreView::restoreFinished);
        view->restoreTo(out);
        QVERIFY(finished.wait(60000));
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked.first().contains(QStringLiteral("shape")), qPrintable(asked.first()));
        QVERIFY(!finished.first().at(0).toBool());
        QVERIFY2(view->resultLabel()->text().startsWith(QStringLiteral("Not written")), qPrintable(view->resultLabel()->text()));
        QVERIFY(!QFileInfo::exists(out + QStringLiteral(".index")));

        // Confirmed: written and verified, the restore errors still shown.
        answer = true;
        finished.clear();
        view->restoreTo(out);
        QVERIFY(finished.wait(60000));
        if (finished.count() < 2) QVERIFY(finished.wait(60000));  // the confirmed second run
        QCOMPARE(asked.size(), 2);
        QVERIFY2(finished.last().at(0).toBool(), qPrintable(view->resultLabel()->text()));
        QVERIFY(view->resultLabel()->text().contains(QStringLiteral("Restore errors:")));
        auto report = verifyBundle(out.toStdString());
        QVERIFY(report.ok() && report->ok());
    }

    // Issue #29, finding 1: Restore… onto an existing checkpoint asks first,
    // naming it with its step and size (the real message box), and writes
    // nothing until answered Replace; onto the open checkpoint it is refused
    // in every spelling, with the explorer's advice, never a CLI flag.
    void asksBeforeReplacingAndRefusesTheOpenCheckpoint() {
        MainWindow window;
        ExplorerPage explorer(window);
        window.show();
        RestoreView* view = explorer.restoreView();
        QSignalSpy opened(&window, &MainWindow::checkpointOpened);
        window.openDemo(m_dir.filePath(QStringLiteral("demo")));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60000);
        explorer.workspace()->setCurrentWidget(view);
        QTRY_VERIFY_WITH_TIMEOUT(view->report() && !view->isMatching(), 20000);
        const QString open = QString::fromStdString(explorer.snapshot()->checkpoint->prefix());

        // Something to replace: the open checkpoint without its optimizer.
        const QString taken = m_dir.filePath(QStringLiteral("taken/ckpt-9"));
        {
            auto source = Checkpoint::open(open.toStdString());
            QVERIFY(source.ok());
            EditSpec strip;
            strip.stripOptimizer = true;
            auto plan = planEdit(**source, strip);
            QVERIFY(plan.ok());
            QVERIFY(applyEdit(*plan, taken.toStdString(), SurgeryOptions{}).ok());
        }
        const QByteArray before = fingerprint(taken);
        QSignalSpy finished(view, &RestoreView::restoreFinished);
        QString question;
        answerBox(QStringLiteral("replaceQuestion"), QStringLiteral("Cancel"), &question);
        StallMeter meter;
        meter.start();
        view->restoreTo(taken);
        QVERIFY(finished.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(!question.isEmpty(), 20000);
        QVERIFY2(meter.longest() < 100, qPrintable(QStringLiteral("event loop stalled %1 ms").arg(meter.longest())));
        QVERIFY2(question.contains(taken) && question.contains(QStringLiteral("step ")) &&
                     question.contains(QStringLiteral("tensors")) && question.contains(QStringLiteral("iB")),
                 qPrintable(question));
        QVERIFY(!question.contains(QStringLiteral("--")));
        QVERIFY2(view->resultLabel()->text().startsWith(QStringLiteral("Not written yet")),
                 qPrintable(view->resultLabel()->text()));
        QCOMPARE(fingerprint(taken), before);
        QVERIFY(!view->isRestoring());

        // Replace: written beside it, verified, swapped in.
        question.clear();
        finished.clear();
        answerBox(QStringLiteral("replaceQuestion"), QStringLiteral("Replace"), &question);
        view->restoreTo(taken);
        QVERIFY(finished.wait(60000));
        if (finished.count() < 2) QVERIFY(finished.wait(60000));  // the answered second run
        QVERIFY2(finished.last().at(0).toBool(), qPrintable(view->resultLabel()->text()));
        QVERIFY2(view->resultLabel()->text().startsWith(QStringLiteral("Replaced")), qPrintable(view->resultLabel()->text()));
        QVERIFY(fingerprint(taken) != before);
        auto report = verifyBundle(taken.toStdString());
        QVERIFY(report.ok() && report->ok());

        // The open checkpoint, however it is spelled: refused, nothing asked.
        const QByteArray openBefore = fingerprint(open);
        const QFileInfo info(open);
        for (const QString& spelling :
             {open, open + QStringLiteral(".index"),
              info.path() + QStringLiteral("/../") + info.dir().dirName() + QLatin1Char('/') + info.fileName()}) {
            finished.clear();
            view->setConfirmReplace([](const DestinationVerdict&) {
                qFatal("asked to replace the open checkpoint");
                return false;
            });
            view->restoreTo(spelling);
            QVERIFY(finished.wait(60000));
            const QString result = view->resultLabel()->text();
            QVERIFY2(result.contains(QStringLiteral("open checkpoint")) && result.contains(QStringLiteral("Save As")),
                     qPrintable(result));
            QVERIFY2(!result.contains(QStringLiteral("--overwrite")), qPrintable(result));
            QCOMPARE(fingerprint(open), openBefore);
        }
    }

    // A failed restore onto an existing checkpoint: two separate questions,
    // the replace question first, then "write anyway". Either refusal
    // writes nothing.
    void replaceAndWriteAnywayAreSeparateQuestions() {
        MainWindow window;
        ExplorerPage explorer(window);
        window.show();
        RestoreView* view = explorer.restoreView();
        QSignalSpy opened(&window, &MainWindow::checkpointOpened);
        window.openDemo(m_dir.filePath(QStringLiteral("demo")));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60000);
        explorer.workspace()->setCurrentWidget(view);
        const QByteArray spec = specWithReshapedVariables(*explorer.snapshot()->checkpoint, QJsonArray{8, 32}, QJsonArray{8, 16});
        QVERIFY(!spec.isEmpty());
        const QString specPath = m_dir.filePath(QStringLiteral("reshaped2.json"));
        QVERIFY(ckpt::testing::writeAll(specPath, spec));
        view->setTarget(specPath);
        QTRY_VERIFY_WITH_TIMEOUT(view->report() && !view->isMatching() && view->report()->mismatches > 0, 20000);
        const QString taken = m_dir.filePath(QStringLiteral("taken2/ckpt-3"));
        {
            SurgeryOptions o;
            QVERIFY(saveCheckpointAs(explorer.snapshot()->checkpoint->prefix(), taken.toStdString(), o).ok());
        }
        const QByteArray before = fingerprint(taken);
        QStringList asked;  // in the order asked
        view->setConfirmReplace([&](const DestinationVerdict& v) {
            asked << QStringLiteral("replace ") + v.existing;
            return true;
        });
        bool writeAnyway = false;
        view->setConfirmWrite([&](const QString&, const QString& failure) {
            asked << QStringLiteral("write anyway ") + failure;
            return writeAnyway;
        });
        QSignalSpy finished(view, &RestoreView::restoreFinished);
        view->restoreTo(taken);
        QTRY_VERIFY_WITH_TIMEOUT(asked.size() == 2 && !view->isRestoring(), 60000);
        QVERIFY2(asked[0].startsWith(QStringLiteral("replace step")), qPrintable(asked.join(u'|')));
        QVERIFY2(asked[1].startsWith(QStringLiteral("write anyway")) && asked[1].contains(QStringLiteral("shape")),
                 qPrintable(asked.join(u'|')));
        QCOMPARE(fingerprint(taken), before);  // replacing alone did not write a failed restore

        asked.clear();
        writeAnyway = true;
        view->restoreTo(taken);
        QTRY_VERIFY_WITH_TIMEOUT(asked.size() == 2 && !view->isRestoring() && fingerprint(taken) != before, 60000);
        QVERIFY2(finished.last().at(0).toBool(), qPrintable(view->resultLabel()->text()));
        auto report = verifyBundle(taken.toStdString());
        QVERIFY(report.ok() && report->ok());
    }

    void demoOptionOpensExistingDemo() {
        // --demo DIR on a directory that already holds the demo opens it
        // without training again.
        MainWindow window;
        ExplorerPage explorer(window);
        QSignalSpy generated(&window, &MainWindow::demoGenerated);
        QSignalSpy opened(&window, &MainWindow::checkpointOpened);
        window.openDemo(m_dir.filePath(QStringLiteral("demo")));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
        QVERIFY(opened.first().at(0).toBool());
        QCOMPARE(generated.count(), 0);
    }

private:
    QTemporaryDir m_dir;
};

CKPT_EXPLORER_TEST_MAIN(TstRestoreView)
#include "tst_restore_view.moc"

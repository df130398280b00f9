#include "views/restore_view.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "jobs/checkpoint_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/when_done.h"
#include "models/match_overlay.h"
#include "models/object_tree_model.h"
#include "views/object_tree_pane.h"
#include "views/status_colors.h"

namespace ckpt::ui {
namespace {

constexpr int kDebounceMs = 200;
constexpr Assertion kAssertions[] = {Assertion::Consumed, Assertion::ExistingObjectsMatched, Assertion::NontrivialMatch};

QWidget* makeLegend(QWidget* parent) {
    auto* legend = new QWidget(parent);
    auto* row = new QHBoxLayout(legend);
    row->setContentsMargins(0, 0, 0, 0);
    for (MatchCategory c : kMatchCategories) {
        // The row tint with the badge the kind column shows, as in the tree.
        auto* swatch = new QLabel(legend);
        swatch->setFixedSize(20, 20);
        swatch->setAlignment(Qt::AlignCenter);
        swatch->setPixmap(matchIcon(c).pixmap(14, 14));
        swatch->setStyleSheet(QStringLiteral("background:%1; border:1px solid palette(mid);").arg(matchColor(c).name()));
        row->addWidget(swatch);
        auto* words = new QLabel(matchShortLabel(c), legend);
        for (QWidget* w : {static_cast<QWidget*>(swatch), static_cast<QWidget*>(words)}) w->setToolTip(matchLabel(c));
        row->addWidget(words);
        row->addSpacing(8);
    }
    row->addStretch();
    legend->setToolTip(
        RestoreView::tr("A row with a problem below it takes the worst one's colour and badge; "
                        "its tooltip counts them."));
    return legend;
}

QListWidget* makeList(const QString& accessibleName, QWidget* parent) {
    auto* list = new QListWidget(parent);
    list->setAccessibleName(accessibleName);
    list->setWordWrap(true);
    list->setMinimumHeight(70);
    list->setMaximumHeight(120);
    return list;
}

}  // namespace

RestoreView::RestoreView(JobTracker* jobs, QWidget* parent)
    : QWidget(parent), m_jobs(jobs), m_tree(new ObjectTreePane(jobs, this)), m_targetLabel(new QLabel(this)),
      m_summary(new QLabel(this)), m_expectPartial(new QCheckBox(tr("expect_&partial()"), this)),
      m_unbound(makeList(tr("Unbound program objects"), this)), m_warnings(makeList(tr("Restore messages"), this)),
      m_mapping(new QTableWidget(0, 2, this)), m_restore(new QPushButton(tr("&Restore\u2026"), this)),
      m_openResult(new QPushButton(tr("Open Restored Checkpoint"), this)), m_result(new QLabel(this)),
      m_debounce(new QTimer(this)) {
    setDefaultQuestions();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(createTargetRow());
    auto* legendRow = new QHBoxLayout;
    legendRow->addWidget(makeLegend(this), 1);
    layout->addLayout(legendRow);

    auto* splitter = new QSplitter(this);
    // Slot variables are half of what an optimizer restore is about: show them.
    m_tree->slotsBox()->setChecked(true);
    splitter->addWidget(m_tree);
    // Kind and size are in the Object graph tab already (the icons keep the
    // kind); here the width goes to names like "layer_with_weights-0".
    m_tree->view()->setColumnHidden(ObjectTreeModel::KindColumn, true);
    m_tree->view()->setColumnHidden(ObjectTreeModel::SizeColumn, true);
    splitter->addWidget(createSidePanel());
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, &RestoreView::runMatch);
    setTarget({});
}

// Modal questions by default; tests answer them through setConfirmWrite/setConfirmReplace.
void RestoreView::setDefaultQuestions() {
    m_confirmWrite = [this](const QString& prefix, const QString& failure) {
        QMessageBox box(QMessageBox::Warning, tr("Write Anyway?"),
                        tr("The restore failed, so %1 would hold the target's initial values where restored ones "
                           "were expected.")
                            .arg(prefix),
                        QMessageBox::Cancel, this);
        box.setInformativeText(failure);
        box.setObjectName(QStringLiteral("writeAnywayQuestion"));
        QPushButton* write = box.addButton(tr("&Write Anyway"), QMessageBox::AcceptRole);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        return box.clickedButton() == write;
    };
    m_confirmReplace = [this](const DestinationVerdict& verdict) {
        QMessageBox box(QMessageBox::Warning, replaceQuestionTitle(verdict), replaceQuestionText(verdict), QMessageBox::Cancel,
                        this);
        box.setObjectName(QStringLiteral("replaceQuestion"));
        QPushButton* replace = box.addButton(tr("&Replace"), QMessageBox::DestructiveRole);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        return box.clickedButton() == replace;
    };
}

QLayout* RestoreView::createTargetRow() {
    auto* targetRow = new QHBoxLayout;
    targetRow->addWidget(new QLabel(tr("<b>Restore into:</b>"), this));
    m_targetLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_targetLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    targetRow->addWidget(m_targetLabel, 1);
    auto* choose = new QPushButton(tr("Model Spec or Checkpoint\u2026"), this);
    choose->setAccessibleName(tr("Choose restore target"));
    connect(choose, &QPushButton::clicked, this, &RestoreView::chooseTarget);
    targetRow->addWidget(choose);
    auto* own = new QPushButton(tr("Use Its Own Structure"), this);
    own->setToolTip(tr("Match the checkpoint against a program built from its own object graph: a quick self-check"));
    connect(own, &QPushButton::clicked, this, [this] { setTarget({}); });
    targetRow->addWidget(own);
    return targetRow;
}

// The match's verdicts, its unbound objects and messages, the assignment
// map and the Restore button, in a scroll area beside the tree.
QWidget* RestoreView::createSidePanel() {
    auto* side = new QWidget(this);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(createAssertions(side));
    m_summary->setWordWrap(true);
    sideLayout->addWidget(m_summary);

    sideLayout->addWidget(new QLabel(tr("<b>Unbound program objects</b>"), side));
    sideLayout->addWidget(m_unbound);
    sideLayout->addWidget(new QLabel(tr("<b>Restore errors and logged warnings</b>"), side));
    sideLayout->addWidget(m_warnings);
    sideLayout->addWidget(createMappingBox(side));
    sideLayout->addLayout(createRestoreRow());
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setTextFormat(Qt::PlainText);
    sideLayout->addWidget(m_result);
    sideLayout->addStretch();

    auto* scroll = new QScrollArea(this);
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    // Messages wrap to the panel's width instead of scrolling sideways.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    return scroll;
}

QWidget* RestoreView::createAssertions(QWidget* side) {
    auto* assertions = new QGroupBox(tr("Load-status assertions"), side);
    auto* grid = new QGridLayout(assertions);
    grid->setColumnStretch(1, 1);
    for (Assertion a : kAssertions) {
        const int i = static_cast<int>(a);
        m_verdict[i] = new QLabel(assertions);
        m_verdict[i]->setMinimumWidth(64);
        m_message[i] = new QLabel(assertions);
        m_message[i]->setWordWrap(true);
        m_message[i]->setTextFormat(Qt::PlainText);
        m_message[i]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_message[i]->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        auto* name = new QLabel(QStringLiteral("<code>%1()</code>").arg(QString::fromLatin1(assertionName(a))), assertions);
        // Verdict first: a narrow panel must never clip pass/fail.
        grid->addWidget(m_verdict[i], 2 * i, 0, 1, 1);
        grid->addWidget(name, 2 * i, 1, 1, 1);
        grid->addWidget(m_message[i], 2 * i + 1, 0, 1, 2);
    }
    m_expectPartial->setToolTip(
        tr("Like status.expect_partial(): silences the warnings logged for checkpoint values "
           "the program did not use. The assertions still judge the match."));
    connect(m_expectPartial, &QCheckBox::toggled, this, &RestoreView::scheduleMatch);
    grid->addWidget(m_expectPartial, 6, 0, 1, 2);
    return assertions;
}

QWidget* RestoreView::createMappingBox(QWidget* side) {
    auto* mapping = new QGroupBox(tr("Assignment map"), side);
    auto* mappingLayout = new QVBoxLayout(mapping);
    m_mapping->setHorizontalHeaderLabels({tr("Checkpoint (OLD)"), tr("Program (NEW)")});
    m_mapping->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_mapping->verticalHeader()->hide();
    m_mapping->setAccessibleName(tr("Assignment map"));
    m_mapping->setToolTip(tr(
        "Checkpoint paths under OLD are matched as if they were under NEW in the program (like tf.train.init_from_checkpoint)"));
    m_mapping->setMinimumHeight(90);
    connect(m_mapping, &QTableWidget::itemChanged, this, &RestoreView::scheduleMatch);
    mappingLayout->addWidget(m_mapping);
    auto* mappingButtons = new QHBoxLayout;
    auto* add = new QPushButton(tr("&Add Row"), mapping);
    connect(add, &QPushButton::clicked, this, [this] { addMappingRow(); });
    auto* remove = new QPushButton(tr("Re&move Row"), mapping);
    connect(remove, &QPushButton::clicked, this, [this] {
        const int row = m_mapping->currentRow() >= 0 ? m_mapping->currentRow() : m_mapping->rowCount() - 1;
        if (row < 0) return;
        m_mapping->removeRow(row);
        scheduleMatch();
    });
    mappingButtons->addWidget(add);
    mappingButtons->addWidget(remove);
    mappingButtons->addStretch();
    mappingLayout->addLayout(mappingButtons);
    return mapping;
}

QLayout* RestoreView::createRestoreRow() {
    auto* restoreRow = new QHBoxLayout;
    m_restore->setToolTip(tr("Restore the values into the target's structure, write it as a new checkpoint and verify it"));
    connect(m_restore, &QPushButton::clicked, this, &RestoreView::chooseOutput);
    restoreRow->addWidget(m_restore);
    m_openResult->setVisible(false);
    connect(m_openResult, &QPushButton::clicked, this, [this] { emit openRequested(m_restoredPrefix); });
    restoreRow->addWidget(m_openResult);
    restoreRow->addStretch();
    return restoreRow;
}

void RestoreView::setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot) {
    m_snapshot = std::move(snapshot);
    m_report.reset();
    m_tree->model()->setOverlay(nullptr);
    m_tree->setSnapshot(m_snapshot);
    m_restore->setEnabled(m_snapshot && !m_restoreJob);
    m_openResult->setVisible(false);
    m_result->clear();
    runMatch();
}

void RestoreView::setTarget(const QString& target) {
    m_target = target;
    m_targetLabel->setText(target.isEmpty() ? tr("this checkpoint's own structure") : target);
    m_targetLabel->setToolTip(m_targetLabel->text());
    runMatch();
}

void RestoreView::addMappingRow(const QString& from, const QString& to) {
    // itemChanged fires per cell; one debounced match covers both.
    const int row = m_mapping->rowCount();
    m_mapping->insertRow(row);
    m_mapping->setItem(row, 0, new QTableWidgetItem(from));
    m_mapping->setItem(row, 1, new QTableWidgetItem(to));
    scheduleMatch();
}

void RestoreView::chooseTarget() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Restore Target"), QFileInfo(m_target).path(),
                                                      tr("Model spec (*.json);;Checkpoint index (*.index);;All files (*)"));
    if (path.isEmpty()) return;
    QString target = path;
    if (target.endsWith(QStringLiteral(".index"))) target.chop(6);
    setTarget(target);
}

void RestoreView::chooseOutput() {
    if (!m_snapshot) return;
    // Beside the checkpoint, or home for one on object storage (written locally).
    const QString prefix = QString::fromStdString(m_snapshot->checkpoint->prefix());
    const QString folder = isRemoteLocation(prefix) ? QDir::homePath() : QFileInfo(prefix).path();
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Write Restored Checkpoint To (Prefix)"), folder + QStringLiteral("/restored"));
    if (!path.isEmpty()) restoreTo(path);
}

RestoreRequest RestoreView::request() const {
    RestoreRequest r;
    r.checkpoint = m_snapshot ? m_snapshot->checkpoint : nullptr;
    r.tree = m_snapshot;
    r.target = m_target;
    r.expectPartial = m_expectPartial->isChecked();
    r.catalogPath = m_catalogPath;
    for (int row = 0; row < m_mapping->rowCount(); ++row) {
        const QTableWidgetItem* from = m_mapping->item(row, 0);
        const QTableWidgetItem* to = m_mapping->item(row, 1);
        r.mappings.append({from ? from->text().trimmed() : QString(), to ? to->text().trimmed() : QString()});
    }
    return r;
}

void RestoreView::scheduleMatch() { m_debounce->start(); }

void RestoreView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_stale) runMatch();
}

void RestoreView::runMatch() {
    m_debounce->stop();
    // A newer edit supersedes whatever is still matching: its result is dropped.
    if (m_previewJob) {
        m_previewJob->cancel();
        m_jobs->finish(m_previewJob);
        m_previewJob.reset();
    }
    const quint64 generation = ++m_generation;
    m_stale = m_snapshot && !isVisible();
    if (!m_snapshot || m_stale) return;
    auto job = m_jobs->start(tr("Matching restore target"));
    m_previewJob = job;
    m_summary->setText(tr("Matching\u2026"));
    whenDone(this, QtConcurrent::run(jobPool(), previewRestore, request()), [this, job, generation](const RestorePreview& p) {
        m_jobs->finish(job);
        if (generation != m_generation) return;
        m_previewJob.reset();
        showPreview(p);
    });
}

void RestoreView::showPreview(const RestorePreview& preview) {
    m_unbound->clear();
    m_warnings->clear();
    if (!preview.ok) {
        m_report.reset();
        m_tree->model()->setOverlay(nullptr);
        for (Assertion a : kAssertions) {
            m_verdict[static_cast<int>(a)]->setText(QString());
            m_message[static_cast<int>(a)]->setText(QString());
        }
        m_summary->setText(tr("Cannot match: %1").arg(preview.error));
        emit previewUpdated();
        return;
    }
    const std::shared_ptr<const MatchReport>& report = preview.report;
    m_report = report;
    m_tree->model()->setOverlay(preview.overlay);
    for (const AssertionVerdict& v : report->verdicts) {
        const int i = static_cast<int>(v.assertion);
        m_verdict[i]->setText(v.passed ? tr("\u2714 passes") : tr("\u2718 fails"));
        m_verdict[i]->setStyleSheet(statusTextStyle(v.passed ? StatusTone::Good : StatusTone::Bad) +
                                    QStringLiteral(" font-weight: bold;"));
        // The engine's text, verbatim: it is what TensorFlow would raise.
        m_message[i]->setText(QString::fromStdString(v.status.message()));
        m_message[i]->setVisible(!v.passed);
    }
    // Lists stay short enough to fill on the GUI thread; the counts say the rest.
    constexpr int kMaxListed = 500;
    for (const ProgramObjectMatch& o : report->programObjects)
        if (!o.bound && m_unbound->count() < kMaxListed) m_unbound->addItem(QString::fromStdString(o.path));
    if (m_unbound->count() == 0) m_unbound->addItem(tr("(none: every program object is bound)"));
    for (const Status& e : report->restoreErrors)
        if (m_warnings->count() < kMaxListed) m_warnings->addItem(QString::fromStdString(e.toString()));
    for (const std::string& w : report->warnings)
        if (m_warnings->count() < kMaxListed) m_warnings->addItem(QString::fromStdString(w));
    for (const std::string& m : report->unmatchedMappings)
        if (m_warnings->count() < kMaxListed) m_warnings->addItem(QString::fromStdString(m));
    if (m_warnings->count() == 0)
        m_warnings->addItem(report->expectPartial ? tr("(none: silenced by expect_partial)") : tr("(none)"));
    m_summary->setText(tr("%1 matched, %2 unresolved in checkpoint, %3 unbound in program, %4 dtype/shape mismatches (%5)")
                           .arg(report->matchedNodes)
                           .arg(report->unresolvedNodes)
                           .arg(report->unboundObjects)
                           .arg(report->mismatches)
                           .arg(QString::fromStdString(report->style)));
    // Repaint the visible rows with the new colours.
    m_tree->view()->viewport()->update();
    emit previewUpdated();
}

void RestoreView::restoreTo(const QString& outPrefix, RestoreConsent consent) {
    if (!m_snapshot || m_restoreJob) return;
    auto job = m_jobs->start(tr("Restoring into %1").arg(QFileInfo(outPrefix).fileName()));
    m_restoreJob = job;
    m_restore->setEnabled(false);
    m_openResult->setVisible(false);
    m_result->setText(tr("Restoring, writing and verifying %1\u2026").arg(outPrefix));
    whenDone(this, QtConcurrent::run(jobPool(), restoreAndWrite, request(), outPrefix, consent, job),
             [this, job, outPrefix, consent](const RestoreWriteResult& r) {
                 m_jobs->finish(job);
                 m_restoreJob.reset();
                 m_restore->setEnabled(m_snapshot != nullptr);
                 showRestoreResult(r);
                 // Two separate questions, each answered on its own: replacing
                 // what is there, and writing values a failed restore did not set.
                 if (r.destination.exists && !consent.overwrite) {
                     if (m_confirmReplace(r.destination)) restoreTo(outPrefix, {consent.writeDespiteFailure, true});
                 } else if (!r.refusedBecause.isEmpty() && m_confirmWrite(outPrefix, r.refusedBecause)) {
                     restoreTo(outPrefix, {true, consent.overwrite});
                 }
             });
}

void RestoreView::showRestoreResult(const RestoreWriteResult& r) {
    QStringList lines;
    if (!r.destination.refusal.isEmpty()) {
        lines << tr("Not written: %1").arg(r.destination.refusal);
    } else if (r.destination.exists) {
        lines << tr("Not written yet: a checkpoint exists at %1 (%2).").arg(r.destination.path, r.destination.existing);
    } else if (!r.refusedBecause.isEmpty()) {
        lines << tr("Not written: the restore failed, so %1 would hold initial values, not restored ones:").arg(r.prefix)
              << r.refusedBecause;
    } else if (r.cancelled) {
        lines << tr("Restore cancelled; nothing was written to %1.").arg(r.prefix);
    } else if (!r.error.isEmpty()) {
        lines << tr("Restore into %1 failed:").arg(r.prefix) << r.error;
    } else {
        lines << (r.ok ? (r.replaced ? tr("Replaced %1 (%2 tensors); verify found no problems.")
                                     : tr("Wrote %1 (%2 tensors); verify found no problems."))
                             .arg(r.prefix)
                             .arg(r.tensors)
                       : tr("Wrote %1, but verify found problems:").arg(r.prefix));
        lines << r.problems;
    }
    if (!r.restoreErrors.isEmpty()) lines << tr("Restore errors:") << r.restoreErrors;
    if (!r.recordWarning.isEmpty()) lines << tr("Not recorded in the catalog's history: %1").arg(r.recordWarning);
    m_result->setText(lines.join(QLatin1Char('\n')));
    m_restoredPrefix = r.prefix;
    m_openResult->setVisible(r.ok);
    emit restoreFinished(r.ok, r.prefix);
}

}  // namespace ckpt::ui

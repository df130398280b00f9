#include "views/surgery_controller.h"

#include <QAction>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QStyle>
#include <QtConcurrent/QtConcurrentRun>

#include "jobs/checkpoint_jobs.h"
#include "jobs/export_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/surgery_jobs.h"
#include "jobs/when_done.h"
#include "models/directory_model.h"
#include "models/object_tree_model.h"
#include "views/average_dialog.h"
#include "views/catalog_controller.h"
#include "views/checkpoint_opener.h"
#include "views/checkpoint_sidebar.h"
#include "views/edit_dialog.h"
#include "views/export_dialog.h"
#include "views/object_tree_pane.h"

namespace ckpt::ui {
namespace {

QString fileName(const QString& prefix) { return QFileInfo(prefix).fileName(); }

// A dialog outlives Write (runSurgery reopens it if the write fails) and
// goes when cancelled.
void deleteWhenRejected(QDialog* dialog) { QObject::connect(dialog, &QDialog::rejected, dialog, &QObject::deleteLater); }

}  // namespace

SurgeryTarget SurgeryController::surgeryTarget(const SurgeryDialog* dialog) const {
    SurgeryTarget target;
    target.destination = dialog->destination();
    target.sharding = dialog->sharding();
    target.overwrite = dialog->overwrite();
    if (const auto& snapshot = m_parts.opener->snapshot()) target.open = {QString::fromStdString(snapshot->checkpoint->prefix())};
    if (m_parts.catalog->isEnabled() && m_parts.catalog->isLoaded()) target.catalogPath = m_parts.catalog->path();
    return target;
}

SurgeryController::SurgeryController(const SurgeryParts& parts, QObject* parent)
    : QObject(parent), m_parts(parts), m_openResult(new QPushButton(parts.window)) {
    m_openResult->setObjectName(QStringLiteral("openResult"));
    m_openResult->setFlat(true);
    m_openResult->setAccessibleName(tr("Open the written checkpoint"));
    m_openResult->hide();
    connect(m_openResult, &QPushButton::clicked, this, [this] {
        m_openResult->hide();
        m_parts.opener->openPath(m_resultPrefix);
    });
    connect(m_parts.opener, &CheckpointOpener::opened, this, &SurgeryController::updateActions);
    connect(m_parts.opener, &CheckpointOpener::closed, this, &SurgeryController::updateActions);
    // Opened some other way (the sidebar, Recent): the offer has been taken up.
    connect(m_parts.opener, &CheckpointOpener::opened, m_openResult, [this] {
        const auto& snapshot = m_parts.opener->snapshot();
        if (snapshot && QString::fromStdString(snapshot->checkpoint->prefix()) == m_resultPrefix) m_openResult->hide();
    });
    connect(m_parts.tree, &ObjectTreePane::selectionChanged, this, &SurgeryController::updateActions);
}

void SurgeryController::addMenu(QMenuBar* bar, QAction* rowLead) {
    QMenu* menu = bar->addMenu(tr("Chec&kpoint"));
    const QStyle* style = m_parts.window->style();
    QAction* saveAs =
        menu->addAction(style->standardIcon(QStyle::SP_DialogSaveButton), tr("Save &As\u2026"), this, [this] { saveAsDialog(); });
    // Explicit: QKeySequence::SaveAs is empty on desktops without a platform theme.
    saveAs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    saveAs->setToolTip(tr("Write a copy of the open checkpoint with another sharding (verified)"));
    QAction* strip = menu->addAction(tr("&Strip Optimizer\u2026"), this, [this] { stripOptimizerDialog(); });
    strip->setToolTip(tr("Write the open checkpoint without its optimizer and slot variables"));
    QAction* average = menu->addAction(tr("A&verage With\u2026"), this, [this] { averageDialog(); });
    average->setToolTip(tr("Average the open checkpoint with others of its run (mean, your weights, EMA or slerp)"));
    QAction* merge = menu->addAction(tr("&Merge With\u2026"), this, [this] { mergeDialog(); });
    merge->setToolTip(tr("Combine the open checkpoint with bundles of disjoint keys (e.g. several workers' shards)"));
    QAction* exportAction = menu->addAction(tr("E&xport\u2026"), this, [this] { exportDialog(); });
    exportAction->setToolTip(tr("Write the open checkpoint's tensors to a safetensors or npz file"));
    menu->addSeparator();
    QAction* rename = menu->addAction(tr("&Rename\u2026"), this, [this] { renameDialog(); });
    rename->setShortcut(QKeySequence(Qt::Key_F2));
    rename->setToolTip(tr("Rename or move the selected object in a copy of the checkpoint (F2)"));
    QAction* remove = menu->addAction(tr("&Delete\u2026"), this, [this] { deleteDialog(); });
    remove->setShortcut(QKeySequence::Delete);
    remove->setToolTip(tr("Delete the selected object from a copy of the checkpoint (Del)"));
    // Only while the tree has focus: Delete in the filter box edits the filter.
    for (QAction* a : {rename, remove}) a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    auto* rowSeparator = new QAction(this);
    rowSeparator->setSeparator(true);
    m_parts.tree->setRowActions({rowLead, exportAction, rowSeparator, rename, remove});
    m_actions = {saveAs, strip, average, merge, exportAction, rename, remove};
    m_rowActions = {rename, remove};

    updateActions();
}

QList<QAction*> SurgeryController::toolbarActions() const {
    QList<QAction*> actions;
    for (QAction* a : m_actions)
        if (!m_rowActions.contains(a)) actions << a;
    return actions;
}

void SurgeryController::updateActions() {
    const std::shared_ptr<const CheckpointSnapshot>& snapshot = m_parts.opener->snapshot();
    // For a checkpoint on object storage too: the dialogs judge their
    // destination and preview their plans on the job pool, never here.
    const bool shown = snapshot && m_parts.opener->isTreeShown();
    for (QAction* a : std::as_const(m_actions)) a->setEnabled(shown);
    const int32_t e = m_parts.tree->currentEntry();
    const bool editable =
        shown && m_parts.tree->snapshot() == snapshot && e > 0 && isEditableEntry(snapshot->entries[static_cast<size_t>(e)]);
    for (QAction* a : std::as_const(m_rowActions)) a->setEnabled(editable);
}

SurgeryDialog* SurgeryController::saveAsDialog() {
    const std::shared_ptr<const CheckpointSnapshot>& snapshot = m_parts.opener->snapshot();
    if (!snapshot || m_parts.opener->isErrorShown()) return nullptr;
    const QString source = QString::fromStdString(snapshot->checkpoint->prefix());
    auto* dialog = new SurgeryDialog(tr("Save %1 As").arg(fileName(source)), {source},
                                     suggestDestination(source, QStringLiteral("copy")), m_parts.window);
    deleteWhenRejected(dialog);
    dialog->setOpenCheckpoints({source});
    connect(dialog, &QDialog::accepted, this, [this, dialog, source] {
        const SurgeryTarget target = surgeryTarget(dialog);
        runSurgery(dialog, tr("Writing %1").arg(fileName(target.destination)),
                   [source, target](const auto& job) { return writeCopy(source, target, job); });
    });
    dialog->open();
    return dialog;
}

EditDialog* SurgeryController::stripOptimizerDialog() { return openEditDialog(EditDialog::StripOptimizer); }
EditDialog* SurgeryController::renameDialog() { return openEditDialog(EditDialog::Rename); }
EditDialog* SurgeryController::deleteDialog() { return openEditDialog(EditDialog::Delete); }

EditDialog* SurgeryController::openEditDialog(int kind) {
    const std::shared_ptr<const CheckpointSnapshot> snapshot = m_parts.opener->snapshot();
    if (!snapshot || m_parts.opener->isErrorShown()) return nullptr;
    const auto k = static_cast<EditDialog::Kind>(kind);
    QString path;
    if (k != EditDialog::StripOptimizer) {
        const int32_t e = m_parts.tree->currentEntry();
        if (m_parts.tree->snapshot() != snapshot || e <= 0 || !isEditableEntry(snapshot->entries[static_cast<size_t>(e)]))
            return nullptr;
        path = editPathOf(*snapshot, e);
    }
    auto* dialog = new EditDialog(k, snapshot, path, m_parts.window);
    deleteWhenRejected(dialog);
    dialog->setOpenCheckpoints({QString::fromStdString(snapshot->checkpoint->prefix())});
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        // The plan previewed is the plan written: Write is enabled only for it.
        const std::shared_ptr<const EditPlan> plan = dialog->plan();
        if (!plan) return;
        const SurgeryTarget target = surgeryTarget(dialog);
        runSurgery(dialog, tr("Writing %1").arg(fileName(target.destination)),
                   [plan, target](const auto& job) { return writeEdit(plan, target, job); });
    });
    dialog->open();
    return dialog;
}

AverageDialog* SurgeryController::averageDialog() { return combineDialog(AverageDialog::Average); }
AverageDialog* SurgeryController::mergeDialog() { return combineDialog(AverageDialog::Merge); }

AverageDialog* SurgeryController::combineDialog(int operation) {
    const std::shared_ptr<const CheckpointSnapshot>& snapshot = m_parts.opener->snapshot();
    if (!snapshot || m_parts.opener->isErrorShown()) return nullptr;
    const QString current = QString::fromStdString(snapshot->checkpoint->prefix());
    // The run's checkpoints as the sidebar lists them, in step order.
    QStringList candidates;
    const DirectoryModel* dirs = m_parts.sidebar->directories();
    const QModelIndex dir = dirs->indexForDirectory(directoryFor(current));
    for (int r = 0; dir.isValid() && r < dirs->rowCount(dir); ++r) {
        const QString prefix = dirs->index(r, 0, dir).data(DirectoryModel::PrefixRole).toString();
        if (!prefix.isEmpty()) candidates << prefix;
    }
    if (!candidates.contains(current)) candidates << current;
    auto* dialog = new AverageDialog(current, candidates, m_parts.window, static_cast<AverageDialog::Operation>(operation));
    deleteWhenRejected(dialog);
    dialog->setOpenCheckpoints({current});
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const QStringList sources = dialog->sources();
        const AverageSpec spec = dialog->spec();
        const SurgeryTarget target = surgeryTarget(dialog);
        if (dialog->operation() == AverageDialog::Merge) {
            runSurgery(dialog, tr("Merging into %1").arg(fileName(target.destination)),
                       [sources, target](const auto& job) { return mergeInto(sources, target, job); });
            return;
        }
        runSurgery(dialog, tr("Averaging into %1").arg(fileName(target.destination)),
                   [sources, spec, target](const auto& job) { return averageInto(sources, spec, target, job); });
    });
    dialog->open();
    return dialog;
}

ExportDialog* SurgeryController::exportDialog() {
    const std::shared_ptr<const CheckpointSnapshot>& snapshot = m_parts.opener->snapshot();
    if (!snapshot || m_parts.opener->isErrorShown()) return nullptr;
    const QString source = QString::fromStdString(snapshot->checkpoint->prefix());
    auto* dialog = new ExportDialog(source, m_parts.window);
    deleteWhenRejected(dialog);
    dialog->setOpenCheckpoints({source});
    connect(dialog, &QDialog::accepted, this, [this, dialog, source] {
        const QString output = dialog->destination();
        ExportOptions options = dialog->options();
        options.overwrite = dialog->overwrite();
        options.open = {source.toStdString()};
        runSurgery(dialog, tr("Exporting %1").arg(fileName(output)),
                   [source, output, options](const auto& job) { return exportArrays(source, output, options, job); });
    });
    dialog->open();
    return dialog;
}

void SurgeryController::runSurgery(SurgeryDialog* dialog, const QString& title,
                                   std::function<SurgeryOutcome(const std::shared_ptr<JobControl>&)> work) {
    auto job = m_parts.jobs->start(title);
    m_openResult->hide();
    m_parts.status->setText(tr("%1\u2026 (Esc cancels)").arg(title));
    whenDone(this, QtConcurrent::run(jobPool(), [work = std::move(work), job] { return work(job); }),
             [this, job, dialog = QPointer<SurgeryDialog>(dialog)](const SurgeryOutcome& outcome) {
                 m_parts.jobs->finish(job);
                 onSurgeryDone(outcome, dialog);
             });
}

void SurgeryController::onSurgeryDone(const SurgeryOutcome& r, SurgeryDialog* dialog) {
    QString message;
    if (r.cancelled) {
        message = tr("Cancelled: nothing was written to %1.").arg(r.prefix);
    } else if (!r.ok && dialog) {
        // Every setting is still there: the user fixes what failed and writes again.
        message = tr("Could not write %1: %2").arg(r.prefix, r.error);
        dialog->showWriteError(message);
        dialog->open();
    } else if (!r.ok) {
        message = tr("Could not write %1: %2").arg(r.prefix, r.error);
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Checkpoint Not Written"), message, QMessageBox::Ok, m_parts.window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setObjectName(QStringLiteral("surgeryErrorMessage"));
        box->open();
    } else if (!r.checkpoint) {
        // An export is compared with the source value for value before it is renamed into place.
        const QStringList parts =
            QStringList{
                tr("%n array(s), %1", nullptr, static_cast<int>(r.tensors)).arg(formatBytes(static_cast<int64_t>(r.dataBytes))),
                tr("checked against the source")} +
            r.notes;
        message = tr("Exported %1: %2").arg(r.prefix, parts.join(QStringLiteral("; ")));
    } else {
        // Every surgery reads its result back before it reports success.
        const QStringList parts = QStringList{tr("%n tensor(s) in %1 shard(s), %2", nullptr, static_cast<int>(r.tensors))
                                                  .arg(r.shards)
                                                  .arg(formatBytes(static_cast<int64_t>(r.dataBytes))),
                                              tr("verified")} +
                                  r.notes;
        message = (r.replaced ? tr("Replaced %1: %2") : tr("Wrote %1: %2")).arg(r.prefix, parts.join(QStringLiteral("; ")));
        if (!r.recordWarning.isEmpty()) message += tr(" (not recorded in the catalog: %1)").arg(r.recordWarning);
        // The result joins its directory's listing; one click opens it.
        m_parts.sidebar->listDirectory(directoryFor(r.prefix));
        m_resultPrefix = r.prefix;
        m_openResult->setText(tr("Open %1").arg(fileName(r.prefix)));
        m_openResult->show();
    }
    if (dialog && (r.ok || r.cancelled)) dialog->deleteLater();
    m_parts.status->setText(message);
    m_parts.status->setToolTip(message);
    emit finished(r.ok, r.cancelled, r.prefix, message);
}

}  // namespace ckpt::ui

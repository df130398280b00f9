#include "views/checkpoint_opener.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QStackedWidget>
#include <QTreeView>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <utility>

#include "ckpt/bundle_naming.h"
#include "jobs/checkpoint_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/when_done.h"
#include "models/directory_model.h"
#include "models/object_tree_model.h"
#include "views/checkpoint_sidebar.h"
#include "views/error_panel.h"
#include "views/object_tree_pane.h"
#include "views/open_location_dialog.h"
#include "views/opening_panel.h"
#include "views/recent_files.h"
#include "views/restore_view.h"
#include "views/tensor_inspector.h"
#include "views/welcome_page.h"

namespace ckpt::ui {

QString checkpointPathFor(const QString& file) {
    const QFileInfo info(file);
    const QString name = info.fileName();
    // A SavedModel's graph or a directory's state file stands for the
    // directory; a bundle's index or data file for its prefix.
    if (name == QLatin1String("saved_model.pb") || name == QLatin1String("saved_model.pbtxt") ||
        name == QLatin1String("checkpoint"))
        return info.absolutePath();
    return QString::fromStdString(bundlePrefixOf(info.absoluteFilePath().toStdString()));
}

CheckpointOpener::CheckpointOpener(const OpenerParts& parts, QObject* parent) : QObject(parent), m_parts(parts) {
    connect(m_parts.welcome, &WelcomePage::openRequested, this, &CheckpointOpener::openDialog);
    connect(m_parts.error, &ErrorPanel::retryRequested, this, &CheckpointOpener::refresh);
    connect(m_parts.busy, &OpeningPanel::cancelRequested, this, &CheckpointOpener::cancelOpen);
    // Esc and the status bar's Cancel stop a remote open as the panel's
    // Cancel does; a local open's result comes back soon on its own.
    connect(m_parts.jobs, &JobTracker::cancelledByUser, this, [this] {
        if (isRemoteLocation(m_currentPath)) cancelOpen();
    });
}

QFileDialog* CheckpointOpener::openDialog() {
    // Window-modal and not run in a nested loop: the window keeps painting
    // its jobs' progress, and tests reach the dialog.
    // A remote run's directory is no place for a file dialog.
    const QString start = isRemoteLocation(m_currentDirectory) ? QString() : m_currentDirectory;
    auto* dialog = new QFileDialog(m_parts.window, tr("Open Checkpoint"), start);
    dialog->setObjectName(QStringLiteral("openCheckpointDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    // Every file that stands for a checkpoint: a bundle's index or data
    // file, a directory's state file, a SavedModel's graph. Directories
    // open with Open Directory (Ctrl+Shift+O).
    dialog->setNameFilters({tr("Checkpoints (*.index *.data-*-of-* checkpoint saved_model.pb saved_model.pbtxt)"),
                            tr("Checkpoint index (*.index)"), tr("SavedModel (saved_model.pb saved_model.pbtxt)"),
                            tr("All files (*)")});
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& file) { openPath(checkpointPathFor(file)); });
    dialog->open();
    return dialog;
}

void CheckpointOpener::openDirectoryDialog() {
    const QString start = isRemoteLocation(m_currentPath) ? QString() : m_currentPath;
    const QString dir = QFileDialog::getExistingDirectory(m_parts.window, tr("Open Checkpoint Directory"), start);
    if (!dir.isEmpty()) openPath(dir);
}

OpenLocationDialog* CheckpointOpener::openLocationDialog() {
    // Window-modal and not run in a nested loop, as the Open dialog.
    auto* dialog = new OpenLocationDialog(RecentFiles().paths(), m_parts.window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &OpenLocationDialog::locationChosen, this, &CheckpointOpener::openPath);
    dialog->open();
    return dialog;
}

void CheckpointOpener::openPath(const QString& rawPath) {
    // normalizedLocation, not QFileInfo: a URL stays a URL.
    const QString path = QString::fromStdString(bundlePrefixOf(normalizedLocation(rawPath).toStdString()));
    const bool remote = isRemoteLocation(path);
    m_currentPath = path;
    emit opening(path);
    // A URL's directory is known once its open resolved it.
    m_currentDirectory = remote ? QString() : directoryFor(path);
    if (!remote) emit directoryFound(m_currentDirectory);

    if (m_openJob) m_openJob->cancel();
    const quint64 generation = ++m_openGeneration;
    auto job = m_parts.jobs->start(tr("Opening %1").arg(QFileInfo(path).fileName()));
    m_openJob = job;
    m_parts.sidebar->setOpenInProgress(true);
    m_parts.status->setText(tr("Opening %1\u2026").arg(path));
    // A local open that supersedes a remote one keeps the panel truthful.
    if (remote || m_parts.page->currentWidget() == m_parts.busy) {
        m_parts.busy->showLocation(path);
        m_parts.page->setCurrentWidget(m_parts.busy);
    }
    whenDone(this, QtConcurrent::run(jobPool(), openCheckpoint, path, job),
             [this, job, generation, path, remote](const OpenResult& r) {
                 m_parts.jobs->finish(job);
                 if (generation != m_openGeneration) return;
                 m_openJob.reset();
                 m_parts.sidebar->setOpenInProgress(false);
                 m_parts.sidebar->resumeVerification();
                 if (remote && !r.snapshot && job->isCancelled()) {
                     // Esc (Cancel Background Work) reached the open: as Cancel.
                     restoreAfterCancel(path);
                     return;
                 }
                 if (remote && !r.prefix.isEmpty()) {
                     m_currentDirectory = directoryFor(r.prefix);
                     emit directoryFound(m_currentDirectory);
                 }
                 if (!r.snapshot) {
                     m_snapshot.reset();
                     m_parts.tree->setSnapshot(nullptr);
                     m_parts.restore->setSnapshot(nullptr);
                     showError(tr("Cannot open %1").arg(path), r.error, r.problems);
                     m_parts.sidebar->showOpenFailed(r.prefix, (QStringList{r.error} + r.problems).join(QLatin1Char('\n')));
                     emit opened(false);
                     return;
                 }
                 showSnapshot(r.snapshot);
                 if (generation == m_pendingKeyGeneration && !m_pendingKey.isEmpty())
                     m_parts.tree->selectKey(std::exchange(m_pendingKey, {}));
                 emit opened(true);
             });
}

void CheckpointOpener::showError(const QString& title, const QString& error, const QStringList& problems) {
    m_parts.error->showError(title, error, problems);
    m_parts.page->setCurrentWidget(m_parts.error);
    m_parts.status->setText(error);
}

void CheckpointOpener::showSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot) {
    m_snapshot = std::move(snapshot);
    m_parts.tree->setSnapshot(m_snapshot);
    m_parts.restore->setSnapshot(m_snapshot);
    m_parts.page->setCurrentWidget(m_parts.tree);
    const Checkpoint& ckpt = *m_snapshot->checkpoint;
    const QString prefix = QString::fromStdString(ckpt.prefix());
    const QString style = ckpt.style() == CheckpointStyle::ObjectBased ? tr("object-based") : tr("name-based");
    m_parts.status->setText(tr("%1 \u2014 %2, resolved by %3").arg(prefix, style, QString::fromStdString(ckpt.resolved().how)));
    m_parts.window->setWindowTitle(tr("%1 \u2014 Checkpoint Explorer").arg(QFileInfo(prefix).fileName()));
    m_parts.sidebar->setOpenedCheckpoint(prefix);
    // Nothing selected yet (a first open, or the variable selected before
    // is not in this checkpoint): the inspector says what it is for rather
    // than standing empty.
    if (m_parts.tree->currentEntry() < 0) m_parts.inspector->setSelection({m_snapshot, nullptr, {}});
    revealVariables();
}

void CheckpointOpener::revealVariables() {
    // Open the top-level objects that directly hold variables (a model's
    // layers), so a first look shows tensors, not a column of folders.
    ObjectTreeModel* model = m_parts.tree->model();
    const auto& entries = m_snapshot->entries;
    int budget = 200;  // rows revealed; big graphs stay collapsed
    for (int r = 0; r < std::min(model->rowCount(), 50) && budget > 0; ++r) {
        const QModelIndex top = model->index(r, 0);
        const TreeEntry* e = model->entry(top);
        bool holdsVariables = model->rowCount() <= 3;
        for (int32_t c : e->children) {
            const EntryKind k = entries[static_cast<size_t>(c)].kind;
            holdsVariables = holdsVariables || k == EntryKind::Variable || k == EntryKind::ReplicatedVariable;
        }
        if (!holdsVariables || static_cast<int>(e->children.size()) > budget) continue;
        budget -= static_cast<int>(e->children.size());
        m_parts.tree->view()->expand(top);
    }
}

void CheckpointOpener::cancelOpen() {
    if (!m_openJob) return;
    // The open's token: a remote open drops its requests within about
    // 100 ms and its worker ends (Cancelled); its result is dropped here.
    m_openJob->cancel();
    m_parts.jobs->finish(m_openJob);
    m_openJob.reset();
    ++m_openGeneration;
    m_parts.sidebar->setOpenInProgress(false);
    m_parts.sidebar->resumeVerification();
    restoreAfterCancel(m_currentPath);
}

void CheckpointOpener::restoreAfterCancel(const QString& abandoned) {
    // Back to what was shown before the open: the checkpoint, or nothing.
    if (m_snapshot) {
        m_currentPath = QString::fromStdString(m_snapshot->checkpoint->prefix());
        m_currentDirectory = directoryFor(m_currentPath);
        m_parts.page->setCurrentWidget(m_parts.tree);
    } else {
        m_currentPath.clear();
        m_parts.page->setCurrentWidget(m_parts.welcome);
    }
    m_parts.status->setText(tr("Stopped opening %1").arg(abandoned));
    emit opened(false);
}

bool CheckpointOpener::isErrorShown() const { return m_parts.page->currentWidget() == m_parts.error; }

bool CheckpointOpener::isTreeShown() const { return m_parts.page->currentWidget() == m_parts.tree; }

void CheckpointOpener::openAt(const QString& prefix, const QString& key) {
    if (m_snapshot && QString::fromStdString(m_snapshot->checkpoint->prefix()) == prefix && !isErrorShown() && !m_openJob) {
        if (!key.isEmpty()) m_parts.tree->selectKey(key);
        return;
    }
    openPath(prefix);
    m_pendingKey = key;
    m_pendingKeyGeneration = m_openGeneration;
}

void CheckpointOpener::activate(const QString& prefix) {
    if (m_snapshot && QString::fromStdString(m_snapshot->checkpoint->prefix()) == prefix && !isErrorShown()) return;
    openPath(prefix);
}

void CheckpointOpener::refresh() {
    m_parts.sidebar->relistAll();
    if (!m_currentPath.isEmpty()) openPath(m_currentPath);
}

void CheckpointOpener::closeCurrent() {
    if (m_openJob) m_openJob->cancel();
    m_openJob.reset();
    m_parts.sidebar->setOpenInProgress(false);
    ++m_openGeneration;
    m_snapshot.reset();
    m_parts.sidebar->setOpenedCheckpoint({});
    m_parts.tree->setSnapshot(nullptr);
    m_parts.restore->setSnapshot(nullptr);
    // A catalogued directory stays: the sidebar lists the catalog.
    if (!m_currentDirectory.isEmpty() && !m_parts.sidebar->directories()->isCatalogued(m_currentDirectory))
        m_parts.sidebar->removeDirectory(m_currentDirectory);
    m_currentPath.clear();
    m_currentDirectory.clear();
    m_parts.page->setCurrentWidget(m_parts.welcome);
    m_parts.status->clear();
    m_parts.window->setWindowTitle(tr("Checkpoint Explorer"));
    emit closed();
}

}  // namespace ckpt::ui

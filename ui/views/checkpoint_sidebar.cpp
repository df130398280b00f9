#include "views/checkpoint_sidebar.h"

#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenu>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "jobs/checkpoint_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/when_done.h"
#include "models/directory_model.h"
#include "views/column_fitter.h"

namespace ckpt::ui {
namespace {

// Up to this many directories the sidebar unfolds every one it lists.
constexpr int kUnfoldedDirectories = 6;
// The names' column keeps at least this much before Size and Modified give way
// ("ckpt-12000" and a health badge).
constexpr int kNameColumnMinWidth = 120;

}  // namespace

CheckpointSidebar::CheckpointSidebar(JobTracker* jobs, QWidget* parent)
    : QTreeView(parent), m_jobs(jobs), m_dirs(new DirectoryModel(this)) {
    setModel(m_dirs);
    setTextElideMode(Qt::ElideMiddle);
    header()->setStretchLastSection(false);
    header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < m_dirs->columnCount(); ++c) header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    setAccessibleName(tr("Checkpoints"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(this, &QTreeView::activated, this, &CheckpointSidebar::onRowActivated);
    connect(this, &QTreeView::clicked, this, &CheckpointSidebar::onRowActivated);
    // Two checkpoints selected (Ctrl/Shift+click) compare; one dragged onto another too.
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setDragDropMode(QAbstractItemView::DragDrop);
    setDefaultDropAction(Qt::CopyAction);
    setDropIndicatorShown(true);
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, &CheckpointSidebar::showContextMenu);
    connect(m_dirs, &DirectoryModel::compareDropped, this, &CheckpointSidebar::compareRequested);
    // Size, then Modified, give way in a narrow sidebar (the row's tooltip
    // has both); when a checkpoint was written matters more.
    m_fitter = new ColumnFitter(this, 0, kNameColumnMinWidth, {3, 2});
}

void CheckpointSidebar::listDirectory(const QString& dir, bool opened) {
    if (opened) m_openedDirs.insert(QDir(dir).absolutePath());
    auto job = m_jobs->start(tr("Listing %1").arg(dir));
    whenDone(this, QtConcurrent::run(jobPool(), [dir] { return ui::listDirectory(dir); }),
             [this, job, opened](const DirectoryListing& l) {
                 m_jobs->finish(job);
                 const bool known = m_dirs->indexForDirectory(l.dir).isValid();
                 m_dirs->setListing(l);
                 const QModelIndex dirIndex = m_dirs->indexForDirectory(l.dir);
                 if (!dirIndex.isValid()) return;  // a directory that does not exist is not listed
                 // Directory rows have no step/time/size: let the (often long) name use the width.
                 setFirstColumnSpanned(dirIndex.row(), {}, true);
                 // A Step column only earns its width when some checkpoint has a step.
                 bool anyStep = false;
                 for (const QString& d : m_dirs->directories()) {
                     const QModelIndex di = m_dirs->indexForDirectory(d);
                     for (int r = 0; r < m_dirs->rowCount(di) && !anyStep; ++r)
                         anyStep = !m_dirs->index(r, 1, di).data().toString().isEmpty();
                 }
                 setColumnHidden(1, !anyStep);
                 m_fitter->fit();
                 // Many catalogued directories stay folded; the opened one unfolds.
                 if (opened || m_dirs->rowCount() <= kUnfoldedDirectories) expand(dirIndex);
                 if (!m_openedPrefix.isEmpty())
                     if (const QModelIndex i = m_dirs->indexForPrefix(m_openedPrefix); i.isValid()) setCurrentIndex(i);
                 if (!opened) return;
                 for (const CheckpointListEntry& e : l.listing.checkpoints) {
                     const QString prefix = QString::fromStdString(e.prefix);
                     const auto health =
                         static_cast<Health>(m_dirs->data(m_dirs->indexForPrefix(prefix), DirectoryModel::HealthRole).toInt());
                     if (!known || health == Health::Unknown) queueVerify(prefix);
                 }
             });
}

void CheckpointSidebar::relistAll() {
    for (const QString& dir : m_dirs->directories()) {
        const QModelIndex d = m_dirs->indexForDirectory(dir);
        for (int r = 0; r < m_dirs->rowCount(d); ++r)
            m_dirs->setHealth(m_dirs->index(r, 0, d).data(DirectoryModel::PrefixRole).toString(), Health::Unknown);
        listDirectory(dir, m_openedDirs.contains(dir));
    }
}

void CheckpointSidebar::removeDirectory(const QString& dir) {
    m_openedDirs.remove(dir);
    m_dirs->removeDirectory(dir);
}

void CheckpointSidebar::setOpenedCheckpoint(const QString& prefix) {
    m_openedPrefix = prefix;
    if (prefix.isEmpty()) return;
    if (const QModelIndex i = m_dirs->indexForPrefix(prefix); i.isValid()) setCurrentIndex(i);
}

void CheckpointSidebar::showOpenFailed(const QString& prefix, const QString& problems) {
    m_openedPrefix.clear();
    if (!prefix.isEmpty()) m_dirs->setHealth(prefix, Health::Damaged, problems);
    // Point at the failed checkpoint, or at nothing.
    setCurrentIndex(m_dirs->indexForPrefix(prefix));
}

void CheckpointSidebar::queueVerify(const QString& prefix) {
    if (std::find(m_verifyQueue.begin(), m_verifyQueue.end(), prefix) != m_verifyQueue.end()) return;
    m_verifyQueue.push_back(prefix);
    resumeVerification();
}

void CheckpointSidebar::resumeVerification() {
    // One verify at a time, and none while a checkpoint is opening: it reads
    // every byte, and badges are less urgent than painting the tree.
    if (m_verifyQueue.empty() || m_verifyJob || m_openInProgress) return;
    const QString prefix = m_verifyQueue.front();
    m_verifyQueue.pop_front();
    m_dirs->setHealth(prefix, Health::Verifying);
    auto job = m_jobs->start(tr("Verifying %1").arg(QFileInfo(prefix).fileName()));
    m_verifyJob = job;
    whenDone(this, QtConcurrent::run(jobPool(), verifyCheckpoint, prefix, m_catalogPath, job),
             [this, job](const VerifyResult& r) {
                 m_jobs->finish(job);
                 m_verifyJob.reset();
                 if (r.cancelled) m_dirs->setHealth(r.prefix, Health::Unknown);
                 else
                     m_dirs->setHealth(r.prefix, r.problems.isEmpty() ? Health::Healthy : Health::Damaged,
                                       r.problems.join(QLatin1Char('\n')));
                 emit healthChanged(r.prefix);
                 resumeVerification();
             });
}

QStringList CheckpointSidebar::selectedPrefixes() const {
    // Sidebar order is step order within a directory: the first is the older.
    QModelIndexList rows = selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) {
        return a.parent().row() != b.parent().row() ? a.parent().row() < b.parent().row() : a.row() < b.row();
    });
    QStringList out;
    for (const QModelIndex& i : std::as_const(rows))
        if (const QString p = i.data(DirectoryModel::PrefixRole).toString(); !p.isEmpty()) out << p;
    return out;
}

QString CheckpointSidebar::previousCheckpoint(const QString& prefix) const { return m_dirs->neighbour(prefix, -1); }

void CheckpointSidebar::onRowActivated(const QModelIndex& index) {
    const QString prefix = index.data(DirectoryModel::PrefixRole).toString();
    if (prefix.isEmpty()) return;
    // Ctrl/Shift+click picks checkpoints to compare; it does not open one.
    if (selectionModel()->selectedRows().size() > 1) return;
    emit checkpointActivated(prefix);
}

void CheckpointSidebar::showContextMenu(const QPoint& pos) {
    const QModelIndex at = indexAt(pos).siblingAtColumn(0);
    if (const QString dir = at.data(DirectoryModel::DirRole).toString(); !dir.isEmpty()) {
        QMenu menu(this);
        const QString text = m_dirs->isCatalogued(dir) ? tr("&Remove from Sidebar and Catalog") : tr("&Remove from Sidebar");
        menu.addAction(text, this, [this, dir] { emit forgetDirectoryRequested(dir); });
        menu.exec(viewport()->mapToGlobal(pos));
        return;
    }
    const QString clicked = at.data(DirectoryModel::PrefixRole).toString();
    if (clicked.isEmpty()) return;
    QStringList selected = selectedPrefixes();
    if (!selected.contains(clicked)) selected = {clicked};
    QMenu menu(this);
    menu.addAction(tr("&Open"), this, [this, clicked] { emit openRequested(clicked); });
    if (selected.size() == 2) {
        menu.addAction(tr("&Compare %1 with %2").arg(QFileInfo(selected[0]).fileName(), QFileInfo(selected[1]).fileName()), this,
                       [this, selected] { emit compareRequested(selected[0], selected[1]); });
    }
    QAction* previous =
        menu.addAction(tr("Compare with &Previous"), this, [this, clicked] { emit compareWithPreviousRequested(clicked); });
    previous->setEnabled(!previousCheckpoint(clicked).isEmpty());
    menu.exec(viewport()->mapToGlobal(pos));
}

}  // namespace ckpt::ui

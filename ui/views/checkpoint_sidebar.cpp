#include "views/checkpoint_sidebar.h"

#include <QCollator>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenu>
#include <QSortFilterProxyModel>
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
// ("ckpt-12000" and a health badge), and at most this much for its longest name.
constexpr int kNameColumnMinWidth = 120;
constexpr int kNameColumnMaxFloor = 260;

}  // namespace

// Sorts by DirectoryModel::SortRole: names in natural order ("ckpt-2"
// before "ckpt-10"), steps, times and sizes as values, rows without a value
// last. Unsorted (column -1), the model's step order shows.
class DirectorySortModel : public QSortFilterProxyModel {
public:
    explicit DirectorySortModel(QObject* parent) : QSortFilterProxyModel(parent) {
        m_collator.setNumericMode(true);
        m_collator.setCaseSensitivity(Qt::CaseInsensitive);
        setSortRole(DirectoryModel::SortRole);
    }

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override {
        const QVariant a = left.data(DirectoryModel::SortRole), b = right.data(DirectoryModel::SortRole);
        if (!a.isValid() || !b.isValid()) {
            // Rows without a step (or time) go last whichever way the column sorts.
            const bool descending = sortOrder() == Qt::DescendingOrder;
            if (a.isValid() != b.isValid()) return descending ? !a.isValid() : a.isValid();
            return m_collator.compare(left.siblingAtColumn(0).data().toString(), right.siblingAtColumn(0).data().toString()) < 0;
        }
        if (a.typeId() == QMetaType::QString) return m_collator.compare(a.toString(), b.toString()) < 0;
        return QVariant::compare(a, b) == QPartialOrdering::Less;
    }

private:
    QCollator m_collator;
};

CheckpointSidebar::CheckpointSidebar(JobTracker* jobs, QWidget* parent)
    : QTreeView(parent), m_jobs(jobs), m_dirs(new DirectoryModel(this)), m_sorted(new DirectorySortModel(this)) {
    m_sorted->setSourceModel(m_dirs);
    setModel(m_sorted);
    // The name's end tells checkpoints apart ("…ckpt-12000"), should a name
    // still not fit once Size and Modified have given way.
    setTextElideMode(Qt::ElideLeft);
    header()->setSortIndicator(-1, Qt::AscendingOrder);
    setSortingEnabled(true);
    header()->setToolTip(tr("Click a column to sort by it. Bold: each directory's latest checkpoint (its state file's)."));
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
    // Sorting and listing move rows: directory rows keep spanning the columns.
    connect(m_sorted, &QAbstractItemModel::layoutChanged, this, &CheckpointSidebar::spanDirectoryRows);
    connect(m_sorted, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex& inserted) {
        if (!inserted.isValid()) spanDirectoryRows();
    });
    // Size, then Modified, then Step give way in a narrow sidebar (the row's
    // tooltip has them all); when a checkpoint was written matters more
    // than its size, and its name usually carries its number.
    m_fitter = new ColumnFitter(this, 0, kNameColumnMinWidth, {3, 2, 1});
}

void CheckpointSidebar::listDirectory(const QString& dir, bool opened) {
    if (opened) m_openedDirs.insert(normalizedLocation(dir));
    auto job = m_jobs->start(tr("Listing %1").arg(dir));
    whenDone(this, QtConcurrent::run(jobPool(), [dir, job] { return ui::listDirectory(dir, job); }),
             [this, job, opened](const DirectoryListing& l) {
                 m_jobs->finish(job);
                 if (l.cancelled) return;  // the rows listed before stay, as they were
                 const bool known = m_dirs->indexForDirectory(l.dir).isValid();
                 m_dirs->setListing(l);
                 const QModelIndex dirIndex = indexForDirectory(l.dir);
                 if (!dirIndex.isValid()) return;  // a directory that does not exist is not listed
                 spanDirectoryRows();
                 fitNameColumn();
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
                     if (const QModelIndex i = indexForPrefix(m_openedPrefix); i.isValid()) setCurrentIndex(i);
                 if (!opened) return;
                 // Verifying reads every byte: on object storage only the
                 // opened checkpoint is, the others on request (context menu).
                 const bool remote = isRemoteLocation(l.dir);
                 for (const CheckpointListEntry& e : l.listing.checkpoints) {
                     const QString prefix = QString::fromStdString(e.prefix);
                     if (remote && prefix != m_openedPrefix) continue;
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
    if (const QModelIndex i = indexForPrefix(prefix); i.isValid()) setCurrentIndex(i);
}

QModelIndex CheckpointSidebar::indexForPrefix(const QString& prefix) const {
    return m_sorted->mapFromSource(m_dirs->indexForPrefix(prefix));
}

QModelIndex CheckpointSidebar::indexForDirectory(const QString& dir) const {
    return m_sorted->mapFromSource(m_dirs->indexForDirectory(dir));
}

void CheckpointSidebar::spanDirectoryRows() {
    // Every top-level row is a directory: no step, time or size, so its
    // (often long) name takes the row's whole width.
    for (int r = 0; r < m_sorted->rowCount(); ++r) setFirstColumnSpanned(r, {}, true);
}

void CheckpointSidebar::fitNameColumn() {
    // The name column's floor: the longest checkpoint name with its badge
    // and indentation, within bounds, so Size and Modified give way before
    // a name is cut.
    int widest = 0;
    const QFontMetrics plain(font());
    QFont boldFont = font();
    boldFont.setBold(true);
    const QFontMetrics bold(boldFont);
    for (int d = 0; d < m_dirs->rowCount(); ++d) {
        const QModelIndex dir = m_dirs->index(d, 0);
        for (int r = 0; r < m_dirs->rowCount(dir); ++r) {
            const QModelIndex i = m_dirs->index(r, 0, dir);
            const bool isBold = i.data(Qt::FontRole).value<QFont>().bold();
            widest = std::max(widest, (isBold ? bold : plain).horizontalAdvance(i.data().toString()));
        }
    }
    const int decoration = indentation() * 2 + iconSize().width() + style()->pixelMetric(QStyle::PM_SmallIconSize) / 2 + 16;
    m_fitter->setMinWidth(std::clamp(widest + decoration, kNameColumnMinWidth, kNameColumnMaxFloor));
}

void CheckpointSidebar::showOpenFailed(const QString& prefix, const QString& problems) {
    m_openedPrefix.clear();
    if (!prefix.isEmpty()) m_dirs->setHealth(prefix, Health::Damaged, problems);
    // Point at the failed checkpoint, or at nothing.
    setCurrentIndex(indexForPrefix(prefix));
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
    // The model's order is step order within a directory: the first is the
    // older, however the view sorts.
    QModelIndexList rows;
    for (const QModelIndex& i : selectionModel()->selectedRows()) rows << m_sorted->mapToSource(i);
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
    const QString prefix = index.siblingAtColumn(0).data(DirectoryModel::PrefixRole).toString();
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
    menu.addAction(tr("&Verify"), this, [this, clicked] { queueVerify(clicked); });
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

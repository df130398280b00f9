#include "views/compare_view.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "jobs/compare_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/when_done.h"
#include "models/diff_tree_model.h"
#include "models/object_tree_model.h"
#include "views/compare_detail.h"
#include "style/status_colors.h"
#include "style/text_format.h"

namespace ckpt::ui {
namespace {

// Rows revealed when a comparison lands or a filter applies; past this the
// user expands (or narrows the filter).
constexpr int kMaxAutoExpandRows = 400;

QString shortName(const QString& path) { return QFileInfo(path).fileName(); }

}  // namespace

CompareView::CompareView(JobTracker* jobs, QWidget* parent)
    : QWidget(parent), m_jobs(jobs), m_pair(new QLabel(this)), m_previous(new QPushButton(tr("\u25c0 &Previous pair"), this)),
      m_next(new QPushButton(tr("Ne&xt pair \u25b6"), this)), m_swap(new QPushButton(tr("S&wap A/B"), this)),
      m_filter(new QLineEdit(this)), m_regex(new QCheckBox(tr("Rege&x"), this)),
      m_unchanged(new QCheckBox(tr("Show &unchanged"), this)), m_message(new QLabel(this)), m_model(new DiffTreeModel(this)),
      m_view(new QTreeView(this)), m_detail(new CompareDetail(jobs, this)), m_summary(new QLabel(this)),
      m_debounce(new QTimer(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* header = new QHBoxLayout;
    m_pair->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_pair->setAccessibleName(tr("Compared checkpoints"));
    header->addWidget(m_pair, 1);
    m_previous->setToolTip(tr("Compare the pair one checkpoint earlier in the directory, keeping the selection"));
    m_next->setToolTip(tr("Compare the pair one checkpoint later in the directory, keeping the selection"));
    header->addWidget(m_previous);
    header->addWidget(m_next);
    header->addWidget(m_swap);
    layout->addLayout(header);

    auto* bar = new QHBoxLayout;
    m_filter->setPlaceholderText(tr("Filter by path or key"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setAccessibleName(tr("Compare filter"));
    bar->addWidget(m_filter, 1);
    m_regex->setToolTip(tr("Treat the filter as a regular expression"));
    bar->addWidget(m_regex);
    m_unchanged->setToolTip(tr("Also list values that are equal in A and B"));
    bar->addWidget(m_unchanged);
    layout->addLayout(bar);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setAccessibleName(tr("Compare status"));
    layout->addWidget(m_message);

    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setTextElideMode(Qt::ElideLeft);
    m_view->setAccessibleName(tr("Compared tree"));
    // No sort until a header is clicked: the engine's order (by location).
    m_view->header()->setSortIndicator(-1, Qt::AscendingOrder);
    m_view->setSortingEnabled(true);
    // Names first: they stay readable and the figures scroll into view
    // rather than squeezing the name column to nothing.
    m_view->header()->setStretchLastSection(false);
    m_view->header()->resizeSection(DiffTreeModel::NameColumn, 220);
    m_view->header()->resizeSection(DiffTreeModel::StatusColumn, 86);
    m_view->header()->resizeSection(DiffTreeModel::TypeColumn, 104);
    for (int c = DiffTreeModel::MaxAbsColumn; c < DiffTreeModel::ColumnCount; ++c) m_view->header()->resizeSection(c, 74);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_view);
    // Scrolls rather than imposing its height (figures, three heatmaps) on
    // the window: that made the window taller than a 700 px screen.
    auto* detailScroll = new QScrollArea(this);
    detailScroll->setWidget(m_detail);
    detailScroll->setWidgetResizable(true);
    detailScroll->setFrameShape(QFrame::NoFrame);
    split->addWidget(detailScroll);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // Near halves: in a 1024 px window the detail needs its ~400 px as much as the tree.
    split->setSizes({540, 500});
    layout->addWidget(split, 1);
    m_summary->setAccessibleName(tr("Compare summary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &CompareView::startFilter);
    connect(m_filter, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_regex, &QCheckBox::toggled, this, &CompareView::startFilter);
    connect(m_unchanged, &QCheckBox::toggled, this, &CompareView::startFilter);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &CompareView::onCurrentChanged);
    connect(m_previous, &QPushButton::clicked, this, [this] { step(-1); });
    connect(m_next, &QPushButton::clicked, this, [this] { step(1); });
    connect(m_swap, &QPushButton::clicked, this, &CompareView::swapSides);
    updateHeader();
}

CompareView::~CompareView() {
    if (m_compareJob) m_compareJob->cancel();
}

void CompareView::setNeighbourLookup(NeighbourLookup lookup) {
    m_neighbours = std::move(lookup);
    updateHeader();
}

void CompareView::focusFilter() {
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

DiffFilter CompareView::currentFilter() const { return {m_unchanged->isChecked(), m_filter->text(), m_regex->isChecked()}; }

void CompareView::compare(const QString& pathA, const QString& pathB) {
    m_pathA = pathA;
    m_pathB = pathB;
    m_error.clear();
    if (m_compareJob) {
        m_compareJob->cancel();
        m_jobs->finish(m_compareJob);
    }
    const quint64 generation = ++m_compareGeneration;
    auto job = m_jobs->start(tr("Comparing %1 with %2").arg(shortName(pathA), shortName(pathB)));
    m_compareJob = job;
    m_message->setText(tr("Comparing %1 with %2\u2026").arg(pathA, pathB));
    m_message->show();
    updateHeader();
    whenDone(this, QtConcurrent::run(jobPool(), compareCheckpoints, pathA, pathB, m_catalogPath, job),
             [this, job, generation](const CompareResult& r) {
                 m_jobs->finish(job);
                 if (generation != m_compareGeneration) return;  // a newer comparison is running
                 m_compareJob.reset();
                 showResult(r);
             });
}

void CompareView::showResult(const CompareResult& r) {
    if (!r.snapshot) {
        m_error = r.cancelled ? tr("Comparison cancelled.") : r.error;
        m_message->setText(m_error);
        // The previous pair's tree and figures would read as this pair's.
        m_snapshot.reset();
        m_model->setSnapshot(nullptr, nullptr);
        m_detail->setNode(nullptr, -1);
        updateHeader();
        emit compared(false);
        return;
    }
    m_message->clear();
    m_message->hide();
    m_snapshot = r.snapshot;
    // The toggle alone, computed with the snapshot: applied at once; a
    // filter text refines the tree when its computation lands.
    const DiffFilter f = currentFilter();
    m_model->setSnapshot(m_snapshot, unchangedToggleSet(*m_snapshot, f.showUnchanged));
    m_filtering = false;
    ++m_filterGeneration;
    updateHeader();
    expandSome();
    const int32_t keep = findNode(*m_snapshot, m_selectedLocation);
    selectNode(keep);
    if (!f.text.isEmpty()) startFilter();
    emit compared(true);
}

void CompareView::updateHeader() {
    const bool haveNeighbours = static_cast<bool>(m_neighbours) && !m_pathA.isEmpty();
    m_previous->setEnabled(haveNeighbours && !m_neighbours(m_pathA, -1).isEmpty() && !m_neighbours(m_pathB, -1).isEmpty());
    m_next->setEnabled(haveNeighbours && !m_neighbours(m_pathA, 1).isEmpty() && !m_neighbours(m_pathB, 1).isEmpty());
    m_swap->setEnabled(!m_pathA.isEmpty());
    if (m_pathA.isEmpty()) {
        m_pair->setText(tr("Select two checkpoints in the sidebar and choose Compare (Ctrl+D), or drop one onto another."));
        m_summary->clear();
        return;
    }
    m_pair->setText(tr("<b>A</b> %1 &nbsp;\u2192&nbsp; <b>B</b> %2")
                        .arg(shortName(m_pathA).toHtmlEscaped(), shortName(m_pathB).toHtmlEscaped()));
    m_pair->setToolTip(tr("A: %1\nB: %2").arg(m_pathA, m_pathB));
    // While a pair is being compared the summary of the one before it
    // would sit under the new names.
    if (!m_snapshot || isComparing()) return m_summary->clear();
    const CheckpointDiff& d = m_snapshot->diff;
    const DiffCounts& c = d.counts;
    QStringList parts;
    parts << tr("M %1 modified").arg(c.modified) << tr("A %1 added").arg(c.added) << tr("D %1 deleted").arg(c.deleted)
          << tr("T %1 type changed").arg(c.typeChanged) << tr("R %1 renamed").arg(c.renamed)
          << tr("%1 unchanged").arg(c.unchanged);
    QString text = parts.join(QStringLiteral(" \u00b7 "));
    text += tr(" \u2014 paired by %1; %2 pair(s) equal by checksum, %3 read")
                .arg(d.pairedByPath ? tr("object path") : tr("checkpoint key"))
                .arg(d.fromChecksums)
                .arg(formatBytes(d.bytesRead));
    if (d.excluded) text += tr("; %1 excluded").arg(d.excluded);
    if (d.equal()) text = tr("A and B hold the same values. ") + text;
    m_summary->setText(text);
}

void CompareView::step(int delta) {
    if (!m_neighbours || m_pathA.isEmpty()) return;
    const QString a = m_neighbours(m_pathA, delta), b = m_neighbours(m_pathB, delta);
    if (!a.isEmpty() && !b.isEmpty()) compare(a, b);
}

void CompareView::swapSides() {
    if (!m_pathA.isEmpty()) compare(m_pathB, m_pathA);
}

void CompareView::startFilter() {
    m_debounce->stop();
    if (!m_snapshot) return;
    const quint64 generation = ++m_filterGeneration;
    m_filtering = true;
    auto job = m_jobs->start(tr("Filtering the comparison"));
    auto future = QtConcurrent::run(jobPool(), [snapshot = m_snapshot, filter = currentFilter(), job] {
        return computeDiffVisibleSet(*snapshot, filter, &job->token());
    });
    whenDone(this, future, [this, job, generation](std::shared_ptr<const VisibleSet> visible) {
        m_jobs->finish(job);
        if (generation != m_filterGeneration) return;
        m_filtering = false;
        if (visible) applyVisibleSet(std::move(visible));
        emit filterApplied();
    });
}

void CompareView::applyVisibleSet(std::shared_ptr<const VisibleSet> visible) {
    if (!visible->error.isEmpty()) {
        m_filter->setStyleSheet(invalidInputStyle());
        m_filter->setToolTip(visible->error);
        m_message->setText(tr("Invalid regular expression: %1").arg(visible->error));
        m_message->show();
        return;
    }
    m_filter->setStyleSheet({});
    m_filter->setToolTip({});
    m_message->hide();
    const int32_t current = m_model->nodeIndex(m_view->currentIndex());
    m_model->setVisibleSet(std::move(visible));
    expandSome();
    selectNode(current);
}

void CompareView::expandSome() {
    // Breadth-first, so the first levels open even when the budget runs out.
    QList<QModelIndex> queue{QModelIndex()};
    int rows = 0;
    while (!queue.isEmpty()) {
        const QModelIndex parent = queue.takeFirst();
        const int n = m_model->rowCount(parent);
        if (rows + n > kMaxAutoExpandRows) break;
        rows += n;
        if (parent.isValid()) m_view->expand(parent);
        for (int r = 0; r < n; ++r) queue.append(m_model->index(r, 0, parent));
    }
}

void CompareView::selectLocation(const QStringList& location) {
    m_selectedLocation = location;
    if (m_snapshot && !isComparing()) selectNode(findNode(*m_snapshot, location));
}

void CompareView::selectNode(int32_t node) {
    const QModelIndex index = node > 0 ? m_model->indexForNode(node) : QModelIndex();
    if (index.isValid()) {
        for (QModelIndex p = index.parent(); p.isValid(); p = p.parent()) m_view->expand(p);
        m_view->setCurrentIndex(index);
        m_view->scrollTo(index);
    }
    onCurrentChanged();
}

void CompareView::onCurrentChanged() {
    const int32_t node = m_model->nodeIndex(m_view->currentIndex());
    if (node > 0 && m_snapshot) m_selectedLocation = nodeLocation(*m_snapshot, node);
    m_detail->setNode(m_snapshot, node);
}

}  // namespace ckpt::ui

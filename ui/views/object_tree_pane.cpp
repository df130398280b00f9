#include "views/object_tree_pane.h"

#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalBlocker>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "jobs/job_pool.h"
#include "jobs/when_done.h"
#include "jobs/job_tracker.h"
#include "models/object_tree_model.h"
#include "views/column_fitter.h"
#include "views/entry_elide_delegate.h"
#include "style/status_colors.h"
#include "style/text_format.h"

namespace ckpt::ui {
namespace {

// The directory holding a snapshot's checkpoint: its run.
QString runDirectory(const CheckpointSnapshot& snapshot) {
    if (!snapshot.checkpoint) return {};
    return QFileInfo(QString::fromStdString(snapshot.checkpoint->prefix())).absolutePath();
}

// Expanding every match would create rows for all of them; past this many
// the user narrows the filter instead.
constexpr int kMaxAutoExpandRows = 2000;

}  // namespace

ObjectTreePane::ObjectTreePane(JobTracker* jobs, QWidget* parent)
    : QWidget(parent), m_jobs(jobs), m_model(new ObjectTreeModel(this)), m_view(new QTreeView(this)),
      m_filter(new QLineEdit(this)), m_regex(new QCheckBox(tr("Rege&x"), this)),
      m_keys(new QCheckBox(tr("Checkpoint &keys"), this)), m_slots(new QCheckBox(tr("&Slot variables"), this)),
      m_summary(new QLabel(this)), m_debounce(new QTimer(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    m_filter->setPlaceholderText(tr("Filter by path or key (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setAccessibleName(tr("Filter"));
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_regex);
    bar->addWidget(m_keys);
    bar->addWidget(m_slots);
    m_regex->setToolTip(tr("Treat the filter as a regular expression"));
    m_keys->setToolTip(tr("Show each object's serialized tensors with their checkpoint keys"));
    m_slots->setToolTip(tr("Show optimizer slot variables (e.g. Adam's m and v)"));
    m_slots->setChecked(true);
    layout->addLayout(bar);
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);  // lets the view lay out 100k rows without measuring each
    m_view->setAlternatingRowColors(true);
    // In a tree the ancestors are already visible by indentation; what tells
    // rows apart is the end of a key ("…/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE").
    m_view->setTextElideMode(Qt::ElideLeft);
    m_view->setItemDelegateForColumn(ObjectTreeModel::NameColumn, new EntryElideDelegate(m_model, m_view));
    m_view->setAccessibleName(tr("Object graph"));
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(ObjectTreeModel::NameColumn, QHeaderView::Stretch);
    m_view->header()->resizeSection(ObjectTreeModel::KindColumn, 100);
    m_view->header()->resizeSection(ObjectTreeModel::DTypeColumn, 70);
    m_view->header()->resizeSection(ObjectTreeModel::ShapeColumn, 90);
    m_view->header()->resizeSection(ObjectTreeModel::SizeColumn, 80);
    // In a narrow centre the names keep their room: Kind goes first (the
    // row's icon says it too), then Size.
    new ColumnFitter(m_view, ObjectTreeModel::NameColumn, 160, {ObjectTreeModel::KindColumn, ObjectTreeModel::SizeColumn});
    layout->addWidget(m_view, 1);
    m_summary->setAccessibleName(tr("Tree summary"));
    layout->addWidget(m_summary);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &ObjectTreePane::startFilter);
    connect(m_filter, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_regex, &QCheckBox::toggled, this, &ObjectTreePane::startFilter);
    connect(m_keys, &QCheckBox::toggled, this, &ObjectTreePane::startFilter);
    connect(m_slots, &QCheckBox::toggled, this, &ObjectTreePane::startFilter);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &ObjectTreePane::onCurrentChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ObjectTreePane::onCurrentChanged);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, &ObjectTreePane::showContextMenu);
    // Tab follows the layout, top to bottom: the filter row, then the tree
    // (created first, it would otherwise come first).
    setTabOrder(m_filter, m_regex);
    setTabOrder(m_regex, m_keys);
    setTabOrder(m_keys, m_slots);
    setTabOrder(m_slots, m_view);
}

void ObjectTreePane::setRowActions(const QList<QAction*>& actions) {
    for (QAction* a : std::as_const(m_rowActions)) m_view->removeAction(a);
    m_rowActions = actions;
    m_view->addActions(actions);
}

int32_t ObjectTreePane::currentEntry() const { return m_model->entryIndex(m_view->currentIndex()); }

void ObjectTreePane::showContextMenu(const QPoint& pos) {
    const QModelIndex index = m_view->indexAt(pos);
    const TreeEntry* e = m_model->entry(index);
    if (!e) return;
    // The menu acts on the row clicked, as the row actions do on the current one.
    m_view->setCurrentIndex(index);
    QMenu menu(this);
    const QString path = pathText(*e);
    menu.addAction(tr("Copy &Path"), this, [path] { QGuiApplication::clipboard()->setText(path); });
    if (e->tensor) {
        const QString key = QString::fromStdString(e->tensor->key);
        menu.addAction(tr("Copy &Key"), this, [key] { QGuiApplication::clipboard()->setText(key); });
    }
    if (!m_rowActions.isEmpty()) {
        menu.addSeparator();
        menu.addActions(m_rowActions);
    }
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

void ObjectTreePane::focusFilter() {
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

TreeFilter ObjectTreePane::currentFilter() const {
    return {m_keys->isChecked(), m_slots->isChecked(), m_filter->text(), m_regex->isChecked()};
}

void ObjectTreePane::setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot) {
    // Another checkpoint of the same run (directory): the variable selected
    // stays selected, so stepping through a run keeps the inspector's place.
    m_reselectKey.clear();
    if (const TreeEntry* e = m_model->entry(m_view->currentIndex());
        e && e->tensor && m_snapshot && snapshot && runDirectory(*m_snapshot) == runDirectory(*snapshot))
        m_reselectKey = QString::fromStdString(e->tensor->key);
    m_snapshot = std::move(snapshot);
    ++m_generation;
    m_filtering = false;
    if (!m_snapshot) {
        m_model->setSnapshot(nullptr, nullptr);
        m_summary->clear();
        return;
    }
    // Show the tree at once with the toggles only; a filter text, if any,
    // refines it when its computation finishes.
    const TreeFilter f = currentFilter();
    m_model->setSnapshot(m_snapshot, togglesVisibleSet(*m_snapshot, f.showKeys, f.showSlots));
    // A name-based checkpoint has no attributes or slots to toggle.
    const bool objectBased = m_snapshot->checkpoint->style() == CheckpointStyle::ObjectBased;
    m_keys->setEnabled(objectBased);
    m_slots->setEnabled(objectBased);
    m_summary->setText(
        tr("%n tensor(s), %1", nullptr, static_cast<int>(m_snapshot->tensorCount)).arg(formatBytes(m_snapshot->storedBytes)));
    reselect();
    // The filter's result resets the tree again; reselect() runs once more then.
    if (!f.text.isEmpty()) startFilter();
    else m_reselectKey.clear();
}

int32_t ObjectTreePane::entryForKey(const QString& key) const {
    const std::string wanted = key.toStdString();
    const auto& entries = m_snapshot->entries;
    int32_t found = -1;
    for (size_t i = 1; i < entries.size(); ++i) {
        if (!entries[i].tensor || entries[i].tensor->key != wanted) continue;
        found = static_cast<int32_t>(i);
        if (!isKeyRow(entries[i])) break;  // a variable row reads better than its key row
    }
    return found;
}

bool ObjectTreePane::showEntry(int32_t entry) {
    const QModelIndex index = m_model->indexForEntry(entry);
    if (!index.isValid()) return false;
    for (QModelIndex p = index.parent(); p.isValid(); p = p.parent()) m_view->expand(p);
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
    return true;
}

void ObjectTreePane::reselect() {
    // Unlike selectKey, the user's filter and toggles stay: a variable they
    // hide is not selected.
    if (m_reselectKey.isEmpty() || !m_snapshot) return;
    if (const int32_t found = entryForKey(m_reselectKey); found >= 0) showEntry(found);
}

bool ObjectTreePane::selectKey(const QString& key) {
    if (!m_snapshot) return false;
    const int32_t found = entryForKey(key);
    if (found < 0) return false;
    const TreeEntry& e = m_snapshot->entries[static_cast<size_t>(found)];
    // Whatever hides the node goes; the model is reset synchronously to the
    // toggles alone, as setSnapshot does, so the row exists right away.
    bool reset = !m_filter->text().isEmpty();
    {
        const QSignalBlocker blockFilter(m_filter), blockKeys(m_keys), blockSlots(m_slots);
        m_filter->clear();
        if (isKeyRow(e) && !m_keys->isChecked()) {
            m_keys->setChecked(true);
            reset = true;
        }
        if (isSlotRow(e) && !m_slots->isChecked()) {
            m_slots->setChecked(true);
            reset = true;
        }
    }
    if (reset) {
        m_debounce->stop();
        ++m_generation;
        m_filtering = false;
        const TreeFilter f = currentFilter();
        m_model->setVisibleSet(togglesVisibleSet(*m_snapshot, f.showKeys, f.showSlots));  // the text is cleared
        m_filter->setStyleSheet({});
        m_summary->setText(
            tr("%n tensor(s), %1", nullptr, static_cast<int>(m_snapshot->tensorCount)).arg(formatBytes(m_snapshot->storedBytes)));
    }
    return showEntry(found);
}

void ObjectTreePane::startFilter() {
    m_debounce->stop();
    if (!m_snapshot) return;
    const quint64 generation = ++m_generation;
    m_filtering = true;
    auto job = m_jobs->start(tr("Filtering"));
    auto future = QtConcurrent::run(jobPool(), [snapshot = m_snapshot, filter = currentFilter(), job] {
        return computeVisibleSet(*snapshot, filter, &job->token());
    });
    whenDone(this, future, [this, job, generation](std::shared_ptr<const VisibleSet> visible) {
        m_jobs->finish(job);
        if (generation != m_generation) return;  // a newer filter is running
        m_filtering = false;
        if (visible) applyVisibleSet(std::move(visible));
        reselect();
        m_reselectKey.clear();
        emit filterApplied();
    });
}

void ObjectTreePane::applyVisibleSet(std::shared_ptr<const VisibleSet> visible) {
    if (!visible->error.isEmpty()) {
        m_filter->setStyleSheet(invalidInputStyle());
        m_filter->setToolTip(visible->error);
        m_summary->setText(tr("Invalid regular expression: %1").arg(visible->error));
        return;
    }
    m_filter->setStyleSheet({});
    m_filter->setToolTip({});
    const bool filtered = !m_filter->text().isEmpty();
    const int64_t matches = visible->matches;
    m_model->setVisibleSet(std::move(visible));
    if (filtered) {
        expandMatches();
        m_summary->setText(tr("%n match(es)", nullptr, static_cast<int>(matches)));
    } else {
        m_summary->setText(
            tr("%n tensor(s), %1", nullptr, static_cast<int>(m_snapshot->tensorCount)).arg(formatBytes(m_snapshot->storedBytes)));
    }
}

void ObjectTreePane::expandMatches() {
    // Breadth-first so the first levels open even when the budget runs out.
    QList<QModelIndex> queue{QModelIndex()};
    int rows = 0;
    while (!queue.isEmpty() && rows < kMaxAutoExpandRows) {
        const QModelIndex parent = queue.takeFirst();
        m_model->insertChildren(parent.isValid() ? m_model->entryIndex(parent) : 0);
        const int n = m_model->rowCount(parent);
        rows += n;
        if (parent.isValid()) m_view->expand(parent);
        for (int r = 0; r < n; ++r) queue.append(m_model->index(r, 0, parent));
    }
}

void ObjectTreePane::onCurrentChanged() {
    TensorSelection sel;
    sel.snapshot = m_snapshot;
    if (const TreeEntry* e = m_model->entry(m_view->currentIndex())) {
        sel.info = e->tensor;
        sel.path = pathText(*e);
    }
    // Nothing selected before nor now (a reset of a tree nobody clicked in,
    // e.g. the restore view's): silent, so it does not clear the inspector
    // that another tree's selection fills.
    const bool stillNothing = !sel.info && !m_emittedTensor && sel.path.isEmpty() && m_emittedPath.isEmpty();
    m_emittedTensor = sel.info != nullptr;
    m_emittedPath = sel.path;
    if (!stillNothing) emit selectionChanged(sel);
}

}  // namespace ckpt::ui

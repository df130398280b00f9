#include "models/object_tree_model.h"

#include <QLocale>

#include <algorithm>

#include "ckpt/dtype.h"
#include "style/kind_icons.h"
#include "style/text_format.h"

namespace ckpt::ui {

QString entryKindName(EntryKind kind) {
    switch (kind) {
    case EntryKind::Root: return QObject::tr("root");
    case EntryKind::Object: return QObject::tr("object");
    case EntryKind::Variable: return QObject::tr("variable");
    case EntryKind::ReplicatedVariable: return QObject::tr("replicated variable");
    case EntryKind::SlotVariable: return QObject::tr("slot variable");
    case EntryKind::Optimizer: return QObject::tr("optimizer");
    case EntryKind::Attribute: return QObject::tr("key");
    case EntryKind::Alias: return QObject::tr("alias");
    case EntryKind::KeyGroup: return QObject::tr("scope");
    case EntryKind::Key: return QObject::tr("tensor");
    }
    return {};
}

void ObjectTreeModel::setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot, std::shared_ptr<const VisibleSet> visible) {
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_visible = std::move(visible);
    resetState();
    m_changing = true;
    endResetModel();
    m_changing = false;
}

void ObjectTreeModel::setVisibleSet(std::shared_ptr<const VisibleSet> visible) {
    beginResetModel();
    m_visible = std::move(visible);
    resetState();
    m_changing = true;
    endResetModel();
    m_changing = false;
}

void ObjectTreeModel::resetState() {
    ++m_generation;
    m_fetched.clear();
    m_requested.clear();
    if (!m_snapshot) return;
    // The top level is part of the reset: a freshly opened checkpoint shows
    // its first rows without waiting for the view to ask.
    std::vector<int32_t>& top = m_fetched[0];
    for (int32_t c : m_snapshot->entries[0].children)
        if (isVisible(c)) top.push_back(c);
}

bool ObjectTreeModel::isVisible(int32_t e) const {
    if (!m_visible || m_visible->visible.empty()) return true;
    return m_visible->visible[static_cast<size_t>(e)] != 0;
}

int32_t ObjectTreeModel::entryOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<int32_t>(index.internalId()) : 0;
}

const std::vector<int32_t>* ObjectTreeModel::fetchedChildren(int32_t e) const {
    const auto it = m_fetched.find(e);
    return it == m_fetched.end() ? nullptr : &it->second;
}

int32_t ObjectTreeModel::rowOf(int32_t e) const {
    const std::vector<int32_t>* kids = fetchedChildren(m_snapshot->entries[static_cast<size_t>(e)].parent);
    if (!kids) return -1;
    const auto it = std::lower_bound(kids->begin(), kids->end(), e);
    return it != kids->end() && *it == e ? static_cast<int32_t>(it - kids->begin()) : -1;
}

const TreeEntry* ObjectTreeModel::entry(const QModelIndex& index) const {
    if (!m_snapshot || !index.isValid()) return nullptr;
    return &m_snapshot->entries[static_cast<size_t>(entryOf(index))];
}

int32_t ObjectTreeModel::entryIndex(const QModelIndex& index) const { return index.isValid() ? entryOf(index) : -1; }

QModelIndex ObjectTreeModel::indexForEntry(int32_t e) {
    if (!m_snapshot || e <= 0 || e >= static_cast<int32_t>(m_snapshot->entries.size()) || !isVisible(e)) return {};
    // Outermost ancestor first, without recursion: a graph may nest its
    // rows 50,000 deep (slot variables that are optimizers of the next).
    std::vector<int32_t> chain;
    for (int32_t a = e; a > 0; a = m_snapshot->entries[static_cast<size_t>(a)].parent) chain.push_back(a);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (!isVisible(*it)) return {};
        insertChildren(m_snapshot->entries[static_cast<size_t>(*it)].parent);
        if (rowOf(*it) < 0) return {};
    }
    return createIndex(rowOf(e), 0, quintptr(e));
}

QModelIndex ObjectTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!m_snapshot || row < 0 || column < 0 || column >= ColumnCount) return {};
    const std::vector<int32_t>* kids = fetchedChildren(entryOf(parent));
    if (!kids || row >= static_cast<int>(kids->size())) return {};
    return createIndex(row, column, quintptr((*kids)[static_cast<size_t>(row)]));
}

QModelIndex ObjectTreeModel::parent(const QModelIndex& child) const {
    if (!m_snapshot || !child.isValid()) return {};
    const int32_t p = m_snapshot->entries[static_cast<size_t>(entryOf(child))].parent;
    if (p <= 0) return {};
    return createIndex(rowOf(p), 0, quintptr(p));
}

int ObjectTreeModel::rowCount(const QModelIndex& parent) const {
    if (!m_snapshot || parent.column() > 0) return 0;
    const std::vector<int32_t>* kids = fetchedChildren(entryOf(parent));
    return kids ? static_cast<int>(kids->size()) : 0;
}

int ObjectTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

bool ObjectTreeModel::hasChildren(const QModelIndex& parent) const {
    if (!m_snapshot || parent.column() > 0) return false;
    const int32_t e = entryOf(parent);
    if (const std::vector<int32_t>* kids = fetchedChildren(e)) return !kids->empty();
    for (int32_t c : m_snapshot->entries[static_cast<size_t>(e)].children)
        if (isVisible(c)) return true;
    return false;
}

bool ObjectTreeModel::canFetchMore(const QModelIndex& parent) const {
    if (!m_snapshot || parent.column() > 0) return false;
    const int32_t e = entryOf(parent);
    return !fetchedChildren(e) && !m_requested.contains(e) && hasChildren(parent);
}

void ObjectTreeModel::fetchMore(const QModelIndex& parent) {
    if (!canFetchMore(parent)) return;
    const int32_t e = entryOf(parent);
    if (!m_changing) {
        insertChildren(e);
        return;
    }
    // Asked from inside another change (a view or QAbstractItemModelTester
    // reacting to rowsInserted or modelReset): nested begin/endInsertRows would break their
    // bookkeeping, so these rows arrive on the next event-loop turn.
    m_requested.insert(e);
    QMetaObject::invokeMethod(
        this,
        [this, e, generation = m_generation] {
            if (generation == m_generation) insertChildren(e);
        },
        Qt::QueuedConnection);
}

void ObjectTreeModel::insertChildren(int32_t e) {
    if (fetchedChildren(e)) return;
    const QModelIndex parent = e == 0 ? QModelIndex() : createIndex(rowOf(e), 0, quintptr(e));
    std::vector<int32_t> kids;
    for (int32_t c : m_snapshot->entries[static_cast<size_t>(e)].children)
        if (isVisible(c)) kids.push_back(c);
    // Fetched (with no rows yet) before the views hear of the insertion, so
    // none of them fetches it again. References into the map survive rehashing.
    std::vector<int32_t>& rows = m_fetched[e];
    m_requested.erase(e);
    if (kids.empty()) return;
    m_changing = true;
    beginInsertRows(parent, 0, static_cast<int>(kids.size()) - 1);
    rows = std::move(kids);
    endInsertRows();
    m_changing = false;
}

void ObjectTreeModel::setOverlay(std::shared_ptr<const EntryOverlay> overlay) {
    m_overlay = std::move(overlay);
    // Every fetched parent's rows; unfetched ones ask data() when they appear.
    // Listed first: a slot that fetches rows would rehash the map under the loop.
    std::vector<std::pair<int32_t, int>> parents;
    for (const auto& [p, kids] : m_fetched)
        if (!kids.empty()) parents.emplace_back(p, static_cast<int>(kids.size()));
    for (const auto& [p, rows] : parents) {
        const QModelIndex parent = p == 0 ? QModelIndex() : createIndex(rowOf(p), 0, quintptr(p));
        emit dataChanged(index(0, 0, parent), index(rows - 1, ColumnCount - 1, parent));
    }
}

QVariant ObjectTreeModel::data(const QModelIndex& index, int role) const {
    const TreeEntry* e = entry(index);
    if (!e) return {};
    if (m_overlay) {
        QVariant v = m_overlay->data(*e, entryOf(index), index.column(), role);
        if (v.isValid()) return v;
    }
    const TensorInfo* t = e->tensor;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return nameText(*e);
        case KindColumn: return entryKindName(e->kind);
        case DTypeColumn: return t ? QString::fromLatin1(dataTypeShortName(t->dtype)) : QString();
        case ShapeColumn: return t ? QString::fromStdString(t->shape.toString()) : QString();
        case SizeColumn: return t ? formatBytes(t->storedBytes()) : QString();
        }
        return {};
    case Qt::DecorationRole: return index.column() == NameColumn ? kindIcon(e->kind) : QVariant();
    case Qt::ToolTipRole: {
        QString tip = pathText(*e);
        if (t && t->key != e->path) tip += QLatin1Char('\n') + QString::fromStdString(t->key);
        return tip;
    }
    case Qt::TextAlignmentRole: return index.column() == SizeColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case EntryRole: return entryOf(index);
    case PathRole: return pathText(*e);
    }
    return {};
}

QVariant ObjectTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case KindColumn: return tr("Kind");
    case DTypeColumn: return tr("DType");
    case ShapeColumn: return tr("Shape");
    case SizeColumn: return tr("Size");
    }
    return {};
}

}  // namespace ckpt::ui

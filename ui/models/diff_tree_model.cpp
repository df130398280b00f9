#include "models/diff_tree_model.h"

#include <QColor>
#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/object_tree_model.h"
#include "style/kind_icons.h"
#include "style/status_colors.h"

namespace ckpt::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString statusText(DiffStatus s) {
    const char letter = diffStatusLetter(s);
    const QString name = QString::fromLatin1(diffStatusName(s));
    return letter == ' ' ? name : QStringLiteral("%1  %2").arg(QLatin1Char(letter)).arg(name);
}

// Status order for sorting: what needs a look first; unchanged last.
int statusRank(DiffStatus s) {
    switch (s) {
    case DiffStatus::TypeChanged: return 0;
    case DiffStatus::Modified: return 1;
    case DiffStatus::Added: return 2;
    case DiffStatus::Deleted: return 3;
    case DiffStatus::Renamed: return 4;
    case DiffStatus::Unchanged: return 5;
    }
    return 6;
}

// ASCII case-insensitive order; other bytes compare as they are.
int compareFolded(const std::string& a, const std::string& b) {
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
        const auto ca = static_cast<unsigned char>(a[i]), cb = static_cast<unsigned char>(b[i]);
        const int la = ca >= 'A' && ca <= 'Z' ? ca + 32 : ca;
        const int lb = cb >= 'A' && cb <= 'Z' ? cb + 32 : cb;
        if (la != lb) return la < lb ? -1 : 1;
    }
    return a.size() == b.size() ? 0 : a.size() < b.size() ? -1 : 1;
}

QString number(double v, int precision = 4) {
    if (std::isnan(v)) return QObject::tr("n/a");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("\u221e") : QStringLiteral("-\u221e");
    return QLocale().toString(v, 'g', precision);
}

QString percent(double v) {
    if (v == 0) return QStringLiteral("0%");
    if (v < 0.1) return QStringLiteral("<0.1%");
    return QLocale().toString(v, 'f', 1) + QLatin1Char('%');
}

}  // namespace

void DiffTreeModel::setSnapshot(std::shared_ptr<const CompareSnapshot> snapshot, std::shared_ptr<const VisibleSet> visible) {
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_visible = std::move(visible);
    rebuildRows();
    endResetModel();
}

void DiffTreeModel::setVisibleSet(std::shared_ptr<const VisibleSet> visible) {
    beginResetModel();
    m_visible = std::move(visible);
    rebuildRows();
    endResetModel();
}

void DiffTreeModel::rebuildRows() {
    m_children.clear();
    m_row.clear();
}

bool DiffTreeModel::isVisible(int32_t n) const {
    return !m_visible || m_visible->visible.empty() || m_visible->visible[static_cast<size_t>(n)] != 0;
}

const std::vector<int32_t>& DiffTreeModel::childrenOf(int32_t n) const {
    if (const auto it = m_children.find(n); it != m_children.end()) return it->second;
    std::vector<int32_t> kids;
    for (int32_t c : m_snapshot->node(n).children)
        if (isVisible(c)) kids.push_back(c);
    sortChildren(kids);
    for (size_t r = 0; r < kids.size(); ++r) m_row[kids[r]] = static_cast<int32_t>(r);
    return m_children.emplace(n, std::move(kids)).first->second;
}

double DiffTreeModel::figure(int32_t n, int column) const {
    const DiffTreeNode& node = m_snapshot->node(n);
    if (const DiffEntry* e = m_snapshot->entry(n)) {
        if (!e->values) return kNaN;
        const TensorDiff& v = *e->values;
        switch (column) {
        case MaxAbsColumn: return v.maxAbsIndex < 0 ? kNaN : v.maxAbsDiff;
        case RelL2Column: return v.relL2;
        case CosineColumn: return v.cosine;
        case MismatchColumn:
            return v.elements > 0 ? 100.0 * static_cast<double>(v.mismatches) / static_cast<double>(v.elements) : kNaN;
        default: return kNaN;
        }
    }
    // An object: the largest figures below it, when something below was compared.
    if (node.below.modified == 0) return kNaN;
    switch (column) {
    case MaxAbsColumn: return node.maxAbsDiff;
    case RelL2Column: return node.maxRelL2;
    case CosineColumn: return node.minCosine;
    case MismatchColumn: return 100.0 * node.mismatchFraction;
    default: return kNaN;
    }
}

void DiffTreeModel::sortChildren(std::vector<int32_t>& kids) const {
    if (m_sortColumn < 0 || kids.size() < 2) return;
    const auto& nodes = m_snapshot->tree.nodes;
    const bool ascending = m_sortOrder == Qt::AscendingOrder;
    auto byText = [&](const QString& a, const QString& b) {
        const int c = a.compare(b, Qt::CaseInsensitive);
        return ascending ? c < 0 : c > 0;
    };
    switch (m_sortColumn) {
    case NameColumn:
        // On the stored UTF-8 without a QString per comparison: sorting a
        // 100,000-row level must not stall the GUI thread.
        std::stable_sort(kids.begin(), kids.end(), [&](int32_t a, int32_t b) {
            const int c = compareFolded(nodes[static_cast<size_t>(a)].name, nodes[static_cast<size_t>(b)].name);
            return ascending ? c < 0 : c > 0;
        });
        return;
    case StatusColumn:
        std::stable_sort(kids.begin(), kids.end(), [&](int32_t a, int32_t b) {
            const int ra = statusRank(nodes[static_cast<size_t>(a)].status),
                      rb = statusRank(nodes[static_cast<size_t>(b)].status);
            return ascending ? ra < rb : ra > rb;
        });
        return;
    case TypeColumn:
        std::stable_sort(kids.begin(), kids.end(), [&](int32_t a, int32_t b) {
            const DiffEntry* ea = m_snapshot->entry(a);
            const DiffEntry* eb = m_snapshot->entry(b);
            return byText(ea ? entryTypeText(*ea) : QString(), eb ? entryTypeText(*eb) : QString());
        });
        return;
    default: break;
    }
    // Figures: computed once per child, rows without one last in either order.
    std::vector<std::pair<double, int32_t>> keyed;
    keyed.reserve(kids.size());
    for (int32_t k : kids) keyed.emplace_back(figure(k, m_sortColumn), k);
    std::stable_sort(keyed.begin(), keyed.end(), [ascending](const auto& a, const auto& b) {
        const bool na = std::isnan(a.first), nb = std::isnan(b.first);
        if (na || nb) return !na && nb;
        return ascending ? a.first < b.first : a.first > b.first;
    });
    for (size_t i = 0; i < kids.size(); ++i) kids[i] = keyed[i].second;
}

void DiffTreeModel::sort(int column, Qt::SortOrder order) {
    m_sortColumn = column >= 0 && column < ColumnCount ? column : -1;
    m_sortOrder = order;
    if (!m_snapshot || m_snapshot->tree.nodes.empty()) return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<int32_t> nodesBefore;
    nodesBefore.reserve(static_cast<size_t>(before.size()));
    for (const QModelIndex& i : before) nodesBefore.push_back(nodeIndex(i));
    // Orders again only what is asked for: the persistent rows' parents now,
    // the rest as the view shows them.
    rebuildRows();
    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype i = 0; i < before.size(); ++i)
        after.append(indexForNode(nodesBefore[static_cast<size_t>(i)], before[i].column()));
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

int32_t DiffTreeModel::nodeIndex(const QModelIndex& index) const {
    return index.isValid() ? static_cast<int32_t>(index.internalId()) : -1;
}

const DiffTreeNode* DiffTreeModel::node(const QModelIndex& index) const {
    const int32_t n = nodeIndex(index);
    return n < 0 || !m_snapshot ? nullptr : &m_snapshot->node(n);
}

const DiffEntry* DiffTreeModel::entry(const QModelIndex& index) const {
    const int32_t n = nodeIndex(index);
    return n < 0 || !m_snapshot ? nullptr : m_snapshot->entry(n);
}

QModelIndex DiffTreeModel::indexForNode(int32_t n, int column) const {
    if (!m_snapshot || n <= 0 || static_cast<size_t>(n) >= m_snapshot->tree.nodes.size() || !isVisible(n)) return {};
    // A visible node's ancestors are visible (the sets lift matches upwards):
    // ordering its parent's children gives it a row.
    childrenOf(std::max(m_snapshot->node(n).parent, 0));
    const auto row = m_row.find(n);
    return row == m_row.end() ? QModelIndex() : createIndex(row->second, column, quintptr(n));
}

QModelIndex DiffTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!m_snapshot || m_snapshot->tree.nodes.empty() || row < 0 || column < 0 || column >= ColumnCount) return {};
    const int32_t p = parent.isValid() ? nodeIndex(parent) : 0;
    const auto& kids = childrenOf(p);
    if (row >= static_cast<int>(kids.size())) return {};
    return createIndex(row, column, quintptr(kids[static_cast<size_t>(row)]));
}

QModelIndex DiffTreeModel::parent(const QModelIndex& child) const {
    if (!m_snapshot || !child.isValid()) return {};
    const int32_t p = m_snapshot->node(nodeIndex(child)).parent;
    return p <= 0 ? QModelIndex() : indexForNode(p);
}

bool DiffTreeModel::hasChildren(const QModelIndex& parent) const {
    if (!m_snapshot || m_snapshot->tree.nodes.empty() || parent.column() > 0) return false;
    // Without ordering them: the view asks this of every row it paints.
    const int32_t p = parent.isValid() ? nodeIndex(parent) : 0;
    if (const auto it = m_children.find(p); it != m_children.end()) return !it->second.empty();
    const auto& kids = m_snapshot->node(p).children;
    return std::any_of(kids.begin(), kids.end(), [this](int32_t c) { return isVisible(c); });
}

int DiffTreeModel::rowCount(const QModelIndex& parent) const {
    if (!m_snapshot || m_snapshot->tree.nodes.empty() || parent.column() > 0) return 0;
    const int32_t p = parent.isValid() ? nodeIndex(parent) : 0;
    return static_cast<int>(childrenOf(p).size());
}

int DiffTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QString DiffTreeModel::figureText(int32_t n, int column) const {
    const double v = figure(n, column);
    if (std::isnan(v)) {
        // Cosine is undefined for an all-zero side; say so rather than leave a gap.
        const DiffEntry* e = m_snapshot->entry(n);
        return column == CosineColumn && e && e->values ? tr("n/a") : QString();
    }
    switch (column) {
    case CosineColumn: return number(v, 6);
    case MismatchColumn: return percent(v);
    default: return number(v);
    }
}

QString DiffTreeModel::toolTip(int32_t n) const {
    const DiffTreeNode& node = m_snapshot->node(n);
    QStringList lines;
    const DiffEntry* e = m_snapshot->entry(n);
    lines << statusText(node.status);
    if (e) {
        lines << entryPathText(*e);
        if (e->a && !e->a->key.empty()) lines << tr("A key: %1").arg(QString::fromStdString(e->a->key));
        if (e->b && !e->b->key.empty() && (!e->a || e->a->key != e->b->key))
            lines << tr("B key: %1").arg(QString::fromStdString(e->b->key));
        if (const QString type = entryTypeText(*e); !type.isEmpty()) lines << type;
        if (e->role == DiffRole::Object) lines << tr("%n value(s) with this object", nullptr, static_cast<int>(e->members));
        if (e->values && e->values->fromChecksums) lines << tr("Equal stored checksums: no values read");
    }
    const DiffCounts& c = node.below;
    if (!e || e->role == DiffRole::Object) {
        QStringList counts;
        if (c.modified) counts << tr("%1 modified").arg(c.modified);
        if (c.typeChanged) counts << tr("%1 type changed").arg(c.typeChanged);
        if (c.added) counts << tr("%1 added").arg(c.added);
        if (c.deleted) counts << tr("%1 deleted").arg(c.deleted);
        if (c.renamed) counts << tr("%1 renamed").arg(c.renamed);
        if (c.unchanged) counts << tr("%1 unchanged").arg(c.unchanged);
        if (!counts.isEmpty()) lines << tr("Below: %1").arg(counts.join(QStringLiteral(", ")));
        if (c.modified) lines << tr("Figures are the largest below (cosine: the smallest)");
    }
    return lines.join(QLatin1Char('\n'));
}

QVariant DiffTreeModel::data(const QModelIndex& index, int role) const {
    if (!m_snapshot || !index.isValid()) return {};
    const int32_t n = nodeIndex(index);
    const DiffTreeNode& node = m_snapshot->node(n);
    const DiffEntry* e = m_snapshot->entry(n);
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return e && e->status == DiffStatus::Renamed ? entryPathText(*e) : QString::fromStdString(node.name);
        case StatusColumn: return statusText(node.status);
        case TypeColumn: return e ? entryTypeText(*e) : QString();
        default: return figureText(n, column);
        }
    case Qt::DecorationRole:
        if (column == NameColumn) return diffStatusIcon(node.status);
        return {};
    case Qt::BackgroundRole:
        if (column == StatusColumn && node.status != DiffStatus::Unchanged) return statusBackground(diffStatusTone(node.status));
        return {};
    case Qt::ForegroundRole:
        if (column == StatusColumn && node.status != DiffStatus::Unchanged)
            return statusBackgroundText(diffStatusTone(node.status));
        // Unchanged rows recede, still readable.
        if (node.status == DiffStatus::Unchanged) return statusTextColor(StatusTone::Neutral);
        return {};
    case Qt::TextAlignmentRole:
        if (column >= MaxAbsColumn) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole: return toolTip(n);
    case Qt::AccessibleTextRole:
        if (column == NameColumn) return QStringLiteral("%1, %2").arg(QString::fromStdString(node.name), statusText(node.status));
        return {};
    case NodeRole: return n;
    case SortRole: return figure(n, column);
    default: return {};
    }
}

QVariant DiffTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn: return tr("Name");
        case StatusColumn: return tr("Status");
        case TypeColumn: return tr("DType / shape");
        case MaxAbsColumn: return tr("Max |\u0394|");
        case RelL2Column: return tr("Rel. L2");
        case CosineColumn: return tr("Cosine");
        case MismatchColumn: return tr("Mismatch");
        default: return {};
        }
    }
    if (role == Qt::InitialSortOrderRole) {
        // The first click answers "what changed most": largest figures
        // first, smallest cosine first, statuses that need a look first.
        return section == MaxAbsColumn || section == RelL2Column || section == MismatchColumn ? Qt::DescendingOrder
                                                                                              : Qt::AscendingOrder;
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case StatusColumn: return tr("A added, D deleted, M modified, T dtype or shape changed, R renamed");
        case MaxAbsColumn: return tr("Largest |a \u2212 b| over elements that are finite on both sides");
        case RelL2Column: return tr("|a \u2212 b| / |a| (L2 norms)");
        case CosineColumn: return tr("Cosine similarity of a and b; 1 when they point the same way");
        case MismatchColumn: return tr("Elements that differ beyond the dtype's tolerance");
        default: return {};
        }
    }
    return {};
}

}  // namespace ckpt::ui

#pragma once
// The compare view's merged tree over a CompareSnapshot: one row per
// DiffTreeNode that the visible set keeps, with the status letter (and a
// colour), the row's dtype/shape and the figures that answer "which layer
// changed most": max |Δ|, relative L2, cosine and the share of mismatching
// elements (an object shows the largest below it). Sorting orders siblings
// under each parent; rows without a figure stay last in either order.
// GUI thread only; never calls the engine.

#include <QAbstractItemModel>

#include <memory>
#include <unordered_map>
#include <vector>

#include "models/compare_snapshot.h"
#include "models/tree_filter.h"

namespace ckpt::ui {

class DiffTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, StatusColumn, TypeColumn, MaxAbsColumn, RelL2Column, CosineColumn, MismatchColumn, ColumnCount };
    enum Role { NodeRole = Qt::UserRole + 1, SortRole };

    using QAbstractItemModel::QAbstractItemModel;

    // Both reset the model; the current sort order is kept.
    void setSnapshot(std::shared_ptr<const CompareSnapshot> snapshot, std::shared_ptr<const VisibleSet> visible);
    void setVisibleSet(std::shared_ptr<const VisibleSet> visible);
    const std::shared_ptr<const CompareSnapshot>& snapshot() const { return m_snapshot; }

    // -1 for an invalid index (the root).
    int32_t nodeIndex(const QModelIndex& index) const;
    const DiffTreeNode* node(const QModelIndex& index) const;
    const DiffEntry* entry(const QModelIndex& index) const;
    // Invalid when the node is hidden.
    QModelIndex indexForNode(int32_t node, int column = 0) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // The figure a column shows for a node; NaN when it has none (objects
    // with nothing modified below, additions, deletions).
    double figure(int32_t node, int column) const;

private:
    void rebuildRows();
    bool isVisible(int32_t node) const;
    // The visible children of 'node' in display order, ordered (and their
    // rows numbered) the first time they are asked for.
    const std::vector<int32_t>& childrenOf(int32_t node) const;
    void sortChildren(std::vector<int32_t>& children) const;
    QString figureText(int32_t node, int column) const;
    QString toolTip(int32_t node) const;

    std::shared_ptr<const CompareSnapshot> m_snapshot;
    std::shared_ptr<const VisibleSet> m_visible;
    // Caches that the const accessors fill: a view asks for the children
    // of expanded nodes only, so neither a reset nor a sort orders a
    // million rows on the GUI thread while a few hundred are shown.
    mutable std::unordered_map<int32_t, std::vector<int32_t>> m_children;  // visible children, in display order
    mutable std::unordered_map<int32_t, int32_t> m_row;                    // a listed node's row under its parent
    int m_sortColumn = -1;                                                 // -1: the engine's order (by location)
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

}  // namespace ckpt::ui

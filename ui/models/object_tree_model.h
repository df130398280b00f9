#pragma once
// The explorer's object-graph tree over a CheckpointSnapshot. Rows are
// created lazily: a node's visible children are listed in fetchMore() when
// the view first expands it, so opening a 100,000-tensor checkpoint creates
// only the root's rows. Never calls the engine.

#include <QAbstractItemModel>

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "models/checkpoint_snapshot.h"
#include "models/entry_overlay.h"
#include "models/tree_filter.h"
#include "style/text_format.h"

namespace ckpt::ui {

class ObjectTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, DTypeColumn, ShapeColumn, SizeColumn, ColumnCount };
    enum Role { EntryRole = Qt::UserRole + 1, PathRole };

    using QAbstractItemModel::QAbstractItemModel;

    // Both reset the model.
    void setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot, std::shared_ptr<const VisibleSet> visible);
    void setVisibleSet(std::shared_ptr<const VisibleSet> visible);
    const std::shared_ptr<const CheckpointSnapshot>& snapshot() const { return m_snapshot; }
    // Replaces the overlay (nullptr removes it) and repaints the fetched rows.
    void setOverlay(std::shared_ptr<const EntryOverlay> overlay);

    const TreeEntry* entry(const QModelIndex& index) const;
    int32_t entryIndex(const QModelIndex& index) const;
    // Fetches the ancestors of 'entry' now and returns its index (invalid if hidden).
    QModelIndex indexForEntry(int32_t entry);
    // Inserts the visible children of 'entry' now instead of on the next
    // event-loop turn (for code that walks the tree, e.g. expanding matches).
    void insertChildren(int32_t entry);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool isVisible(int32_t entry) const;
    int32_t entryOf(const QModelIndex& index) const;  // 0 (root) for invalid
    // The visible children of a fetched entry; null when not fetched.
    const std::vector<int32_t>* fetchedChildren(int32_t entry) const;
    // The row of 'entry' under its parent; -1 when that parent is not fetched
    // or the entry is hidden.
    int32_t rowOf(int32_t entry) const;
    void resetState();

    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    std::shared_ptr<const VisibleSet> m_visible;
    std::shared_ptr<const EntryOverlay> m_overlay;
    // Only the entries whose rows exist have state, so a reset costs the
    // same for ten tensors as for a million (a vector per entry made every
    // open and filter of a million-tensor checkpoint a GUI-thread pass).
    // Each fetched entry's visible children, in entry order: a display tree
    // lists children in increasing index, so rowOf() is a binary search.
    std::unordered_map<int32_t, std::vector<int32_t>> m_fetched;
    std::unordered_set<int32_t> m_requested;  // fetchMore() queued the insertion
    quint64 m_generation = 0;                 // bumped on reset; stale queued fetches are dropped
    bool m_changing = false;                  // inside endInsertRows/endResetModel signals
};

QString entryKindName(EntryKind kind);

}  // namespace ckpt::ui

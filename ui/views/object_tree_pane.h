#pragma once
// The centre of the window: filter box (substring or regex), toggles for
// checkpoint keys and slot variables, and the lazy object-graph tree.
// Filtering runs over the whole snapshot on jobPool(); the model is then
// reset to the visible set, so typing never blocks on a huge graph.

#include <QWidget>

#include <memory>

#include "models/checkpoint_snapshot.h"
#include "models/tree_filter.h"
#include "views/inspector_page.h"

class QAction;
class QCheckBox;
class QLabel;
class QLineEdit;
class QTimer;
class QTreeView;

namespace ckpt::ui {

class JobTracker;
class ObjectTreeModel;

class ObjectTreePane : public QWidget {
    Q_OBJECT
public:
    explicit ObjectTreePane(JobTracker* jobs, QWidget* parent = nullptr);

    void setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot);
    const std::shared_ptr<const CheckpointSnapshot>& snapshot() const { return m_snapshot; }
    void focusFilter();
    // Selects and shows the node holding checkpoint key 'key' (the variable
    // rather than its key row when both exist), clearing a filter or turning
    // on the toggle that hides it. False when no entry holds the key.
    bool selectKey(const QString& key);

    // Appended to the rows' context menu (after Copy Path and Copy Key) and
    // given to the view for their shortcuts; they act on the current row.
    void setRowActions(const QList<QAction*>& actions);
    // The current row's entry in the snapshot; -1 for none.
    int32_t currentEntry() const;

    ObjectTreeModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QCheckBox* regexBox() const { return m_regex; }
    QCheckBox* keysBox() const { return m_keys; }
    QCheckBox* slotsBox() const { return m_slots; }
    // True while a filter computation is running.
    bool isFiltering() const { return m_filtering; }

signals:
    void selectionChanged(const TensorSelection& selection);
    void filterApplied();

private:
    void startFilter();
    // The entry holding checkpoint key 'key' (its variable row first); -1: none.
    int32_t entryForKey(const QString& key) const;
    // Expands to and selects 'entry'; false when it is not shown.
    bool showEntry(int32_t entry);
    // Selects m_reselectKey's entry again after a checkpoint switch.
    void reselect();
    void applyVisibleSet(std::shared_ptr<const VisibleSet> visible);
    void expandMatches();
    void onCurrentChanged();
    void showContextMenu(const QPoint& pos);
    TreeFilter currentFilter() const;

    JobTracker* m_jobs;
    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    ObjectTreeModel* m_model;
    QTreeView* m_view;
    QLineEdit* m_filter;
    QCheckBox* m_regex;
    QCheckBox* m_keys;
    QCheckBox* m_slots;
    QLabel* m_summary;
    QList<QAction*> m_rowActions;
    QTimer* m_debounce;
    QString m_reselectKey;         // the variable to select again, if shown
    bool m_emittedTensor = false;  // the last selectionChanged named a tensor
    QString m_emittedPath;         // and this path
    quint64 m_generation = 0;
    bool m_filtering = false;
};

}  // namespace ckpt::ui

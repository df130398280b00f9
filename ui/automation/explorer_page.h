#pragma once
// The explorer window as automation sees it: one page object through which
// the UI tests and the screenshot tour reach the window's parts, found by
// type or by the object names MainWindow gives them, so the window needs
// no getters that exist only for them. Header-only; GUI thread.
//   ExplorerPage page(window);
//   page.treePane()->filterEdit()->setText("kernel");
//   QTRY_VERIFY(page.isIdle());

#include <QAction>
#include <QItemSelectionModel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>

#include <memory>

#include "jobs/job_tracker.h"
#include "models/directory_model.h"
#include "views/catalog_controller.h"
#include "views/catalog_search_view.h"
#include "views/checkpoint_sidebar.h"
#include "views/compare_view.h"
#include "views/error_panel.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/opening_panel.h"
#include "views/recent_files.h"
#include "views/restore_view.h"
#include "views/retention_preview.h"
#include "views/schedules_view.h"
#include "views/surgery_controller.h"
#include "views/tensor_inspector.h"

namespace ckpt::ui {

class ExplorerPage {
public:
    explicit ExplorerPage(MainWindow& window) : m_window(window) {}

    MainWindow& window() const { return m_window; }
    JobTracker* jobs() const { return find<JobTracker>(); }
    CheckpointSidebar* sidebar() const { return find<CheckpointSidebar>(); }
    DirectoryModel* directories() const { return sidebar()->directories(); }
    // The object graph's tree (the restore view has its own).
    ObjectTreePane* treePane() const { return find<ObjectTreePane>(QStringLiteral("objectTree")); }
    TensorInspector* inspector() const { return find<TensorInspector>(); }
    ErrorPanel* errorPanel() const { return find<ErrorPanel>(); }
    // Shown while a checkpoint on object storage opens, with Cancel.
    OpeningPanel* openingPanel() const { return find<OpeningPanel>(); }
    RestoreView* restoreView() const { return find<RestoreView>(); }
    CompareView* compareView() const { return find<CompareView>(); }
    SchedulesView* schedulesView() const { return find<SchedulesView>(); }
    RetentionPreview* retentionPreview() const { return find<RetentionPreview>(); }
    CatalogSearchView* searchView() const { return find<CatalogSearchView>(); }
    CatalogController* catalog() const { return find<CatalogController>(); }
    RecentFiles* recent() const { return find<RecentFiles>(); }
    QStringList recentFiles() const { return recent()->paths(); }
    QTabWidget* workspace() const { return find<QTabWidget>(QStringLiteral("workspace")); }
    QSplitter* splitter() const { return find<QSplitter>(QStringLiteral("panes")); }
    QMenu* recentMenu() const { return find<QMenu>(QStringLiteral("recentMenu")); }
    QAction* inspectorAction() const { return find<QAction>(QStringLiteral("showInspector")); }
    QPushButton* demoButton() const { return find<QPushButton>(QStringLiteral("generateDemo")); }
    // Checkpoint ▸ Save As, Strip Optimizer, …: the dialogs, and finished().
    SurgeryController* surgery() const { return find<SurgeryController>(); }
    // Shown after a surgery wrote a checkpoint: opens it.
    QPushButton* openResultButton() const { return find<QPushButton>(QStringLiteral("openResult")); }

    // The checkpoint the object graph shows; null when none is (or it failed).
    std::shared_ptr<const CheckpointSnapshot> snapshot() const { return treePane()->snapshot(); }
    // The object graph tab shows the error panel (the last open failed).
    bool isErrorShown() const {
        auto* stack = qobject_cast<QStackedWidget*>(errorPanel()->parentWidget());
        return stack && stack->currentWidget() == errorPanel();
    }

    bool isOpeningShown() const {
        auto* stack = qobject_cast<QStackedWidget*>(openingPanel()->parentWidget());
        return stack && stack->currentWidget() == openingPanel();
    }

    // The sidebar's row of a checkpoint, as the view shows it (sorted).
    QModelIndex sidebarRow(const QString& prefix) const { return sidebar()->indexForPrefix(prefix); }
    // Selects exactly these checkpoints in the sidebar, as Ctrl+click would.
    void selectCheckpoints(const QStringList& prefixes) const {
        QItemSelectionModel* selection = sidebar()->selectionModel();
        selection->clearSelection();
        for (const QString& p : prefixes)
            selection->select(sidebarRow(p), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    // No background job is running.
    bool isIdle() const { return jobs()->active().isEmpty(); }

private:
    template <typename T>
    T* find(const QString& name = {}) const {
        T* found = m_window.findChild<T*>(name);
        Q_ASSERT_X(found, "ExplorerPage", "the window lacks a part the page object expects");
        return found;
    }

    MainWindow& m_window;
};

}  // namespace ckpt::ui

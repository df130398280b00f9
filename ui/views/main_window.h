#pragma once
// The explorer window: the checkpoint sidebar (CheckpointSidebar), the
// object-graph tree (or an error panel) in a workspace tab, the tensor
// inspector on the right, background-job progress in the status bar.
// The restore, compare, schedules and retention views are workspace tabs
// (addWorkspaceView() adds more); two checkpoints selected in the sidebar compare with Ctrl+D, or by
// dropping one onto the other. With nothing open, the welcome page offers
// demo checkpoints. With a catalog (setCatalogPath), the sidebar also lists
// its directories, every opened directory becomes one of its roots, and the
// Search tab (Ctrl+Shift+F) finds keys across every catalogued checkpoint.
// Pane widths have floors (no pane squeezes another's columns away), the
// inspector is hidden rather than narrowed (View ▸ Show Inspector), and
// geometry and widths come back at the next launch when they still fit the
// screen (main_window_layout.cpp). Menus, shortcuts, Open Recent, drops
// anywhere in the window and the Help pages: main_window_menus.cpp.

#include <QMainWindow>
#include <QStringList>

#include <functional>
#include <memory>

#include "models/checkpoint_snapshot.h"

class QAction;
class QFileDialog;
class QLabel;
class QMenu;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTreeView;

namespace ckpt::ui {

class CatalogController;
class CatalogSearchView;
class CheckpointOpener;
class CheckpointSidebar;
class DemoController;
class DirectoryModel;
class CompareView;
class AverageDialog;
class EditDialog;
class ExportDialog;
class ErrorPanel;
class AboutDialog;
class ShortcutsDialog;
class RecentMenu;
class JobControl;
class SurgeryController;
class JobTracker;
class ObjectTreePane;
class RestoreView;
class RetentionPreview;
class SchedulesView;
class TensorInspector;
class WelcomePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Floors of the three panes' widths: the sidebar keeps its name, step
    // and time columns readable, the inspector its tabs and value grid.
    static constexpr int kSidebarMinWidth = 220;
    static constexpr int kCentreMinWidth = 300;
    static constexpr int kInspectorMinWidth = 260;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // A prefix, .index/.data file, checkpoint directory or SavedModel.
    void openPath(const QString& path);
    void refresh();
    void closeCurrent();
    void addWorkspaceView(QWidget* view, const QString& title);
    // Trains the demo model into 'directory' as a background job, then opens
    // the directory (its latest checkpoint).
    void generateDemo(const QString& directory);
    // --demo DIR: opens the demo in DIR, generating it first when missing.
    void openDemo(const QString& directory);
    // Shows the Compare tab comparing A (before) with B (after).
    void compare(const QString& pathA, const QString& pathB);
    // The two checkpoints selected in the sidebar (older as A), or the one
    // selected with the one before it.
    void compareSelected();
    // 'prefix' with the checkpoint before it in its directory.
    void compareWithPrevious(const QString& prefix);

    // The catalog file (ckpt/catalog.h) to use; empty: none, the default,
    // so that tests never touch the user's. A file that cannot be opened is
    // reported and left alone; the explorer then works without it.
    void setCatalogPath(const QString& path);
    CatalogController* catalog() const { return m_catalog; }
    CatalogSearchView* searchView() const { return m_search; }
    // Shows the Search tab with its box focused (Ctrl+Shift+F).
    void showSearch();
    // Opens 'prefix' unless it is shown and selects the node holding 'key'.
    void openAt(const QString& prefix, const QString& key);

    JobTracker* jobs() const { return m_jobs; }
    DirectoryModel* directories() const;
    QTreeView* sidebar() const;
    ObjectTreePane* treePane() const { return m_tree; }
    TensorInspector* inspector() const { return m_inspector; }
    ErrorPanel* errorPanel() const { return m_error; }
    RestoreView* restoreView() const { return m_restore; }
    CompareView* compareView() const { return m_compare; }
    SchedulesView* schedulesView() const { return m_schedules; }
    RetentionPreview* retentionPreview() const { return m_retention; }
    QTabWidget* workspace() const { return m_workspace; }
    QSplitter* splitter() const { return m_splitter; }
    // View ▸ Show Inspector: checked unless the user hid the inspector.
    QAction* inspectorAction() const { return m_inspectorAction; }
    // Help ▸ Keyboard Shortcuts and Help ▸ About, opened window-modal.
    ShortcutsDialog* showShortcuts();
    // View ▸ Reset Layout: the default pane widths for the window's width,
    // the inspector shown.
    void resetLayout();
    AboutDialog* showAbout();

signals:
    // After each openPath()/refresh(): whether the checkpoint opened.
    void checkpointOpened(bool ok);
    void healthChanged(const QString& prefix);
    // After generateDemo(): whether training and saving worked (the open follows).
    void demoGenerated(bool ok, const QString& directory);
    // The catalog cannot be used; 'message' names the file and says why.
    void catalogUnavailable(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    // Drops of local files onto any widget of the window open them, even
    // where the widget (a filter box, a view) would take them as text.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void createActions(WelcomePage* welcome);
    void createCatalogMenu();
    void onCatalogOverview();
    void onCatalogUnavailable(const QString& message);
    void forgetDirectory(const QString& dir);

public:
    // File ▸ Open: a dialog for an index, data file, state file or
    // SavedModel; choosing one opens its checkpoint.
    QFileDialog* openDialog();

private:
    void createHelpMenu();
    void giveToolTips(const QList<QAction*>& actions);
    void readSettings();
    void writeSettings();
    void setPaneWidths(int sidebar, int inspector);
    void updateInspectorVisibility();

    JobTracker* m_jobs;
    CheckpointSidebar* m_sidebar;
    QTabWidget* m_workspace;
    QStackedWidget* m_stack;
    ObjectTreePane* m_tree;
    ErrorPanel* m_error;
    TensorInspector* m_inspector;
    RestoreView* m_restore;
    CompareView* m_compare;
    SchedulesView* m_schedules;
    RetentionPreview* m_retention;
    QSplitter* m_splitter;
    QAction* m_inspectorAction = nullptr;
    QAction* m_showInCompare = nullptr;  // the tree rows' context menu
    int m_inspectorWidth = 0;            // its last width while shown, kept while hidden
    QLabel* m_location;
    CheckpointOpener* m_opener = nullptr;
    RecentMenu* m_recent = nullptr;
    DemoController* m_demo = nullptr;

    CatalogController* m_catalog = nullptr;
    CatalogSearchView* m_search = nullptr;
    QList<QAction*> m_catalogActions;  // enabled while the catalog is usable
    SurgeryController* m_surgery = nullptr;
};

}  // namespace ckpt::ui

#pragma once
// The explorer window, a composition: it creates the panes (the checkpoint
// sidebar, the workspace tabs, the tensor inspector, the status bar) and
// the controllers that act on them, and wires their signals. The object
// graph tab shows the welcome page, the tree or an error panel
// (CheckpointOpener); Restore, Compare (CompareController), Schedules,
// Retention and Search (CatalogPresenter) are the other tabs
// (addWorkspaceView() adds more); Checkpoint ▸ surgery is
// SurgeryController's, demo checkpoints DemoController's, File ▸ Open
// Recent RecentMenu's, the panes' widths and the inspector's visibility
// PaneLayout's. Menus, shortcuts and drops anywhere in the window:
// main_window_menus.cpp. Tests and the screenshot tour reach the parts
// through ui/automation/explorer_page.h, not through getters here.

#include <QMainWindow>
#include <QString>

#include "views/pane_layout.h"

class QFileDialog;
class QStackedWidget;
class QTabWidget;

namespace ckpt::ui {

class AboutDialog;
class CatalogController;
class CatalogPresenter;
class CheckpointOpener;
class CheckpointSidebar;
class CompareController;
class CompareView;
class DemoController;
class JobTracker;
class ObjectTreePane;
class OpenLocationDialog;
class SchedulesView;
class ShortcutsDialog;
class SurgeryController;
class WelcomePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Floors of the three panes' widths (PaneLayout).
    static constexpr int kSidebarMinWidth = PaneLayout::kSidebarMinWidth;
    static constexpr int kCentreMinWidth = PaneLayout::kCentreMinWidth;
    static constexpr int kInspectorMinWidth = PaneLayout::kInspectorMinWidth;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // A prefix, .index/.data file, checkpoint directory or SavedModel, on
    // disk or on object storage (s3://, gs://).
    void openPath(const QString& path);
    void refresh();
    void closeCurrent();
    // File ▸ Open: a dialog for an index, data file, state file or
    // SavedModel; choosing one opens its checkpoint.
    QFileDialog* openDialog();
    // File ▸ Open Location (Ctrl+L): an s3:// or gs:// URL or a path, with
    // the recent locations; choosing one opens it.
    OpenLocationDialog* openLocationDialog();
    // Opens 'prefix' unless it is shown and selects the node holding 'key'.
    void openAt(const QString& prefix, const QString& key);
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

    // The catalog file (ckpt/catalog.h) to use; empty: none, the default,
    // so that tests never touch the user's. A file that cannot be opened is
    // reported and left alone; the explorer then works without it.
    void setCatalogPath(const QString& path);
    // Shows the Search tab with its box focused (Ctrl+Shift+F).
    void showSearch();
    // The schedule store the Schedules tab reads and writes (--store, --catalog).
    void setScheduleStorePath(const QString& path);

    // View ▸ Reset Layout: the default pane widths for the window's width,
    // the inspector shown.
    void resetLayout();
    // Help ▸ Keyboard Shortcuts and Help ▸ About, opened window-modal.
    ShortcutsDialog* showShortcuts();
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
    // File, View, Checkpoint, Catalog and Help, and the toolbar.
    void createMenus(WelcomePage* welcome, ObjectTreePane* tree, CompareView* compareView);
    void createHelpMenu();
    void giveToolTips(const QList<QAction*>& actions);

    JobTracker* m_jobs;
    CheckpointSidebar* m_sidebar;
    QTabWidget* m_workspace;
    QStackedWidget* m_objectGraph;  // the workspace's first tab: welcome, tree or error
    SchedulesView* m_schedules;
    CatalogController* m_catalog;
    CheckpointOpener* m_opener = nullptr;
    DemoController* m_demo = nullptr;
    CompareController* m_comparison = nullptr;
    SurgeryController* m_surgery = nullptr;
    CatalogPresenter* m_catalogPresenter = nullptr;
    PaneLayout* m_layout = nullptr;
};

}  // namespace ckpt::ui

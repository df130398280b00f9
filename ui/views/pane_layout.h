#pragma once
// The window's three panes side by side (sidebar, workspace, inspector) and
// their widths: floors so that no pane squeezes another's columns away,
// the inspector shown only where tensors are inspected (the object graph,
// the restore view) and hidden rather than narrowed (View ▸ Show
// Inspector), and the layout kept across sessions in QSettings
// ("window/…"). What is read back is checked before use: a geometry saved
// on a larger screen (or unreadable) gives way to a default sized to this
// screen, and pane widths that no longer fit give way to defaults, so a
// launch never starts with a pane squeezed under its floor.

#include <QObject>

class QAction;
class QMainWindow;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QWidget;

namespace ckpt::ui {

class ObjectTreePane;
class RestoreView;
class TensorInspector;

// The parts whose widths and visibility are set here; the window owns them.
struct PaneParts {
    QMainWindow* window;
    QSplitter* splitter;  // holds sidebar, workspace and inspector, in this order
    QWidget* sidebar;
    QTabWidget* workspace;
    QStackedWidget* objectGraph;  // the workspace's first tab
    ObjectTreePane* tree;
    RestoreView* restore;
    TensorInspector* inspector;
};

class PaneLayout : public QObject {
    Q_OBJECT
public:
    // Floors of the three panes' widths: the sidebar keeps its name, step
    // and time columns readable, the inspector its tabs and value grid.
    static constexpr int kSidebarMinWidth = 220;
    static constexpr int kCentreMinWidth = 300;
    static constexpr int kInspectorMinWidth = 260;

    explicit PaneLayout(const PaneParts& parts, QObject* parent = nullptr);

    // View ▸ Show Inspector: checked unless the user hid the inspector.
    QAction* inspectorAction() const { return m_inspectorAction; }
    // The window's geometry and the pane widths saved last, where they still fit.
    void readSettings();
    void writeSettings();
    // View ▸ Reset Layout: the default pane widths for the window's width,
    // the inspector shown.
    void resetLayout();
    // Shows or hides the inspector for the tab shown and the room left
    // (after a tab switch, a resize, the action toggled).
    void updateInspectorVisibility();

private:
    void setPaneWidths(int sidebar, int inspector);

    PaneParts m_parts;
    QAction* m_inspectorAction;
    int m_inspectorWidth = 0;  // its last width while shown, kept while hidden
};

}  // namespace ckpt::ui

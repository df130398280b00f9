// MainWindow's layout across sessions: window geometry, the sidebar's and
// inspector's widths and whether the inspector is shown, kept in QSettings
// ("window/…"). What is read back is checked before use: a geometry saved
// on a larger screen (or unreadable) gives way to a default sized to this
// screen, and pane widths that no longer fit give way to defaults, so a
// launch never starts with a pane squeezed under its floor.

#include <QAction>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>

#include <algorithm>

#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/restore_view.h"
#include "views/tensor_inspector.h"

namespace ckpt::ui {
namespace {

const QString kGeometry = QStringLiteral("window/geometry");
const QString kSize = QStringLiteral("window/size");
const QString kState = QStringLiteral("window/state");
const QString kSidebarWidth = QStringLiteral("window/sidebarWidth");
const QString kInspectorWidth = QStringLiteral("window/inspectorWidth");
const QString kInspectorShown = QStringLiteral("window/inspectorShown");

// About a fifth of the window for the sidebar, a third for the inspector.
int defaultSidebarWidth(int windowWidth) { return std::clamp(windowWidth / 5, MainWindow::kSidebarMinWidth, 360); }
int defaultInspectorWidth(int windowWidth) { return std::clamp(windowWidth * 3 / 10, MainWindow::kInspectorMinWidth, 520); }

}  // namespace

void MainWindow::readSettings() {
    QSettings s;
    const QRect screen = (this->screen() ? this->screen() : QGuiApplication::primaryScreen())->availableGeometry();
    // Qt would shrink an oversized geometry itself, but the pane widths saved
    // with it belong to the larger window: both are dropped together.
    const QSize saved = s.value(kSize).toSize();
    const bool fits = saved.isValid() && saved.width() <= screen.width() && saved.height() <= screen.height();
    const bool restored = fits && restoreGeometry(s.value(kGeometry).toByteArray());
    if (!restored) {
        resize(std::min(1280, screen.width() * 9 / 10), std::min(800, screen.height() * 9 / 10));
        move(screen.center() - rect().center());
    }
    restoreState(s.value(kState).toByteArray());

    bool sidebarOk = false;
    bool inspectorOk = false;
    int sidebar = s.value(kSidebarWidth).toInt(&sidebarOk);
    int inspector = s.value(kInspectorWidth).toInt(&inspectorOk);
    const bool widthsFit = restored && sidebarOk && inspectorOk && sidebar >= kSidebarMinWidth &&
                           inspector >= kInspectorMinWidth && sidebar + inspector + kCentreMinWidth <= width();
    if (!widthsFit) {
        sidebar = defaultSidebarWidth(width());
        inspector = defaultInspectorWidth(width());
    }
    setPaneWidths(sidebar, inspector);
    m_inspectorAction->setChecked(s.value(kInspectorShown, true).toBool());
    updateInspectorVisibility();
}

void MainWindow::writeSettings() {
    QSettings s;
    s.setValue(kGeometry, saveGeometry());
    s.setValue(kSize, size());
    s.setValue(kState, saveState());
    s.setValue(kSidebarWidth, m_splitter->sizes().value(0));
    if (const int shown = m_splitter->sizes().value(2); m_inspector->isVisible() && shown >= kInspectorMinWidth)
        m_inspectorWidth = shown;
    s.setValue(kInspectorWidth, m_inspectorWidth);
    s.setValue(kInspectorShown, m_inspectorAction->isChecked());
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    updateInspectorVisibility();
}

void MainWindow::resetLayout() {
    m_inspectorAction->setChecked(true);
    setPaneWidths(defaultSidebarWidth(width()), defaultInspectorWidth(width()));
    updateInspectorVisibility();
}

void MainWindow::setPaneWidths(int sidebar, int inspector) {
    m_inspectorWidth = inspector;
    const int centre = std::max(kCentreMinWidth, width() - sidebar - inspector);
    m_splitter->setSizes({sidebar, centre, inspector});
}

void MainWindow::updateInspectorVisibility() {
    // Only the object graph (not the welcome page or an error) and the
    // restore view inspect tensors; the others use the inspector's room
    // (compare has its own detail pane).
    const bool inspecting = (m_workspace->currentWidget() == m_stack && m_stack->currentWidget() == m_tree) ||
                            m_workspace->currentWidget() == m_restore;
    // In a narrow window the inspector gives way to the restore view (its
    // target row and legend need the width) rather than both clipping; the
    // object graph keeps it, being what it is inspected from.
    const QList<int> sizes = m_splitter->sizes();
    const int centreRoom = m_splitter->width() - sizes.value(0) - std::max(m_inspectorWidth, kInspectorMinWidth);
    const bool room =
        !isVisible() || m_workspace->currentWidget() != m_restore || m_restore->minimumSizeHint().width() <= centreRoom;
    const bool show = inspecting && room && m_inspectorAction->isChecked();
    if (show == m_inspector->isVisibleTo(this)) return;
    if (!show) {
        // Before the first layout the splitter reports 0: keep the width set.
        if (const int shown = m_splitter->sizes().value(2); shown >= kInspectorMinWidth) m_inspectorWidth = shown;
        m_inspector->hide();
        return;
    }
    // Back at its last width, taken from the centre (never below the centre's floor).
    m_inspector->show();
    const int total = sizes.value(0) + sizes.value(1) + sizes.value(2);
    const int inspector =
        std::clamp(m_inspectorWidth, kInspectorMinWidth, std::max(kInspectorMinWidth, total - sizes.value(0) - kCentreMinWidth));
    m_splitter->setSizes({sizes.value(0), std::max(kCentreMinWidth, total - sizes.value(0) - inspector), inspector});
}

}  // namespace ckpt::ui

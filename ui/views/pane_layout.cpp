#include "views/pane_layout.h"

#include <QAction>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>

#include <algorithm>

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
int defaultSidebarWidth(int windowWidth) { return std::clamp(windowWidth / 5, PaneLayout::kSidebarMinWidth, 360); }
int defaultInspectorWidth(int windowWidth) { return std::clamp(windowWidth * 3 / 10, PaneLayout::kInspectorMinWidth, 520); }

}  // namespace

PaneLayout::PaneLayout(const PaneParts& parts, QObject* parent)
    : QObject(parent), m_parts(parts), m_inspectorAction(new QAction(tr("Show &Inspector"), this)) {
    QSplitter* splitter = m_parts.splitter;
    // Explicit floors: without them the splitter follows the panes' size
    // hints, which grow with their content (the inspector's value grid
    // squeezed the sidebar to 95 px as soon as a variable was selected).
    m_parts.sidebar->setMinimumWidth(kSidebarMinWidth);
    m_parts.workspace->setMinimumWidth(kCentreMinWidth);
    m_parts.inspector->setMinimumWidth(kInspectorMinWidth);
    splitter->setChildrenCollapsible(false);
    // A wider window widens the centre first; the sidebar keeps its width.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 1);

    m_inspectorAction->setObjectName(QStringLiteral("showInspector"));
    m_inspectorAction->setCheckable(true);
    m_inspectorAction->setChecked(true);
    m_inspectorAction->setShortcut(QKeySequence(Qt::Key_F9));
    m_inspectorAction->setToolTip(tr("Show or hide the tensor inspector pane"));
    connect(m_inspectorAction, &QAction::toggled, this, &PaneLayout::updateInspectorVisibility);
    // Only the object graph and the restore view inspect tensors; the
    // others use the inspector's room (compare has its own detail pane).
    connect(m_parts.workspace, &QTabWidget::currentChanged, this, &PaneLayout::updateInspectorVisibility);
    connect(m_parts.objectGraph, &QStackedWidget::currentChanged, this, &PaneLayout::updateInspectorVisibility);
}

void PaneLayout::readSettings() {
    QSettings s;
    QMainWindow* window = m_parts.window;
    const QRect screen = (window->screen() ? window->screen() : QGuiApplication::primaryScreen())->availableGeometry();
    // Qt would shrink an oversized geometry itself, but the pane widths saved
    // with it belong to the larger window: both are dropped together.
    const QSize saved = s.value(kSize).toSize();
    const bool fits = saved.isValid() && saved.width() <= screen.width() && saved.height() <= screen.height();
    const bool restored = fits && window->restoreGeometry(s.value(kGeometry).toByteArray());
    if (!restored) {
        window->resize(std::min(1280, screen.width() * 9 / 10), std::min(800, screen.height() * 9 / 10));
        window->move(screen.center() - window->rect().center());
    }
    window->restoreState(s.value(kState).toByteArray());

    bool sidebarOk = false;
    bool inspectorOk = false;
    int sidebar = s.value(kSidebarWidth).toInt(&sidebarOk);
    int inspector = s.value(kInspectorWidth).toInt(&inspectorOk);
    const bool widthsFit = restored && sidebarOk && inspectorOk && sidebar >= kSidebarMinWidth &&
                           inspector >= kInspectorMinWidth && sidebar + inspector + kCentreMinWidth <= window->width();
    if (!widthsFit) {
        sidebar = defaultSidebarWidth(window->width());
        inspector = defaultInspectorWidth(window->width());
    }
    setPaneWidths(sidebar, inspector);
    m_inspectorAction->setChecked(s.value(kInspectorShown, true).toBool());
    updateInspectorVisibility();
}

void PaneLayout::writeSettings() {
    QSettings s;
    s.setValue(kGeometry, m_parts.window->saveGeometry());
    s.setValue(kSize, m_parts.window->size());
    s.setValue(kState, m_parts.window->saveState());
    s.setValue(kSidebarWidth, m_parts.splitter->sizes().value(0));
    if (const int shown = m_parts.splitter->sizes().value(2); m_parts.inspector->isVisible() && shown >= kInspectorMinWidth)
        m_inspectorWidth = shown;
    s.setValue(kInspectorWidth, m_inspectorWidth);
    s.setValue(kInspectorShown, m_inspectorAction->isChecked());
}

void PaneLayout::resetLayout() {
    m_inspectorAction->setChecked(true);
    setPaneWidths(defaultSidebarWidth(m_parts.window->width()), defaultInspectorWidth(m_parts.window->width()));
    updateInspectorVisibility();
}

void PaneLayout::setPaneWidths(int sidebar, int inspector) {
    m_inspectorWidth = inspector;
    const int centre = std::max(kCentreMinWidth, m_parts.window->width() - sidebar - inspector);
    m_parts.splitter->setSizes({sidebar, centre, inspector});
}

void PaneLayout::updateInspectorVisibility() {
    // Only the object graph (not the welcome page or an error) and the
    // restore view inspect tensors; the others use the inspector's room
    // (compare has its own detail pane).
    const bool inspecting =
        (m_parts.workspace->currentWidget() == m_parts.objectGraph && m_parts.objectGraph->currentWidget() == m_parts.tree) ||
        m_parts.workspace->currentWidget() == m_parts.restore;
    // In a narrow window the inspector gives way to the restore view (its
    // target row and legend need the width) rather than both clipping; the
    // object graph keeps it, being what it is inspected from.
    const QList<int> sizes = m_parts.splitter->sizes();
    const int centreRoom = m_parts.splitter->width() - sizes.value(0) - std::max(m_inspectorWidth, kInspectorMinWidth);
    const bool room = !m_parts.window->isVisible() || m_parts.workspace->currentWidget() != m_parts.restore ||
                      m_parts.restore->minimumSizeHint().width() <= centreRoom;
    const bool show = inspecting && room && m_inspectorAction->isChecked();
    if (show == m_parts.inspector->isVisibleTo(m_parts.window)) return;
    if (!show) {
        // Before the first layout the splitter reports 0: keep the width set.
        if (const int shown = m_parts.splitter->sizes().value(2); shown >= kInspectorMinWidth) m_inspectorWidth = shown;
        m_parts.inspector->hide();
        return;
    }
    // Back at its last width, taken from the centre (never below the centre's floor).
    m_parts.inspector->show();
    const int total = sizes.value(0) + sizes.value(1) + sizes.value(2);
    const int inspector =
        std::clamp(m_inspectorWidth, kInspectorMinWidth, std::max(kInspectorMinWidth, total - sizes.value(0) - kCentreMinWidth));
    m_parts.splitter->setSizes({sizes.value(0), std::max(kCentreMinWidth, total - sizes.value(0) - inspector), inspector});
}

}  // namespace ckpt::ui

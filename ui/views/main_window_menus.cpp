// MainWindow's menus and desktop conventions: File (Open, Open Directory,
// Open Location, Open Recent, Close), View (Refresh, Find, Compare, Show Inspector, Cancel), the
// controllers' Checkpoint and Catalog menus, Help (Keyboard Shortcuts
// generated from these actions, About), toolbar tooltips that name the
// shortcut, and drops of files anywhere in the window.

#include <QAction>
#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPushButton>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include "jobs/checkpoint_jobs.h"
#include "jobs/job_tracker.h"
#include "views/about_dialog.h"
#include "views/checkpoint_sidebar.h"
#include "views/compare_view.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/pane_layout.h"
#include "views/catalog_presenter.h"
#include "views/checkpoint_opener.h"
#include "views/compare_controller.h"
#include "views/recent_menu.h"
#include "views/shortcuts_dialog.h"
#include "views/surgery_controller.h"

namespace ckpt::ui {
namespace {

// The local files and directories a drag carries; none for the sidebar's
// own row drags (they compare, handled by the sidebar).
QStringList droppedPaths(const QMimeData* mime) {
    QStringList paths;
    if (!mime || !mime->hasUrls()) return paths;
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    return paths;
}

}  // namespace

void MainWindow::createMenus(WelcomePage* welcome, ObjectTreePane* tree, CompareView* compareView) {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QToolBar* tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->setAccessibleName(tr("Main toolbar"));
    tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);

    QAction* open = file->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open Checkpoint\u2026"), this,
                                    &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open a checkpoint prefix, .index file or SavedModel"));
    QAction* openDir = file->addAction(style()->standardIcon(QStyle::SP_DirOpenIcon), tr("Open &Directory\u2026"), m_opener,
                                       &CheckpointOpener::openDirectoryDialog);
    openDir->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openDir->setToolTip(tr("Open a directory of checkpoints (its latest one)"));
    QAction* openLocation = file->addAction(style()->standardIcon(QStyle::SP_DriveNetIcon), tr("Open &Location\u2026"), this,
                                            &MainWindow::openLocationDialog);
    openLocation->setObjectName(QStringLiteral("openLocation"));
    openLocation->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    openLocation->setToolTip(tr("Open a checkpoint or run by URL (s3://, gs://) or path"));
    QMenu* recentMenu = file->addMenu(tr("Open &Recent"));
    recentMenu->setObjectName(QStringLiteral("recentMenu"));
    auto* recent = new RecentMenu(recentMenu, welcome, this);
    connect(recent, &RecentMenu::openRequested, m_opener, &CheckpointOpener::openPath);
    connect(m_opener, &CheckpointOpener::opening, recent, &RecentMenu::add);
    QAction* close = file->addAction(tr("&Close Checkpoint"), this, &MainWindow::closeCurrent);
    // Ctrl+W everywhere: some platform themes map QKeySequence::Close to
    // Ctrl+F4 only. Others map it to Ctrl+W too, bound once: a key bound
    // twice to one action is ambiguous and does nothing.
    QList<QKeySequence> closeKeys{QKeySequence(Qt::CTRL | Qt::Key_W)};
    for (const QKeySequence& k : QKeySequence::keyBindings(QKeySequence::Close))
        if (!closeKeys.contains(k)) closeKeys << k;
    close->setShortcuts(closeKeys);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* refreshAction =
        view->addAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("&Reload"), this, &MainWindow::refresh);
    refreshAction->setShortcut(QKeySequence(Qt::Key_F5));
    refreshAction->setToolTip(tr("List the directories again and reopen the checkpoint from disk"));
    QAction* find = view->addAction(tr("&Find\u2026"), this, [this, tree, compareView] {
        if (m_workspace->currentWidget() == compareView) compareView->focusFilter();
        else tree->focusFilter();
    });
    find->setShortcut(QKeySequence::Find);
    find->setToolTip(tr("Filter the object graph (or the comparison) by name"));
    QAction* compareAction = view->addAction(style()->standardIcon(QStyle::SP_FileDialogContentsView), tr("&Compare Checkpoints"),
                                             m_comparison, &CompareController::compareSelected);
    compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    compareAction->setToolTip(
        tr("Compare the two checkpoints selected in the sidebar, or the selected one with the one before it"));
    view->addSeparator();
    view->addAction(m_layout->inspectorAction());
    view->addAction(tr("Reset &Layout"), m_layout, &PaneLayout::resetLayout);
    view->addSeparator();
    QAction* cancel = view->addAction(tr("&Cancel Background Work"), m_jobs, &JobTracker::cancelByUser);
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setShortcutContext(Qt::WindowShortcut);

    // The tree rows' context menu leads with Show in Compare.
    m_surgery->addMenu(menuBar(), m_comparison->showInCompareAction());
    m_catalogPresenter->addMenu(menuBar());

    tools->addAction(open);
    tools->addAction(openDir);
    tools->addAction(refreshAction);
    tools->addAction(compareAction);
    tools->addSeparator();
    tools->addActions(m_surgery->toolbarActions());
    giveToolTips(tools->actions());
}

void MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    help->addSeparator();
    help->addAction(tr("&About Checkpoint Explorer"), this, &MainWindow::showAbout);
}

void MainWindow::giveToolTips(const QList<QAction*>& actions) {
    // Every toolbar button says what it does and which keys do it too.
    for (QAction* a : actions) {
        if (a->isSeparator()) continue;
        QString tip = a->toolTip();
        if (tip.isEmpty() || tip == QString(a->text()).remove(QLatin1Char('&')))
            tip = QString(a->text()).remove(QLatin1Char('&')).remove(QStringLiteral("\u2026"));
        const QString keys = a->shortcut().toString(QKeySequence::NativeText);
        if (!keys.isEmpty() && !tip.contains(keys)) tip += QStringLiteral(" (%1)").arg(keys);
        a->setToolTip(tip);
    }
}

ShortcutsDialog* MainWindow::showShortcuts() {
    auto* dialog = new ShortcutsDialog(menuBar(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

AboutDialog* MainWindow::showAbout() {
    auto* dialog = new AboutDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedPaths(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QStringList paths = droppedPaths(event->mimeData());
    if (paths.isEmpty()) return;
    // One checkpoint is shown at a time: the first opens, the others'
    // directories join the sidebar.
    for (const QString& path : paths.mid(1)) m_sidebar->listDirectory(directoryFor(QFileInfo(path).absoluteFilePath()));
    openPath(paths.first());
    event->acceptProposedAction();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    const QEvent::Type type = event->type();
    if (type != QEvent::DragEnter && type != QEvent::DragMove && type != QEvent::Drop) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || widget == this || widget->window() != this) return false;
    auto* drop = static_cast<QDropEvent*>(event);
    if (droppedPaths(drop->mimeData()).isEmpty()) return false;
    if (type == QEvent::Drop) dropEvent(drop);
    else drop->acceptProposedAction();
    return true;
}

}  // namespace ckpt::ui

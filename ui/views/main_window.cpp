#include "views/main_window.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCloseEvent>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>

#include "jobs/checkpoint_jobs.h"
#include "jobs/demo_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "views/catalog_controller.h"
#include "views/catalog_presenter.h"
#include "views/catalog_search_view.h"
#include "views/checkpoint_opener.h"
#include "views/checkpoint_sidebar.h"
#include "views/compare_controller.h"
#include "views/compare_view.h"
#include "views/demo_controller.h"
#include "views/error_panel.h"
#include "views/job_status_widget.h"
#include "views/object_tree_pane.h"
#include "views/open_location_dialog.h"
#include "views/opening_panel.h"
#include "views/restore_view.h"
#include "views/retention_preview.h"
#include "views/schedules_view.h"
#include "views/surgery_controller.h"
#include "views/tensor_inspector.h"
#include "views/welcome_page.h"

namespace ckpt::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_jobs(new JobTracker(this)), m_sidebar(new CheckpointSidebar(m_jobs, this)),
      m_workspace(new QTabWidget(this)), m_objectGraph(new QStackedWidget(this)), m_schedules(new SchedulesView(m_jobs, this)),
      m_catalog(new CatalogController(m_jobs, this)) {
    setWindowTitle(tr("Checkpoint Explorer"));
    setAcceptDrops(true);
    auto* welcome = new WelcomePage(this);
    auto* tree = new ObjectTreePane(m_jobs, this);
    auto* error = new ErrorPanel(this);
    auto* busy = new OpeningPanel(this);
    auto* inspector = new TensorInspector(m_jobs, this);
    auto* restore = new RestoreView(m_jobs, this);
    auto* compareView = new CompareView(m_jobs, this);
    auto* retention = new RetentionPreview(m_jobs, this);
    auto* search = new CatalogSearchView(m_catalog, this);
    auto* splitter = new QSplitter(this);
    auto* status = new QLabel(this);
    // The names automation finds the parts by (ui/automation/explorer_page.h).
    tree->setObjectName(QStringLiteral("objectTree"));
    m_workspace->setObjectName(QStringLiteral("workspace"));
    splitter->setObjectName(QStringLiteral("panes"));

    m_opener = new CheckpointOpener(
        {this, m_jobs, m_sidebar, m_objectGraph, welcome, tree, error, busy, restore, inspector, status}, this);
    m_demo = new DemoController(m_jobs, m_opener, status, this);
    m_comparison = new CompareController({m_workspace, compareView, m_sidebar, m_opener, tree, status}, this);
    // Before checkpointOpened is forwarded: the actions follow the open
    // before anyone who listens to the window hears of it.
    m_surgery = new SurgeryController({this, m_jobs, m_opener, tree, m_sidebar, m_catalog, status}, this);
    m_catalogPresenter =
        new CatalogPresenter({this, m_catalog, search, m_workspace, m_sidebar, inspector, restore, compareView, status}, this);

    connect(m_opener, &CheckpointOpener::opened, this, &MainWindow::checkpointOpened);
    connect(m_demo, &DemoController::generated, this, &MainWindow::demoGenerated);
    connect(m_catalogPresenter, &CatalogPresenter::unavailable, this, &MainWindow::catalogUnavailable);
    connect(m_sidebar, &CheckpointSidebar::healthChanged, this, &MainWindow::healthChanged);
    connect(welcome, &WelcomePage::demoRequested, m_demo, [this] { m_demo->open(defaultDemoDirectory()); });
    connect(welcome, &WelcomePage::demoIntoFolderRequested, m_demo, &DemoController::generateIntoChosenFolder);
    connect(m_demo, &DemoController::runningChanged, welcome, &WelcomePage::setDemoRunning);
    connect(m_sidebar, &CheckpointSidebar::checkpointActivated, m_opener, &CheckpointOpener::activate);
    connect(m_sidebar, &CheckpointSidebar::openRequested, m_opener, &CheckpointOpener::openPath);
    connect(m_sidebar, &CheckpointSidebar::compareRequested, m_comparison, &CompareController::compare);
    connect(m_sidebar, &CheckpointSidebar::compareWithPreviousRequested, m_comparison, &CompareController::compareWithPrevious);
    connect(search, &CatalogSearchView::resultActivated, this, &MainWindow::openAt);
    connect(restore, &RestoreView::openRequested, m_opener, &CheckpointOpener::openPath);
    connect(tree, &ObjectTreePane::selectionChanged, inspector, &TensorInspector::setSelection);
    connect(restore->treePane(), &ObjectTreePane::selectionChanged, inspector, &TensorInspector::setSelection);

    m_objectGraph->addWidget(welcome);
    m_objectGraph->addWidget(tree);
    m_objectGraph->addWidget(error);
    m_objectGraph->addWidget(busy);
    m_workspace->setTabBarAutoHide(true);
    m_workspace->setDocumentMode(true);
    m_workspace->addTab(m_objectGraph, tr("Object graph"));
    addWorkspaceView(restore, tr("Restore"));
    addWorkspaceView(compareView, tr("Compare"));
    addWorkspaceView(m_schedules, tr("Schedules"));
    addWorkspaceView(retention, tr("Retention"));
    addWorkspaceView(search, tr("Search"));
    connect(m_schedules, &SchedulesView::retentionPreviewRequested, this,
            [this, retention](const QString& dir, const RetentionPolicy& policy, const QString& owner) {
                retention->setPolicy(policy);
                retention->setOwner(owner);
                retention->setDirectory(dir);
                m_workspace->setCurrentWidget(retention);
            });
    connect(retention, &RetentionPreview::applied, m_sidebar, &CheckpointSidebar::listDirectory);

    splitter->addWidget(m_sidebar);
    splitter->addWidget(m_workspace);
    splitter->addWidget(inspector);
    m_layout = new PaneLayout({this, splitter, m_sidebar, m_workspace, m_objectGraph, tree, restore, inspector}, this);
    setCentralWidget(splitter);
    m_workspace->setAccessibleName(tr("Workspace"));
    m_objectGraph->setAccessibleName(tr("Object graph"));
    inspector->setAccessibleName(tr("Tensor inspector"));
    splitter->setAccessibleName(tr("Panes"));
    status->setAccessibleName(tr("Status"));
    status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(status, 1);
    statusBar()->addPermanentWidget(new JobStatusWidget(m_jobs, this));
    statusBar()->addWidget(m_surgery->openResultButton());

    createMenus(welcome, tree, compareView);
    // What an open starts besides the open itself.
    connect(m_opener, &CheckpointOpener::directoryFound, this, [this, retention](const QString& dir) {
        m_sidebar->listDirectory(dir);
        // A run on object storage is only browsed: it joins no catalog (each
        // start would list it over the network), and retention and schedules
        // act on local directories.
        if (isRemoteLocation(dir)) return;
        m_catalog->addRoot(dir);
        retention->suggestDirectory(dir);
        m_schedules->setSuggestedSource(dir);
    });
    createHelpMenu();
    // Tab order follows the panes left to right: sidebar, object graph (its
    // filter row, then the tree), inspector.
    setTabOrder(m_sidebar, m_workspace);
    setTabOrder(m_workspace, inspector);
    // Tab leaves a view for the next control, arrows move within it: a value
    // grid that took Tab for its cells held the keyboard forever.
    for (QAbstractItemView* view : findChildren<QAbstractItemView*>()) view->setTabKeyNavigation(false);
    qApp->installEventFilter(this);
    m_layout->readSettings();
}

MainWindow::~MainWindow() {
    // Jobs hold shared snapshots, not pointers into this window; cancelling
    // lets the pool drain quickly, and waiting means no engine call outlives
    // the window (and the application's statics after it).
    m_jobs->cancelAll();
    jobPool()->waitForDone();
}

void MainWindow::openPath(const QString& path) { m_opener->openPath(path); }

void MainWindow::refresh() { m_opener->refresh(); }

void MainWindow::closeCurrent() { m_opener->closeCurrent(); }

QFileDialog* MainWindow::openDialog() { return m_opener->openDialog(); }

OpenLocationDialog* MainWindow::openLocationDialog() { return m_opener->openLocationDialog(); }

void MainWindow::openAt(const QString& prefix, const QString& key) {
    m_workspace->setCurrentWidget(m_objectGraph);
    m_opener->openAt(prefix, key);
}

void MainWindow::addWorkspaceView(QWidget* view, const QString& title) { m_workspace->addTab(view, title); }

void MainWindow::generateDemo(const QString& directory) { m_demo->generate(directory); }

void MainWindow::openDemo(const QString& directory) { m_demo->open(directory); }

void MainWindow::compare(const QString& pathA, const QString& pathB) { m_comparison->compare(pathA, pathB); }

void MainWindow::compareSelected() { m_comparison->compareSelected(); }

void MainWindow::setCatalogPath(const QString& path) { m_catalog->setPath(path); }

void MainWindow::showSearch() { m_catalogPresenter->showSearch(); }

void MainWindow::setScheduleStorePath(const QString& path) { m_schedules->setStorePath(path); }

void MainWindow::resetLayout() { m_layout->resetLayout(); }

void MainWindow::closeEvent(QCloseEvent* event) {
    m_layout->writeSettings();
    m_jobs->cancelAll();
    event->accept();
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    if (m_layout) m_layout->updateInspectorVisibility();
}

}  // namespace ckpt::ui

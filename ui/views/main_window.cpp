#include "views/main_window.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCloseEvent>
#include <QFileInfo>
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
#include "models/directory_model.h"
#include "views/catalog_controller.h"
#include "views/catalog_search_view.h"
#include "views/checkpoint_sidebar.h"
#include "views/compare_view.h"
#include "views/error_panel.h"
#include "views/job_status_widget.h"
#include "views/object_tree_pane.h"
#include "views/checkpoint_opener.h"
#include "views/demo_controller.h"
#include "views/recent_menu.h"
#include "views/restore_view.h"
#include "views/retention_preview.h"
#include "views/schedules_view.h"
#include "views/surgery_controller.h"
#include "views/tensor_inspector.h"
#include "views/welcome_page.h"

namespace ckpt::ui {
MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_jobs(new JobTracker(this)), m_sidebar(new CheckpointSidebar(m_jobs, this)),
      m_workspace(new QTabWidget(this)), m_stack(new QStackedWidget(this)), m_tree(new ObjectTreePane(m_jobs, this)),
      m_error(new ErrorPanel(this)), m_inspector(new TensorInspector(m_jobs, this)), m_restore(new RestoreView(m_jobs, this)),
      m_compare(new CompareView(m_jobs, this)), m_schedules(new SchedulesView(m_jobs, this)),
      m_retention(new RetentionPreview(m_jobs, this)), m_splitter(new QSplitter(this)), m_location(new QLabel(this)) {
    setWindowTitle(tr("Checkpoint Explorer"));
    setAcceptDrops(true);
    // The names automation finds the parts by (ui/automation/explorer_page.h).
    m_tree->setObjectName(QStringLiteral("objectTree"));
    m_workspace->setObjectName(QStringLiteral("workspace"));

    auto* welcome = new WelcomePage(this);
    m_opener = new CheckpointOpener(
        {this, m_jobs, m_sidebar, m_stack, welcome, m_tree, m_error, m_restore, m_inspector, m_location}, this);
    m_demo = new DemoController(m_jobs, m_opener, m_location, this);
    m_catalog = new CatalogController(m_jobs, this);
    // Before checkpointOpened is forwarded: the actions follow the open
    // before anyone who listens to the window hears of it.
    m_surgery = new SurgeryController({this, m_jobs, m_opener, m_tree, m_sidebar, m_catalog, m_location}, this);
    connect(m_opener, &CheckpointOpener::opened, this, &MainWindow::checkpointOpened);
    connect(welcome, &WelcomePage::demoRequested, m_demo, [this] { m_demo->open(defaultDemoDirectory()); });
    connect(welcome, &WelcomePage::demoIntoFolderRequested, m_demo, &DemoController::generateIntoChosenFolder);
    connect(m_demo, &DemoController::runningChanged, welcome, &WelcomePage::setDemoRunning);
    connect(m_demo, &DemoController::generated, this, &MainWindow::demoGenerated);
    connect(m_sidebar, &CheckpointSidebar::checkpointActivated, m_opener, &CheckpointOpener::activate);
    connect(m_sidebar, &CheckpointSidebar::openRequested, this, &MainWindow::openPath);
    connect(m_sidebar, &CheckpointSidebar::compareRequested, this, &MainWindow::compare);
    connect(m_sidebar, &CheckpointSidebar::compareWithPreviousRequested, this, &MainWindow::compareWithPrevious);
    connect(m_sidebar, &CheckpointSidebar::healthChanged, this, &MainWindow::healthChanged);
    connect(m_sidebar, &CheckpointSidebar::forgetDirectoryRequested, this, &MainWindow::forgetDirectory);
    m_search = new CatalogSearchView(m_catalog, this);
    connect(m_catalog, &CatalogController::overviewChanged, this, &MainWindow::onCatalogOverview);
    connect(m_catalog, &CatalogController::unavailable, this, &MainWindow::onCatalogUnavailable);
    connect(m_catalog, &CatalogController::problem, m_location, &QLabel::setText);
    connect(m_search, &CatalogSearchView::resultActivated, this, &MainWindow::openAt);
    m_search->setHealthLookup([this](const QString& prefix) -> std::optional<Health> {
        const QModelIndex row = m_sidebar->directories()->indexForPrefix(prefix);
        if (!row.isValid()) return std::nullopt;
        return static_cast<Health>(row.data(DirectoryModel::HealthRole).toInt());
    });

    m_stack->addWidget(welcome);
    m_stack->addWidget(m_tree);
    m_stack->addWidget(m_error);
    m_workspace->setTabBarAutoHide(true);
    m_workspace->setDocumentMode(true);
    m_workspace->addTab(m_stack, tr("Object graph"));
    addWorkspaceView(m_restore, tr("Restore"));
    addWorkspaceView(m_compare, tr("Compare"));
    m_compare->setNeighbourLookup(
        [this](const QString& prefix, int delta) { return m_sidebar->directories()->neighbour(prefix, delta); });
    addWorkspaceView(m_schedules, tr("Schedules"));
    addWorkspaceView(m_retention, tr("Retention"));
    addWorkspaceView(m_search, tr("Search"));
    connect(m_schedules, &SchedulesView::retentionPreviewRequested, this,
            [this](const QString& dir, const RetentionPolicy& policy, const QString& owner) {
                m_retention->setPolicy(policy);
                m_retention->setOwner(owner);
                m_retention->setDirectory(dir);
                m_workspace->setCurrentWidget(m_retention);
            });
    connect(m_retention, &RetentionPreview::applied, m_sidebar, &CheckpointSidebar::listDirectory);
    // Only the object graph and the restore view inspect tensors; the
    // others use the inspector's room (compare has its own detail pane).
    connect(m_workspace, &QTabWidget::currentChanged, this, &MainWindow::updateInspectorVisibility);
    connect(m_stack, &QStackedWidget::currentChanged, this, &MainWindow::updateInspectorVisibility);

    m_splitter->addWidget(m_sidebar);
    m_splitter->addWidget(m_workspace);
    m_splitter->addWidget(m_inspector);
    // Explicit floors: without them the splitter follows the panes' size
    // hints, which grow with their content (the inspector's value grid
    // squeezed the sidebar to 95 px as soon as a variable was selected).
    m_sidebar->setMinimumWidth(kSidebarMinWidth);
    m_workspace->setMinimumWidth(kCentreMinWidth);
    m_inspector->setMinimumWidth(kInspectorMinWidth);
    m_splitter->setChildrenCollapsible(false);
    // A wider window widens the centre first; the sidebar keeps its width.
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setStretchFactor(2, 1);
    m_splitter->setObjectName(QStringLiteral("panes"));
    setCentralWidget(m_splitter);
    m_workspace->setAccessibleName(tr("Workspace"));
    m_stack->setAccessibleName(tr("Object graph"));
    m_inspector->setAccessibleName(tr("Tensor inspector"));
    m_splitter->setAccessibleName(tr("Panes"));
    m_location->setAccessibleName(tr("Status"));

    m_location->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_location, 1);
    statusBar()->addPermanentWidget(new JobStatusWidget(m_jobs, this));
    statusBar()->addWidget(m_surgery->openResultButton());

    connect(m_tree, &ObjectTreePane::selectionChanged, m_inspector, &TensorInspector::setSelection);
    connect(m_restore->treePane(), &ObjectTreePane::selectionChanged, m_inspector, &TensorInspector::setSelection);
    connect(m_restore, &RestoreView::openRequested, this, &MainWindow::openPath);
    createActions(welcome);
    // What an open starts besides the open itself, in this order.
    connect(m_opener, &CheckpointOpener::opening, m_recent, &RecentMenu::add);
    connect(m_opener, &CheckpointOpener::opening, this, [this](const QString& path) {
        const QString dir = directoryFor(path);
        m_sidebar->listDirectory(dir);
        m_catalog->addRoot(dir);
        m_retention->suggestDirectory(dir);
        m_schedules->setSuggestedSource(dir);
    });
    createHelpMenu();
    // Tab order follows the panes left to right: sidebar, object graph (its
    // filter row, then the tree), inspector.
    setTabOrder(m_sidebar, m_workspace);
    setTabOrder(m_workspace, m_inspector);
    // Tab leaves a view for the next control, arrows move within it: a value
    // grid that took Tab for its cells held the keyboard forever.
    for (QAbstractItemView* view : findChildren<QAbstractItemView*>()) view->setTabKeyNavigation(false);
    qApp->installEventFilter(this);
    readSettings();
}

MainWindow::~MainWindow() {
    // Jobs hold shared snapshots, not pointers into this window; cancelling
    // lets the pool drain quickly, and waiting means no engine call outlives
    // the window (and the application's statics after it).
    m_jobs->cancelAll();
    jobPool()->waitForDone();
}

QFileDialog* MainWindow::openDialog() { return m_opener->openDialog(); }

void MainWindow::generateDemo(const QString& directory) { m_demo->generate(directory); }

void MainWindow::openDemo(const QString& directory) { m_demo->open(directory); }

void MainWindow::addWorkspaceView(QWidget* view, const QString& title) { m_workspace->addTab(view, title); }

void MainWindow::compare(const QString& pathA, const QString& pathB) {
    m_workspace->setCurrentWidget(m_compare);
    m_compare->compare(pathA, pathB);
}

void MainWindow::compareSelected() {
    const QStringList selected = m_sidebar->selectedPrefixes();
    if (selected.size() == 2) return compare(selected[0], selected[1]);
    if (selected.size() == 1) return compareWithPrevious(selected[0]);
    m_location->setText(tr("Select two checkpoints in the sidebar to compare (Ctrl+click the second)."));
}

void MainWindow::compareWithPrevious(const QString& prefix) {
    const QString previous = m_sidebar->previousCheckpoint(prefix);
    if (previous.isEmpty()) {
        m_location->setText(tr("%1 is the first checkpoint of its directory: nothing before it to compare with.")
                                .arg(QFileInfo(prefix).fileName()));
        return;
    }
    compare(previous, prefix);
}

DirectoryModel* MainWindow::directories() const { return m_sidebar->directories(); }

QTreeView* MainWindow::sidebar() const { return m_sidebar; }

void MainWindow::openPath(const QString& path) { m_opener->openPath(path); }

void MainWindow::refresh() { m_opener->refresh(); }

void MainWindow::closeCurrent() { m_opener->closeCurrent(); }

void MainWindow::closeEvent(QCloseEvent* event) {
    writeSettings();
    m_jobs->cancelAll();
    event->accept();
}

}  // namespace ckpt::ui

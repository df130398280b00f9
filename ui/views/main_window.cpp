#include "views/main_window.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

#include "ckpt/bundle_naming.h"
#include "jobs/checkpoint_jobs.h"
#include "jobs/demo_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/when_done.h"
#include "jobs/job_tracker.h"
#include "models/directory_model.h"
#include "models/object_tree_model.h"
#include "views/catalog_controller.h"
#include "views/catalog_search_view.h"
#include "views/checkpoint_sidebar.h"
#include "views/compare_view.h"
#include "views/error_panel.h"
#include "views/job_status_widget.h"
#include "views/object_tree_pane.h"
#include "views/recent_files.h"
#include "views/restore_view.h"
#include "views/retention_preview.h"
#include "views/schedules_view.h"
#include "views/tensor_inspector.h"

namespace ckpt::ui {
MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_jobs(new JobTracker(this)), m_sidebar(new CheckpointSidebar(m_jobs, this)),
      m_workspace(new QTabWidget(this)), m_stack(new QStackedWidget(this)), m_welcome(new QWidget(this)),
      m_tree(new ObjectTreePane(m_jobs, this)), m_error(new ErrorPanel(this)), m_inspector(new TensorInspector(m_jobs, this)),
      m_restore(new RestoreView(m_jobs, this)), m_compare(new CompareView(m_jobs, this)),
      m_schedules(new SchedulesView(m_jobs, this)), m_retention(new RetentionPreview(m_jobs, this)),
      m_splitter(new QSplitter(this)), m_recent(new RecentFiles(this)), m_location(new QLabel(this)) {
    setWindowTitle(tr("Checkpoint Explorer"));
    setAcceptDrops(true);
    // The names automation finds the parts by (ui/automation/explorer_page.h).
    m_tree->setObjectName(QStringLiteral("objectTree"));
    m_workspace->setObjectName(QStringLiteral("workspace"));

    connect(m_sidebar, &CheckpointSidebar::checkpointActivated, this, &MainWindow::onCheckpointActivated);
    connect(m_sidebar, &CheckpointSidebar::openRequested, this, &MainWindow::openPath);
    connect(m_sidebar, &CheckpointSidebar::compareRequested, this, &MainWindow::compare);
    connect(m_sidebar, &CheckpointSidebar::compareWithPreviousRequested, this, &MainWindow::compareWithPrevious);
    connect(m_sidebar, &CheckpointSidebar::healthChanged, this, &MainWindow::healthChanged);
    connect(m_sidebar, &CheckpointSidebar::forgetDirectoryRequested, this, &MainWindow::forgetDirectory);
    m_catalog = new CatalogController(m_jobs, this);
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

    auto* welcomeLayout = new QVBoxLayout(m_welcome);
    welcomeLayout->addStretch();
    auto* hint = new QLabel(tr("<h2>No checkpoint open</h2><p>Open a TensorFlow checkpoint prefix, directory or SavedModel "
                               "with <b>File \u25b8 Open</b> (Ctrl+O), or drop one onto this window.</p>"),
                            m_welcome);
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    welcomeLayout->addWidget(hint);
    auto* openButton = new QPushButton(tr("Open Checkpoint\u2026"), m_welcome);
    openButton->setAccessibleName(tr("Open checkpoint"));
    connect(openButton, &QPushButton::clicked, this, &MainWindow::openDialog);
    welcomeLayout->addWidget(openButton, 0, Qt::AlignCenter);
    // A newcomer without a checkpoint at hand gets a real one: a short Adam
    // training run whose graph has layers, optimizer state and slots.
    welcomeLayout->addSpacing(16);
    auto* demoText = new QLabel(tr("<p>No checkpoint at hand? Train a small model (two dense layers, Adam, 200 steps) "
                                   "and explore its checkpoints, optimizer slots included.</p>"),
                                m_welcome);
    demoText->setAlignment(Qt::AlignCenter);
    demoText->setWordWrap(true);
    welcomeLayout->addWidget(demoText);
    QString demoDir = QDir::toNativeSeparators(defaultDemoDirectory());
    if (const QString home = QDir::toNativeSeparators(QDir::homePath()); demoDir.startsWith(home + QDir::separator()))
        demoDir.replace(0, home.size(), QStringLiteral("~"));
    m_demoButton = new QPushButton(tr("Generate Demo Checkpoints"), m_welcome);
    m_demoButton->setObjectName(QStringLiteral("generateDemo"));
    m_demoButton->setAccessibleName(tr("Generate demo checkpoints"));
    m_demoButton->setToolTip(tr("Writes them to %1 and opens them").arg(demoDir));
    // A second click opens the demo already trained rather than training again.
    connect(m_demoButton, &QPushButton::clicked, this, [this] { openDemo(defaultDemoDirectory()); });
    auto* demoElsewhere = new QPushButton(tr("Generate Into Folder\u2026"), m_welcome);
    connect(demoElsewhere, &QPushButton::clicked, this, &MainWindow::generateDemoDialog);
    auto* demoRow = new QHBoxLayout;
    demoRow->addStretch();
    demoRow->addWidget(m_demoButton);
    demoRow->addWidget(demoElsewhere);
    demoRow->addStretch();
    welcomeLayout->addLayout(demoRow);
    m_demoHint = new QLabel(tr("Saved to %1").arg(demoDir), m_welcome);
    m_demoHint->setAlignment(Qt::AlignCenter);
    m_demoHint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_demoHint->setEnabled(false);  // greyed: a detail, not an instruction
    welcomeLayout->addWidget(m_demoHint);
    m_recentBox = new QWidget(m_welcome);
    m_recentBox->setLayout(new QVBoxLayout);
    welcomeLayout->addWidget(m_recentBox, 0, Qt::AlignCenter);
    welcomeLayout->addStretch();

    m_stack->addWidget(m_welcome);
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

    connect(m_tree, &ObjectTreePane::selectionChanged, m_inspector, &TensorInspector::setSelection);
    connect(m_error, &ErrorPanel::retryRequested, this, &MainWindow::refresh);
    connect(m_restore->treePane(), &ObjectTreePane::selectionChanged, m_inspector, &TensorInspector::setSelection);
    connect(m_restore, &RestoreView::openRequested, this, &MainWindow::openPath);
    createActions();
    m_openResult->setObjectName(QStringLiteral("openResult"));
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

QFileDialog* MainWindow::openDialog() {
    // Window-modal and not run in a nested loop: the window keeps painting
    // its jobs' progress, and tests reach the dialog.
    auto* dialog =
        new QFileDialog(this, tr("Open Checkpoint"), m_currentPath.isEmpty() ? QString() : directoryFor(m_currentPath));
    dialog->setObjectName(QStringLiteral("openCheckpointDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    // Every file that stands for a checkpoint: a bundle's index or data
    // file, a directory's state file, a SavedModel's graph. Directories
    // open with Open Directory (Ctrl+Shift+O).
    dialog->setNameFilters({tr("Checkpoints (*.index *.data-*-of-* checkpoint saved_model.pb saved_model.pbtxt)"),
                            tr("Checkpoint index (*.index)"), tr("SavedModel (saved_model.pb saved_model.pbtxt)"),
                            tr("All files (*)")});
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& file) { openPath(checkpointPathFor(file)); });
    dialog->open();
    return dialog;
}

void MainWindow::openDirectoryDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Checkpoint Directory"), m_currentPath);
    if (!dir.isEmpty()) openPath(dir);
}

void MainWindow::generateDemoDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for Demo Checkpoints"), QDir::homePath());
    if (!dir.isEmpty()) generateDemo(dir);
}

void MainWindow::generateDemo(const QString& directory) {
    if (m_demoJob) return;
    auto job = m_jobs->start(tr("Training demo model into %1").arg(directory));
    m_demoJob = job;
    m_demoButton->setEnabled(false);
    m_location->setText(tr("Training the demo model (200 Adam steps) into %1\u2026").arg(directory));
    whenDone(this, QtConcurrent::run(jobPool(), generateDemoCheckpoints, directory, job), [this, job](const DemoResult& r) {
        m_jobs->finish(job);
        m_demoJob.reset();
        m_demoButton->setEnabled(true);
        emit demoGenerated(r.ok, r.directory);
        if (!r.ok) {
            m_error->showError(tr("Cannot generate demo checkpoints in %1").arg(r.directory), r.error, {});
            m_stack->setCurrentWidget(m_error);
            m_location->setText(r.error);
            return;
        }
        openPath(r.directory);
    });
}

void MainWindow::openDemo(const QString& directory) {
    if (hasCheckpointState(directory)) openPath(directory);
    else generateDemo(directory);
}

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

bool MainWindow::isErrorShown() const { return m_stack->currentWidget() == m_error; }

QString checkpointPathFor(const QString& file) {
    const QFileInfo info(file);
    const QString name = info.fileName();
    // A SavedModel's graph or a directory's state file stands for the
    // directory; a bundle's index or data file for its prefix.
    if (name == QLatin1String("saved_model.pb") || name == QLatin1String("saved_model.pbtxt") ||
        name == QLatin1String("checkpoint"))
        return info.absolutePath();
    return QString::fromStdString(bundlePrefixOf(info.absoluteFilePath().toStdString()));
}

void MainWindow::openPath(const QString& rawPath) {
    const QString path =
        QDir::cleanPath(QString::fromStdString(bundlePrefixOf(QFileInfo(rawPath).absoluteFilePath().toStdString())));
    m_currentPath = path;
    m_recent->add(path);
    m_sidebar->listDirectory(directoryFor(path));
    m_catalog->addRoot(directoryFor(path));
    m_retention->suggestDirectory(directoryFor(path));
    m_schedules->setSuggestedSource(directoryFor(path));

    if (m_openJob) m_openJob->cancel();
    const quint64 generation = ++m_openGeneration;
    auto job = m_jobs->start(tr("Opening %1").arg(QFileInfo(path).fileName()));
    m_openJob = job;
    m_sidebar->setOpenInProgress(true);
    m_location->setText(tr("Opening %1\u2026").arg(path));
    whenDone(this, QtConcurrent::run(jobPool(), openCheckpoint, path, job), [this, job, generation, path](const OpenResult& r) {
        m_jobs->finish(job);
        if (generation != m_openGeneration) return;
        m_openJob.reset();
        m_sidebar->setOpenInProgress(false);
        m_sidebar->resumeVerification();
        if (!r.snapshot) {
            m_snapshot.reset();
            m_tree->setSnapshot(nullptr);
            m_restore->setSnapshot(nullptr);
            m_error->showError(tr("Cannot open %1").arg(path), r.error, r.problems);
            m_stack->setCurrentWidget(m_error);
            m_location->setText(r.error);
            m_sidebar->showOpenFailed(r.prefix, (QStringList{r.error} + r.problems).join(QLatin1Char('\n')));
            emit checkpointOpened(false);
            return;
        }
        showSnapshot(r.snapshot);
        if (generation == m_pendingKeyGeneration && !m_pendingKey.isEmpty()) m_tree->selectKey(std::exchange(m_pendingKey, {}));
        emit checkpointOpened(true);
    });
}

void MainWindow::showSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot) {
    m_snapshot = std::move(snapshot);
    m_tree->setSnapshot(m_snapshot);
    m_restore->setSnapshot(m_snapshot);
    m_stack->setCurrentWidget(m_tree);
    const Checkpoint& ckpt = *m_snapshot->checkpoint;
    const QString prefix = QString::fromStdString(ckpt.prefix());
    const QString style = ckpt.style() == CheckpointStyle::ObjectBased ? tr("object-based") : tr("name-based");
    m_location->setText(tr("%1 \u2014 %2, resolved by %3").arg(prefix, style, QString::fromStdString(ckpt.resolved().how)));
    setWindowTitle(tr("%1 \u2014 Checkpoint Explorer").arg(QFileInfo(prefix).fileName()));
    m_sidebar->setOpenedCheckpoint(prefix);
    // Nothing selected yet (a first open, or the variable selected before
    // is not in this checkpoint): the inspector says what it is for rather
    // than standing empty.
    if (m_tree->currentEntry() < 0) m_inspector->setSelection({m_snapshot, nullptr, {}});
    // Open the top-level objects that directly hold variables (a model's
    // layers), so a first look shows tensors, not a column of folders.
    ObjectTreeModel* model = m_tree->model();
    const auto& entries = m_snapshot->entries;
    int budget = 200;  // rows revealed; big graphs stay collapsed
    for (int r = 0; r < std::min(model->rowCount(), 50) && budget > 0; ++r) {
        const QModelIndex top = model->index(r, 0);
        const TreeEntry* e = model->entry(top);
        bool holdsVariables = model->rowCount() <= 3;
        for (int32_t c : e->children) {
            const EntryKind k = entries[static_cast<size_t>(c)].kind;
            holdsVariables = holdsVariables || k == EntryKind::Variable || k == EntryKind::ReplicatedVariable;
        }
        if (!holdsVariables || static_cast<int>(e->children.size()) > budget) continue;
        budget -= static_cast<int>(e->children.size());
        m_tree->view()->expand(top);
    }
}

void MainWindow::onCheckpointActivated(const QString& prefix) {
    // A click on the checkpoint already shown does not open it again.
    if (m_snapshot && QString::fromStdString(m_snapshot->checkpoint->prefix()) == prefix && !isErrorShown()) return;
    openPath(prefix);
}

void MainWindow::refresh() {
    m_sidebar->relistAll();
    if (!m_currentPath.isEmpty()) openPath(m_currentPath);
}

void MainWindow::closeCurrent() {
    if (m_openJob) m_openJob->cancel();
    m_openJob.reset();
    m_sidebar->setOpenInProgress(false);
    ++m_openGeneration;
    m_snapshot.reset();
    m_sidebar->setOpenedCheckpoint({});
    m_tree->setSnapshot(nullptr);
    m_restore->setSnapshot(nullptr);
    // A catalogued directory stays: the sidebar lists the catalog.
    if (!m_currentPath.isEmpty() && !m_sidebar->directories()->isCatalogued(directoryFor(m_currentPath)))
        m_sidebar->removeDirectory(directoryFor(m_currentPath));
    m_currentPath.clear();
    m_stack->setCurrentWidget(m_welcome);
    m_location->clear();
    setWindowTitle(tr("Checkpoint Explorer"));
    updateSurgeryActions();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    writeSettings();
    m_jobs->cancelAll();
    event->accept();
}

}  // namespace ckpt::ui

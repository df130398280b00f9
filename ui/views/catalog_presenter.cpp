#include "views/catalog_presenter.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QTabWidget>

#include <algorithm>
#include <optional>

#include "jobs/checkpoint_jobs.h"
#include "models/directory_model.h"
#include "views/catalog_controller.h"
#include "views/catalog_search_view.h"
#include "views/checkpoint_sidebar.h"
#include "views/compare_view.h"
#include "views/open_location_dialog.h"
#include "views/recent_files.h"
#include "views/restore_view.h"
#include "views/tensor_inspector.h"

namespace ckpt::ui {
namespace {

// The sidebar lists a root itself only while no directory below it holds
// catalogued checkpoints (not scanned yet, empty, or gone).
QStringList sidebarDirectories(const CatalogOverview& o) {
    QStringList dirs = o.directories;
    for (const CatalogRoot& r : o.roots) {
        const QString root = QString::fromStdString(r.path);
        const bool covered = std::any_of(o.directories.begin(), o.directories.end(),
                                         [&](const QString& d) { return d == root || d.startsWith(root + QLatin1Char('/')); });
        if (!covered) dirs << root;
    }
    return dirs;
}

}  // namespace

CatalogPresenter::CatalogPresenter(const CatalogParts& parts, QObject* parent) : QObject(parent), m_parts(parts) {
    connect(m_parts.catalog, &CatalogController::overviewChanged, this, &CatalogPresenter::onOverview);
    connect(m_parts.catalog, &CatalogController::unavailable, this, &CatalogPresenter::onUnavailable);
    connect(m_parts.catalog, &CatalogController::problem, m_parts.status, &QLabel::setText);
    connect(m_parts.sidebar, &CheckpointSidebar::forgetDirectoryRequested, this, &CatalogPresenter::forgetDirectory);
    // A search result's badge is the sidebar's health for it.
    m_parts.search->setHealthLookup([sidebar = m_parts.sidebar](const QString& prefix) -> std::optional<Health> {
        const QModelIndex row = sidebar->directories()->indexForPrefix(prefix);
        if (!row.isValid()) return std::nullopt;
        return static_cast<Health>(row.data(DirectoryModel::HealthRole).toInt());
    });
}

void CatalogPresenter::addMenu(QMenuBar* bar) {
    QMenu* menu = bar->addMenu(tr("C&atalog"));
    QAction* search = menu->addAction(tr("&Search Checkpoints\u2026"), this, &CatalogPresenter::showSearch);
    search->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    search->setToolTip(tr("Find keys and object paths in every catalogued checkpoint (Ctrl+Shift+F)"));
    QAction* scan = menu->addAction(tr("S&can"), this, [this] { m_parts.catalog->scan(); });
    scan->setToolTip(tr("Look for new, changed and vanished checkpoints under every catalogued directory"));
    // The sidebar's own verification lasts a session; this one is kept.
    QAction* verify = menu->addAction(tr("Scan and &Verify"), this, [this] { m_parts.catalog->scan({}, /*verify=*/true); });
    verify->setToolTip(
        tr("Scan, and verify every checkpoint not verified since it last changed (reads all their bytes); "
           "the catalog keeps the result for the sidebar's badges"));
    QAction* add = menu->addAction(tr("&Add Directory\u2026"), this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(m_parts.window, tr("Add Directory to the Catalog"), QDir::homePath());
        if (dir.isEmpty()) return;
        m_parts.catalog->addRoot(dir);
    });
    QAction* addLocation = menu->addAction(tr("Add &Location\u2026"), this, &CatalogPresenter::addLocationDialog);
    addLocation->setToolTip(tr("Catalogue a run or a folder of runs by URL (s3://, gs://) or path"));
    QAction* cancel = menu->addAction(tr("Cancel Sca&n"), m_parts.catalog, &CatalogController::cancelScan);
    m_actions = {search, scan, verify, add, addLocation};
    cancel->setEnabled(false);
    connect(m_parts.catalog, &CatalogController::scanStarted, cancel, [cancel] { cancel->setEnabled(true); });
    connect(m_parts.catalog, &CatalogController::scanFinished, cancel,
            [this, cancel] { cancel->setEnabled(m_parts.catalog->isScanning()); });
    // What a scan found changed on disk shows in the sidebar's listings too.
    connect(m_parts.catalog, &CatalogController::scanFinished, this, [this](const CatalogScanResult& r) {
        if (!r.summary || r.summary->added + r.summary->updated + r.summary->missing == 0) return;
        DirectoryModel* model = m_parts.sidebar->directories();
        for (const QString& d : model->directories())
            if (model->isCatalogued(d)) m_parts.sidebar->relistDirectory(d);
    });
    for (QAction* a : std::as_const(m_actions)) a->setEnabled(false);  // until a catalog is read
}

OpenLocationDialog* CatalogPresenter::addLocationDialog() {
    // The runs of the recent checkpoints are what one catalogues.
    QStringList runs;
    for (const QString& path : RecentFiles().paths())
        if (const QString run = directoryFor(path); !run.isEmpty() && !runs.contains(run)) runs << run;
    // Window-modal without a nested loop, as File ▸ Open Location.
    auto* dialog = new OpenLocationDialog(runs, m_parts.window, OpenLocationDialog::Purpose::AddToCatalog);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &OpenLocationDialog::locationChosen, m_parts.catalog, &CatalogController::addRoot);
    dialog->open();
    return dialog;
}

void CatalogPresenter::showSearch() {
    m_parts.workspace->setCurrentWidget(m_parts.search);
    m_parts.search->focusSearch();
}

void CatalogPresenter::onOverview() {
    const CatalogOverview& o = m_parts.catalog->overview();
    const bool usable = m_parts.catalog->isEnabled() && m_parts.catalog->isLoaded();
    for (QAction* a : std::as_const(m_actions)) a->setEnabled(usable);
    m_parts.inspector->setCatalogPath(usable ? m_parts.catalog->path() : QString());
    m_parts.restore->setCatalogPath(usable ? m_parts.catalog->path() : QString());
    m_parts.sidebar->setCatalogPath(usable ? m_parts.catalog->path() : QString());
    m_parts.compare->setCatalogPath(usable ? m_parts.catalog->path() : QString());
    if (!usable) return;
    const QStringList dirs = sidebarDirectories(o);
    DirectoryModel* model = m_parts.sidebar->directories();
    model->setCatalogDirectories(dirs);
    model->setCatalogHealth(o.health);
    // Listed, not verified: verifying every catalogued checkpoint at each
    // start would read every byte of every run. Opening one verifies it.
    for (const QString& d : dirs)
        if (!model->indexForDirectory(d).isValid()) m_parts.sidebar->listDirectory(d, /*opened=*/false);
}

void CatalogPresenter::onUnavailable(const QString& message) {
    onOverview();  // disables the menu and the cache
    m_parts.status->setText(message.section(QLatin1Char('\n'), 0, 0));
    // Not modal: the explorer goes on without the catalog.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Catalog Unavailable"), message, QMessageBox::Ok, m_parts.window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("catalogUnavailableMessage"));
    box->open();
    emit unavailable(message);
}

void CatalogPresenter::forgetDirectory(const QString& dir) {
    const auto& roots = m_parts.catalog->overview().roots;
    if (std::any_of(roots.begin(), roots.end(), [&](const CatalogRoot& r) { return QString::fromStdString(r.path) == dir; }))
        m_parts.catalog->forgetRoot(dir);
    m_parts.sidebar->removeDirectory(dir);
}

}  // namespace ckpt::ui

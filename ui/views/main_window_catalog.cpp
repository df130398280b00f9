// MainWindow's catalog side: the Catalog menu, the sidebar's catalogued
// directories and health, the Search tab and opening a search result.

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStackedWidget>
#include <QTabWidget>

#include <algorithm>

#include "jobs/checkpoint_jobs.h"
#include "models/directory_model.h"
#include "views/catalog_controller.h"
#include "views/catalog_search_view.h"
#include "views/compare_view.h"
#include "views/checkpoint_opener.h"
#include "views/checkpoint_sidebar.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
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

void MainWindow::createCatalogMenu() {
    QMenu* menu = menuBar()->addMenu(tr("C&atalog"));
    QAction* search = menu->addAction(tr("&Search Checkpoints\u2026"), this, &MainWindow::showSearch);
    search->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    search->setToolTip(tr("Find keys and object paths in every catalogued checkpoint (Ctrl+Shift+F)"));
    QAction* scan = menu->addAction(tr("S&can"), this, [this] { m_catalog->scan(); });
    scan->setToolTip(tr("Look for new, changed and vanished checkpoints under every catalogued directory"));
    // The sidebar's own verification lasts a session; this one is kept.
    QAction* verify = menu->addAction(tr("Scan and &Verify"), this, [this] { m_catalog->scan({}, /*verify=*/true); });
    verify->setToolTip(
        tr("Scan, and verify every checkpoint not verified since it last changed (reads all their bytes); "
           "the catalog keeps the result for the sidebar's badges"));
    QAction* add = menu->addAction(tr("&Add Directory\u2026"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Add Directory to the Catalog"), QDir::homePath());
        if (dir.isEmpty()) return;
        m_catalog->addRoot(dir);
    });
    QAction* cancel = menu->addAction(tr("Cancel Sca&n"), m_catalog, &CatalogController::cancelScan);
    m_catalogActions = {search, scan, verify, add};
    cancel->setEnabled(false);
    connect(m_catalog, &CatalogController::scanStarted, cancel, [cancel] { cancel->setEnabled(true); });
    connect(m_catalog, &CatalogController::scanFinished, cancel, [this, cancel] { cancel->setEnabled(m_catalog->isScanning()); });
    // What a scan found changed on disk shows in the sidebar's listings too.
    connect(m_catalog, &CatalogController::scanFinished, this, [this](const CatalogScanResult& r) {
        if (!r.summary || r.summary->added + r.summary->updated + r.summary->missing == 0) return;
        DirectoryModel* model = m_sidebar->directories();
        for (const QString& d : model->directories())
            if (model->isCatalogued(d)) m_sidebar->relistDirectory(d);
    });
    for (QAction* a : std::as_const(m_catalogActions)) a->setEnabled(false);  // until a catalog is read
}

void MainWindow::setCatalogPath(const QString& path) { m_catalog->setPath(path); }

void MainWindow::showSearch() {
    m_workspace->setCurrentWidget(m_search);
    m_search->focusSearch();
}

void MainWindow::openAt(const QString& prefix, const QString& key) {
    m_workspace->setCurrentWidget(m_stack);
    m_opener->openAt(prefix, key);
}

void MainWindow::onCatalogOverview() {
    const CatalogOverview& o = m_catalog->overview();
    const bool usable = m_catalog->isEnabled() && m_catalog->isLoaded();
    for (QAction* a : std::as_const(m_catalogActions)) a->setEnabled(usable);
    m_inspector->setCatalogPath(usable ? m_catalog->path() : QString());
    m_restore->setCatalogPath(usable ? m_catalog->path() : QString());
    m_sidebar->setCatalogPath(usable ? m_catalog->path() : QString());
    m_compare->setCatalogPath(usable ? m_catalog->path() : QString());
    if (!usable) return;
    const QStringList dirs = sidebarDirectories(o);
    DirectoryModel* model = m_sidebar->directories();
    model->setCatalogDirectories(dirs);
    model->setCatalogHealth(o.health);
    // Listed, not verified: verifying every catalogued checkpoint at each
    // start would read every byte of every run. Opening one verifies it.
    for (const QString& d : dirs)
        if (!model->indexForDirectory(d).isValid()) m_sidebar->listDirectory(d, /*opened=*/false);
}

void MainWindow::onCatalogUnavailable(const QString& message) {
    onCatalogOverview();  // disables the menu and the cache
    m_location->setText(message.section(QLatin1Char('\n'), 0, 0));
    // Not modal: the explorer goes on without the catalog.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Catalog Unavailable"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("catalogUnavailableMessage"));
    box->open();
    emit catalogUnavailable(message);
}

void MainWindow::forgetDirectory(const QString& dir) {
    const auto& roots = m_catalog->overview().roots;
    if (std::any_of(roots.begin(), roots.end(), [&](const CatalogRoot& r) { return QString::fromStdString(r.path) == dir; }))
        m_catalog->forgetRoot(dir);
    m_sidebar->removeDirectory(dir);
}

}  // namespace ckpt::ui

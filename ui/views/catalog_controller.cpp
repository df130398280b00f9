#include "views/catalog_controller.h"

#include <QDir>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

#include "jobs/checkpoint_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/when_done.h"

namespace ckpt::ui {

CatalogController::CatalogController(JobTracker* jobs, QObject* parent) : QObject(parent), m_jobs(jobs) {}

void CatalogController::setPath(const QString& path) {
    ++m_generation;
    m_path = path.isEmpty() ? QString() : QDir::cleanPath(QDir(path).absolutePath());
    m_error.clear();
    m_loaded = false;
    m_overview = {};
    m_overview.path = m_path;
    m_pendingAdds.clear();
    m_scanQueued = false;
    m_queuedRoots.clear();
    m_queuedVerify = false;
    if (m_scanJob) m_scanJob->cancel();
    emit overviewChanged();
    reload();
}

void CatalogController::reload() {
    if (!isEnabled()) return;
    const quint64 generation = m_generation;
    whenDone(this, QtConcurrent::run(jobPool(), readCatalogOverview, m_path), [this, generation](const CatalogOverview& o) {
        if (generation != m_generation) return;
        if (!o.error.isEmpty()) {
            m_error = o.error;
            m_pendingAdds.clear();
            emit unavailable(tr("The catalog %1 cannot be used: %2\n\nThe explorer works without it in this session; "
                                "the file is left as it is.")
                                 .arg(QDir::toNativeSeparators(m_path), o.error));
            return;
        }
        const bool first = !m_loaded;
        m_loaded = true;
        m_overview = o;
        emit overviewChanged();
        if (!first) return;
        for (const QString& dir : std::exchange(m_pendingAdds, {})) addRoot(dir);
        startScan();
    });
}

void CatalogController::addRoot(const QString& directory) {
    if (!isEnabled()) return;
    // One writer opens the file first: creating a new catalog from two
    // threads at once is the engine's to survive, not ours to provoke.
    if (!m_loaded) {
        if (!m_pendingAdds.contains(directory)) m_pendingAdds << directory;
        return;
    }
    // Reopening what the catalog already holds costs nothing; a new
    // directory below a root is scanned as part of that root.
    // normalizedLocation, not QDir: a URL stays a URL.
    const QString dir = normalizedLocation(directory);
    if (m_overview.directories.contains(dir)) return;
    for (const CatalogRoot& r : m_overview.roots) {
        const QString root = QString::fromStdString(r.path);
        if (dir == root || dir.startsWith(root + QLatin1Char('/'))) return scan({dir});
    }
    const quint64 generation = m_generation;
    whenDone(this, QtConcurrent::run(jobPool(), addCatalogRoot, m_path, dir), [this, generation](const CatalogRootResult& r) {
        if (generation != m_generation) return;
        if (!r.error.isEmpty()) return emit problem(r.error);
        scan({r.directory});
    });
}

void CatalogController::forgetRoot(const QString& directory) {
    if (!isEnabled() || !m_loaded) return;
    const quint64 generation = m_generation;
    whenDone(this, QtConcurrent::run(jobPool(), forgetCatalogRoot, m_path, directory), [this, generation](const QString& error) {
        if (generation != m_generation) return;
        if (!error.isEmpty()) emit problem(error);
        reload();
    });
}

void CatalogController::scan(const QStringList& roots, bool verify) {
    if (!isEnabled()) return;
    // Queued roots merge; "all" absorbs any list.
    if (!m_scanQueued) m_queuedRoots = roots;
    else if (roots.isEmpty() || m_queuedRoots.isEmpty()) m_queuedRoots.clear();
    else
        for (const QString& r : roots)
            if (!m_queuedRoots.contains(r)) m_queuedRoots << r;
    m_queuedVerify = (m_scanQueued && m_queuedVerify) || verify;
    m_scanQueued = true;
    startScan();
}

void CatalogController::startScan() {
    if (m_scanJob || !m_scanQueued || !isEnabled()) return;
    if (!m_loaded) return;  // the first overview starts it
    m_scanQueued = false;
    const QStringList roots = std::exchange(m_queuedRoots, {});
    const bool verify = std::exchange(m_queuedVerify, false);
    auto job = m_jobs->start(roots.size() == 1 ? tr("Scanning %1 into the catalog").arg(roots.first())
                                               : tr("Scanning the catalog's directories"));
    m_scanJob = job;
    emit scanStarted();
    const quint64 generation = m_generation;
    whenDone(this, QtConcurrent::run(jobPool(), scanCatalog, m_path, roots, verify, job),
             [this, job, generation](const CatalogScanResult& r) {
                 m_jobs->finish(job);
                 if (m_scanJob == job) m_scanJob.reset();
                 if (generation != m_generation) return startScan();
                 if (!r.error.isEmpty() && !r.cancelled) emit problem(r.error);
                 emit scanFinished(r);
                 reload();
                 startScan();
             });
}

void CatalogController::cancelScan() {
    m_scanQueued = false;
    m_queuedRoots.clear();
    m_queuedVerify = false;
    if (m_scanJob) m_scanJob->cancel();
}

}  // namespace ckpt::ui

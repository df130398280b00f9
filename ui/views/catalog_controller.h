#pragma once
// The explorer's side of the catalog (ckpt/catalog.h): which file, whether
// it could be opened, its roots and what it knows of their checkpoints
// (CatalogOverview), adding roots and scanning them. Every call runs on
// jobPool() (jobs/catalog_jobs.h); scans show progress in the status bar
// and cancel with it. A catalog that cannot be opened is reported once and
// then left alone: the explorer works without it and never writes to it.

#include <QObject>
#include <QStringList>

#include <memory>

#include "jobs/catalog_jobs.h"

namespace ckpt::ui {

class JobControl;
class JobTracker;

class CatalogController : public QObject {
    Q_OBJECT
public:
    explicit CatalogController(JobTracker* jobs, QObject* parent = nullptr);

    // Uses the catalog at 'path' (empty: none) and reads it in the
    // background; overviewChanged() or unavailable() follows.
    void setPath(const QString& path);
    const QString& path() const { return m_path; }
    // A path is set and opening it has not failed (it may still be loading).
    bool isEnabled() const { return !m_path.isEmpty() && m_error.isEmpty(); }
    bool isLoaded() const { return m_loaded; }
    const QString& error() const { return m_error; }
    const CatalogOverview& overview() const { return m_overview; }

    // Adds 'directory' as a root, then scans it.
    void addRoot(const QString& directory);
    void forgetRoot(const QString& directory);
    // Scans 'roots' (empty: all), verifying what changed when 'verify'
    // (every byte of it: slow); a scan already running takes them next.
    void scan(const QStringList& roots = {}, bool verify = false);
    void cancelScan();
    bool isScanning() const { return m_scanJob != nullptr; }
    // Reads the overview again (after a scan, or when files changed).
    void reload();

signals:
    void overviewChanged();
    // The catalog file cannot be used; 'message' names it and says why.
    void unavailable(const QString& message);
    void scanStarted();
    void scanFinished(const CatalogScanResult& result);
    // A root could not be added or forgotten, or a scan failed: for the status line.
    void problem(const QString& message);

private:
    void startScan();

    JobTracker* m_jobs;
    QString m_path;
    QString m_error;
    bool m_loaded = false;
    quint64 m_generation = 0;  // bumped by setPath: results for an older file are dropped
    CatalogOverview m_overview;
    QStringList m_pendingAdds;  // asked for before the catalog was read
    std::shared_ptr<JobControl> m_scanJob;
    bool m_scanQueued = false;
    QStringList m_queuedRoots;  // empty with m_scanQueued: all
    bool m_queuedVerify = false;
};

}  // namespace ckpt::ui

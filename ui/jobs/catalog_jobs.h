#pragma once
// The explorer's catalog calls (ckpt/catalog.h) as plain functions for
// QtConcurrent::run on jobPool(). Each opens the catalog file itself: a
// Catalog object is for one thread at a time. Errors are the engine's text,
// shown verbatim; results are values the GUI thread takes over.

#include <QHash>
#include <QString>
#include <QStringList>

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ckpt/catalog.h"
#include "jobs/job_control.h"

namespace ckpt::ui {

// The catalog a job uses on the side (results cache, recording a
// verification), opened on the job's thread; null for an empty path or a
// catalog that cannot be opened: a side use costs only itself.
std::unique_ptr<Catalog> sideCatalog(const QString& catalogPath);

// Catalog::defaultPath(); empty with the engine's reason in 'error' when
// there is none (no $XDG_DATA_HOME or $HOME).
QString defaultCatalogPath(QString* error);

// What the sidebar needs to know of one catalogued checkpoint.
struct CatalogHealthInfo {
    CatalogHealth health = CatalogHealth::Unverified;
    QString detail;  // the error, the first verify problem, or when it was verified
};

// The catalog as the explorer shows it at startup and after each scan.
struct CatalogOverview {
    QString path;
    QString error;  // the catalog cannot be used (corrupt, newer schema): the explorer works without it
    std::vector<CatalogRoot> roots;
    QStringList directories;                   // every directory holding catalogued checkpoints, sorted
    QHash<QString, CatalogHealthInfo> health;  // by prefix
};
// Opens (creating it and its directory when missing) and reads the roots
// and what is known of their checkpoints.
CatalogOverview readCatalogOverview(const QString& catalogPath);

struct CatalogRootResult {
    QString directory;  // as the engine recorded it (absolute, normalized)
    QString error;
};
CatalogRootResult addCatalogRoot(const QString& catalogPath, const QString& directory);
QString forgetCatalogRoot(const QString& catalogPath, const QString& directory);  // the error, or empty

struct CatalogScanResult {
    std::optional<CatalogScanSummary> summary;  // empty on failure
    bool cancelled = false;
    QString error;
};
// Scans 'roots' (empty: all), with the job's progress and cancellation;
// 'verify' also verifies what changed since its last verification.
CatalogScanResult scanCatalog(const QString& catalogPath, const QStringList& roots, bool verify,
                              const std::shared_ptr<JobControl>& job);

struct CatalogSearchOutcome {
    QString query;
    std::shared_ptr<const CatalogSearchResult> result;  // null on failure
    QString error;
    bool firstPage = false;  // the first hits only, published before the totals
};
// What a running search shares with the view that started it: its first
// page of hits as soon as they are found (polled by the view; the totals
// can take much longer), and a way to stop a search the text moved past.
struct CatalogSearchProgress {
    static constexpr int kFirstPageHits = 20;
    CancellationToken cancel;
    std::mutex mutex;
    std::shared_ptr<const CatalogSearchResult> firstPage;  // guarded by mutex
};
CatalogSearchOutcome searchCatalog(const QString& catalogPath, const QString& query, const CatalogSearchOptions& options,
                                   const std::shared_ptr<CatalogSearchProgress>& progress = {});

}  // namespace ckpt::ui

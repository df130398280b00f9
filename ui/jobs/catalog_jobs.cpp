#include "jobs/catalog_jobs.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>

#include <algorithm>

namespace ckpt::ui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString tr(const char* text) { return QCoreApplication::translate("CatalogJobs", text); }
QString errorText(const Status& status) { return qs(status.toString()); }

Result<std::unique_ptr<Catalog>> openCatalog(const QString& path) {
    // The default path's directory (~/.local/share/ckpt-explorer) may not
    // exist on a first run; a chosen path's directory is created the same way.
    return Catalog::open(path.toStdString(), {.createDirectory = true});
}

CatalogHealthInfo healthOf(const CatalogCheckpoint& c) {
    CatalogHealthInfo out;
    out.health = c.health();
    switch (out.health) {
    case CatalogHealth::Missing: out.detail = tr("Its files are gone since the catalog scanned it"); break;
    case CatalogHealth::Unreadable: out.detail = qs(c.error); break;
    case CatalogHealth::Damaged: out.detail = qs(c.problem()); break;
    case CatalogHealth::Healthy:
        if (c.verifiedAt)
            out.detail = tr("Verified %1 (catalog)")
                             .arg(QLocale().toString(QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(*c.verifiedAt * 1000)),
                                                     QLocale::ShortFormat));
        break;
    case CatalogHealth::Unverified: break;
    }
    return out;
}

}  // namespace

std::unique_ptr<Catalog> sideCatalog(const QString& catalogPath) {
    if (catalogPath.isEmpty()) return nullptr;
    auto catalog = Catalog::open(catalogPath.toStdString());
    return catalog.ok() ? std::move(*catalog) : nullptr;
}

QString defaultCatalogPath(QString* error) {
    auto path = Catalog::defaultPath();
    if (!path.ok()) {
        if (error) *error = errorText(path.status());
        return {};
    }
    return qs(*path);
}

CatalogOverview readCatalogOverview(const QString& catalogPath) {
    CatalogOverview out;
    out.path = catalogPath;
    auto catalog = openCatalog(catalogPath);
    if (!catalog.ok()) {
        out.error = errorText(catalog.status());
        return out;
    }
    auto roots = (*catalog)->roots();
    if (!roots.ok()) {
        out.error = errorText(roots.status());
        return out;
    }
    out.roots = std::move(*roots);
    auto checkpoints = (*catalog)->checkpoints();
    if (!checkpoints.ok()) {
        out.error = errorText(checkpoints.status());
        return out;
    }
    for (const CatalogCheckpoint& c : *checkpoints) {
        const QString dir = qs(c.directory);
        if (out.directories.isEmpty() || out.directories.last() != dir) out.directories << dir;
        out.health.insert(qs(c.prefix), healthOf(c));
    }
    out.directories.removeDuplicates();
    std::sort(out.directories.begin(), out.directories.end());
    return out;
}

CatalogRootResult addCatalogRoot(const QString& catalogPath, const QString& directory) {
    CatalogRootResult out;
    auto catalog = openCatalog(catalogPath);
    if (!catalog.ok()) {
        out.error = errorText(catalog.status());
        return out;
    }
    auto root = (*catalog)->addRoot(directory.toStdString());
    if (root.ok()) out.directory = qs(root->path);
    else out.error = errorText(root.status());
    return out;
}

QString forgetCatalogRoot(const QString& catalogPath, const QString& directory) {
    auto catalog = openCatalog(catalogPath);
    if (!catalog.ok()) return errorText(catalog.status());
    const Status forgotten = (*catalog)->forgetRoot(directory.toStdString());
    return forgotten.isOk() ? QString() : errorText(forgotten);
}

CatalogScanResult scanCatalog(const QString& catalogPath, const QStringList& roots, bool verify,
                              const std::shared_ptr<JobControl>& job) {
    CatalogScanResult out;
    auto catalog = openCatalog(catalogPath);
    if (!catalog.ok()) {
        out.error = errorText(catalog.status());
        return out;
    }
    CatalogScanOptions options;
    for (const QString& r : roots) options.roots.push_back(r.toStdString());
    options.verify = verify;
    options.progress = JobControl::sinkFor(job);
    options.cancel = &job->token();
    auto summary = (*catalog)->scan(options);
    if (summary.ok()) {
        out.summary = std::move(*summary);
    } else {
        out.cancelled = summary.status().code() == StatusCode::Cancelled;
        out.error = errorText(summary.status());
    }
    return out;
}

CatalogSearchOutcome searchCatalog(const QString& catalogPath, const QString& query, const CatalogSearchOptions& options,
                                   const std::shared_ptr<CatalogSearchProgress>& progress) {
    CatalogSearchOutcome out;
    out.query = query;
    auto catalog = openCatalog(catalogPath);
    if (!catalog.ok()) {
        out.error = errorText(catalog.status());
        return out;
    }
    CatalogSearchOptions withProgress = options;
    CatalogSearchResult page;
    if (progress) {
        withProgress.cancel = &progress->cancel;
        withProgress.onHit = [&](const CatalogSearchHit& hit) {
            if (static_cast<int>(page.hits.size()) >= CatalogSearchProgress::kFirstPageHits) return true;  // published
            page.hits.push_back(hit);
            if (static_cast<int>(page.hits.size()) == CatalogSearchProgress::kFirstPageHits) {
                page.query = query.toStdString();
                auto shared = std::make_shared<const CatalogSearchResult>(page);
                std::lock_guard lock(progress->mutex);
                progress->firstPage = std::move(shared);
            }
            return true;
        };
    }
    auto result = (*catalog)->search(query.toStdString(), withProgress);
    if (result.ok()) out.result = std::make_shared<const CatalogSearchResult>(std::move(*result));
    else out.error = errorText(result.status());
    return out;
}

}  // namespace ckpt::ui

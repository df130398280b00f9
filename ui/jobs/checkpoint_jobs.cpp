#include "jobs/checkpoint_jobs.h"

#include "ckpt/location.h"
#include "ckpt/object_store.h"
#include "ckpt/verify.h"
#include "jobs/catalog_jobs.h"
#include "jobs/shared_tensor.h"

namespace ckpt::ui {
namespace {

QStringList problemLines(const VerifyReport& report) {
    QStringList out;
    for (const VerifyProblem& p : report.problems) out << QString::fromStdString(p.message);
    return out;
}

}  // namespace

DirectoryListing listDirectory(const QString& dir, const std::shared_ptr<JobControl>& job) {
    DirectoryListing out;
    out.dir = normalizedLocation(dir);
    CheckpointListOptions options;
    options.countTensors = false;  // the sidebar shows no tensor counts
    options.cancel = job ? &job->token() : nullptr;
    auto listing = listCheckpoints(out.dir.toStdString(), options);
    if (listing.ok()) out.listing = std::move(*listing);
    else if (listing.status().code() == StatusCode::Cancelled) out.cancelled = true;
    else out.error = QString::fromStdString(listing.status().toString());
    return out;
}

QString directoryFor(const QString& openedPath) {
    const QString location = normalizedLocation(openedPath);
    if (isRemoteLocation(location)) {
        const qsizetype slash = location.lastIndexOf(QLatin1Char('/'));
        // "s3://bucket" stays itself: the bucket is the directory.
        return slash > location.indexOf(QStringLiteral("://")) + 2 ? location.left(slash) : location;
    }
    return QString::fromStdString(checkpointDirectoryFor(location.toStdString()));
}

QString normalizedLocation(const QString& location) {
    if (location.isEmpty()) return location;
    if (isRemoteLocation(location)) {
        // A key is taken literally (docs/remote.md, "Locations"): "." and
        // ".." name other objects than the squashed key would. Only a
        // run's trailing slash goes, so "s3://b/run/" and "s3://b/run" are
        // one sidebar row and one recent entry.
        QString url = location;
        while (url.endsWith(QLatin1Char('/')) && !url.endsWith(QStringLiteral("://"))) url.chop(1);
        return url;
    }
    return QString::fromStdString(normalizeLocation(location.toStdString()));
}

bool isRemoteLocation(const QString& location) { return isObjectStoreLocation(location.toStdString()); }

QString locationTextProblem(const QString& location) {
    const Status s = checkLocationText(location.toStdString());
    return s.isOk() ? QString() : QString::fromStdString(s.message());
}

OpenResult openCheckpoint(const QString& path, const std::shared_ptr<JobControl>& job) {
    OpenResult out;
    const std::string p = path.toStdString();
    CheckpointOpenOptions openOptions;
    openOptions.cancel = &job->token();  // Cancel drops a remote open's requests
    auto ckpt = Checkpoint::open(p, openOptions);
    if (!ckpt.ok()) {
        out.error = QString::fromStdString(ckpt.status().toString());
        if (ckpt.status().code() == StatusCode::Cancelled) return out;
        if (isRemoteLocation(path) && ckpt.status().code() != StatusCode::DataLoss) return out;
        VerifyOptions options;
        options.cancel = &job->token();
        options.progress = JobControl::sinkFor(job);
        if (auto report = verifyCheckpointPath(p, options); report.ok()) {
            out.prefix = QString::fromStdString(report->prefix);
            out.problems = problemLines(*report);
        }
        return out;
    }
    out.prefix = QString::fromStdString((*ckpt)->prefix());
    if (job->isCancelled()) return out;
    out.snapshot = CheckpointSnapshot::build(*ckpt);
    return out;
}

VerifyResult verifyCheckpoint(const QString& prefix, const QString& catalogPath, const std::shared_ptr<JobControl>& job) {
    VerifyResult out;
    out.prefix = prefix;
    VerifyOptions options;
    // One reader thread per checkpoint: badges are background work and must
    // not compete with tensor reads the user is waiting for.
    options.threads = 1;
    options.cancel = &job->token();
    options.progress = JobControl::sinkFor(job);
    auto report = verifyBundle(prefix.toStdString(), options);
    if (!report.ok()) {
        out.cancelled = report.status().code() == StatusCode::Cancelled;
        if (!out.cancelled) out.problems << QString::fromStdString(report.status().toString());
        return out;
    }
    out.problems = problemLines(*report);
    // The badge outlives the session; a catalog that cannot record it costs
    // only that.
    if (auto catalog = sideCatalog(catalogPath)) (void)catalog->recordVerification(*report);
    return out;
}

TensorResult readTensor(const std::shared_ptr<const Checkpoint>& checkpoint, const TensorInfo* info,
                        const std::shared_ptr<JobControl>& job) {
    TensorResult out;
    if (job && job->isCancelled()) {
        out.cancelled = true;
        return out;
    }
    auto t = checkpoint->bundle().read(*info, job ? &job->token() : nullptr);
    if (job && job->isCancelled()) {
        out.cancelled = true;
        return out;
    }
    if (!t.ok()) {
        out.error = QString::fromStdString(t.status().toString());
        return out;
    }
    out.tensor = shareTensor(std::move(*t));
    return out;
}

}  // namespace ckpt::ui

#pragma once
// The engine calls the UI makes, as plain functions for QtConcurrent::run on
// jobPool(). Each returns a value the GUI thread can take over (snapshots
// are immutable), and turns engine Status into text shown verbatim.

#include <QString>
#include <QStringList>

#include <memory>

#include "ckpt/checkpoint_listing.h"
#include "ckpt/tensor.h"
#include "jobs/job_control.h"
#include "models/checkpoint_snapshot.h"

namespace ckpt::ui {

struct OpenResult {
    std::shared_ptr<const CheckpointSnapshot> snapshot;  // null on failure
    QString error;                                       // Status::toString() of the failure
    QStringList problems;                                // verify's findings when open failed, verbatim
    QString prefix;                                      // the resolved prefix, when resolution worked
};
// Checkpoint::open + CheckpointSnapshot::build. When opening fails and the
// path still resolves to a prefix, runs verifyBundle so the error panel can
// show exactly what `ckpt verify` would print (for a remote location only
// when the bytes are damaged: after a refusal, a missing key or an
// unreachable store it would only ask again).
OpenResult openCheckpoint(const QString& path, const std::shared_ptr<JobControl>& job);

struct DirectoryListing {
    QString dir;                // absolute
    CheckpointListing listing;  // the engine's listing (checkpoint_listing.h)
    QString error;              // the directory itself is unreadable or gone
    bool cancelled = false;     // 'job' was cancelled: no listing, and the last one stands
};
// listCheckpoints on 'dir' (normalizedLocation: a URL lists its prefix).
// A Cancel of 'job' stops a store's requests in flight.
DirectoryListing listDirectory(const QString& dir, const std::shared_ptr<JobControl>& job = nullptr);
// The directory whose checkpoints to list for what a user opened
// (checkpointDirectoryFor on its normalized location). A remote location
// is not looked up (that is network I/O, and callers run on the GUI
// thread): it stands for the folder it is in, which is right for a
// checkpoint prefix; a remote run's directory is its opened checkpoint's.
QString directoryFor(const QString& openedPath);

// A location as the explorer keeps it: a plain path absolute and clean
// (normalizeLocation, ckpt/location.h); an s3:// or gs:// URL as typed
// but for a trailing slash, its key literal. QDir and QFileInfo would
// make "s3://b/k" the local path "<cwd>/s3:/b/k".
QString normalizedLocation(const QString& location);
// An s3:// or gs:// URL: reached over the network, so nothing on the GUI
// thread may stat it.
bool isRemoteLocation(const QString& location);
// The engine's objection to a typed location, judged by its text alone
// (checkLocationText: no settings read, no request made); empty when it
// may be opened.
QString locationTextProblem(const QString& location);

struct VerifyResult {
    QString prefix;
    bool cancelled = false;
    QStringList problems;  // empty = healthy
};
// With a catalog path, the result is recorded there too (Catalog::recordVerification).
VerifyResult verifyCheckpoint(const QString& prefix, const QString& catalogPath, const std::shared_ptr<JobControl>& job);

struct TensorResult {
    std::shared_ptr<const Tensor> tensor;
    QString error;
    bool cancelled = false;  // 'job' was cancelled: no values, even when read
};
// BundleReader::read. A cancelled job reads nothing: its transfers from a
// store stop mid-flight, and what it read by the time it sees the
// cancellation is dropped here, on the worker, so a large tensor nobody
// waits for any more does not stay in memory.
TensorResult readTensor(const std::shared_ptr<const Checkpoint>& checkpoint, const TensorInfo* info,
                        const std::shared_ptr<JobControl>& job = nullptr);

}  // namespace ckpt::ui

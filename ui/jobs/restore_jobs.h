#pragma once
// The restore view's engine calls, for QtConcurrent::run on jobPool(). Each
// call builds its own program graph from the target, so two runs (a stale
// preview still finishing while a new one starts) never share one: the
// engine's restore is not thread-safe per graph.

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <memory>

#include "ckpt/checkpoint.h"
#include "ckpt/match_report.h"
#include "jobs/job_control.h"
#include "jobs/surgery_jobs.h"
#include "models/match_overlay.h"

namespace ckpt::ui {

struct RestoreRequest {
    std::shared_ptr<const Checkpoint> checkpoint;
    // The tree the preview's overlay colours (the checkpoint's snapshot):
    // its rows are summarised for their parents on the worker.
    std::shared_ptr<const CheckpointSnapshot> tree;
    // A *.json model spec or a checkpoint used as template; empty: the
    // checkpoint's own structure (programFromCheckpoint).
    QString target;
    QList<QPair<QString, QString>> mappings;  // OLD -> NEW prefixes; empty rows are skipped
    bool expectPartial = false;
    // The catalog that records restores done with values (restoreAndWrite)
    // in its history, as `ckpt restore` does; empty: none.
    QString catalogPath;
};

struct RestorePreview {
    bool ok = false;
    QString error;  // Status::toString() when matching could not run at all
    // Both set when ok. The overlay's lookup tables are built here, on the
    // worker: for a 100,000-node graph that is too slow for the GUI thread.
    std::shared_ptr<const MatchReport> report;
    std::shared_ptr<const MatchOverlay> overlay;
};
// restoreCheckpoint with readValues=false: matches against the index only.
RestorePreview previewRestore(const RestoreRequest& request);

struct RestoreWriteResult {
    bool ok = false;
    bool cancelled = false;
    // The destination as the engine's rule judged it (surgery_jobs.h):
    // refused (its reason in 'destination.refusal'), or a checkpoint is
    // there and the user has not yet agreed to replace it
    // ('destination.exists'). Either way nothing was restored or written.
    DestinationVerdict destination;
    bool replaced = false;      // written over what was there
    QString refusedBecause;     // not written: the restore failed (writeRestoredVerified's policy)
    QString error;              // the failing step's Status::toString()
    QString prefix;             // the written checkpoint
    QStringList problems;       // verifyBundle's findings, verbatim
    QStringList restoreErrors;  // mismatches the restore recorded
    qint64 tensors = 0;
    QString recordWarning;  // the restore happened but the catalog could not record it
};
// The two separate consents a restore's write may need.
struct RestoreConsent {
    bool writeDespiteFailure = false;  // the restore or an assertion failed: write anyway
    bool overwrite = false;            // replace the checkpoint at the destination
};

// Judges the destination first (the open checkpoint and the target are
// never written; an existing checkpoint needs 'overwrite'), and only then
// restores with values and runs writeRestoredVerified: the program graph
// written beside 'outPrefix', verified, moved into place; after a failed
// restore only with 'writeDespiteFailure'. With a catalog path, the write
// is recorded too (Catalog::recordWrite).
RestoreWriteResult restoreAndWrite(const RestoreRequest& request, const QString& outPrefix, RestoreConsent consent,
                                   const std::shared_ptr<JobControl>& job);

}  // namespace ckpt::ui

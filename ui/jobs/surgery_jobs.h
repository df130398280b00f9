#pragma once
// The explorer's checkpoint surgery (issue #18) as plain functions for
// QtConcurrent::run on jobPool(): Save As with another sharding, averaging
// with other checkpoints, and edits (rename, delete, strip the optimizer)
// planned first, so the dialog shows the resulting tree, then written. The
// operations themselves are the engine's (ckpt/surgery.h);
// these only translate, report progress and honour the job's cancel.
// Sources are only read.

#include <QString>
#include <QStringList>

#include <memory>

#include "ckpt/schedule.h"
#include "ckpt/surgery.h"
#include "jobs/job_control.h"
#include "models/checkpoint_snapshot.h"

namespace ckpt::ui {

// How the result is sharded: ScheduleSharding's choice (neither set: one
// shard per task, TensorFlow's default), turned into SaveOptions by the
// engine's saveOptionsFor.
using ShardingChoice = ScheduleSharding;

struct SurgeryOutcome {
    bool ok = false;
    bool cancelled = false;
    QString error;           // the engine's Status::toString(), verbatim
    QString prefix;          // the written checkpoint (an export: the file)
    bool checkpoint = true;  // false for an export: nothing to list or open
    bool replaced = false;   // it replaced what was there
    QString recordWarning;   // written, but the catalog could not record it
    QStringList notes;
    qint64 tensors = 0;
    int shards = 0;
    quint64 dataBytes = 0;
};

// The engine's destination rule (ckpt/destination.h) as the dialogs show
// it: what would be replaced, or why nothing can be written there.
struct DestinationVerdict {
    QString path{};          // where it would be written (a checkpoint's .index spelling taken back to its prefix)
    QString refusal{};       // the engine's words plus the explorer's advice; empty when it can be written
    bool exists = false;     // something is there: Write asks before replacing it
    bool checkpoint = true;  // what is there is a checkpoint (else a file)
    QString existing{};      // what is there: "step 5, 7 tensors, 1.2 MiB"
};
// Looks at the file system and the existing checkpoint's index: run it on
// jobPool(). 'open' are the checkpoints open in the explorer; 'file' judges
// an export's output file instead of a checkpoint prefix.
DestinationVerdict judgeDestination(const QString& destination, const QStringList& sources, const QStringList& open,
                                    bool file = false);
// judgeDestination, then whether 'sources' can be averaged (the engine's
// checkAverageSources: every one opens, all of one structure).
DestinationVerdict judgeAverageDestination(const QString& destination, const QStringList& sources, const QStringList& open);
// The replace question for a verdict that exists: its title and text,
// naming the path, its step and its size.
QString replaceQuestionTitle(const DestinationVerdict& verdict);
QString replaceQuestionText(const DestinationVerdict& verdict);

// A prefix "<run>-edits/<name>-<suffix>" (then "-2", "-3", ...) beside the
// directory of 'source' (its run), that no checkpoint uses yet: the
// dialogs' suggestion, never inside the run itself.
QString suggestDestination(const QString& source, const QString& suffix);

// Where a surgery writes and with which consents: 'overwrite' once the
// user answered the replace question; 'open' the checkpoints open in the
// explorer (never written); 'catalogPath' the catalog that records the
// result (Catalog::recordWrite), empty for none.
struct SurgeryTarget {
    QString destination;
    ShardingChoice sharding;
    bool overwrite = false;
    QStringList open;
    QString catalogPath;
};

// Save As: the whole checkpoint re-written at the target with its
// sharding (the engine's saveCheckpointAs).
SurgeryOutcome writeCopy(const QString& source, const SurgeryTarget& target, const std::shared_ptr<JobControl>& job);

// mergeCheckpoints: bundles with disjoint keys into one (`ckpt merge`).
SurgeryOutcome mergeInto(const QStringList& sources, const SurgeryTarget& target, const std::shared_ptr<JobControl>& job);

// averageCheckpoints over 'sources' (in step order).
SurgeryOutcome averageInto(const QStringList& sources, const AverageSpec& spec, const SurgeryTarget& target,
                           const std::shared_ptr<JobControl>& job);

struct EditPreview {
    QString error;  // planEdit's refusal (unknown path, dangling references, ...)
    std::shared_ptr<const EditPlan> plan;
    // The result's tree, as the object tree shows a checkpoint; its entries
    // point into 'plan', which it keeps alive.
    std::shared_ptr<const CheckpointSnapshot> tree;
};
EditPreview previewEdit(const std::shared_ptr<const Checkpoint>& source, const EditSpec& spec);

SurgeryOutcome writeEdit(const std::shared_ptr<const EditPlan>& plan, const SurgeryTarget& target,
                         const std::shared_ptr<JobControl>& job);

// The path planEdit takes for the object at 'entry' of a snapshot's tree:
// its edges' names from the root, joined by '.' ("model.layer_with_weights-0");
// for a name-based checkpoint's key rows, the key (prefix) itself.
QString editPathOf(const CheckpointSnapshot& snapshot, int32_t entry);
// Whether the tree row can be renamed or deleted: an object reached by its
// own edge (not the root, a checkpoint key, an alias or a slot variable),
// or a name-based checkpoint's key or scope.
bool isEditableEntry(const TreeEntry& entry);

}  // namespace ckpt::ui

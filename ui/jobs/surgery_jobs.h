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
    QStringList notes;
    qint64 tensors = 0;
    int shards = 0;
    quint64 dataBytes = 0;
};

// checkSurgeryDestination's verdict on a destination prefix; empty when
// it may be written. Looks at the file system: run it on jobPool().
QString checkDestination(const QString& destination, const QStringList& sources);

// checkDestination, then whether 'sources' can be averaged (the engine's
// checkAverageSources: every one opens, all of one structure).
QString checkAverageDestination(const QString& destination, const QStringList& sources);

// A prefix next to 'source' named "<name>-<suffix>" (then "-2", "-3", ...)
// that no checkpoint uses yet: the dialogs' suggestion.
QString suggestDestination(const QString& source, const QString& suffix);

// Save As: the whole checkpoint re-written at 'destination' with
// 'sharding' (the engine's saveCheckpointAs).
SurgeryOutcome writeCopy(const QString& source, const QString& destination, const ShardingChoice& sharding,
                         const std::shared_ptr<JobControl>& job);

// averageCheckpoints over 'sources' (in step order).
SurgeryOutcome averageInto(const QStringList& sources, const QString& destination, const AverageSpec& spec,
                           const ShardingChoice& sharding, const std::shared_ptr<JobControl>& job);

struct EditPreview {
    QString error;  // planEdit's refusal (unknown path, dangling references, ...)
    std::shared_ptr<const EditPlan> plan;
    // The result's tree, as the object tree shows a checkpoint; its entries
    // point into 'plan', which it keeps alive.
    std::shared_ptr<const CheckpointSnapshot> tree;
};
EditPreview previewEdit(const std::shared_ptr<const Checkpoint>& source, const EditSpec& spec);

SurgeryOutcome writeEdit(const std::shared_ptr<const EditPlan>& plan, const QString& destination, const ShardingChoice& sharding,
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

#pragma once
// Export… of the open checkpoint as arrays other frameworks read
// (safetensors, numpy's npz) through the engine's exportCheckpoint
// (ckpt/convert.h), which checks the file bit for bit against the source
// and leaves nothing behind on failure or cancel. For QtConcurrent::run on
// jobPool(), like the other surgeries.

#include <QString>
#include <QStringList>

#include <memory>

#include "ckpt/convert.h"
#include "jobs/surgery_jobs.h"

namespace ckpt::ui {

// The destination rule for an export's output file (judgeDestination with
// 'file'), after the name's extension: refused when it names no format, a
// source's file, an open checkpoint's; 'exists' when a file is there (Write
// then asks). Looks at the file system: run it on jobPool().
DestinationVerdict judgeExportOutput(const QString& output, const QStringList& sources, const QStringList& open);

// "<prefix>.<extension>" next to the source, or "-2", "-3", ... before the
// extension when that exists.
QString suggestExportOutput(const QString& source, ArrayFormat format);

// 'options' without progress and cancel: the job's are used; their
// overwrite is the answer to the replace question.
SurgeryOutcome exportArrays(const QString& source, const QString& output, ExportOptions options,
                            const std::shared_ptr<JobControl>& job);

}  // namespace ckpt::ui

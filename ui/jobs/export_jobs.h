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

// Why 'output' cannot be exported to (no name, an extension that names no
// format, a file already there); empty when it can. Looks at the file
// system: run it on jobPool(). 'sources' are unused (the engine refuses an
// output inside the source when the job runs).
QString checkExportOutput(const QString& output, const QStringList& sources);

// "<prefix>.<extension>" next to the source, or "-2", "-3", ... before the
// extension when that exists.
QString suggestExportOutput(const QString& source, ArrayFormat format);

// 'options' without progress and cancel: the job's are used.
SurgeryOutcome exportArrays(const QString& source, const QString& output, ExportOptions options,
                            const std::shared_ptr<JobControl>& job);

}  // namespace ckpt::ui

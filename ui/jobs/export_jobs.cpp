#include "jobs/export_jobs.h"

#include <QDir>
#include <QFileInfo>

#include "jobs/checkpoint_jobs.h"

namespace ckpt::ui {

DestinationVerdict judgeExportOutput(const QString& output, const QStringList& sources, const QStringList& open) {
    if (output.trimmed().isEmpty()) return {.refusal = QObject::tr("Choose the file to export to.")};
    if (!arrayFormatFromPath(output.toStdString())) return {.refusal = QObject::tr("Name the file .safetensors or .npz.")};
    return judgeDestination(output, sources, open, /*file=*/true);
}

QString suggestExportOutput(const QString& source, ArrayFormat format) {
    const QString extension = QLatin1Char('.') + QString::fromLatin1(arrayFormatName(format));
    // Exports are written locally: one of a checkpoint on object storage goes home.
    const QString base = isRemoteLocation(source) ? QDir::home().filePath(QFileInfo(source).fileName()) : source;
    QString candidate = base + extension;
    for (int n = 2; QFileInfo::exists(candidate); ++n) candidate = base + QLatin1Char('-') + QString::number(n) + extension;
    return candidate;
}

SurgeryOutcome exportArrays(const QString& source, const QString& output, ExportOptions options,
                            const std::shared_ptr<JobControl>& job) {
    SurgeryOutcome out;
    out.prefix = output;
    out.checkpoint = false;
    if (job->isCancelled()) {
        out.cancelled = true;
        return out;
    }
    options.progress = JobControl::sinkFor(job);
    options.cancel = &job->token();
    auto done = exportCheckpoint(source.toStdString(), output.toStdString(), options);
    if (!done.ok()) {
        out.cancelled = done.status().code() == StatusCode::Cancelled;
        if (!out.cancelled) out.error = QString::fromStdString(done.status().toString());
        return out;
    }
    out.ok = true;
    out.prefix = QString::fromStdString(done->output);
    out.tensors = done->tensors;
    out.dataBytes = done->fileBytes;
    for (const std::string& n : done->notes) out.notes << QString::fromStdString(n);
    return out;
}

}  // namespace ckpt::ui

#include "jobs/surgery_jobs.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <string>
#include <vector>

#include "ckpt/destination.h"
#include "jobs/catalog_jobs.h"
#include "jobs/checkpoint_jobs.h"

namespace ckpt::ui {
namespace {

QString text(const Status& s) { return QString::fromStdString(s.toString()); }

std::vector<std::string> toStd(const QStringList& list) {
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(list.size()));
    for (const QString& s : list) out.push_back(s.toStdString());
    return out;
}

SurgeryOptions optionsFor(const SurgeryTarget& target, const std::shared_ptr<JobControl>& job) {
    SurgeryOptions options;
    options.save = saveOptionsFor(target.sharding);
    options.overwrite = target.overwrite;
    options.open = toStd(target.open);
    options.progress = JobControl::sinkFor(job);
    options.cancel = &job->token();
    return options;
}

SurgeryOutcome outcomeOf(const SurgeryTarget& target, const Result<SurgeryResult>& result) {
    SurgeryOutcome out;
    out.prefix = target.destination;
    if (!result.ok()) {
        out.cancelled = result.status().code() == StatusCode::Cancelled;
        if (!out.cancelled) out.error = text(result.status());
        return out;
    }
    out.ok = true;
    out.replaced = result->replaced;
    out.prefix = QString::fromStdString(result->stats.prefix.empty() ? target.destination.toStdString() : result->stats.prefix);
    out.tensors = result->stats.tensors;
    out.shards = result->stats.shards;
    out.dataBytes = result->stats.dataBytes;
    for (const std::string& n : result->notes) out.notes << QString::fromStdString(n);
    // The catalog describes what is on disk now, not what was replaced.
    if (auto catalog = sideCatalog(target.catalogPath)) {
        auto recorded = catalog->recordWrite(result->stats.prefix, &result->verify);
        if (!recorded.ok()) out.recordWarning = text(recorded.status());
    }
    return out;
}

// A job cancelled before it started (Esc right after the dialog closed)
// never reaches the engine.
SurgeryOutcome cancelledBeforeStart(const QString& destination) {
    SurgeryOutcome out;
    out.prefix = destination;
    out.cancelled = true;
    return out;
}

}  // namespace

DestinationVerdict judgeDestination(const QString& destination, const QStringList& sources, const QStringList& open, bool file) {
    DestinationVerdict out;
    if (destination.trimmed().isEmpty()) {
        out.refusal = file ? QObject::tr("Choose the file to write.") : QObject::tr("Choose where to write the result.");
        return out;
    }
    const DestinationCheck check = ckpt::checkDestination({.path = destination.toStdString(),
                                                           .kind = file ? DestinationKind::File : DestinationKind::Checkpoint,
                                                           .sources = toStd(sources),
                                                           .open = toStd(open)});
    out.path = QString::fromStdString(check.path);
    if (check.existing) {
        out.checkpoint = check.existing->checkpoint;
        out.existing = QString::fromStdString(describeExisting(*check.existing));
    }
    switch (check.problem) {
    case DestinationProblem::None: break;
    case DestinationProblem::Exists: out.exists = true; break;
    case DestinationProblem::IsSource:
    case DestinationProblem::InsideSource:
        out.refusal = QObject::tr(
                          "%1\nSources are never written: write the result elsewhere, then use Save As to put it in "
                          "place.")
                          .arg(text(check.status()));
        break;
    case DestinationProblem::IsOpen:
        out.refusal = QObject::tr(
                          "%1\nThe open checkpoint is never written: write the result elsewhere, then use Save As to "
                          "put it in place once this one is closed.")
                          .arg(text(check.status()));
        break;
    default: out.refusal = text(check.status()); break;
    }
    return out;
}

DestinationVerdict judgeAverageDestination(const QString& destination, const QStringList& sources, const QStringList& open) {
    DestinationVerdict out = judgeDestination(destination, sources, open);
    if (!out.refusal.isEmpty() || sources.size() < 2) return out;  // the dialog's own fields say what is missing
    if (const Status s = checkAverageSources(toStd(sources)); !s.isOk()) out.refusal = text(s);
    return out;
}

QString replaceQuestionTitle(const DestinationVerdict& verdict) {
    return QObject::tr("Replace %1?").arg(QFileInfo(verdict.path).fileName());
}

QString replaceQuestionText(const DestinationVerdict& verdict) {
    return verdict.checkpoint
               ? QObject::tr(
                     "A checkpoint already exists at %1 (%2). Replace it? The new one is written beside it and takes "
                     "its place only once it verifies.")
                     .arg(verdict.path, verdict.existing)
               : QObject::tr(
                     "A file already exists at %1 (%2). Replace it? The new one takes its place only once it was "
                     "checked.")
                     .arg(verdict.path, verdict.existing);
}

QString suggestDestination(const QString& source, const QString& suffix) {
    const QFileInfo info(source);
    // Beside the run, not in it: a result among the run's checkpoints becomes
    // one of them (a false point in its history, a foreign checkpoint for
    // retention, an archive for a schedule reading the run).
    const QDir run = info.absoluteDir();
    // Results are written locally: a run on object storage has no folder
    // beside it here (and QDir would make "s3://b/run" the folder "s3:").
    const bool remote = isRemoteLocation(source);
    const QString edits = run.isRoot() || remote ? QDir::home().filePath(QStringLiteral("ckpt-edits"))
                                                 : QDir::cleanPath(run.absoluteFilePath(QStringLiteral(".."))) +
                                                       QLatin1Char('/') + run.dirName() + QStringLiteral("-edits");
    const QString base = QDir(edits).filePath(info.fileName() + QLatin1Char('-') + suffix);
    QString candidate = base;
    for (int n = 2; QFileInfo::exists(candidate + QStringLiteral(".index")); ++n)
        candidate = base + QLatin1Char('-') + QString::number(n);
    return candidate;
}

SurgeryOutcome writeCopy(const QString& source, const SurgeryTarget& target, const std::shared_ptr<JobControl>& job) {
    if (job->isCancelled()) return cancelledBeforeStart(target.destination);
    return outcomeOf(target, saveCheckpointAs(source.toStdString(), target.destination.toStdString(), optionsFor(target, job)));
}

SurgeryOutcome mergeInto(const QStringList& sources, const SurgeryTarget& target, const std::shared_ptr<JobControl>& job) {
    if (job->isCancelled()) return cancelledBeforeStart(target.destination);
    return outcomeOf(target, mergeCheckpoints(toStd(sources), target.destination.toStdString(), optionsFor(target, job)));
}

SurgeryOutcome averageInto(const QStringList& sources, const AverageSpec& spec, const SurgeryTarget& target,
                           const std::shared_ptr<JobControl>& job) {
    if (job->isCancelled()) return cancelledBeforeStart(target.destination);
    return outcomeOf(target, averageCheckpoints(toStd(sources), target.destination.toStdString(), spec, optionsFor(target, job)));
}

EditPreview previewEdit(const std::shared_ptr<const Checkpoint>& source, const EditSpec& spec) {
    EditPreview out;
    auto plan = planEdit(*source, spec);
    if (!plan.ok()) {
        out.error = text(plan.status());
        return out;
    }
    auto owned = std::make_shared<const EditPlan>(std::move(*plan));
    auto snap = std::make_shared<CheckpointSnapshot>();
    snap->checkpoint = source;
    snap->keepAlive = owned;
    for (const TensorInfo& t : owned->tensors) snap->storedBytes += t.storedBytes();
    snap->tensorCount = static_cast<int64_t>(owned->tensors.size());
    DisplayTreeOptions options;
    options.aliases = false;  // as the explorer's own tree shows it
    DisplayTree tree = buildDisplayTree(owned->graph ? &*owned->graph : nullptr, owned->tensors, options);
    snap->entries = std::move(tree.entries);
    snap->ownedText = std::move(tree.ownedText);
    out.plan = std::move(owned);
    out.tree = std::move(snap);
    return out;
}

SurgeryOutcome writeEdit(const std::shared_ptr<const EditPlan>& plan, const SurgeryTarget& target,
                         const std::shared_ptr<JobControl>& job) {
    if (job->isCancelled()) return cancelledBeforeStart(target.destination);
    return outcomeOf(target, applyEdit(*plan, target.destination.toStdString(), optionsFor(target, job)));
}

QString editPathOf(const CheckpointSnapshot& snapshot, int32_t entry) {
    const auto& entries = snapshot.entries;
    const TreeEntry& e = entries[static_cast<size_t>(entry)];
    if (e.kind == EntryKind::Key || e.kind == EntryKind::KeyGroup) return pathText(e);
    QStringList parts;
    for (int32_t i = entry; i > 0; i = entries[static_cast<size_t>(i)].parent) {
        const std::string_view name = entries[static_cast<size_t>(i)].localName;
        parts.prepend(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
    }
    return parts.join(QLatin1Char('.'));
}

bool isEditableEntry(const TreeEntry& entry) {
    switch (entry.kind) {
    case EntryKind::Object:
    case EntryKind::Variable:
    case EntryKind::ReplicatedVariable:
    case EntryKind::Optimizer: return !entry.underSlot && entry.parent >= 0;
    case EntryKind::Key:
    case EntryKind::KeyGroup: return true;
    case EntryKind::Root:
    case EntryKind::SlotVariable:
    case EntryKind::Attribute:
    case EntryKind::Alias: return false;
    }
    return false;
}

}  // namespace ckpt::ui

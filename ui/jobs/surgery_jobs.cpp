#include "jobs/surgery_jobs.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <string>
#include <vector>

namespace ckpt::ui {
namespace {

QString text(const Status& s) { return QString::fromStdString(s.toString()); }

std::vector<std::string> toStd(const QStringList& list) {
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(list.size()));
    for (const QString& s : list) out.push_back(s.toStdString());
    return out;
}

SurgeryOptions optionsFor(const ShardingChoice& sharding, const std::shared_ptr<JobControl>& job) {
    SurgeryOptions options;
    options.save = saveOptionsFor(sharding);
    options.progress = JobControl::sinkFor(job);
    options.cancel = &job->token();
    return options;
}

SurgeryOutcome outcomeOf(const QString& destination, const Result<SurgeryResult>& result) {
    SurgeryOutcome out;
    out.prefix = destination;
    if (!result.ok()) {
        out.cancelled = result.status().code() == StatusCode::Cancelled;
        if (!out.cancelled) out.error = text(result.status());
        return out;
    }
    out.ok = true;
    out.prefix = QString::fromStdString(result->stats.prefix.empty() ? destination.toStdString() : result->stats.prefix);
    out.tensors = result->stats.tensors;
    out.shards = result->stats.shards;
    out.dataBytes = result->stats.dataBytes;
    for (const std::string& n : result->notes) out.notes << QString::fromStdString(n);
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

QString checkDestination(const QString& destination, const QStringList& sources) {
    if (destination.trimmed().isEmpty()) return QObject::tr("Choose where to write the result.");
    const Status s = checkSurgeryDestination(destination.toStdString(), toStd(sources), /*overwrite=*/false);
    return s.isOk() ? QString() : text(s);
}

QString checkAverageDestination(const QString& destination, const QStringList& sources) {
    if (QString reason = checkDestination(destination, sources); !reason.isEmpty()) return reason;
    if (sources.size() < 2) return {};  // the dialog's own fields say what is missing
    const Status s = checkAverageSources(toStd(sources));
    return s.isOk() ? QString() : text(s);
}

QString suggestDestination(const QString& source, const QString& suffix) {
    const QFileInfo info(source);
    const QString base = info.dir().filePath(info.fileName() + QLatin1Char('-') + suffix);
    QString candidate = base;
    for (int n = 2; QFileInfo::exists(candidate + QStringLiteral(".index")); ++n)
        candidate = base + QLatin1Char('-') + QString::number(n);
    return candidate;
}

SurgeryOutcome writeCopy(const QString& source, const QString& destination, const ShardingChoice& sharding,
                         const std::shared_ptr<JobControl>& job) {
    if (job->isCancelled()) return cancelledBeforeStart(destination);
    return outcomeOf(destination, saveCheckpointAs(source.toStdString(), destination.toStdString(), optionsFor(sharding, job)));
}

SurgeryOutcome averageInto(const QStringList& sources, const QString& destination, const AverageSpec& spec,
                           const ShardingChoice& sharding, const std::shared_ptr<JobControl>& job) {
    if (job->isCancelled()) return cancelledBeforeStart(destination);
    return outcomeOf(destination, averageCheckpoints(toStd(sources), destination.toStdString(), spec, optionsFor(sharding, job)));
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

SurgeryOutcome writeEdit(const std::shared_ptr<const EditPlan>& plan, const QString& destination, const ShardingChoice& sharding,
                         const std::shared_ptr<JobControl>& job) {
    if (job->isCancelled()) return cancelledBeforeStart(destination);
    return outcomeOf(destination, applyEdit(*plan, destination.toStdString(), optionsFor(sharding, job)));
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

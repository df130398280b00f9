#include "models/directory_listing.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/checkpoint_step.h"

namespace ckpt::ui {

QString directoryFor(const QString& openedPath) {
    const QFileInfo fi(openedPath);
    if (fi.isDir()) {
        // A SavedModel keeps its bundle in variables/.
        if (QFileInfo::exists(fi.absoluteFilePath() + QStringLiteral("/variables/variables.index")))
            return fi.absoluteFilePath() + QStringLiteral("/variables");
        return fi.absoluteFilePath();
    }
    return fi.absolutePath();
}

DirectoryListing listDirectory(const QString& dir) {
    DirectoryListing out;
    out.dir = QDir(dir).absolutePath();
    QDir d(out.dir);
    if (!d.exists()) {
        out.error = QObject::tr("The directory %1 does not exist.").arg(out.dir);
        return out;
    }
    std::vector<std::string> stated;
    std::string latest;
    auto state = readCheckpointState(out.dir.toStdString());
    if (!state.ok()) {
        out.stateFileError = QString::fromStdString(state.status().toString());
    } else if (state->has_value()) {
        const CheckpointState& s = **state;
        latest = resolveStatePath(out.dir.toStdString(), s.modelCheckpointPath);
        for (const std::string& p : s.allModelCheckpointPaths) stated.push_back(resolveStatePath(out.dir.toStdString(), p));
    }
    for (const QFileInfo& index : d.entryInfoList({QStringLiteral("*.index")}, QDir::Files, QDir::Name)) {
        CheckpointFileEntry e;
        e.prefix = index.absolutePath() + QLatin1Char('/') + index.completeBaseName();
        e.name = index.completeBaseName();
        auto reader = BundleReader::open(e.prefix.toStdString());
        const CheckpointStep step = checkpointStep(e.prefix.toStdString(), reader.ok() ? reader->get() : nullptr);
        e.number = step.number;
        e.step = step.step;
        e.stepSource = QString::fromStdString(step.source);
        e.modified = index.lastModified();
        e.bytes = index.size();
        for (const QFileInfo& data : d.entryInfoList({e.name + QStringLiteral(".data-*")}, QDir::Files)) e.bytes += data.size();
        const std::string p = QDir::cleanPath(e.prefix).toStdString();
        e.isLatest = !latest.empty() && QDir::cleanPath(QString::fromStdString(latest)).toStdString() == p;
        e.inStateFile = e.isLatest || std::any_of(stated.begin(), stated.end(), [&](const std::string& s) {
                            return QDir::cleanPath(QString::fromStdString(s)).toStdString() == p;
                        });
        out.checkpoints.push_back(std::move(e));
    }
    std::stable_sort(out.checkpoints.begin(), out.checkpoints.end(), [](const auto& a, const auto& b) {
        if (a.number.has_value() != b.number.has_value()) return a.number.has_value();
        return a.number.value_or(0) < b.number.value_or(0);
    });
    return out;
}

} // namespace ckpt::ui

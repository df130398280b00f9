#include "models/directory_listing.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

#include "ckpt/checkpoint_state.h"

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
    static const QRegularExpression stepRe(QStringLiteral("-(\\d+)$"));
    for (const QFileInfo& index : d.entryInfoList({QStringLiteral("*.index")}, QDir::Files, QDir::Name)) {
        CheckpointFileEntry e;
        e.prefix = index.absolutePath() + QLatin1Char('/') + index.completeBaseName();
        e.name = index.completeBaseName();
        if (const auto m = stepRe.match(e.name); m.hasMatch()) e.step = m.captured(1).toLongLong();
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
        if (a.step.has_value() != b.step.has_value()) return a.step.has_value();
        return a.step.value_or(0) < b.step.value_or(0);
    });
    return out;
}

} // namespace ckpt::ui

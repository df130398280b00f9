#include "jobs/demo_jobs.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include "ckpt/demo_trainer.h"

namespace ckpt::ui {

DemoResult generateDemoCheckpoints(const QString& directory, const std::shared_ptr<JobControl>& job) {
    DemoResult out;
    out.directory = directory;
    DemoTrainOptions options;
    options.directory = directory.toStdString();
    job->setProgress(0, options.steps);
    // The trainer reports only at saves; that is often enough for a short run.
    auto run = runDemoTraining(options, [&](const DemoProgress& p) {
        job->setProgress(p.step, options.steps);
        if (p.savedPath) out.latest = QString::fromStdString(*p.savedPath);
    });
    if (!run.ok()) {
        out.error = QString::fromStdString(run.status().toString());
        return out;
    }
    out.ok = true;
    return out;
}

bool hasCheckpointState(const QString& directory) {
    return QFileInfo::exists(QDir(directory).filePath(QStringLiteral("checkpoint")));
}

QString defaultDemoDirectory() {
    // Beside the catalog, in $XDG_DATA_HOME/<application>/demo: Qt's
    // AppDataLocation would add the organization too, and both are
    // "ckpt-explorer" (…/ckpt-explorer/ckpt-explorer/demo).
    const QString data = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    // Not created here: the trainer's save creates missing directories, and
    // showing the welcome page should leave no folders behind.
    if (!data.isEmpty()) return QDir(data).filePath(QCoreApplication::applicationName() + QStringLiteral("/demo"));
    return QDir(QDir::tempPath()).filePath(QStringLiteral("ckpt-explorer-demo"));
}

}  // namespace ckpt::ui

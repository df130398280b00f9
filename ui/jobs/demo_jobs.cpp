#include "jobs/demo_jobs.h"

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
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    // Not created here: the trainer's save creates missing directories, and
    // showing the welcome page should leave no folders behind.
    if (!data.isEmpty()) return QDir(data).filePath(QStringLiteral("demo"));
    return QDir(QDir::tempPath()).filePath(QStringLiteral("ckpt-explorer-demo"));
}

}  // namespace ckpt::ui

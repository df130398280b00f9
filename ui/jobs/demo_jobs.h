#pragma once
// The first-run demo: trains the engine's small MLP with Adam and saves its
// checkpoints into a directory, so a newcomer has a real object graph with
// optimizer slots to explore. For QtConcurrent::run on jobPool().

#include <QString>

#include <memory>

#include "jobs/job_control.h"

namespace ckpt::ui {

struct DemoResult {
    bool ok = false;
    QString directory;
    QString error;   // Status::toString() of the failure
    QString latest;  // the last checkpoint saved
};
DemoResult generateDemoCheckpoints(const QString& directory, const std::shared_ptr<JobControl>& job);

// Whether 'directory' already holds a checkpoint state file (the demo, or
// anything else worth opening instead of overwriting).
bool hasCheckpointState(const QString& directory);
// Where the welcome page puts the demo: the app-data folder, else the temp
// directory.
QString defaultDemoDirectory();

}  // namespace ckpt::ui

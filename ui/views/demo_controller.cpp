#include "views/demo_controller.h"

#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QtConcurrent/QtConcurrentRun>

#include "jobs/demo_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/when_done.h"
#include "views/checkpoint_opener.h"

namespace ckpt::ui {

DemoController::DemoController(JobTracker* jobs, CheckpointOpener* opener, QLabel* status, QWidget* window)
    : QObject(window), m_jobs(jobs), m_opener(opener), m_status(status), m_window(window) {}

void DemoController::generateIntoChosenFolder() {
    const QString dir = QFileDialog::getExistingDirectory(m_window, tr("Folder for Demo Checkpoints"), QDir::homePath());
    if (!dir.isEmpty()) generate(dir);
}

void DemoController::generate(const QString& directory) {
    if (m_job) return;
    auto job = m_jobs->start(tr("Training demo model into %1").arg(directory));
    m_job = job;
    emit runningChanged(true);
    m_status->setText(tr("Training the demo model (200 Adam steps) into %1\u2026").arg(directory));
    whenDone(this, QtConcurrent::run(jobPool(), generateDemoCheckpoints, directory, job), [this, job](const DemoResult& r) {
        m_jobs->finish(job);
        m_job.reset();
        emit runningChanged(false);
        emit generated(r.ok, r.directory);
        if (!r.ok) {
            m_opener->showError(tr("Cannot generate demo checkpoints in %1").arg(r.directory), r.error, {});
            return;
        }
        m_opener->openPath(r.directory);
    });
}

void DemoController::open(const QString& directory) {
    if (hasCheckpointState(directory)) m_opener->openPath(directory);
    else generate(directory);
}

}  // namespace ckpt::ui

#pragma once
// Demo checkpoints for a newcomer without one at hand: trains the demo
// model (jobs/demo_jobs.h) into a folder as a background job, one at a
// time, then opens the folder's latest checkpoint; a failure shows in the
// error panel.

#include <QObject>
#include <QString>

#include <memory>

class QLabel;
class QWidget;

namespace ckpt::ui {

class CheckpointOpener;
class JobControl;
class JobTracker;

class DemoController : public QObject {
    Q_OBJECT
public:
    // 'window' is the folder dialog's parent; 'status' the status line.
    DemoController(JobTracker* jobs, CheckpointOpener* opener, QLabel* status, QWidget* window);

    // Trains the demo model into 'directory', then opens it.
    void generate(const QString& directory);
    // Opens the demo in 'directory', generating it first when missing.
    void open(const QString& directory);
    // Asks for a folder, then generates into it.
    void generateIntoChosenFolder();

signals:
    void runningChanged(bool running);
    // Training and saving worked or failed (the open follows).
    void generated(bool ok, const QString& directory);

private:
    JobTracker* m_jobs;
    CheckpointOpener* m_opener;
    QLabel* m_status;
    QWidget* m_window;
    std::shared_ptr<JobControl> m_job;
};

}  // namespace ckpt::ui

#pragma once
// Status-bar progress for background jobs: the newest running job's title
// and progress, a count of the others, and a Cancel button that cancels
// them all. Polls the jobs' atomics on a timer instead of receiving a
// signal per progress step, so a chatty engine cannot flood the event loop.

#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;
class QTimer;

namespace ckpt::ui {

class JobTracker;

class JobStatusWidget : public QWidget {
    Q_OBJECT
public:
    explicit JobStatusWidget(JobTracker* tracker, QWidget* parent = nullptr);

private:
    void refresh();

    JobTracker* m_tracker;
    QLabel* m_label;
    QProgressBar* m_bar;
    QToolButton* m_cancel;
    QTimer* m_timer;
};

}  // namespace ckpt::ui

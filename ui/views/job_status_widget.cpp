#include "views/job_status_widget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QTimer>
#include <QToolButton>

#include "jobs/job_tracker.h"

namespace ckpt::ui {

JobStatusWidget::JobStatusWidget(JobTracker* tracker, QWidget* parent)
    : QWidget(parent), m_tracker(tracker), m_label(new QLabel(this)), m_bar(new QProgressBar(this)),
      m_cancel(new QToolButton(this)), m_timer(new QTimer(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addWidget(m_cancel);
    m_bar->setMaximumWidth(180);
    m_bar->setTextVisible(false);
    m_bar->setAccessibleName(tr("Background job progress"));
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Cancel background work (Esc)"));
    m_cancel->setAccessibleName(tr("Cancel background jobs"));
    connect(m_cancel, &QToolButton::clicked, m_tracker, &JobTracker::cancelByUser);
    connect(m_tracker, &JobTracker::jobsChanged, this, &JobStatusWidget::refresh);
    m_timer->setInterval(100);
    connect(m_timer, &QTimer::timeout, this, &JobStatusWidget::refresh);
    refresh();
}

void JobStatusWidget::refresh() {
    const auto& jobs = m_tracker->active();
    setVisible(!jobs.isEmpty());
    if (jobs.isEmpty()) {
        m_timer->stop();
        return;
    }
    if (!m_timer->isActive()) m_timer->start();
    const auto& job = jobs.last();
    QString text = job->title();
    if (jobs.size() > 1) text += tr(" (+%1 more)").arg(jobs.size() - 1);
    m_label->setText(text);
    const int64_t total = job->total();
    if (total <= 0) {
        m_bar->setRange(0, 0);  // busy indicator until the engine reports a total
    } else {
        m_bar->setRange(0, 1000);
        m_bar->setValue(static_cast<int>(job->done() * 1000 / total));
    }
}

}  // namespace ckpt::ui

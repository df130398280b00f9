#include "jobs/job_tracker.h"

namespace ckpt::ui {

JobTracker::~JobTracker() { cancelAll(); }

std::shared_ptr<JobControl> JobTracker::start(const QString& title) {
    auto job = std::make_shared<JobControl>(title);
    m_active.append(job);
    emit jobsChanged();
    return job;
}

void JobTracker::finish(const std::shared_ptr<JobControl>& job) {
    if (m_active.removeOne(job)) emit jobsChanged();
}

void JobTracker::cancelByUser() {
    cancelAll();
    emit cancelledByUser();
}

void JobTracker::cancelAll() {
    for (const auto& job : std::as_const(m_active)) job->cancel();
}

}  // namespace ckpt::ui

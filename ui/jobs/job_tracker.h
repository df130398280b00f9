#pragma once
// The list of running background operations the status bar shows. Owners
// register a job before handing it to the pool and finish it when the
// result lands on the GUI thread. GUI thread only.

#include <QList>
#include <QObject>

#include <memory>

#include "jobs/job_control.h"

namespace ckpt::ui {

class JobTracker : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~JobTracker() override;

    std::shared_ptr<JobControl> start(const QString& title);
    void finish(const std::shared_ptr<JobControl>& job);
    void cancelAll();
    // The user's Cancel (Esc, the status bar's button): cancelAll, and says
    // so, for owners that stop waiting for their result at once (an open
    // on object storage whose request cannot be interrupted).
    void cancelByUser();
    const QList<std::shared_ptr<JobControl>>& active() const { return m_active; }

signals:
    void jobsChanged();
    void cancelledByUser();

private:
    QList<std::shared_ptr<JobControl>> m_active;
};

}  // namespace ckpt::ui

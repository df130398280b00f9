#include "jobs/job_pool.h"

#include <QThread>

#include <algorithm>

namespace ckpt::ui {

QThreadPool* jobPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;
        // At least two workers so a tensor read is not queued behind a
        // whole-checkpoint verify.
        p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
        return p;
    }();
    return pool;
}

}  // namespace ckpt::ui

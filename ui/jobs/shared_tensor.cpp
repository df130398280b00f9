#include "jobs/shared_tensor.h"

#include <QCoreApplication>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

#include "jobs/job_pool.h"

namespace ckpt::ui {
namespace {

size_t heldBytes(const Tensor& t) {
    size_t bytes = t.bytes.capacity();
    for (const std::string& s : t.strings) bytes += s.capacity();
    return bytes;
}

void release(const Tensor* tensor) {
    const QCoreApplication* app = QCoreApplication::instance();
    const bool onGuiThread = app && QThread::currentThread() == app->thread();
    // While the application winds down the pool may be gone: free in place.
    if (!onGuiThread || QCoreApplication::closingDown() || heldBytes(*tensor) < kWorkerReleaseBytes) {
        delete tensor;
        return;
    }
    (void)QtConcurrent::run(jobPool(), [tensor] { delete tensor; });
}

}  // namespace

std::shared_ptr<const Tensor> shareTensor(Tensor&& tensor) {
    return std::shared_ptr<const Tensor>(new Tensor(std::move(tensor)), release);
}

}  // namespace ckpt::ui

#pragma once
// The one thread pool every engine call from the UI runs on. Keeping engine
// work off QThreadPool::globalInstance() means a long verify can never starve
// Qt's own users of the global pool, and shutdown waits on exactly our jobs.

#include <QThreadPool>

namespace ckpt::ui {

QThreadPool* jobPool();

}  // namespace ckpt::ui

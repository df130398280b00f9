#pragma once
// Delivers a background result to a QObject on its thread:
//   whenDone(this, QtConcurrent::run(jobPool(), work, args...), [this](const R& r) { ... });
// A QFutureWatcher, not QFuture::then(context, ...): with Qt 6.4 a context
// continuation is occasionally never called when the future finishes while
// it is being attached, which left the explorer waiting forever (seen in
// tst_explorer_window). The watcher is a child of 'context', so a result
// arriving after the context is destroyed is dropped.

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>

#include <utility>

namespace ckpt::ui {

template <typename T, typename F>
void whenDone(QObject* context, const QFuture<T>& future, F&& onResult) {
    auto* watcher = new QFutureWatcher<T>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context, [watcher, f = std::forward<F>(onResult)]() mutable {
        watcher->deleteLater();
        // A cancelled job that never ran has no result:
        // whoever cancelled it no longer wants one.
        if (watcher->future().resultCount() == 0) return;
        f(watcher->result());
    });
    watcher->setFuture(future);
}

}  // namespace ckpt::ui

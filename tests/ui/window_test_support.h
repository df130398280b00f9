#pragma once
// Helpers the explorer-window suites share: a real-corpus bundle's path and
// waiting until the window's background jobs are done.

#include <QString>
#include <QtTest>

#include "jobs/job_tracker.h"
#include "test_support.h"
#include "views/main_window.h"

namespace ckpt::testing {

// The corpus bundle 'name'; empty without a corpus.
inline QString bundleDir(const char* name) {
    const QString root = realTestDataDir();
    return root.isEmpty() ? QString() : root + QLatin1Char('/') + QLatin1String(name);
}

inline bool waitIdle(ckpt::ui::MainWindow& w, int ms = 20000) {
    return QTest::qWaitFor([&] { return w.jobs()->active().isEmpty(); }, ms);
}

}  // namespace ckpt::testing

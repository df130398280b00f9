#pragma once
// Helpers the explorer-window suites share: a real-corpus bundle's path, a
// window shown fresh at a size, and waiting until its background jobs are
// done.

#include <QSignalSpy>
#include <QString>
#include <QtTest>

#include "automation/explorer_page.h"
#include "test_support.h"
#include "views/main_window.h"

namespace ckpt::testing {

// The corpus bundle 'name'; empty without a corpus.
inline QString bundleDir(const char* name) {
    const QString root = realTestDataDir();
    return root.isEmpty() ? QString() : root + QLatin1Char('/') + QLatin1String(name);
}

inline bool waitIdle(ckpt::ui::MainWindow& w, int ms = 20000) {
    const ckpt::ui::ExplorerPage page(w);
    return QTest::qWaitFor([&] { return page.isIdle(); }, ms);
}

// Shows 'w' at 'size' with the layout a first launch at that size has.
inline bool showFreshAt(ckpt::ui::MainWindow& w, QSize size) {
    w.resize(size);
    w.resetLayout();
    w.show();
    return QTest::qWaitForWindowExposed(&w);
}

// Opens 'path' in 'w' and waits for the open and every job it started; false
// when it did not open.
inline bool openAndWait(ckpt::ui::MainWindow& w, const QString& path) {
    QSignalSpy opened(&w, &ckpt::ui::MainWindow::checkpointOpened);
    w.openPath(path);
    return opened.wait(10000) && opened.first().first().toBool() && waitIdle(w);
}

}  // namespace ckpt::testing

#pragma once
// The one environment every explorer test runs in, instead of an
// initTestCase copied into each suite:
//   CKPT_EXPLORER_TEST_MAIN(TstFoo)
// runs the suite in a QApplication whose settings, data and cache folders
// are Qt's test-mode ones under an organisation named for the test binary
// (suites that CTest runs side by side never share recent files or window
// layouts), cleared before the first test; numbers are formatted in the C
// locale, so expectations do not depend on the machine's.

#include <QAbstractButton>
#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>
#include <QtTest>

#include <memory>

#include "jobs/allocator.h"

namespace ckpt::testing {

inline void initExplorerTestEnvironment() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ckpt-explorer-tests-") +
                                          QFileInfo(QCoreApplication::applicationFilePath()).fileName());
    QCoreApplication::setApplicationName(QStringLiteral("ckpt-explorer"));
    QLocale::setDefault(QLocale::c());
    QSettings().clear();
}

// Answers the next modal message box named 'name' (the real one the window
// shows) by clicking the button whose text contains 'button'; its title and
// text are kept in 'text'. Polls, so it can be armed before the box opens.
inline void answerBox(const QString& name, const QString& button, QString* text) {
    auto* timer = new QTimer;
    timer->setInterval(20);
    auto started = std::make_shared<QElapsedTimer>();
    started->start();
    QObject::connect(timer, &QTimer::timeout, [timer, started, name, button, text] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || box->objectName() != name) {
            if (started->elapsed() > 60000) timer->deleteLater();
            return;
        }
        if (text) *text = box->windowTitle() + QLatin1Char('\n') + box->text();
        for (QAbstractButton* b : box->buttons())
            if (b->text().remove(QLatin1Char('&')).contains(button)) {
                b->click();
                break;
            }
        timer->deleteLater();
    });
    timer->start();
}

}  // namespace ckpt::testing

#define CKPT_EXPLORER_TEST_MAIN(TestClass)            \
    int main(int argc, char** argv) {                 \
        ckpt::ui::configureAllocator();               \
        QApplication app(argc, argv);                 \
        app.setAttribute(Qt::AA_Use96Dpi, true);      \
        ckpt::testing::initExplorerTestEnvironment(); \
        TestClass test;                               \
        QTEST_SET_MAIN_SOURCE_PATH                    \
        return QTest::qExec(&test, argc, argv);       \
    }

#pragma once
// The one environment every explorer test runs in, instead of an
// initTestCase copied into each suite:
//   CKPT_EXPLORER_TEST_MAIN(TstFoo)
// runs the suite in a QApplication whose settings, data and cache folders
// are Qt's test-mode ones under an organisation named for the test binary
// (suites that CTest runs side by side never share recent files or window
// layouts), cleared before the first test; numbers are formatted in the C
// locale, so expectations do not depend on the machine's.

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

namespace ckpt::testing {

inline void initExplorerTestEnvironment() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ckpt-explorer-tests-") +
                                          QFileInfo(QCoreApplication::applicationFilePath()).fileName());
    QCoreApplication::setApplicationName(QStringLiteral("ckpt-explorer"));
    QLocale::setDefault(QLocale::c());
    QSettings().clear();
}

}  // namespace ckpt::testing

#define CKPT_EXPLORER_TEST_MAIN(TestClass)            \
    int main(int argc, char** argv) {                 \
        QApplication app(argc, argv);                 \
        app.setAttribute(Qt::AA_Use96Dpi, true);      \
        ckpt::testing::initExplorerTestEnvironment(); \
        TestClass test;                               \
        QTEST_SET_MAIN_SOURCE_PATH                    \
        return QTest::qExec(&test, argc, argv);       \
    }

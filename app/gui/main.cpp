// ckpt-explorer [PATH]: the desktop explorer. --screenshot DIR saves a PNG of
// each view (window grabs, no X server tricks) for docs/screenshots.
// --demo DIR trains the demo model into DIR (unless it already holds
// checkpoints) and opens it: the one command a newcomer needs.
// --schedule-store PATH shows and edits the schedules of another store than
// the engine's default (tests and the screenshot tour use a temporary one).
// --catalog PATH uses another catalog (ckpt/catalog.h) than the default
// $XDG_DATA_HOME/ckpt-explorer/catalog.db; the tour uses a scratch one
// unless told, so that it never adds roots to the user's.

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QTimer>

#include "jobs/catalog_jobs.h"
#include "screenshot_tour.h"
#include "views/main_window.h"
#include "views/schedules_view.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("ckpt-explorer"));
    QApplication::setOrganizationName(QStringLiteral("ckpt-explorer"));
    QApplication::setApplicationDisplayName(QStringLiteral("Checkpoint Explorer"));
    QApplication::setApplicationVersion(QStringLiteral(CKPT_VERSION));
    // The installed theme icon (packaging/), else the copy built in; the
    // desktop file name ties Wayland windows to the launcher entry.
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral(CKPT_APP_ID), QIcon(QStringLiteral(":/ckpt-explorer.png"))));
    QGuiApplication::setDesktopFileName(QStringLiteral(CKPT_APP_ID));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Browse and inspect TensorFlow checkpoints."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("path"), QStringLiteral("Checkpoint prefix, directory or SavedModel to open."));
    parser.addPositionalArgument(QStringLiteral("[name-based]"),
                                 QStringLiteral("With --screenshot: a name-based checkpoint for the last view."));
    QCommandLineOption shots(QStringLiteral("screenshot"), QStringLiteral("Save a PNG of each view into DIR, then quit."),
                             QStringLiteral("dir"));
    parser.addOption(shots);
    QCommandLineOption demo(
        QStringLiteral("demo"),
        QStringLiteral("Open the demo checkpoints in DIR, generating them first (a short Adam training run) when missing."),
        QStringLiteral("dir"));
    parser.addOption(demo);
    QCommandLineOption store(QStringLiteral("schedule-store"),
                             QStringLiteral("The schedule store (SQLite) the Schedules tab shows, instead of the default."),
                             QStringLiteral("path"));
    parser.addOption(store);
    QCommandLineOption catalog(QStringLiteral("catalog"),
                               QStringLiteral("The catalog (SQLite) of checkpoints to use, instead of the default."),
                               QStringLiteral("path"));
    parser.addOption(catalog);
    parser.process(app);

    ckpt::ui::MainWindow window;
    // The schedules live in the catalog's file (schedule_store.h): --catalog
    // moves both unless --schedule-store names another file.
    if (parser.isSet(store)) window.schedulesView()->setStorePath(QDir(parser.value(store)).absolutePath());
    else if (parser.isSet(catalog)) window.schedulesView()->setStorePath(QDir(parser.value(catalog)).absolutePath());
    if (parser.isSet(catalog)) window.setCatalogPath(QDir(parser.value(catalog)).absolutePath());
    else if (!parser.isSet(shots)) window.setCatalogPath(ckpt::ui::defaultCatalogPath(nullptr));
    window.show();
    const QStringList args = parser.positionalArguments();
    if (parser.isSet(shots)) {
        auto* tour = new ckpt::gui::ScreenshotTour(&window, parser.value(shots), args.value(0), args.value(1), &app);
        QTimer::singleShot(0, tour, &ckpt::gui::ScreenshotTour::start);
    } else if (parser.isSet(demo)) {
        window.openDemo(QDir(parser.value(demo)).absolutePath());
    } else if (!args.isEmpty()) {
        window.openPath(args.first());
    }
    return app.exec();
}

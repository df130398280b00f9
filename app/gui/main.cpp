// ckpt-explorer [PATH]: the desktop explorer. --screenshot DIR saves a PNG of
// each view (window grabs, no X server tricks) for docs/screenshots.
// --demo DIR trains the demo model into DIR (unless it already holds
// checkpoints) and opens it: the one command a newcomer needs.
// --schedule-store PATH shows and edits the schedules of another store than
// the engine's default (tests and the screenshot tour use a temporary one).
// --catalog PATH uses another catalog (ckpt/catalog.h) than the default
// $XDG_DATA_HOME/ckpt-explorer/catalog.db; the tour uses a scratch one
// unless told, so that it never adds roots to the user's.
// --palette light|dark draws with Fusion and that palette instead of the
// desktop's (which is followed by default, dark themes included).
// --size WxH: the window size of the --screenshot tour (default 1600x1000).

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>

#include "ckpt/object_store.h"
#include "jobs/catalog_jobs.h"
#include "jobs/allocator.h"
#include "screenshot_tour.h"
#include "views/app_palette.h"
#include "views/main_window.h"
#include "views/schedules_view.h"

int main(int argc, char** argv) {
    ckpt::ui::configureAllocator();
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
    QCommandLineOption palette(QStringLiteral("palette"),
                               QStringLiteral("Colours: system (the desktop's, the default), light or dark."),
                               QStringLiteral("scheme"), QStringLiteral("system"));
    parser.addOption(palette);
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("With --screenshot: the window size, e.g. 1024x700."),
                            QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    parser.addOption(size);
    parser.process(app);
    if (!ckpt::ui::applyPaletteChoice(parser.value(palette))) {
        std::fprintf(stderr, "--palette: expected system, light or dark, not %s\n", qPrintable(parser.value(palette)));
        return 2;
    }
    // Remote indexes are kept between runs, revalidated by ETag, so reopening
    // a run on a store does not download them again (docs/remote.md,
    // "Caching"); CKPT_CACHE_DIR chooses another place.
    ckpt::ObjectCacheOptions cacheOptions;
    cacheOptions.defaultDirectory =
        (QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) + QStringLiteral("/ckpt-explorer/objects"))
            .toStdString();
    if (const auto cache = ckpt::configureObjectCache(cacheOptions); !cache.warning.empty())
        std::fprintf(stderr, "ckpt-explorer: %s\n", cache.warning.c_str());
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    const QSize tourSize(wh.value(0).toInt(), wh.value(1).toInt());
    if (wh.size() != 2 || tourSize.width() < 640 || tourSize.height() < 480) {
        std::fprintf(stderr, "--size: expected WxH of at least 640x480, not %s\n", qPrintable(parser.value(size)));
        return 2;
    }

    ckpt::ui::MainWindow window;
    // The schedules live in the catalog's file (schedule_store.h): --catalog
    // moves both unless --schedule-store names another file.
    if (parser.isSet(store)) window.setScheduleStorePath(QDir(parser.value(store)).absolutePath());
    else if (parser.isSet(catalog)) window.setScheduleStorePath(QDir(parser.value(catalog)).absolutePath());
    if (parser.isSet(catalog)) window.setCatalogPath(QDir(parser.value(catalog)).absolutePath());
    else if (!parser.isSet(shots)) window.setCatalogPath(ckpt::ui::defaultCatalogPath(nullptr));
    window.show();
    const QStringList args = parser.positionalArguments();
    if (parser.isSet(shots)) {
        auto* tour = new ckpt::gui::ScreenshotTour(&window, parser.value(shots), tourSize, args.value(0), args.value(1), &app);
        QTimer::singleShot(0, tour, &ckpt::gui::ScreenshotTour::start);
    } else if (parser.isSet(demo)) {
        window.openDemo(QDir(parser.value(demo)).absolutePath());
    } else if (!args.isEmpty()) {
        window.openPath(args.first());
    }
    return app.exec();
}

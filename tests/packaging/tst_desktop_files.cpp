// The explorer's desktop integration (packaging/): the desktop entry and the
// AppStream metadata pass the validators distributions run, name the same
// app id, icon and release as the build, point at screenshots that exist;
// the icons have their sizes; ckpt-explorer(1) has every option of
// ckpt-explorer --help; and `cmake --install` puts each file where desktops
// and man look for it.

#include <QDir>
#include <QFile>
#include <QImageReader>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include "packaging_support.h"
#include "test_support.h"

using namespace ckpt::testing;

namespace {

const QString kAppId = QStringLiteral(CKPT_APP_ID);
const QList<int> kIconSizes = {16, 22, 24, 32, 48, 64, 128, 256};

QString packagingFile(const QString& suffix) { return sourceDir() + QStringLiteral("/packaging/") + kAppId + suffix; }

// The metainfo's elements and attributes the checks below need.
struct Metainfo {
    QString id, launchable, icon, newestRelease;
    QStringList binaries;
    struct Image {
        QString url;
        int width = 0, height = 0;
    };
    QList<Image> images;
};

Metainfo readMetainfo(const QString& path) {
    Metainfo m;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return m;
    QXmlStreamReader xml(&file);
    while (xml.readNextStartElement() || !xml.atEnd()) {
        if (!xml.isStartElement()) {
            xml.readNext();
            continue;
        }
        const QStringView name = xml.name();
        if (name == QLatin1String("release") && m.newestRelease.isEmpty()) {
            m.newestRelease = xml.attributes().value(QLatin1String("version")).toString();
        } else if (name == QLatin1String("image")) {
            Metainfo::Image image;
            image.width = xml.attributes().value(QLatin1String("width")).toInt();
            image.height = xml.attributes().value(QLatin1String("height")).toInt();
            image.url = xml.readElementText();
            m.images += image;
        } else if (name == QLatin1String("id") && m.id.isEmpty()) {
            m.id = xml.readElementText();
        } else if (name == QLatin1String("launchable")) {
            m.launchable = xml.readElementText();
        } else if (name == QLatin1String("icon")) {
            m.icon = xml.readElementText();
        } else if (name == QLatin1String("binary")) {
            m.binaries += xml.readElementText();
        }
    }
    return m;
}

}  // namespace

class TstDesktopFiles : public QObject {
    Q_OBJECT

private slots:
    void desktopEntryValidates();
    void metainfoValidates();
    void filesAgreeWithTheBuild();
    void screenshotsExist();
    void iconsHaveTheirSizes();
    void explorerManPageHasEveryOption();
    void installsWhereDesktopsLook();
};

void TstDesktopFiles::desktopEntryValidates() {
    const ToolRun run = runTool(QStringLiteral("desktop-file-validate"), {packagingFile(QStringLiteral(".desktop"))});
    QVERIFY2(run.started, "desktop-file-validate is missing (scripts/install-deps.sh installs desktop-file-utils)");
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out + run.err, QString());  // not even a hint
}

void TstDesktopFiles::metainfoValidates() {
    const ToolRun run =
        runTool(QStringLiteral("appstreamcli"), {QStringLiteral("validate"), QStringLiteral("--no-net"),
                                                 QStringLiteral("--pedantic"), packagingFile(QStringLiteral(".metainfo.xml"))});
    QVERIFY2(run.started, "appstreamcli is missing (scripts/install-deps.sh installs appstream)");
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    // Errors, warnings and infos fail; pedantic remarks (P:) are listed in packaging/README.md.
    const QRegularExpression issue(QStringLiteral("^[EWI]: "), QRegularExpression::MultilineOption);
    QVERIFY2(!run.out.contains(issue), qPrintable(run.out));
}

void TstDesktopFiles::filesAgreeWithTheBuild() {
    const QSettings desktop(packagingFile(QStringLiteral(".desktop")), QSettings::IniFormat);
    QCOMPARE(desktop.value(QStringLiteral("Desktop Entry/Icon")).toString(), kAppId);
    QCOMPARE(desktop.value(QStringLiteral("Desktop Entry/TryExec")).toString(), QStringLiteral("ckpt-explorer"));
    const Metainfo m = readMetainfo(packagingFile(QStringLiteral(".metainfo.xml")));
    QCOMPARE(m.id, kAppId);
    QCOMPARE(m.launchable, kAppId + QStringLiteral(".desktop"));
    QCOMPARE(m.icon, kAppId);
    QCOMPARE(m.newestRelease, QStringLiteral(CKPT_VERSION));
    QCOMPARE(m.binaries, (QStringList{QStringLiteral("ckpt"), QStringLiteral("ckpt-explorer")}));
    const ToolRun version = runTool(binaryDir() + QStringLiteral("/app/gui/ckpt-explorer"), {QStringLiteral("--version")},
                                    {QStringLiteral("QT_QPA_PLATFORM=offscreen")});
    QVERIFY2(version.out.contains(QStringLiteral(CKPT_VERSION)), qPrintable(version.out + version.err));
}

// Software centres fetch the screenshots from the release tag's
// docs/screenshots (packaging/README.md): each must be a file there, of the
// size the metainfo states.
void TstDesktopFiles::screenshotsExist() {
    const Metainfo m = readMetainfo(packagingFile(QStringLiteral(".metainfo.xml")));
    QCOMPARE(m.images.size(), 3);
    const QString tagged = QStringLiteral("/v%1/docs/screenshots/").arg(QStringLiteral(CKPT_VERSION));
    for (const Metainfo::Image& image : m.images) {
        QVERIFY2(image.url.startsWith(QStringLiteral("https://")) && image.url.contains(tagged), qPrintable(image.url));
        const QString file = sourceDir() + QStringLiteral("/docs/screenshots/") + image.url.section(QLatin1Char('/'), -1);
        const QSize size = QImageReader(file).size();
        QVERIFY2(size.isValid(), qPrintable(file));
        QCOMPARE(size, QSize(image.width, image.height));
    }
}

void TstDesktopFiles::iconsHaveTheirSizes() {
    const QString icons = sourceDir() + QStringLiteral("/resources/icons/");
    for (int size : kIconSizes) {
        const QString png = icons + QString::number(size) + QLatin1Char('/') + kAppId + QStringLiteral(".png");
        QCOMPARE(QImageReader(png).size(), QSize(size, size));
    }
    const QByteArray svg = readAll(icons + kAppId + QStringLiteral(".svg"));
    QVERIFY(svg.contains("viewBox=\"0 0 128 128\""));
}

void TstDesktopFiles::explorerManPageHasEveryOption() {
    const QString page = binaryDir() + QStringLiteral("/packaging/man/ckpt-explorer.1.gz");
    const ToolRun help = runTool(binaryDir() + QStringLiteral("/app/gui/ckpt-explorer"), {QStringLiteral("--help")},
                                 {QStringLiteral("QT_QPA_PLATFORM=offscreen")});
    QVERIFY2(help.started && help.exitCode == 0, qPrintable(help.err));
    // QCommandLineParser: "  -h, --help   ..." and "  --demo <dir>   ...".
    QStringList options;
    const QRegularExpression optionLine(QStringLiteral("^  (-\\S+?)(?:, (--\\S+))?(?: <\\S+>)?(?:  |$)"),
                                        QRegularExpression::MultilineOption);
    for (auto it = optionLine.globalMatch(help.out); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        options += m.captured(1);
        if (m.hasCaptured(2)) options += m.captured(2);
    }
    QVERIFY2(options.contains(QStringLiteral("--screenshot")) && options.size() >= 7, qPrintable(options.join(QLatin1Char(' '))));
    const ToolRun rendered = renderManPage(page);
    QVERIFY2(rendered.started && rendered.exitCode == 0, qPrintable(rendered.err));
    for (const QString& option : options)
        QVERIFY2(containsWord(rendered.out, option), qPrintable(QStringLiteral("ckpt-explorer(1) lacks %1").arg(option)));
    const ToolRun warnings = manPageWarnings(page);
    QCOMPARE(warnings.exitCode, 0);
    QCOMPARE(warnings.err, QString());
}

void TstDesktopFiles::installsWhereDesktopsLook() {
    QTemporaryDir prefix;
    QVERIFY(prefix.isValid());
    for (const QString& component : {QStringLiteral("gui"), QStringLiteral("cli")}) {
        const ToolRun run =
            runTool(QStringLiteral(CKPT_CMAKE_COMMAND), {QStringLiteral("--install"), binaryDir(), QStringLiteral("--prefix"),
                                                         prefix.path(), QStringLiteral("--component"), component});
        QVERIFY2(run.started && run.exitCode == 0, qPrintable(run.out + run.err));
    }
    QStringList expected{QStringLiteral("share/applications/") + kAppId + QStringLiteral(".desktop"),
                         QStringLiteral("share/metainfo/") + kAppId + QStringLiteral(".metainfo.xml"),
                         QStringLiteral("share/icons/hicolor/scalable/apps/") + kAppId + QStringLiteral(".svg"),
                         QStringLiteral("share/man/man1/ckpt-explorer.1.gz"),
                         QStringLiteral("share/man/man1/ckpt.1.gz"),
                         QStringLiteral("share/bash-completion/completions/ckpt"),
                         QStringLiteral("lib/systemd/user/ckpt-scheduler.service")};
    for (int size : kIconSizes)
        expected += QStringLiteral("share/icons/hicolor/%1x%1/apps/").arg(size) + kAppId + QStringLiteral(".png");
    for (const QString& file : std::as_const(expected))
        QVERIFY2(QFile::exists(prefix.filePath(file)), qPrintable(QStringLiteral("not installed: ") + file));
}

QTEST_MAIN(TstDesktopFiles)
#include "tst_desktop_files.moc"

// ckpt(1) and ckpt's bash completion, as installed (packaging/CMakeLists.txt),
// against what the built ckpt says about itself in --help: every command and
// option it lists is in the page, in that command's section, and completes
// in a real bash.

#include <QDir>
#include <QFile>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

#include "packaging_support.h"
#include "test_support.h"

using namespace ckpt::testing;

namespace {

// One command as `ckpt PATH --help` shows it.
struct HelpCommand {
    QString path;  // "", "diff", "catalog add"
    QStringList options;
    QStringList subcommands;
};

QString ckptProgram() { return binaryDir() + QStringLiteral("/app/cli/ckpt"); }
QString manPagePath() { return binaryDir() + QStringLiteral("/packaging/man/ckpt.1.gz"); }
QString completionPath() { return binaryDir() + QStringLiteral("/packaging/bash-completion/ckpt"); }

// CLI11's help: "Options:" lines start with the names ("-a,--all  ..."),
// "Subcommands:" lines with the name; a blank line ends a section.
HelpCommand parseHelp(const QString& path, const QString& help) {
    HelpCommand command{path, {}, {}};
    QString section;
    for (const QString& line : help.split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1Char(' '))) {
            section = line.trimmed();
            continue;
        }
        const QString first = line.trimmed().section(QLatin1Char(' '), 0, 0);
        if (section == QLatin1String("Options:") && first.startsWith(QLatin1Char('-')))
            command.options += first.split(QLatin1Char(','));
        else if (section == QLatin1String("Subcommands:") && !first.isEmpty()) command.subcommands += first;
    }
    return command;
}

// Runs the completion function on the words of a command line being typed
// (the last one is the word under the cursor) and returns COMPREPLY, sorted.
QStringList complete(const QStringList& words) {
    const QString script = QStringLiteral(
        "source \"$1\" || exit 3; shift; [[ $(complete -p ckpt) == 'complete -F _ckpt ckpt' ]] || exit 4; "
        "COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ckpt || exit 5; "
        "((${#COMPREPLY[@]})) && printf '%s\\n' \"${COMPREPLY[@]}\"; exit 0");
    const ToolRun run =
        runTool(QStringLiteral("bash"), QStringList{QStringLiteral("--norc"), QStringLiteral("--noprofile"), QStringLiteral("-c"),
                                                    script, QStringLiteral("bash"), completionPath()} +
                                            words);
    if (!run.started || run.exitCode != 0) return {QStringLiteral("bash failed: %1 %2").arg(run.exitCode).arg(run.err)};
    QStringList replies = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    replies.sort();
    return replies;
}

}  // namespace

class TstCliDocs : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void manPageHasEveryCommandAndOption();
    void manPageRendersWithoutWarnings();
    void manPageIsCompressedForDebian();
    void completion_data();
    void completion();
    void completionOffersEveryOption();

private:
    QList<HelpCommand> m_commands;  // the root first, then every subcommand, nested ones too
    QTemporaryDir m_files;
};

void TstCliDocs::initTestCase() {
    QStringList pending{QString()};
    while (!pending.isEmpty()) {
        const QString path = pending.takeFirst();
        QStringList args = path.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        args += QStringLiteral("--help");
        const ToolRun run = runTool(ckptProgram(), args);
        QVERIFY2(run.started && run.exitCode == 0,
                 qPrintable(QStringLiteral("ckpt %1: %2").arg(args.join(QLatin1Char(' ')), run.err)));
        const HelpCommand command = parseHelp(path, run.out);
        QVERIFY2(command.options.contains(QStringLiteral("--help")),
                 qPrintable(QStringLiteral("no options parsed for '%1'").arg(path)));
        for (const QString& sub : command.subcommands) pending += path.isEmpty() ? sub : path + QLatin1Char(' ') + sub;
        m_commands += command;
    }
    // The parse found the program's commands, not a fragment of them.
    QVERIFY2(m_commands.first().subcommands.size() >= 20, qPrintable(m_commands.first().subcommands.join(QLatin1Char(' '))));
    QVERIFY(m_files.isValid());
    QVERIFY(QDir(m_files.path()).mkpath(QStringLiteral("runs/exp1")));
    QVERIFY(writeAll(m_files.filePath(QStringLiteral("ckpt-1.index")), "x"));
    QVERIFY(writeAll(m_files.filePath(QStringLiteral("readme")), "x"));
}

void TstCliDocs::manPageHasEveryCommandAndOption() {
    const ToolRun page = renderManPage(manPagePath());
    QVERIFY2(page.started && page.exitCode == 0, qPrintable(page.err));
    // Each command's subsection starts at its heading, "   ckpt catalog add".
    QMap<QString, QString> sections;
    QString current;
    const QRegularExpression heading(QStringLiteral("^   ckpt ((?:[a-z0-9-]+ ?)+)$"));
    for (const QString& line : page.out.split(QLatin1Char('\n'))) {
        const QRegularExpressionMatch m = heading.match(line);
        if (m.hasMatch()) current = m.captured(1).trimmed();
        else if (!current.isEmpty()) sections[current] += line + QLatin1Char('\n');
    }
    for (const HelpCommand& command : std::as_const(m_commands)) {
        if (command.path.isEmpty()) {
            for (const QString& option : command.options)
                QVERIFY2(containsWord(page.out, option), qPrintable(QStringLiteral("ckpt(1) lacks %1").arg(option)));
            continue;
        }
        QVERIFY2(sections.contains(command.path),
                 qPrintable(QStringLiteral("ckpt(1) has no section for 'ckpt %1'").arg(command.path)));
        for (const QString& option : command.options) {
            // -h/--help is described once, for every command (OPTIONS).
            if (option == QLatin1String("-h") || option == QLatin1String("--help")) continue;
            QVERIFY2(containsWord(sections[command.path], option),
                     qPrintable(QStringLiteral("ckpt(1)'s 'ckpt %1' lacks %2").arg(command.path, option)));
        }
    }
    QCOMPARE(sections.size(), m_commands.size() - 1);  // and no section for a command ckpt lacks
}

void TstCliDocs::manPageRendersWithoutWarnings() {
    const ToolRun run = manPageWarnings(manPagePath());
    QVERIFY2(run.started, "man is missing (scripts/install-deps.sh installs man-db)");
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.err, QString());
}

// gzip -9n: no file name and a zero timestamp, so that the package is
// reproducible (RFC 1952: FLG bit 3 is FNAME, MTIME bytes 4-7).
void TstCliDocs::manPageIsCompressedForDebian() {
    const QByteArray gz = readAll(manPagePath());
    QVERIFY(gz.size() > 10);
    QCOMPARE(static_cast<unsigned char>(gz[0]), 0x1fU);
    QCOMPARE(static_cast<unsigned char>(gz[1]), 0x8bU);
    QCOMPARE(gz[3] & 0x08, 0);
    QCOMPARE(gz.mid(4, 4), QByteArray(4, '\0'));
    QCOMPARE(static_cast<unsigned char>(gz[8]), 2U);  // XFL 2: maximum compression
}

void TstCliDocs::completion_data() {
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QStringList>("expected");
    const QString dir = m_files.path() + QLatin1Char('/');
    QTest::newRow("subcommand") << QStringList{"ckpt", "di"} << QStringList{"diff"};
    QTest::newRow("nested subcommand") << QStringList{"ckpt", "catalog", "a"} << QStringList{"add"};
    QTest::newRow("options") << QStringList{"ckpt", "latest", "--"} << QStringList{"--help", "--json"};
    QTest::newRow("choices") << QStringList{"ckpt", "diff", "--color", ""} << QStringList{"always", "auto", "never"};
    QTest::newRow("choices after =") << QStringList{"ckpt", "diff", "--color", "=", "a"} << QStringList{"always", "auto"};
    QTest::newRow("a number completes to nothing") << QStringList{"ckpt", "diff", "--threads", ""} << QStringList{};
    QTest::newRow("a flag takes no value") << QStringList{"ckpt", "diff", "--json", "--wei"} << QStringList{"--weights-only"};
    QTest::newRow("an option's value is skipped")
        << QStringList{"ckpt", "diff", "--nan", "equal", "--na"} << QStringList{"--name-status", "--nan"};
    QTest::newRow("a file argument") << QStringList{"ckpt", "inspect", dir + "ckpt-1.i"} << QStringList{dir + "ckpt-1.index"};
    QTest::newRow("a path option") << QStringList{"ckpt", "verify", "--catalog", dir + "rea"} << QStringList{dir + "readme"};
    QTest::newRow("a DIR argument takes directories")
        << QStringList{"ckpt", "catalog", "add", dir + "r"} << QStringList{dir + "runs"};
}

void TstCliDocs::completion() {
    QFETCH(QStringList, words);
    QFETCH(QStringList, expected);
    QCOMPARE(complete(words), expected);
}

void TstCliDocs::completionOffersEveryOption() {
    for (const HelpCommand& command : std::as_const(m_commands)) {
        QStringList words{QStringLiteral("ckpt")};
        words += command.path.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        words += QStringLiteral("--");
        QStringList longOptions = command.options.filter(QRegularExpression(QStringLiteral("^--")));
        longOptions.sort();
        QCOMPARE(complete(words), longOptions);
    }
}

QTEST_GUILESS_MAIN(TstCliDocs)
#include "tst_cli_docs.moc"

#pragma once
// Helpers for the packaging tests (tst_cli_docs, tst_desktop_files): running
// the tools a distribution checks its packages with, and reading man pages
// the way man(1) shows them.

#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

namespace ckpt::testing {

struct ToolRun {
    bool started = false;  // false: the tool is not installed (scripts/install-deps.sh installs it)
    int exitCode = -1;
    QString out;
    QString err;
};

// Runs 'program' with 'args' and 'env' added to the environment; waits up to
// a minute.
inline ToolRun runTool(const QString& program, const QStringList& args, const QStringList& env = {}) {
    QProcess p;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString& entry : env)
        environment.insert(entry.section(QLatin1Char('='), 0, 0), entry.section(QLatin1Char('='), 1));
    p.setProcessEnvironment(environment);
    p.start(program, args);
    ToolRun run;
    run.started = p.waitForStarted(10000);
    if (!run.started) return run;
    p.waitForFinished(60000);
    run.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    run.out = QString::fromUtf8(p.readAllStandardOutput());
    run.err = QString::fromUtf8(p.readAllStandardError());
    return run;
}

// The page as `man -l` prints it to a pipe: plain UTF-8 text, no pager.
// Wide, so that an option's line is never broken.
inline ToolRun renderManPage(const QString& path) {
    return runTool(QStringLiteral("man"), {QStringLiteral("-E"), QStringLiteral("UTF-8"), QStringLiteral("-l"), path},
                   {QStringLiteral("MANWIDTH=250"), QStringLiteral("LC_ALL=C.UTF-8")});
}

// What `MANWIDTH=80 man --warnings -E UTF-8 -l PATH >/dev/null` complains about.
inline ToolRun manPageWarnings(const QString& path) {
    return runTool(QStringLiteral("man"),
                   {QStringLiteral("--warnings"), QStringLiteral("-E"), QStringLiteral("UTF-8"), QStringLiteral("-l"), path},
                   {QStringLiteral("MANWIDTH=80"), QStringLiteral("LC_ALL=C.UTF-8")});
}

// 'word' (an option name) stands alone in 'text', not inside a longer name.
inline bool containsWord(const QString& text, const QString& word) {
    return text.contains(QRegularExpression(QStringLiteral("(^|[\\s,\\[|])") + QRegularExpression::escape(word) +
                                            QStringLiteral("($|[\\s,=\\]|])")));
}

}  // namespace ckpt::testing

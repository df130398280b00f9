#include "test_support.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace ckpt::testing {

QString realTestDataDir() {
    for (const char* var : {"CKPT_TESTDATA_REAL", "CKPT_TESTDATA_REAL_DEFAULT"}) {
        const QString dir = qEnvironmentVariable(var);
        if (!dir.isEmpty() && QFileInfo(dir).isDir()) return QDir(dir).absolutePath();
    }
    return {};
}

QStringList realBundleDirs() {
    const QString root = realTestDataDir();
    if (root.isEmpty()) return {};
    QStringList out;
    for (const QString& name : QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString dir = root + QLatin1Char('/') + name;
        if (QFileInfo::exists(dir + QStringLiteral("/manifest.json"))) out << dir;
    }
    return out;
}

const char* missingCorpusMessage() {
    return "real checkpoint corpus not found: set CKPT_TESTDATA_REAL or put ../shared/testdata/real beside the source tree";
}

bool isRequired(const char* variable) {
    const QByteArray value = qgetenv(variable);
    return !value.isEmpty() && value != "0";
}

nlohmann::json loadJson(const QString& path) {
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in);
}

std::string manifestPrefix(const QString& bundleDir, const nlohmann::json& manifest) {
    return (bundleDir + QLatin1Char('/') + QString::fromStdString(manifest.at("prefix").get<std::string>())).toStdString();
}

bool copyDirectory(const QString& from, const QString& to) {
    QDir().mkpath(to);
    for (const QFileInfo& fi : QDir(from).entryInfoList(QDir::Files)) {
        const QString dst = to + QLatin1Char('/') + fi.fileName();
        QFile::remove(dst);
        if (!QFile::copy(fi.absoluteFilePath(), dst)) return false;
        QFile::setPermissions(dst, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
    }
    return true;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll();
}

bool writeAll(const QString& path, const QByteArray& data) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    return f.write(data) == data.size();
}

QString binaryDir() { return qEnvironmentVariable("CKPT_BINARY_DIR"); }

CliRun runCkpt(const QStringList& args) {
    QProcess p;
    p.start(binaryDir() + QStringLiteral("/app/cli/ckpt"), args);
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}
QString sourceDir() { return qEnvironmentVariable("CKPT_SOURCE_DIR"); }

ScriptRun runInteropScript(const QString& script, const QString& outDir) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(qEnvironmentVariable("CKPT_PYTHON"), {sourceDir() + QStringLiteral("/tests/interop/") + script, outDir});
    const bool finished = p.waitForFinished(600000);
    ScriptRun run;
    run.log = p.readAll();
    if (!finished) run.log += "\n" + script.toUtf8() + " timed out";
    run.ok = finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    return run;
}

int runInChild(const std::function<int()>& body) {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(body());
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

}  // namespace ckpt::testing

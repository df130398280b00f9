#include "test_support.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

namespace ckpt::testing {

QString realTestDataDir() {
    for (const char* var : {"CKPT_TESTDATA_REAL", "CKPT_TESTDATA_REAL_DEFAULT"}) {
        const QString dir = qEnvironmentVariable(var);
        if (!dir.isEmpty() && QFileInfo(dir).isDir()) return QDir(dir).absolutePath();
    }
    return {};
}

QString realTestData(const char* name) { return realTestDataDir() + QLatin1Char('/') + QLatin1String(name); }

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

MeasuredCliRun runCkptMeasured(const QStringList& args, int timeoutMs, quint64 addressSpaceLimit) {
    MeasuredCliRun run;
    // Output goes to files, not pipes: nothing to drain while polling.
    QTemporaryDir tmp;
    const QByteArray outPath = QFile::encodeName(tmp.filePath(QStringLiteral("out")));
    const QByteArray errPath = QFile::encodeName(tmp.filePath(QStringLiteral("err")));
    const QByteArray program = QFile::encodeName(binaryDir() + QStringLiteral("/app/cli/ckpt"));
    std::vector<QByteArray> storage{program};
    for (const QString& a : args) storage.push_back(a.toLocal8Bit());
    std::vector<char*> argv;
    for (QByteArray& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);

    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (addressSpaceLimit > 0) {
            const rlimit limit{addressSpaceLimit, addressSpaceLimit};
            ::setrlimit(RLIMIT_AS, &limit);
        }
        const int out = ::open(outPath.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int err = ::open(errPath.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(out, STDOUT_FILENO);
        ::dup2(err, STDERR_FILENO);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    int status = 0;
    rusage usage{};
    while (::wait4(pid, &status, WNOHANG, &usage) == 0) {
        if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(timeoutMs)) {
            run.timedOut = true;
            ::kill(pid, SIGKILL);
            ::wait4(pid, &status, 0, &usage);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    run.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.peakRssKiB = usage.ru_maxrss;  // kilobytes on Linux
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    run.out = readAll(tmp.filePath(QStringLiteral("out")));
    run.err = readAll(tmp.filePath(QStringLiteral("err")));
    return run;
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

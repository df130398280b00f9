#pragma once
// Helpers shared by the Qt Test suites: where the real corpus lives, temp
// copies of bundles for corruption tests, and manifest loading.

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

// 1 when this build runs under AddressSanitizer (gcc defines
// __SANITIZE_ADDRESS__; clang only answers __has_feature). It reserves
// terabytes of address space, so a test must not cap RLIMIT_AS then.
#if defined(__SANITIZE_ADDRESS__)
#define CKPT_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CKPT_UNDER_ASAN 1
#endif
#endif
#ifndef CKPT_UNDER_ASAN
#define CKPT_UNDER_ASAN 0
#endif

namespace ckpt::testing {

// $CKPT_TESTDATA_REAL, else the CMake-configured ../shared/testdata/real.
// Empty when neither exists (tests then skip, or fail where it is required).
QString realTestDataDir();
// One entry of the real corpus: realTestDataDir() + "/" + name (the
// callers check realTestDataDir() first).
QString realTestData(const char* name);
// Subdirectories of the real corpus that hold a manifest.json.
QStringList realBundleDirs();
// Message for a test that cannot run without the corpus.
const char* missingCorpusMessage();

// True when the environment variable names a prerequisite this run must
// have (CI sets CKPT_REQUIRE_REAL=1 and CKPT_REQUIRE_PYTHON=1), so that a
// test cannot pass by skipping there.
bool isRequired(const char* variable);

nlohmann::json loadJson(const QString& path);
// Absolute bundle prefix of a real bundle directory (from its manifest).
std::string manifestPrefix(const QString& bundleDir, const nlohmann::json& manifest);

// Copies every regular file of 'from' into 'to' (made writable).
bool copyDirectory(const QString& from, const QString& to);
// Reads / writes whole files (test fixtures are small).
QByteArray readAll(const QString& path);
bool writeAll(const QString& path, const QByteArray& data);

// Built tools, for CLI tests.
QString binaryDir();
QString sourceDir();

// One run of the built `ckpt` CLI (waits up to two minutes).
struct CliRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};
CliRun runCkpt(const QStringList& args);

// The same as a measured child process: its own wall time and peak RSS (from
// wait4's rusage), killed after 'timeoutMs'. Linux keeps the high-water mark
// across exec, so the peak is at least the calling test's RSS at the fork:
// an upper bound, which is what a budget needs. 'addressSpaceLimit' (bytes, 0 =
// none) caps the child's RLIMIT_AS so that a runaway allocation fails inside
// it instead of taking the machine's memory.
struct MeasuredCliRun : CliRun {
    double wallSeconds = 0;
    long peakRssKiB = 0;
    bool timedOut = false;
    int signal = 0;  // the signal that ended it, 0 when it exited
};
MeasuredCliRun runCkptMeasured(const QStringList& args, int timeoutMs, quint64 addressSpaceLimit = 0);

// One run of a fixture script under tests/interop with $CKPT_PYTHON and
// 'outDir' as its argument (waits up to ten minutes); 'log' holds its
// merged output. ok is false on a timeout, a crash or a non-zero exit.
struct ScriptRun {
    bool ok = false;
    QByteArray log;
};
ScriptRun runInteropScript(const QString& script, const QString& outDir);

// Runs 'body' in a forked child and returns its exit status, or 100 + the
// signal that ended it: for crashes, kills and resource limits a test must
// survive.
int runInChild(const std::function<int()>& body);

}  // namespace ckpt::testing

// Skips the current test for a missing prerequisite, or fails it when the
// run requires that prerequisite (see isRequired).
#define CKPT_SKIP_UNLESS_REQUIRED(variable, message)                                                                             \
    do {                                                                                                                         \
        if (ckpt::testing::isRequired(variable))                                                                                 \
            QFAIL(qPrintable(QStringLiteral("%1 (required by %2=1)").arg(QString::fromUtf8(message), QLatin1String(variable)))); \
        QSKIP(message);                                                                                                          \
    } while (false)

// The real corpus is missing: skip, or fail under CKPT_REQUIRE_REAL=1.
#define CKPT_MISSING_CORPUS() CKPT_SKIP_UNLESS_REQUIRED("CKPT_REQUIRE_REAL", ckpt::testing::missingCorpusMessage())
// No Python with TensorFlow: skip, or fail under CKPT_REQUIRE_PYTHON=1.
#define CKPT_MISSING_PYTHON(message) CKPT_SKIP_UNLESS_REQUIRED("CKPT_REQUIRE_PYTHON", message)

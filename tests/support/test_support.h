#pragma once
// Helpers shared by the Qt Test suites: where the real corpus lives, temp
// copies of bundles for corruption tests, and manifest loading.

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <string>

namespace ckpt::testing {

// $CKPT_TESTDATA_REAL, else the CMake-configured ../shared/testdata/real.
// Empty when neither exists (tests then QSKIP with a message).
QString realTestDataDir();
// Subdirectories of the real corpus that hold a manifest.json.
QStringList realBundleDirs();
// Message for QSKIP when the corpus is missing.
const char* missingCorpusMessage();

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

} // namespace ckpt::testing

#pragma once
// The two passes of an interop script that lists `ckpt` cases and lets
// TensorFlow judge their outputs (tests/interop/tf_judge.py):
//   `$CKPT_PYTHON tests/interop/SCRIPT OUT_DIR` writes the sources and
//   OUT_DIR/DOC, {"cases": [{"name", "args", ...}]} (writeCases());
//   the driver runs every case through the CLI, one QTest row each
//   (addCaseRows(), cliRunLog() for a failure);
//   `SCRIPT --check OUT_DIR` leaves OUT_DIR/check.json, {"cases": {name:
//   {"ok", "problems": [...], "checked": n}}} (judgeOutputs()), reported
//   one row per case with judgedCaseFailure().

#include <QString>
#include <QStringList>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>

#include "test_support.h"

namespace ckpt::testing {

struct InteropPass {
    bool ok = false;  // the script ran to the end and its JSON has cases
    QByteArray log;   // its merged output
    nlohmann::json json;
};

inline InteropPass runAndLoad(const QString& script, const QString& outDir, const QStringList& flags, const QString& file,
                              const char* casesType) {
    const ScriptRun run = runInteropScript(script, outDir, flags);
    InteropPass j{false, run.log, {}};
    if (!run.ok) return j;
    j.json = nlohmann::json::parse(readAll(outDir + QLatin1Char('/') + file).toStdString(), nullptr, false);
    j.ok = j.json.is_object() && j.json.contains("cases") && j.json["cases"].type_name() == std::string(casesType);
    if (!j.ok) j.log += "\n" + file.toUtf8() + " holds no \"cases\" " + casesType;
    return j;
}

// The first pass: the sources and the case list OUT_DIR/docName.
inline InteropPass writeCases(const QString& script, const QString& outDir, const QString& docName) {
    return runAndLoad(script, outDir, {}, docName, "array");
}

// The judging pass, after the driver ran every case: OUT_DIR/check.json.
inline InteropPass judgeOutputs(const QString& script, const QString& outDir) {
    return runAndLoad(script, outDir, {QStringLiteral("--check")}, QStringLiteral("check.json"), "object");
}

// One QTest row per case ("index" into doc["cases"]), named by the case;
// 'judgedOnly': only the cases TensorFlow judges (those with a "check").
inline void addCaseRows(const nlohmann::json& doc, bool judgedOnly = false) {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < doc["cases"].size(); ++i)
        if (!judgedOnly || doc["cases"][i].contains("check"))
            QTest::newRow(doc["cases"][i]["name"].get<std::string>().c_str()) << static_cast<int>(i);
}

// A CLI run as a failure message: the command line, its exit status and
// the ends of its output.
inline QByteArray cliRunLog(const QStringList& args, const CliRun& run) {
    return "ckpt " + args.join(QLatin1Char(' ')).toUtf8() + "\nexit " + QByteArray::number(run.exitCode) + "\nstdout:\n" +
           run.out.right(3000) + "\nstderr:\n" + run.err.right(3000);
}

// Empty when case 'name' was judged, passed and checked something; else why not.
inline std::string judgedCaseFailure(const nlohmann::json& checks, const std::string& name) {
    if (!checks["cases"].contains(name)) return name + ": not judged";
    const nlohmann::json& r = checks["cases"][name];
    std::string problems;
    for (const nlohmann::json& p : r["problems"]) problems += "\n  " + p.get<std::string>();
    if (!r["ok"].get<bool>()) return name + ":" + problems;
    if (r["checked"].get<int>() <= 0) return name + ": nothing was checked";
    return {};
}

}  // namespace ckpt::testing

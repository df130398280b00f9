#pragma once
// TensorFlow's judging pass of an interop script: `$CKPT_PYTHON
// tests/interop/SCRIPT --check OUT_DIR` reads what the driver wrote and
// leaves OUT_DIR/check.json, {"cases": {name: {"ok", "problems": [...],
// "checked": n}}} (tests/interop/tf_judge.py). A driver runs it once, then
// reports one QTest row per case with judgedCaseFailure().

#include <QString>

#include <nlohmann/json.hpp>

#include <string>

#include "test_support.h"

namespace ckpt::testing {

struct Judgement {
    bool ok = false;  // the script ran to the end and check.json has cases
    QByteArray log;   // its merged output
    nlohmann::json checks;
};

inline Judgement judgeOutputs(const QString& script, const QString& outDir) {
    const ScriptRun run = runInteropScript(script, outDir, {QStringLiteral("--check")});
    Judgement j{false, run.log, {}};
    if (!run.ok) return j;
    j.checks = loadJson(outDir + QStringLiteral("/check.json"));
    j.ok = j.checks.contains("cases") && j.checks["cases"].is_object();
    return j;
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

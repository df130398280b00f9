// Interop: checkpoint comparison against numpy on checkpoints TensorFlow
// writes. tests/interop/compare_fixtures.py (run with $CKPT_PYTHON, a Python
// with tensorflow) trains a small tf.Module MLP with Adam and saves a step
// series, the same state under a renamed layer and under a moved subtree,
// and a later state with a NaN and an Inf injected; it computes, with numpy
// from tf.train.load_checkpoint values, every figure ckpt/tensor_diff.h
// promises and the per-variable history of ckpt/checkpoint_history.h.
// diffCheckpoints and computeHistory must agree to a relative 1e-9, find
// the rename and the move, and answer a self-comparison from checksums.
// Every disagreement of a case is listed before it fails, key by key.

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "ckpt/checkpoint_diff.h"
#include "ckpt/checkpoint_history.h"
#include "test_support.h"

using namespace ckpt;
using nlohmann::json;

namespace {

constexpr double kRelTolerance = 1e-9;  // the sums differ only in order

// compare.json writes non-finite figures as "nan", "inf", "-inf".
double number(const json& v) {
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        return s == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    }
    return v.get<double>();
}

bool close(double ours, double numpy) {
    if (std::isnan(ours) || std::isnan(numpy)) return std::isnan(ours) && std::isnan(numpy);
    if (std::isinf(ours) || std::isinf(numpy)) return ours == numpy;
    return std::fabs(ours - numpy) <= kRelTolerance * std::max(std::fabs(ours), std::fabs(numpy));
}

// Collects every disagreement, so one run reports all of them.
class Disagreements {
public:
    void figure(const std::string& where, const char* what, double ours, double numpy) {
        if (!close(ours, numpy))
            m_lines << QStringLiteral("%1: %2 engine %3, numpy %4")
                           .arg(QString::fromStdString(where), QLatin1String(what), QString::number(ours, 'g', 17),
                                QString::number(numpy, 'g', 17));
    }
    void count(const std::string& where, const char* what, int64_t ours, int64_t numpy) {
        if (ours != numpy)
            m_lines << QStringLiteral("%1: %2 engine %3, numpy %4")
                           .arg(QString::fromStdString(where), QLatin1String(what))
                           .arg(ours)
                           .arg(numpy);
    }
    void fact(const std::string& where, const QString& what) {
        m_lines << QString::fromStdString(where) + QStringLiteral(": ") + what;
    }
    bool empty() const { return m_lines.isEmpty(); }
    QByteArray report() const {
        return (QString::number(m_lines.size()) + QStringLiteral(" disagreement(s):\n  ") + m_lines.join(QStringLiteral("\n  ")))
            .toUtf8();
    }

private:
    QStringList m_lines;
};

const DiffEntry* entryForKey(const CheckpointDiff& diff, const std::string& key) {
    for (const DiffEntry& e : diff.entries)
        if (e.role != DiffRole::Object && ((e.a && e.a->key == key) || (e.b && e.b->key == key))) return &e;
    return nullptr;
}

// The single Object row reported as renamed, or -1.
int renamedObjectRow(const CheckpointDiff& diff) {
    int row = -1;
    for (size_t i = 0; i < diff.entries.size(); ++i) {
        const DiffEntry& e = diff.entries[i];
        if (e.role != DiffRole::Object || e.status != DiffStatus::Renamed) continue;
        if (row >= 0) return -2;  // more than one
        row = static_cast<int>(i);
    }
    return row;
}

QByteArray describe(const CheckpointDiff& diff) {
    QByteArray out;
    for (size_t i = 0; i < diff.entries.size(); ++i) {
        const DiffEntry& e = diff.entries[i];
        out += QByteArray::number(static_cast<int>(i)) + ' ' + diffStatusLetter(e.status) + ' ' +
               QByteArray::fromStdString(std::string(diffRoleName(e.role))) + ' ' +
               QByteArray::fromStdString(e.a ? e.a->path : std::string("-")) + " -> " +
               QByteArray::fromStdString(e.b ? e.b->path : std::string("-")) + " members " + QByteArray::number(e.members) +
               " in " + QByteArray::number(e.collapsedInto) + '\n';
    }
    return out;
}

}  // namespace

class TstCompareInterop : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    json m_doc;

    std::string prefix(const std::string& name) const { return m_doc["checkpoints"][name].get<std::string>(); }

    // base against 'checkpoint', which stores the same values with the object
    // at 'objectA' (keys 'fromKey'...) moved to 'objectB' (keys 'toKey'...).
    void checkRename(const std::string& checkpoint, const std::string& fromKey, const std::string& toKey,
                     const std::string& objectA, const std::string& objectB) {
        auto diff = diffCheckpoints(prefix("base"), prefix(checkpoint));
        QVERIFY2(diff.ok(), diff.status().toString().c_str());
        const QByteArray rows = describe(*diff);
        const int row = renamedObjectRow(*diff);
        QVERIFY2(row >= 0, "expected exactly one renamed Object row:\n" + rows);
        const DiffEntry& object = diff->entries[static_cast<size_t>(row)];
        QVERIFY(object.a && object.b);
        QCOMPARE(object.a->path, objectA);
        QCOMPARE(object.b->path, objectB);
        QVERIFY2(object.members >= 2, rows.constData());
        int64_t collapsed = 0;
        for (const DiffEntry& e : diff->entries)
            if (e.collapsedInto == row) ++collapsed;
        QVERIFY2(collapsed == object.members, rows.constData());
        // Counted once; nothing added, deleted or modified.
        QCOMPARE(diff->counts.renamed, int64_t{1});
        QCOMPARE(diff->counts.added, int64_t{0});
        QCOMPARE(diff->counts.deleted, int64_t{0});
        QCOMPARE(diff->counts.modified, int64_t{0});
        QCOMPARE(diff->counts.typeChanged, int64_t{0});
        // Every value below the object (its variables and their slots) is an R
        // row with the key TensorFlow gave it on the other side.
        int moved = 0;
        for (const DiffEntry& e : diff->entries) {
            if (e.role == DiffRole::Object) continue;
            QVERIFY2(e.a && e.b, rows.constData());
            if (e.a->key.rfind(fromKey, 0) == 0) {
                ++moved;
                QVERIFY2(e.status == DiffStatus::Renamed, e.a->key.c_str());
                QCOMPARE(e.b->key, toKey + e.a->key.substr(fromKey.size()));
                if (e.role == DiffRole::Variable) QVERIFY2(e.collapsedInto == row, e.a->key.c_str());
            } else {
                QVERIFY2(e.status == DiffStatus::Unchanged, e.a->key.c_str());
                QCOMPARE(e.b->key, e.a->key);
            }
        }
        QVERIFY2(moved >= 2, rows.constData());
    }

private slots:
    void initTestCase() {
        const QString python = qEnvironmentVariable("CKPT_PYTHON");
        if (python.isEmpty())
            CKPT_MISSING_PYTHON(
                "CKPT_PYTHON is not set: these checks need a Python with tensorflow (scripts/test.sh sets it; "
                "locally e.g. CKPT_PYTHON=/work/main/.venv/bin/python)");
        QVERIFY(m_dir.isValid());
        const auto run = ckpt::testing::runInteropScript(QStringLiteral("compare_fixtures.py"), m_dir.path());
        QVERIFY2(run.ok, run.log.right(4000).constData());
        m_doc = ckpt::testing::loadJson(m_dir.path() + QStringLiteral("/compare.json"));
        QCOMPARE(m_doc["pairs"].size(), size_t{3});
        QCOMPARE(m_doc["histories"].size(), size_t{2});
    }

    // Every figure of every value pair, as numpy computes it. "explicit":
    // one atol/rtol for every float dtype, every pair read (no checksum
    // shortcut). "defaults": the per-dtype tolerances of toleranceFor, the
    // checksum shortcut on: only the counts and the shortcut are checked.
    void figuresEqualNumpy_data() {
        QTest::addColumn<int>("pair");
        QTest::addColumn<bool>("defaults");
        for (size_t i = 0; i < m_doc["pairs"].size(); ++i) {
            const std::string name = m_doc["pairs"][i]["name"].get<std::string>();
            QTest::newRow((name + ", explicit tolerance").c_str()) << int(i) << false;
            QTest::newRow((name + ", default tolerances").c_str()) << int(i) << true;
        }
    }
    void figuresEqualNumpy() {
        QFETCH(int, pair);
        QFETCH(bool, defaults);
        const json& oracle = m_doc["pairs"][static_cast<size_t>(pair)];
        DiffOptions options;
        if (!defaults) {
            options.values.tolerance.atol = m_doc["tolerance"]["atol"].get<double>();
            options.values.tolerance.rtol = m_doc["tolerance"]["rtol"].get<double>();
            options.trustChecksums = false;
        }
        auto diff = diffCheckpoints(prefix(oracle["a"].get<std::string>()), prefix(oracle["b"].get<std::string>()), options);
        QVERIFY2(diff.ok(), diff.status().toString().c_str());
        QVERIFY(diff->pairedByPath);
        Disagreements d;
        int64_t equalPairs = 0;
        for (const auto& [key, f] : oracle["keys"].items()) {
            const DiffEntry* e = entryForKey(*diff, key);
            if (!e || !e->a || !e->b || !e->values) {
                d.fact(key, QStringLiteral("no compared pair"));
                continue;
            }
            const TensorDiff& v = *e->values;
            const bool equalBytes = f["equal_bytes"].get<bool>();
            const int64_t mismatches = f[defaults ? "mismatches_default" : "mismatches"].get<int64_t>();
            d.count(key, "elements", v.elements, f["elements"].get<int64_t>());
            d.count(key, "mismatches", v.mismatches, mismatches);
            if (equalBytes && e->status != DiffStatus::Unchanged) d.fact(key, QStringLiteral("equal bytes but not unchanged"));
            if (mismatches > 0 && e->status != DiffStatus::Modified) d.fact(key, QStringLiteral("mismatches but not modified"));
            const std::string dtype = f["dtype"].get<std::string>();
            const bool isFloat = m_doc["default_tolerance"].contains(dtype);
            if (isFloat) {
                const json& tol = defaults ? m_doc["default_tolerance"][dtype] : m_doc["tolerance"];
                d.figure(key, "tolerance.atol", v.tolerance.atol, tol["atol"].get<double>());
                d.figure(key, "tolerance.rtol", v.tolerance.rtol, tol["rtol"].get<double>());
            } else if (!v.exactCompare) {
                d.fact(key, QStringLiteral("integer pair not compared exactly"));
            }
            if (defaults) {
                if (equalBytes) {
                    ++equalPairs;
                    if (!v.fromChecksums) d.fact(key, QStringLiteral("equal bytes not answered from checksums"));
                } else if (v.fromChecksums) {
                    d.fact(key, QStringLiteral("different bytes answered from checksums"));
                }
                continue;
            }
            if (v.fromChecksums) d.fact(key, QStringLiteral("answered from checksums with trustChecksums off"));
            d.figure(key, "maxAbsDiff", v.maxAbsDiff, number(f["max_abs"]));
            if (f["max_abs_unique"].get<bool>()) d.count(key, "maxAbsIndex", v.maxAbsIndex, f["max_abs_index"].get<int64_t>());
            d.figure(key, "maxRelDiff", v.maxRelDiff, number(f["max_rel"]));
            if (f["max_rel_unique"].get<bool>()) d.count(key, "maxRelIndex", v.maxRelIndex, f["max_rel_index"].get<int64_t>());
            d.figure(key, "meanAbsDiff", v.meanAbsDiff, number(f["mean_abs"]));
            d.figure(key, "normA", v.normA, number(f["norm_a"]));
            d.figure(key, "normB", v.normB, number(f["norm_b"]));
            d.figure(key, "normDiff", v.normDiff, number(f["norm_diff"]));
            d.figure(key, "relL2", v.relL2, number(f["rel_l2"]));
            d.figure(key, "cosine", v.cosine, number(f["cosine"]));
            d.count(key, "nansA", v.nansA, f["nans_a"].get<int64_t>());
            d.count(key, "nansB", v.nansB, f["nans_b"].get<int64_t>());
            d.count(key, "infsA", v.infsA, f["infs_a"].get<int64_t>());
            d.count(key, "infsB", v.infsB, f["infs_b"].get<int64_t>());
            const int64_t nansAppeared = std::max<int64_t>(0, f["nans_b"].get<int64_t>() - f["nans_a"].get<int64_t>());
            d.count(key, "nansAppeared", v.nansAppeared, nansAppeared);
            const int64_t infsAppeared = std::max<int64_t>(0, f["infs_b"].get<int64_t>() - f["infs_a"].get<int64_t>());
            d.count(key, "infsAppeared", v.infsAppeared, infsAppeared);
        }
        if (defaults) d.count("diff", "fromChecksums", diff->fromChecksums, equalPairs);
        QVERIFY2(d.empty(), d.report().constData());
    }

    // A checkpoint against itself: equal, every pair from checksums, nothing read.
    void selfDiffFromChecksums() {
        auto diff = diffCheckpoints(prefix("series-4"), prefix("series-4"));
        QVERIFY2(diff.ok(), diff.status().toString().c_str());
        QVERIFY(diff->equal());
        QVERIFY(!diff->entries.empty());
        int64_t pairs = 0;
        for (const DiffEntry& e : diff->entries) {
            QVERIFY2(e.status == DiffStatus::Unchanged, e.displayPath().c_str());
            QVERIFY(e.a && e.b);
            QCOMPARE(e.a->key, e.b->key);
            if (!e.values) continue;
            ++pairs;
            QVERIFY2(e.values->fromChecksums, e.displayPath().c_str());
            QCOMPARE(e.values->mismatches, int64_t{0});
        }
        // Every value of the checkpoint but the object graph is a compared pair.
        QCOMPARE(pairs, static_cast<int64_t>(m_doc["pairs"][1]["keys"].size()));
        QCOMPARE(diff->fromChecksums, pairs);
        QCOMPARE(diff->counts.unchanged, pairs);
        QCOMPARE(diff->bytesRead, int64_t{0});
    }

    // model.dense2 saved as model.head: one Object row R, its values below it.
    void renamedLayer() { checkRename("renamed", "model/dense2/", "model/head/", "(root).model.dense2", "(root).model.head"); }

    // The model one level deeper, (root).outer.model: one Object row R.
    void movedSubtree() { checkRename("moved", "model/", "outer/model/", "(root).model", "(root).outer.model"); }

    void historyEqualsNumpy_data() {
        QTest::addColumn<int>("history");
        for (size_t i = 0; i < m_doc["histories"].size(); ++i)
            QTest::newRow(m_doc["histories"][i]["name"].get<std::string>().c_str()) << int(i);
    }
    void historyEqualsNumpy() {
        QFETCH(int, history);
        const json& oracle = m_doc["histories"][static_cast<size_t>(history)];
        std::vector<std::string> paths;
        for (const json& n : oracle["checkpoints"]) paths.push_back(prefix(n.get<std::string>()));
        // The series is given as its directory (its checkpoints in step order).
        if (history == 0) paths = {m_dir.filePath(QStringLiteral("series")).toStdString()};
        auto h = computeHistory(paths);
        QVERIFY2(h.ok(), h.status().toString().c_str());
        const size_t n = oracle["checkpoints"].size();
        QCOMPARE(h->checkpoints.size(), n);
        for (size_t i = 0; i < n; ++i) QCOMPARE(h->checkpoints[i].prefix, prefix(oracle["checkpoints"][i].get<std::string>()));
        Disagreements d;
        for (const auto& [key, expected] : oracle["keys"].items()) {
            const VariableHistory* v = nullptr;
            for (const VariableHistory& candidate : h->variables)
                if (candidate.key == key) v = &candidate;
            if (!v) {
                d.fact(key, QStringLiteral("missing from the history"));
                continue;
            }
            if (v->points.size() != n) {
                d.fact(key, QStringLiteral("%1 points").arg(v->points.size()));
                continue;
            }
            double total = 0;
            for (size_t i = 0; i < n; ++i) {
                const json& p = expected["points"][i];
                const HistoryPoint& ours = v->points[i];
                const std::string where = key + " @" + std::to_string(i);
                if (!ours.present) d.fact(where, QStringLiteral("not present"));
                d.figure(where, "norm", ours.norm, p["norm"].get<double>());
                d.figure(where, "relChange", ours.relChange, number(p["rel_change"]));
                d.figure(where, "mean", ours.mean, number(p["mean"]));
                d.figure(where, "std", ours.std, number(p["std"]));
                d.figure(where, "min", ours.min, number(p["min"]));
                d.figure(where, "max", ours.max, number(p["max"]));
                d.count(where, "nans", ours.nans, p["nans"].get<int64_t>());
                d.count(where, "infs", ours.infs, p["infs"].get<int64_t>());
                d.count(where, "unchanged", ours.unchanged, p["unchanged"].get<bool>());
                if (std::isfinite(number(p["rel_change"]))) total += number(p["rel_change"]);
            }
            d.figure(key, "totalRelChange", v->totalRelChange, total);
            const int first = expected["first_non_finite"].is_null() ? -1 : expected["first_non_finite"].get<int>();
            d.count(key, "firstNonFinite", v->firstNonFinite.value_or(-1), first);
        }
        const int first = oracle["first_non_finite"].is_null() ? -1 : oracle["first_non_finite"].get<int>();
        d.count("summary", "firstNonFinite", h->summary.firstNonFinite.value_or(-1), first);
        if (first >= 0 && h->summary.firstNonFiniteVariable.find("dense1") == std::string::npos)
            d.fact("summary", QStringLiteral("firstNonFiniteVariable is %1, not dense1's kernel")
                                  .arg(QString::fromStdString(h->summary.firstNonFiniteVariable)));
        QVERIFY2(d.empty(), d.report().constData());
    }

    // The run summary: sqrt of the summed squared norms of every variable,
    // and the whole state's relative change.
    void historyGlobalSummary() {
        const json& oracle = m_doc["histories"][0];
        auto h = computeHistory({m_dir.filePath(QStringLiteral("series")).toStdString()});
        QVERIFY2(h.ok(), h.status().toString().c_str());
        const size_t n = oracle["checkpoints"].size();
        QCOMPARE(h->summary.globalNorm.size(), n);
        QCOMPARE(h->summary.globalRelChange.size(), n);
        Disagreements d;
        for (size_t i = 0; i < n; ++i) {
            d.figure("globalNorm @" + std::to_string(i), "norm", h->summary.globalNorm[i],
                     oracle["global_norm"][i].get<double>());
            if (i == 0) continue;  // no previous checkpoint
            d.figure("globalRelChange @" + std::to_string(i), "relChange", h->summary.globalRelChange[i],
                     number(oracle["global_rel_change"][i]));
        }
        QVERIFY2(d.empty(), d.report().constData());
    }
};

QTEST_GUILESS_MAIN(TstCompareInterop)
#include "tst_compare_interop.moc"

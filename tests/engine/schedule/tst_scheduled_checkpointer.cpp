// ScheduledCheckpointer driving real saves: triggers on a fake clock,
// saveNow, retention through the manager, the policy file, and the demo
// trainer that saves through it (its default checkpoints must not change).

#include "ckpt/checkpoint_metadata.h"
#include "ckpt/demo_trainer.h"
#include "ckpt/scheduled_checkpointer.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>

using namespace ckpt;

namespace {

std::shared_ptr<Trackable> smallRoot() {
    auto root = Trackable::makeObject();
    (void)root->addChild("w", Variable::make(DataType::Float, TensorShape{{64}}));
    return root;
}

QStringList committed(const QString& dir) {
    QStringList names = QDir(dir).entryList({QStringLiteral("*.index")}, QDir::Files, QDir::Name);
    for (QString& n : names) n.chop(6);
    std::sort(names.begin(), names.end(), [](const QString& a, const QString& b) {
        return a.section(QLatin1Char('-'), -1).toLongLong() < b.section(QLatin1Char('-'), -1).toLongLong();
    });
    return names;
}

std::optional<CheckpointMetadata> metadataOf(const QString& dir, const QString& name) {
    auto m = readCheckpointMetadata((dir + QLatin1Char('/') + name).toStdString());
    return m.ok() ? *m : std::nullopt;
}

}  // namespace

class TstScheduledCheckpointer : public QObject {
    Q_OBJECT
private slots:
    void triggersOnAFakeClock() {
        QTemporaryDir tmp;
        double now = 1000;
        ScheduledCheckpointerOptions o;
        o.triggers.initial = true;
        o.triggers.everySeconds = 60;
        o.triggers.atSteps = {7};
        o.manager.clock = [&now] { return now; };
        o.manager.owner = "clocked";
        auto c = ScheduledCheckpointer::create(smallRoot(), tmp.path().toStdString(), o);
        QVERIFY2(c.ok(), c.status().toString().c_str());
        QStringList reasons;
        for (int64_t step = 1; step <= 20; ++step) {
            now += 10;  // 10 s per step
            auto r = (*c)->onStep(step, {{"loss", 1.0 / static_cast<double>(step)}});
            QVERIFY2(r.ok(), r.status().toString().c_str());
            if (r->saved) reasons << QStringLiteral("%1: %2").arg(step).arg(QString::fromStdString(r->reason));
        }
        // 1 initial (t=1010); 7 at step (1070); 13 by time (1130 = 1070 + 60); 19 (1190).
        QCOMPARE(reasons,
                 (QStringList{QStringLiteral("1: initial save"), QStringLiteral("7: at step 7"),
                              QStringLiteral("13: 60 s since the last save"), QStringLiteral("19: 60 s since the last save")}));
        QCOMPARE((*c)->triggerState().nextDueTime().value_or(0), 1190.0 + 60);
        auto forced = (*c)->saveNow("before evaluation");
        QVERIFY(forced.ok() && forced->saved);
        QCOMPARE(forced->report.step.value_or(-1), int64_t{20});
        QVERIFY((*c)->close().isOk());
        QCOMPARE(committed(tmp.path()).size(), qsizetype(5));
        const auto m = metadataOf(tmp.path(), QStringLiteral("ckpt-3"));
        QVERIFY(m);
        QCOMPARE(m->step.value_or(-1), int64_t{13});
        QCOMPARE(m->savedAt, 1130.0);
        QCOMPARE(m->owner, std::string("clocked"));
        QCOMPARE(m->metrics.at("loss"), 1.0 / 13);
    }

    void initialOnlyInAnEmptyDirectory() {
        QTemporaryDir tmp;
        ScheduledCheckpointerOptions o;
        o.triggers.initial = true;
        for (int run = 0; run < 2; ++run) {
            auto c = ScheduledCheckpointer::create(smallRoot(), tmp.path().toStdString(), o);
            QVERIFY(c.ok());
            auto r = (*c)->onStep(1);
            QVERIFY(r.ok());
            QCOMPARE(r->saved, run == 0);  // the second start finds its own checkpoint
        }
    }

    void retentionThroughTheManager() {
        QTemporaryDir tmp;
        ScheduledCheckpointerOptions o;
        o.triggers.everySteps = 10;
        RetentionPolicy keep;
        keep.keepLatest = 2;
        keep.best = BestRule{.metric = "loss", .count = 1, .mode = BestRule::Mode::Min, .ifMissing = BestRule::IfMissing::Ignore};
        o.manager.retention = keep;
        auto c = ScheduledCheckpointer::create(smallRoot(), tmp.path().toStdString(), o);
        QVERIFY(c.ok());
        for (int64_t step = 1; step <= 60; ++step) {
            // The loss is lowest at step 20: that checkpoint stays as the best.
            const double loss = step == 20 ? 0.01 : 1.0;
            QVERIFY((*c)->onStep(step, {{"loss", loss}}).ok());
        }
        QVERIFY((*c)->close().isOk());
        QCOMPARE(committed(tmp.path()),
                 (QStringList{QStringLiteral("ckpt-2"), QStringLiteral("ckpt-5"), QStringLiteral("ckpt-6")}));
    }

    void invalidTriggersRefused() {
        QTemporaryDir tmp;
        ScheduledCheckpointerOptions o;
        o.triggers.everySteps = 0;
        auto c = ScheduledCheckpointer::create(smallRoot(), tmp.path().toStdString(), o);
        QCOMPARE(c.status().code(), StatusCode::InvalidArgument);
        QVERIFY(c.status().message().find("every_steps") != std::string::npos);
    }

    void policyJson_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("error");  // empty: valid
        QTest::newRow("both") << R"({"triggers": {"every_steps": 100}, "retention": {"keep_latest": 3}})"
                              << "";
        QTest::newRow("triggers only") << R"({"triggers": {"every_seconds": "10m", "on_preemption": true}})"
                                       << "";
        QTest::newRow("empty") << "{}"
                               << "";
        QTest::newRow("not JSON") << "{"
                                  << "policy.json: not valid JSON";
        QTest::newRow("array") << "[]"
                               << "policy.json: a checkpoint policy must be a JSON object";
        QTest::newRow("unknown part") << R"({"trigger": {}})"
                                      << "unknown field \"trigger\"";
        QTest::newRow("bad trigger") << R"({"triggers": {"every_steps": -1}})"
                                     << "policy.json triggers: field \"every_steps\" must be a positive";
        QTest::newRow("bad retention") << R"({"retention": {"keep_latest": "all"}})"
                                       << "keep_latest";
    }
    void policyJson() {
        QFETCH(QString, json);
        QFETCH(QString, error);
        auto p = parseCheckpointPolicy(json.toStdString(), "policy.json");
        if (!error.isEmpty()) {
            QVERIFY(!p.ok());
            QVERIFY2(QString::fromStdString(p.status().message()).contains(error), p.status().toString().c_str());
            return;
        }
        QVERIFY2(p.ok(), p.status().toString().c_str());
        auto again = parseCheckpointPolicy(checkpointPolicyToJson(*p), "again");
        QVERIFY2(again.ok(), again.status().toString().c_str());
        QCOMPARE(again->triggers.has_value(), p->triggers.has_value());
        QCOMPARE(again->retention.has_value(), p->retention.has_value());
        if (p->triggers) QCOMPARE(again->triggers->everySeconds, p->triggers->everySeconds);
    }

    void policyFile() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("policy.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"triggers": {"at_steps": [5]}})");
        f.close();
        auto p = readCheckpointPolicy(path.toStdString());
        QVERIFY(p.ok());
        QCOMPARE(p->triggers->atSteps, std::vector<int64_t>{5});
        auto missing = readCheckpointPolicy(tmp.filePath(QStringLiteral("none.json")).toStdString());
        QCOMPARE(missing.status().code(), StatusCode::NotFound);
    }

    // The demo's checkpoints with the defaults stay what they were:
    // ckpt-1..ckpt-5 at steps 40..200, now each with its loss recorded.
    void demoDefaults() {
        QTemporaryDir tmp;
        DemoTrainOptions o;
        o.directory = tmp.path().toStdString();
        auto run = runDemoTraining(o);
        QVERIFY2(run.ok(), run.status().toString().c_str());
        QCOMPARE(committed(tmp.path()), (QStringList{QStringLiteral("ckpt-1"), QStringLiteral("ckpt-2"), QStringLiteral("ckpt-3"),
                                                     QStringLiteral("ckpt-4"), QStringLiteral("ckpt-5")}));
        QCOMPARE(run->saves.size(), size_t{5});
        for (int i = 1; i <= 5; ++i) {
            const auto m = metadataOf(tmp.path(), QStringLiteral("ckpt-%1").arg(i));
            QVERIFY(m);
            QCOMPARE(m->step.value_or(-1), int64_t{40} * i);
            QCOMPARE(m->metrics.at("loss"), run->saves[static_cast<size_t>(i - 1)].loss);
            QCOMPARE(run->saves[static_cast<size_t>(i - 1)].saveReason, std::string("every 40 steps"));
        }
        QVERIFY(!run->preempted);
        QCOMPARE(run->stepsRun, int64_t{200});
    }

    void demoWithTriggersAndRetention() {
        QTemporaryDir tmp;
        DemoTrainOptions o;
        o.directory = tmp.path().toStdString();
        o.steps = 110;
        o.owner = "demo-run";
        SaveTriggers t;
        t.everySteps = 25;
        t.atSteps = {7};
        o.triggers = t;
        RetentionPolicy keep;
        keep.keepLatest = 2;
        o.retention = keep;
        auto run = runDemoTraining(o);
        QVERIFY2(run.ok(), run.status().toString().c_str());
        std::vector<int64_t> steps;
        for (const DemoProgress& p : run->saves) steps.push_back(p.step);
        // at 7, then every 25 from there, and the final step.
        QCOMPARE(steps, (std::vector<int64_t>{7, 32, 57, 82, 107, 110}));
        QCOMPARE(run->saves.back().saveReason, std::string("final step"));
        QCOMPARE(committed(tmp.path()), (QStringList{QStringLiteral("ckpt-5"), QStringLiteral("ckpt-6")}));
        QCOMPARE(metadataOf(tmp.path(), QStringLiteral("ckpt-6"))->owner, std::string("demo-run"));
    }

    void demoCancelled() {
        QTemporaryDir tmp;
        CancellationToken token;
        DemoTrainOptions o;
        o.directory = tmp.path().toStdString();
        o.cancel = &token;
        int saves = 0;
        auto run = runDemoTraining(o, [&](const DemoProgress&) {
            if (++saves == 2) token.cancel();
        });
        QCOMPARE(run.status().code(), StatusCode::Cancelled);
        QCOMPARE(committed(tmp.path()), (QStringList{QStringLiteral("ckpt-1"), QStringLiteral("ckpt-2")}));
    }
};

QTEST_GUILESS_MAIN(TstScheduledCheckpointer)
#include "tst_scheduled_checkpointer.moc"

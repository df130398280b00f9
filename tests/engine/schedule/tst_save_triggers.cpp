// Save triggers: each trigger on a fake clock, their any-of composition,
// skipping while a save is in flight, JSON errors that name the field, and
// the preemption flag set by a real SIGTERM raised in this process.

#include "ckpt/save_triggers.h"

#include <QtTest>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace ckpt;

namespace {

// Steps 1..last at one second each; returns the steps that saved (recording them).
std::vector<int64_t> drive(TriggerState& state, int64_t last, double secondsPerStep = 1.0) {
    std::vector<int64_t> saved;
    for (int64_t step = 1; step <= last; ++step) {
        const double now = static_cast<double>(step) * secondsPerStep;
        const TriggerDecision d = state.evaluate({.step = step, .now = now});
        if (d.save) {
            saved.push_back(step);
            state.recordSave(step, now);
        }
    }
    return saved;
}

}  // namespace

class TstSaveTriggers : public QObject {
    Q_OBJECT
private slots:
    void everySteps() {
        SaveTriggers t;
        t.everySteps = 40;
        TriggerState state(t, /*haveCheckpoint=*/false, 0);
        QCOMPARE(drive(state, 200), (std::vector<int64_t>{40, 80, 120, 160, 200}));
        const TriggerDecision d = state.evaluate({.step = 240, .now = 240});
        QVERIFY(d.save);
        QCOMPARE(QString::fromStdString(d.reason), QStringLiteral("every 40 steps"));
    }

    void everyStepsCountsFromTheLastSave() {
        // After a save at step 45 (a forced one), the next is 40 steps later, not at 80.
        SaveTriggers t;
        t.everySteps = 40;
        TriggerState state(t, true, 0);
        state.recordSave(45, 1);
        QVERIFY(!state.evaluate({.step = 80, .now = 2}).save);
        QVERIFY(state.evaluate({.step = 85, .now = 3}).save);
        // A resumed loop that skipped steps: due as soon as it is past.
        state.recordSave(85, 3);
        QVERIFY(state.evaluate({.step = 200, .now = 4}).save);
    }

    void everySeconds() {
        SaveTriggers t;
        t.everySeconds = 10;
        TriggerState state(t, true, /*now=*/100);
        QCOMPARE(state.nextDueTime().value_or(-1), 110.0);
        QVERIFY(!state.evaluate({.step = 1, .now = 109.9}).save);
        const TriggerDecision d = state.evaluate({.step = 2, .now = 110});
        QVERIFY(d.save);
        QCOMPARE(QString::fromStdString(d.reason), QStringLiteral("10 s since the last save"));
        state.recordSave(2, 112);
        QCOMPARE(state.nextDueTime().value_or(-1), 122.0);
        QVERIFY(!state.evaluate({.step = 3, .now = 121}).save);
        QVERIFY(state.evaluate({.step = 4, .now = 122.5}).save);
        QVERIFY(!TriggerState(SaveTriggers{}, true, 0).nextDueTime());
    }

    void atSteps() {
        SaveTriggers t;
        t.atSteps = {500, 1, 77};
        TriggerState state(t, true, 0);
        QCOMPARE(drive(state, 600), (std::vector<int64_t>{1, 77, 500}));
        TriggerState again(t, true, 0);
        QCOMPARE(QString::fromStdString(again.evaluate({.step = 77, .now = 0}).reason), QStringLiteral("at step 77"));
    }

    void initial() {
        SaveTriggers t;
        t.initial = true;
        TriggerState empty(t, /*haveCheckpoint=*/false, 0);
        const TriggerDecision d = empty.evaluate({.step = 1, .now = 0});
        QVERIFY(d.save);
        QCOMPARE(QString::fromStdString(d.reason), QStringLiteral("initial save"));
        QCOMPARE(drive(empty, 50), (std::vector<int64_t>{1}));
        // A directory that already has a checkpoint: no initial save.
        TriggerState resumed(t, /*haveCheckpoint=*/true, 0);
        QVERIFY(drive(resumed, 50).empty());
    }

    void forcedAndPreemption() {
        SaveTriggers t;  // nothing but what the input says
        TriggerState state(t, true, 0);
        QVERIFY(!state.evaluate({.step = 5, .now = 0}).save);
        TriggerDecision d = state.evaluate({.step = 5, .now = 0, .saveInFlight = true, .forced = true});
        QVERIFY(d.save);
        QCOMPARE(QString::fromStdString(d.reason), QStringLiteral("forced"));
        // Preemption counts only when asked for.
        QVERIFY(!state.evaluate({.step = 5, .now = 0, .preemptionSignal = SIGTERM}).save);
        t.onPreemption = true;
        TriggerState preemptible(t, true, 0);
        d = preemptible.evaluate({.step = 5, .now = 0, .saveInFlight = true, .preemptionSignal = SIGTERM});
        QVERIFY(d.save);
        QCOMPARE(QString::fromStdString(d.reason), QStringLiteral("preemption (SIGTERM)"));
        QCOMPARE(signalName(SIGINT), std::string_view("SIGINT"));
    }

    void composition() {
        // Any of: every 100 steps, every 30 s, at step 150, an initial save.
        SaveTriggers t;
        t.everySteps = 100;
        t.everySeconds = 30;
        t.atSteps = {150};
        t.initial = true;
        QVERIFY(t.any());
        QVERIFY(!SaveTriggers{}.any());
        TriggerState state(t, false, 0);
        // 0.5 s per step: 30 s is 60 steps.
        const std::vector<int64_t> saved = drive(state, 300, 0.5);
        // 1 initial; 61 and 121 by time (each before 100 steps pass); 150 at step; 210 and 270 by time.
        QCOMPARE(saved, (std::vector<int64_t>{1, 61, 121, 150, 210, 270}));
        // Each save restarts both the step and the time interval.
        TriggerState steps(t, true, 0);
        steps.recordSave(10, 0);
        QCOMPARE(QString::fromStdString(steps.evaluate({.step = 110, .now = 1}).reason), QStringLiteral("every 100 steps"));
        QVERIFY(!steps.evaluate({.step = 10, .now = 100}).save);  // the step just saved is never saved twice
    }

    void skipWhileInFlight() {
        SaveTriggers t;
        t.everySteps = 10;
        TriggerState state(t, true, 0);
        state.recordSave(5, 0);
        TriggerDecision d = state.evaluate({.step = 15, .now = 0, .saveInFlight = true});
        QVERIFY(!d.save);
        QCOMPARE(QString::fromStdString(d.reason), QStringLiteral("skipped: a save is in flight"));
        // Not queued: the skipped save is simply not made; once the write is
        // done the next step saves (every-N counts from the last save).
        QVERIFY(state.evaluate({.step = 16, .now = 0}).save);
        // Nothing due: no reason at all.
        QVERIFY(state.evaluate({.step = 3, .now = 0, .saveInFlight = true}).reason.empty());
        t.skipWhileInFlight = false;
        TriggerState waiting(t, true, 0);
        QVERIFY(waiting.evaluate({.step = 10, .now = 0, .saveInFlight = true}).save);
    }

    void json_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("error");  // empty: valid
        QTest::newRow("everything") << R"({"every_steps": 100, "every_seconds": 600, "at_steps": [1, 500],
            "on_preemption": true, "initial": true, "skip_while_in_flight": false})"
                                    << "";
        QTest::newRow("empty object") << "{}"
                                      << "";
        QTest::newRow("not JSON") << "{every"
                                  << "policy.json: not valid JSON";
        QTest::newRow("not an object") << "[1]"
                                       << "must be a JSON object, got an array";
        QTest::newRow("zero steps") << R"({"every_steps": 0})"
                                    << "field \"every_steps\" must be a positive number";
        QTest::newRow("duration string") << R"({"every_seconds": "10m"})"
                                         << "";
        QTest::newRow("bad duration") << R"({"every_seconds": "ten minutes"})"
                                      << "field \"every_seconds\" is not a duration";
        QTest::newRow("negative seconds") << R"({"every_seconds": -5})"
                                          << "field \"every_seconds\" must be a positive";
        QTest::newRow("steps as string") << R"({"every_steps": "100"})"
                                         << "field \"every_steps\" must be an integer, got a string";
        QTest::newRow("fractional steps") << R"({"every_steps": 2.5})"
                                          << "field \"every_steps\" must be an integer";
        QTest::newRow("at_steps not array") << R"({"at_steps": 5})"
                                            << "field \"at_steps\" must be an array";
        QTest::newRow("at_steps element") << R"({"at_steps": [1, "x"]})"
                                          << "field \"at_steps[1]\" must be an integer";
        QTest::newRow("negative at step") << R"({"at_steps": [-1]})"
                                          << "field \"at_steps\" holds a negative step -1";
        QTest::newRow("bool as number") << R"({"initial": 1})"
                                        << "field \"initial\" must be true or false";
        QTest::newRow("typo") << R"({"evry_steps": 100})"
                              << "unknown field \"evry_steps\"";
    }

    void json() {
        QFETCH(QString, json);
        QFETCH(QString, error);
        auto parsed = parseSaveTriggers(json.toStdString(), "policy.json");
        if (!error.isEmpty()) {
            QVERIFY(!parsed.ok());
            QCOMPARE(parsed.status().code(), StatusCode::InvalidArgument);
            const QString message = QString::fromStdString(parsed.status().message());
            QVERIFY2(message.contains(error), qPrintable(message));
            QVERIFY2(message.startsWith(QStringLiteral("policy.json")), qPrintable(message));
            return;
        }
        QVERIFY2(parsed.ok(), parsed.status().toString().c_str());
        QVERIFY(validateSaveTriggers(*parsed).isOk());
        // Round trip.
        auto again = parseSaveTriggers(saveTriggersToJson(*parsed), "again");
        QVERIFY2(again.ok(), again.status().toString().c_str());
        QCOMPARE(again->everySteps, parsed->everySteps);
        QCOMPARE(again->everySeconds, parsed->everySeconds);
        QCOMPARE(again->atSteps, parsed->atSteps);
        QCOMPARE(again->onPreemption, parsed->onPreemption);
        QCOMPARE(again->initial, parsed->initial);
        QCOMPARE(again->skipWhileInFlight, parsed->skipWhileInFlight);
    }

    void jsonValues() {
        auto parsed =
            parseSaveTriggers(R"({"every_steps": 100, "every_seconds": 600, "at_steps": [500, 1], "on_preemption": true})", "p");
        QVERIFY(parsed.ok());
        QCOMPARE(parsed->everySteps.value_or(0), int64_t(100));
        QCOMPARE(parsed->everySeconds.value_or(0), 600.0);
        QCOMPARE(parseSaveTriggers(R"({"every_seconds": "2h"})", "p")->everySeconds.value_or(0), 7200.0);
        QCOMPARE(parsed->atSteps, (std::vector<int64_t>{500, 1}));
        QVERIFY(parsed->onPreemption);
        QVERIFY(!parsed->initial);
        QVERIFY(parsed->skipWhileInFlight);  // the default
    }

    void preemptionSignal() {
        QVERIFY(installPreemptionHandlers().isOk());
        clearPreemption();
        QCOMPARE(pendingPreemption(), 0);
        QCOMPARE(::raise(SIGTERM), 0);  // the process keeps running: only the flag is set
        QCOMPARE(pendingPreemption(), SIGTERM);
        // A different signal while one is pending changes nothing.
        QCOMPARE(::raise(SIGINT), 0);
        QCOMPARE(pendingPreemption(), SIGTERM);
        clearPreemption();
        QCOMPARE(pendingPreemption(), 0);
        QCOMPARE(::raise(SIGINT), 0);
        QCOMPARE(pendingPreemption(), SIGINT);
        clearPreemption();
    }

    void secondSignalTerminates() {
        // In a child: the second SIGTERM while the first is pending takes the default action.
        const pid_t pid = ::fork();
        if (pid == 0) {
            if (!installPreemptionHandlers().isOk()) ::_exit(2);
            clearPreemption();
            ::raise(SIGTERM);
            if (pendingPreemption() != SIGTERM) ::_exit(3);
            ::raise(SIGTERM);
            ::_exit(0);  // not reached
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY2(WIFSIGNALED(status), qPrintable(QStringLiteral("exit status %1").arg(WEXITSTATUS(status))));
        QCOMPARE(WTERMSIG(status), SIGTERM);
    }
};

QTEST_GUILESS_MAIN(TstSaveTriggers)
#include "tst_save_triggers.moc"

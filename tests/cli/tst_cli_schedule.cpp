// ckpt schedule add|list|show|run-now|remove and ckpt scheduler run, on the
// real binary with a real store (docs/cli.md), and the bad input a user
// meets: a negative interval, a destination inside the source, a store
// directory that does not exist, a store from a newer ckpt, a second
// scheduler, and SIGTERM stopping the service; ckpt demo-train recording
// its saves as a program schedule's runs.

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <csignal>

#include "ckpt/schedule_store.h"
#include "test_support.h"

using nlohmann::json;

namespace {

using Run = ckpt::testing::CliRun;
Run ckptCli(const QStringList& args) { return ckpt::testing::runCkpt(args); }

json parsed(const Run& run) {
    const json j = json::parse(run.out.toStdString(), nullptr, false);
    if (j.is_discarded()) qWarning("not JSON: %s / %s", run.out.constData(), run.err.constData());
    return j;
}

}  // namespace

class TstCliSchedule : public QObject {
    Q_OBJECT
private slots:
    void addListShowRunRemove() {
        QTemporaryDir tmp;
        const QString run = tmp.filePath(QStringLiteral("run"));
        const QString archive = tmp.filePath(QStringLiteral("archive"));
        const QString store = tmp.filePath(QStringLiteral("schedules.db"));
        QVERIFY(QDir().mkpath(run));
        QCOMPARE(ckptCli({QStringLiteral("demo-train"), run, QStringLiteral("--steps"), QStringLiteral("80"),
                          QStringLiteral("--save-every"), QStringLiteral("40")})
                     .exitCode,
                 0);

        Run add =
            ckptCli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("nightly"), QStringLiteral("--source"),
                     run, QStringLiteral("--dest"), archive, QStringLiteral("--every"), QStringLiteral("12h"),
                     QStringLiteral("--keep-latest"), QStringLiteral("2"), QStringLiteral("--shards"), QStringLiteral("2"),
                     QStringLiteral("--store"), store, QStringLiteral("--json")});
        QVERIFY2(add.exitCode == 0, add.err.constData());
        const json a = parsed(add);
        QCOMPARE(a["schedule"]["name"].get<std::string>(), std::string("nightly"));
        QCOMPARE(a["schedule"]["triggers"]["every_seconds"].get<double>(), 43200.0);
        QCOMPARE(a["schedule"]["retention"]["keep_latest"].get<int>(), 2);
        QCOMPARE(a["schedule"]["sharding"]["shards"].get<int>(), 2);
        Run duplicate =
            ckptCli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("nightly"), QStringLiteral("--source"),
                     run, QStringLiteral("--dest"), archive, QStringLiteral("--store"), store});
        QCOMPARE(duplicate.exitCode, 1);
        QVERIFY(duplicate.err.contains("already exists"));

        Run list = ckptCli(
            {QStringLiteral("schedule"), QStringLiteral("list"), QStringLiteral("--store"), store, QStringLiteral("--json")});
        QCOMPARE(list.exitCode, 0);
        const json l = parsed(list);
        QCOMPARE(l["schedules"].size(), size_t{1});
        QVERIFY(l["schedules"][0]["last_run"].is_null());
        QVERIFY(l["schedules"][0]["next_run"].is_number());  // never ran: due now

        Run now = ckptCli({QStringLiteral("schedule"), QStringLiteral("run-now"), QStringLiteral("nightly"),
                           QStringLiteral("--store"), store, QStringLiteral("--json")});
        QVERIFY2(now.exitCode == 0, now.err.constData());
        const json n = parsed(now);
        QCOMPARE(n["run"]["result"].get<std::string>(), std::string("ok"));
        QCOMPARE(n["run"]["trigger"].get<std::string>(), std::string("run-now"));
        QCOMPARE(n["run"]["checkpoint"].get<std::string>(), (archive + QStringLiteral("/ckpt-2")).toStdString());
        QCOMPARE(ckptCli({QStringLiteral("verify"), archive + QStringLiteral("/ckpt-2")}).exitCode, 0);

        // Due again only in 12 h: --once runs nothing; unchanged source: skipped.
        Run once = ckptCli({QStringLiteral("scheduler"), QStringLiteral("run"), QStringLiteral("--once"),
                            QStringLiteral("--store"), store, QStringLiteral("--json")});
        QCOMPARE(once.exitCode, 0);
        QCOMPARE(parsed(once)["runs"].size(), size_t{0});
        Run again = ckptCli(
            {QStringLiteral("schedule"), QStringLiteral("run-now"), QStringLiteral("nightly"), QStringLiteral("--store"), store});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.out.contains("skipped") && again.out.contains("already archived"), again.out.constData());

        Run show = ckptCli({QStringLiteral("schedule"), QStringLiteral("show"), QStringLiteral("nightly"),
                            QStringLiteral("--store"), store, QStringLiteral("--json")});
        QCOMPARE(show.exitCode, 0);
        const json s = parsed(show);
        QCOMPARE(s["runs"].size(), size_t{2});
        QCOMPARE(s["runs"][0]["result"].get<std::string>(), std::string("skipped"));  // newest first
        QCOMPARE(s["schedule"]["last_run"]["result"].get<std::string>(), std::string("skipped"));
        Run showText = ckptCli(
            {QStringLiteral("schedule"), QStringLiteral("show"), QStringLiteral("nightly"), QStringLiteral("--store"), store});
        QVERIFY(showText.out.contains("runs, newest first"));

        // A demo schedule, run by the scheduler because it never ran.
        Run demo = ckptCli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("demo"), QStringLiteral("--demo"),
                            QStringLiteral("--dest"), tmp.filePath(QStringLiteral("demo")), QStringLiteral("--every"),
                            QStringLiteral("10m"), QStringLiteral("--every-steps"), QStringLiteral("50"),
                            QStringLiteral("--store"), store});
        QVERIFY2(demo.exitCode == 0, demo.err.constData());
        Run due = ckptCli(
            {QStringLiteral("scheduler"), QStringLiteral("run"), QStringLiteral("--once"), QStringLiteral("--store"), store});
        QVERIFY2(due.exitCode == 0, due.err.constData());
        QVERIFY2(due.out.contains("demo (due): ok"), due.out.constData());

        Run remove = ckptCli(
            {QStringLiteral("schedule"), QStringLiteral("remove"), QStringLiteral("nightly"), QStringLiteral("--store"), store});
        QCOMPARE(remove.exitCode, 0);
        QVERIFY(QFile::exists(archive + QStringLiteral("/ckpt-2.index")));  // checkpoints stay
        Run gone = ckptCli(
            {QStringLiteral("schedule"), QStringLiteral("show"), QStringLiteral("nightly"), QStringLiteral("--store"), store});
        QCOMPARE(gone.exitCode, 1);
        QVERIFY(gone.err.contains("no schedule named \"nightly\""));
    }

    // ckpt demo-train as a live program: its saves are the runs of a
    // program schedule that list and show display like any other.
    void demoTrainRecordsItsSaves() {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        const QString store = tmp.filePath(QStringLiteral("schedules.db"));
        Run train = ckptCli({QStringLiteral("demo-train"), dir, QStringLiteral("--steps"), QStringLiteral("80"),
                             QStringLiteral("--save-every"), QStringLiteral("40"), QStringLiteral("--store"), store,
                             QStringLiteral("--schedule"), QStringLiteral("trainer"), QStringLiteral("--json")});
        QVERIFY2(train.exitCode == 0, train.err.constData());
        QCOMPARE(parsed(train)["saves"].size(), size_t{2});

        Run show = ckptCli({QStringLiteral("schedule"), QStringLiteral("show"), QStringLiteral("trainer"),
                            QStringLiteral("--store"), store, QStringLiteral("--json")});
        QVERIFY2(show.exitCode == 0, show.err.constData());
        const json s = parsed(show);
        QCOMPARE(s["schedule"]["source"].get<std::string>(), std::string("program"));
        QCOMPARE(s["schedule"]["destination"].get<std::string>(), dir.toStdString());
        QCOMPARE(s["runs"].size(), size_t{2});
        for (size_t i = 0; i < 2; ++i) {
            const json& r = s["runs"][i];  // newest first
            QCOMPARE(r["result"].get<std::string>(), std::string("ok"));
            QCOMPARE(r["trigger"].get<std::string>(), std::string("due"));
            QCOMPARE(r["checkpoint"].get<std::string>(), (dir + QStringLiteral("/ckpt-%1").arg(2 - i)).toStdString());
            QVERIFY(r["bytes"].get<uint64_t>() > 0);
        }
        QCOMPARE(s["runs"][0]["note"].get<std::string>(), std::string("every 40 steps (step 80)"));

        Run list = ckptCli(
            {QStringLiteral("schedule"), QStringLiteral("list"), QStringLiteral("--store"), store, QStringLiteral("--json")});
        QCOMPARE(list.exitCode, 0);
        QCOMPARE(parsed(list)["schedules"][0]["last_run"]["result"].get<std::string>(), std::string("ok"));

        // --store alone names no schedule: refused before training.
        Run alone =
            ckptCli({QStringLiteral("demo-train"), tmp.filePath(QStringLiteral("other")), QStringLiteral("--store"), store});
        QCOMPARE(alone.exitCode, 2);
        QVERIFY(alone.err.contains("--schedule"));
        QVERIFY(!QDir(tmp.filePath(QStringLiteral("other"))).exists());
        // A store that cannot be opened is reported, and training goes on.
        Run broken = ckptCli({QStringLiteral("demo-train"), tmp.filePath(QStringLiteral("third")), QStringLiteral("--steps"),
                              QStringLiteral("40"), QStringLiteral("--store"), tmp.filePath(QStringLiteral("no/such/s.db")),
                              QStringLiteral("--schedule"), QStringLiteral("trainer")});
        QVERIFY2(broken.exitCode == 0, broken.err.constData());
        QVERIFY2(broken.err.contains("not recording saves"), broken.err.constData());
        QVERIFY(QFile::exists(tmp.filePath(QStringLiteral("third/ckpt-1.index"))));
    }

    void badInput_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("negative interval") << "negative" << 2 << "the interval must be positive, got -60 s";
        QTest::newRow("zero interval") << "zero" << 2 << "the interval must be positive, got 0 s";
        QTest::newRow("destination inside source") << "inside" << 2 << "is inside the source";
        QTest::newRow("neither source nor demo") << "nosource" << 2 << "give --source DIR or --demo";
        QTest::newRow("bad retention option") << "keep0" << 2 << "keep_latest";
        QTest::newRow("missing store directory") << "nostoredir" << 1 << "does not exist";
        QTest::newRow("newer schema") << "newer" << 1 << "newer than this ckpt understands";
        QTest::newRow("not a store") << "text" << 1 << "is not a SQLite database";
    }

    void badInput() {
        QFETCH(QString, kind);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir tmp;
        const QString run = tmp.filePath(QStringLiteral("run"));
        QVERIFY(QDir().mkpath(run));
        QString store = tmp.filePath(QStringLiteral("schedules.db"));
        QStringList args = {QStringLiteral("schedule"),
                            QStringLiteral("add"),
                            QStringLiteral("s"),
                            QStringLiteral("--source"),
                            run,
                            QStringLiteral("--dest"),
                            tmp.filePath(QStringLiteral("archive"))};
        if (kind == QLatin1String("negative")) args << QStringLiteral("--every=-60");
        if (kind == QLatin1String("zero")) args << QStringLiteral("--every") << QStringLiteral("0s");
        if (kind == QLatin1String("inside")) args[6] = run + QStringLiteral("/archive");
        if (kind == QLatin1String("nosource"))
            args = {QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("s"), QStringLiteral("--dest"),
                    tmp.filePath(QStringLiteral("archive"))};
        if (kind == QLatin1String("keep0")) args << QStringLiteral("--keep-latest") << QStringLiteral("0");
        if (kind == QLatin1String("nostoredir")) store = tmp.filePath(QStringLiteral("missing/schedules.db"));
        if (kind == QLatin1String("newer")) {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(store.toLocal8Bit().constData(), &db), SQLITE_OK);
            // One past what this build writes (the catalog and the store share the number).
            const std::string sql =
                "CREATE TABLE schedules (x); PRAGMA user_version = " + std::to_string(ckpt::ScheduleStore::kSchemaVersion + 1) +
                ";";
            QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(db);
        }
        if (kind == QLatin1String("text")) QVERIFY(ckpt::testing::writeAll(store, "not a database\n"));
        const QByteArray before = QFile::exists(store) ? ckpt::testing::readAll(store) : QByteArray();
        args << QStringLiteral("--store") << store << QStringLiteral("--json");
        Run r = ckptCli(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        if (kind != QLatin1String("nosource")) {
            const json j = parsed(r);
            QCOMPARE(j["ok"].get<bool>(), false);
            QVERIFY(QString::fromStdString(j["error"]["message"].get<std::string>()).contains(message));
        }
        if (!before.isEmpty()) QCOMPARE(ckpt::testing::readAll(store), before);  // never overwritten
        if (kind == QLatin1String("newer")) {
            Run list = ckptCli(
                {QStringLiteral("scheduler"), QStringLiteral("run"), QStringLiteral("--once"), QStringLiteral("--store"), store});
            QCOMPARE(list.exitCode, 1);
            QVERIFY(list.err.contains(store.toUtf8()));
            QCOMPARE(ckpt::testing::readAll(store), before);
        }
    }

    // With `ckpt scheduler run` holding the store: run-now queues for it and
    // prints the result, cancel stops a long run, and Ctrl+C while following
    // a queued run cancels it.
    void runNowAndCancelThroughTheService() {
        QTemporaryDir tmp;
        const QString store = tmp.filePath(QStringLiteral("schedules.db"));
        const auto add = [&](const QString& name, const QString& steps) {
            return ckptCli({QStringLiteral("schedule"), QStringLiteral("add"), name, QStringLiteral("--demo"),
                            QStringLiteral("--dest"), tmp.filePath(name), QStringLiteral("--every"), QStringLiteral("1d"),
                            QStringLiteral("--every-steps"), QStringLiteral("500"), QStringLiteral("--steps"), steps,
                            QStringLiteral("--disabled"), QStringLiteral("--store"), store});
        };
        QCOMPARE(add(QStringLiteral("short"), QStringLiteral("1000")).exitCode, 0);
        QCOMPARE(add(QStringLiteral("long"), QStringLiteral("300000")).exitCode, 0);  // half a minute
        QProcess service;
        service.start(ckpt::testing::binaryDir() + QStringLiteral("/app/cli/ckpt"),
                      {QStringLiteral("scheduler"), QStringLiteral("run"), QStringLiteral("--store"), store});
        QVERIFY(service.waitForStarted());
        QElapsedTimer timer;
        timer.start();
        QByteArray log;
        while (timer.elapsed() < 20000 && !log.contains("scheduler started")) {
            service.waitForReadyRead(100);
            log += service.readAllStandardOutput();
        }
        QVERIFY2(log.contains("scheduler started"), log.constData());
        const QByteArray pid = QByteArray::number(service.processId());

        Run now = ckptCli({QStringLiteral("schedule"), QStringLiteral("run-now"), QStringLiteral("short"),
                           QStringLiteral("--store"), store, QStringLiteral("--json")});
        QVERIFY2(now.exitCode == 0, now.err.constData());
        QVERIFY2(now.err.contains("queued for the scheduler service (pid " + pid + ")"), now.err.constData());
        const json n = parsed(now);
        QCOMPARE(n["queued"]["service_pid"].get<int64_t>(), service.processId());
        QCOMPARE(n["run"]["result"].get<std::string>(), std::string("ok"));
        QCOMPARE(n["run"]["trigger"].get<std::string>(), std::string("run-now"));
        QCOMPARE(n["run"]["pid"].get<int64_t>(), service.processId());  // the service ran it
        Run text = ckptCli(
            {QStringLiteral("schedule"), QStringLiteral("run-now"), QStringLiteral("short"), QStringLiteral("--store"), store});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("short: run ") && text.out.contains(" ok "), text.out.constData());

        // --no-wait, then cancel once it is training.
        Run queued = ckptCli({QStringLiteral("schedule"), QStringLiteral("run-now"), QStringLiteral("long"),
                              QStringLiteral("--no-wait"), QStringLiteral("--store"), store, QStringLiteral("--json")});
        QVERIFY2(queued.exitCode == 0, queued.err.constData());
        QVERIFY(parsed(queued)["run"].is_null());
        const auto newestRun = [&](const QString& name) {
            Run show = ckptCli({QStringLiteral("schedule"), QStringLiteral("show"), name, QStringLiteral("--runs"),
                                QStringLiteral("1"), QStringLiteral("--store"), store, QStringLiteral("--json")});
            const json j = parsed(show);
            return j.is_object() && !j["runs"].empty() ? j["runs"][0] : json();
        };
        const auto waitTraining = [&] {
            QElapsedTimer t;
            t.start();
            json r;
            while (t.elapsed() < 30000) {
                r = newestRun(QStringLiteral("long"));
                if (r.is_object() && r["result"] == "running" && r["progress"]["done"].get<int64_t>() > 0) break;
                QTest::qWait(100);
            }
            return r;
        };
        json running = waitTraining();
        QCOMPARE(running["result"].get<std::string>(), std::string("running"));
        QCOMPARE(running["progress"]["total"].get<int64_t>(), int64_t{300000});
        Run cancel = ckptCli({QStringLiteral("schedule"), QStringLiteral("cancel"), QStringLiteral("long"),
                              QStringLiteral("--store"), store, QStringLiteral("--json")});
        QVERIFY2(cancel.exitCode == 0, cancel.err.constData());
        QCOMPARE(parsed(cancel)["run"].get<int64_t>(), running["id"].get<int64_t>());
        timer.restart();
        json ended = running;
        while (timer.elapsed() < 20000 && ended["result"] == "running") {
            QTest::qWait(100);
            ended = newestRun(QStringLiteral("long"));
        }
        QCOMPARE(ended["result"].get<std::string>(), std::string("interrupted"));
        QVERIFY2(QString::fromStdString(ended["note"].get<std::string>()).contains(QStringLiteral("cancel requested")),
                 ended.dump().c_str());
        Run nothing = ckptCli(
            {QStringLiteral("schedule"), QStringLiteral("cancel"), QStringLiteral("long"), QStringLiteral("--store"), store});
        QCOMPARE(nothing.exitCode, 1);
        QVERIFY2(nothing.err.contains("has no run in progress"), nothing.err.constData());

        // Following a queued run, Ctrl+C cancels it and the result is printed.
        QProcess follower;
        follower.start(
            ckpt::testing::binaryDir() + QStringLiteral("/app/cli/ckpt"),
            {QStringLiteral("schedule"), QStringLiteral("run-now"), QStringLiteral("long"), QStringLiteral("--store"), store});
        QVERIFY(follower.waitForStarted());
        running = waitTraining();
        QCOMPARE(running["result"].get<std::string>(), std::string("running"));
        ::kill(static_cast<pid_t>(follower.processId()), SIGINT);
        QVERIFY(follower.waitForFinished(20000));
        QCOMPARE(follower.exitCode(), 1);  // the run did not end ok
        const QByteArray out = follower.readAllStandardOutput();
        QVERIFY2(out.contains("long: run ") && out.contains("interrupted"), out.constData());
        QVERIFY(follower.readAllStandardError().contains("queued for the scheduler service"));
        QCOMPARE(newestRun(QStringLiteral("long"))["result"].get<std::string>(), std::string("interrupted"));

        ::kill(static_cast<pid_t>(service.processId()), SIGTERM);
        QVERIFY(service.waitForFinished(10000));
        QCOMPARE(service.exitCode(), 0);
        for (const char* name : {"short", "long"})
            QCOMPARE(ckptCli({QStringLiteral("verify"), tmp.filePath(QString::fromLatin1(name))}).exitCode, 0);
    }

    void serviceStopsOnSigtermAndRefusesASecond() {
        QTemporaryDir tmp;
        const QString store = tmp.filePath(QStringLiteral("schedules.db"));
        const QString run = tmp.filePath(QStringLiteral("run"));
        QVERIFY(QDir().mkpath(run));
        QCOMPARE(ckptCli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("copy"), QStringLiteral("--source"),
                          run, QStringLiteral("--dest"), tmp.filePath(QStringLiteral("archive")), QStringLiteral("--every"),
                          QStringLiteral("1s"), QStringLiteral("--store"), store})
                     .exitCode,
                 0);
        QProcess service;
        service.start(ckpt::testing::binaryDir() + QStringLiteral("/app/cli/ckpt"),
                      {QStringLiteral("scheduler"), QStringLiteral("run"), QStringLiteral("--store"), store});
        QVERIFY(service.waitForStarted());
        // It logs its start, then the first (skipped: empty source) run.
        QElapsedTimer timer;
        timer.start();
        QByteArray log;
        while (timer.elapsed() < 20000 && !log.contains("skipped")) {
            service.waitForReadyRead(200);
            log += service.readAllStandardOutput();
        }
        QVERIFY2(log.contains("scheduler started"), log.constData());
        QVERIFY2(log.contains("copy (due): skipped"), log.constData());

        Run second = ckptCli(
            {QStringLiteral("scheduler"), QStringLiteral("run"), QStringLiteral("--once"), QStringLiteral("--store"), store});
        QCOMPARE(second.exitCode, 1);
        const QByteArray expected =
            "another scheduler (pid " + QByteArray::number(service.processId()) + ") is running on " + store.toUtf8();
        QVERIFY2(second.err.contains(expected), second.err.constData());

        timer.restart();
        ::kill(static_cast<pid_t>(service.processId()), SIGTERM);
        QVERIFY(service.waitForFinished(10000));
        QVERIFY(timer.elapsed() < 5000);
        QCOMPARE(service.exitStatus(), QProcess::NormalExit);
        QCOMPARE(service.exitCode(), 0);
        log += service.readAllStandardOutput();
        QVERIFY2(log.contains("scheduler stopped"), log.constData());
        // The lock went with it.
        QCOMPARE(ckptCli({QStringLiteral("scheduler"), QStringLiteral("run"), QStringLiteral("--once"), QStringLiteral("--store"),
                          store})
                     .exitCode,
                 0);
    }
};

QTEST_GUILESS_MAIN(TstCliSchedule)
#include "tst_cli_schedule.moc"

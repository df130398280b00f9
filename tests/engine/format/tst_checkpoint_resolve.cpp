// How user paths become bundle prefixes: prefix, .index, data file,
// directory with a state file, directory without one, SavedModel; and the
// number and step a prefix names.

#include <QtTest>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/checkpoint_state.h"
#include "test_support.h"

using namespace ckpt;

class TstCheckpointResolve : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (ckpt::testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
    }

    void forms_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QString>("how");
        const QString est = ckpt::testing::realTestData("tfx_estimator_ckpt1000");
        QTest::newRow("prefix") << est + QStringLiteral("/model.ckpt-1000") << est + QStringLiteral("/model.ckpt-1000")
                                << QStringLiteral("prefix");
        QTest::newRow("index file") << est + QStringLiteral("/model.ckpt-1000.index") << est + QStringLiteral("/model.ckpt-1000")
                                    << QStringLiteral("prefix");
        QTest::newRow("data file") << est + QStringLiteral("/model.ckpt-1000.data-00000-of-00001")
                                   << est + QStringLiteral("/model.ckpt-1000") << QStringLiteral("prefix");
        QTest::newRow("dir with state file") << est << est + QStringLiteral("/model.ckpt-1000") << QStringLiteral("state file");
        QTest::newRow("dir with trailing slash")
            << est + QStringLiteral("/") << est + QStringLiteral("/model.ckpt-1000") << QStringLiteral("state file");
        const QString tuner = ckpt::testing::realTestData("tfx_tuner_save_weights");
        QTest::newRow("prefix named checkpoint")
            << tuner << tuner + QStringLiteral("/checkpoint") << QStringLiteral("state file");
        const QString bert = ckpt::testing::realTestData("ranking_bert_lite_tf2");
        QTest::newRow("dir without state file")
            << bert << bert + QStringLiteral("/bert_lite_tf2.ckpt") << QStringLiteral("only index");
    }
    void forms() {
        QFETCH(QString, input);
        QFETCH(QString, prefix);
        QFETCH(QString, how);
        auto r = resolveCheckpoint(input.toStdString());
        QVERIFY2(r.ok(), r.status().toString().c_str());
        QCOMPARE(QString::fromStdString(r->prefix), prefix);
        QCOMPARE(QString::fromStdString(r->how), how);
    }

    void checkpointNumbers() {
        QCOMPARE(checkpointNumber("ckpt-12"), std::optional<int64_t>(12));
        QCOMPARE(checkpointNumber("/runs/a-3/model.ckpt-1000"), std::optional<int64_t>(1000));
        QCOMPARE(checkpointNumber("/runs/a-3/final"), std::nullopt);  // a '-' in the directory does not count
        QCOMPARE(checkpointNumber("ckpt-"), std::nullopt);
        QCOMPARE(checkpointNumber("ckpt-1x"), std::nullopt);
        QCOMPARE(checkpointNumber("ckpt-99999999999999999999"), std::nullopt);  // would overflow
        // No reader (an unreadable checkpoint): the number stands in for the step.
        const CheckpointStep s = checkpointStep("/runs/ckpt-7", nullptr);
        QCOMPARE(s.step, std::optional<int64_t>(7));
        QCOMPARE(s.source, std::string("checkpoint number"));
        QCOMPARE(checkpointStep("/runs/final", nullptr).source, std::string());
    }

    void savedModelAndHighestNumbered() {
        QTemporaryDir tmp;
        const QString sm = tmp.filePath(QStringLiteral("sm"));
        QVERIFY(ckpt::testing::copyDirectory(ckpt::testing::realTestData("serving_half_plus_two_tf2"),
                                             sm + QStringLiteral("/variables")));
        ckpt::testing::writeAll(sm + QStringLiteral("/saved_model.pb"), QByteArray("x"));
        auto r = resolveCheckpoint(sm.toStdString());
        QVERIFY2(r.ok(), r.status().toString().c_str());
        QCOMPARE(QString::fromStdString(r->prefix), sm + QStringLiteral("/variables/variables"));
        QCOMPARE(r->how, std::string("SavedModel"));
        auto ck = Checkpoint::open(sm.toStdString());
        QVERIFY2(ck.ok(), ck.status().toString().c_str());
        QVERIFY((*ck)->objectGraph());

        // Several numbered checkpoints and no state file: the highest number wins.
        const QString runs = tmp.filePath(QStringLiteral("runs"));
        QDir().mkpath(runs);
        const QString src = ckpt::testing::realTestData("ranking_bert_lite_tf2") + QStringLiteral("/bert_lite_tf2.ckpt");
        for (const char* n : {"ckpt-2", "ckpt-10", "ckpt-9"}) {
            QVERIFY(QFile::copy(src + QStringLiteral(".index"),
                                runs + QLatin1Char('/') + QLatin1String(n) + QStringLiteral(".index")));
            QVERIFY(QFile::copy(src + QStringLiteral(".data-00000-of-00001"),
                                runs + QLatin1Char('/') + QLatin1String(n) + QStringLiteral(".data-00000-of-00001")));
        }
        auto best = resolveCheckpoint(runs.toStdString());
        QVERIFY2(best.ok(), best.status().toString().c_str());
        QCOMPARE(QString::fromStdString(best->prefix), runs + QStringLiteral("/ckpt-10"));
        // A state file wins over numbering, and latestCheckpoint agrees.
        ckpt::testing::writeAll(runs + QStringLiteral("/checkpoint"),
                                QByteArray("model_checkpoint_path: \"ckpt-9\"\nall_model_checkpoint_paths: \"ckpt-9\"\n"));
        auto viaState = resolveCheckpoint(runs.toStdString());
        QCOMPARE(QString::fromStdString(viaState->prefix), runs + QStringLiteral("/ckpt-9"));
        auto latest = latestCheckpoint(runs.toStdString());
        QVERIFY(latest.ok() && latest->has_value());
        QCOMPARE(QString::fromStdString(**latest), runs + QStringLiteral("/ckpt-9"));
        // A dangling state file falls back to scanning.
        ckpt::testing::writeAll(runs + QStringLiteral("/checkpoint"), QByteArray("model_checkpoint_path: \"gone-99\"\n"));
        auto dangling = resolveCheckpoint(runs.toStdString());
        QCOMPARE(QString::fromStdString(dangling->prefix), runs + QStringLiteral("/ckpt-10"));
        auto none = latestCheckpoint(runs.toStdString());
        QVERIFY(none.ok() && !none->has_value());
    }

    void stateFileParsing() {
        QTemporaryDir tmp;
        // Octal escapes, timestamps, comments and any field order, as TF writes and accepts.
        ckpt::testing::writeAll(tmp.filePath(QStringLiteral("checkpoint")),
                                QByteArray("# written by hand\n"
                                           "all_model_checkpoint_timestamps: 1700000123.456789\n"
                                           "model_checkpoint_path: \"caf\\303\\251-5\"\n"
                                           "all_model_checkpoint_paths: \"caf\\303\\251-5\"\n"
                                           "last_preserved_timestamp: 1699999999.5\n"));
        auto state = readCheckpointState(tmp.path().toStdString());
        QVERIFY2(state.ok(), state.status().toString().c_str());
        QVERIFY(state->has_value());
        QCOMPARE(QString::fromStdString((*state)->modelCheckpointPath), QStringLiteral("café-5"));
        QCOMPARE((*state)->allModelCheckpointTimestamps.size(), size_t{1});
        QCOMPARE((*state)->lastPreservedTimestamp, 1699999999.5);
    }
};

QTEST_GUILESS_MAIN(TstCheckpointResolve)
#include "tst_checkpoint_resolve.moc"

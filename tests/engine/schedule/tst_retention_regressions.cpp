// Retention failures other checkpoint managers shipped, replayed on real
// checkpoint directories. Each test is named after the report it replays;
// the comment says what went wrong there and what must hold here.

#include <QtTest>

#include <unistd.h>

#include "retention_fixture.h"

using namespace ckpt;
using namespace retention_test;

class TstRetentionRegressions : public QObject {
    Q_OBJECT
private slots:
    // huggingface/transformers #27138: checkpoints sorted by name put
    // checkpoint-10 before checkpoint-9, so rotation deleted the newest.
    // Order is numeric, by the step the checkpoint stores.
    void steps_sorted_numerically() {
        CheckpointDir d;
        for (int i = 1; i <= 11; ++i) d.save("ckpt-" + std::to_string(i), i, kNow - (12 - i) * kHour);
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 2})"));
        QCOMPARE(named(plan, RetentionVerdict::Keep), (std::vector<std::string>{"ckpt-10", "ckpt-11"}));
        QCOMPARE(plan.decisions.front().candidate.name, std::string("ckpt-1"));
        QCOMPARE(plan.decisions[8].candidate.name, std::string("ckpt-9"));
        // The stored step wins over the number in the name: "ckpt-2" below
        // holds step 900, later than ckpt-11's 11 (CheckpointManager numbers
        // by save counter).
        CheckpointDir renamed;
        renamed.save("ckpt-11", 11, kNow - 2 * kHour);
        renamed.save("ckpt-2", 900, kNow - kHour);
        const RetentionPlan byStep = renamed.plan(policy(R"({"keep_latest": 1})"));
        QCOMPARE(named(byStep, RetentionVerdict::Keep), std::vector<std::string>{"ckpt-2"});
    }

    // huggingface/transformers #25129: save_total_limit=1 (with a best
    // model) deleted every checkpoint. keep_latest 1 keeps exactly the newest.
    void limit_one_keeps_one() {
        CheckpointDir d;
        for (int i = 1; i <= 4; ++i) d.save("checkpoint-" + std::to_string(i * 500), i * 500, kNow - (5 - i) * kHour);
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1})"));
        QCOMPARE(plan.kept, 1);
        QCOMPARE(named(plan, RetentionVerdict::Keep), std::vector<std::string>{"checkpoint-2000"});
        QVERIFY(applyRetention(plan).ok());
        QCOMPARE(d.files(), (std::set<std::string>{"checkpoint-2000.index", "checkpoint-2000.data-00000-of-00001",
                                                   "checkpoint-2000.info.json"}));
    }

    // Orbax / flowgym: a best-N-by-metric policy evicted the newest
    // checkpoint (its metric was worse), so resuming restarted from an old
    // one. The newest complete checkpoint is never deleted.
    void bestN_never_evicts_newest() {
        CheckpointDir d;
        d.save("ckpt-1", 100, kNow - 3 * kHour, "run-a", {{"val_loss", 0.1}});
        d.save("ckpt-2", 200, kNow - 2 * kHour, "run-a", {{"val_loss", 0.2}});
        d.save("ckpt-3", 300, kNow - kHour, "run-a", {{"val_loss", 0.9}});
        const RetentionPlan plan = d.plan(policy(R"({"keep_best": {"metric": "val_loss", "count": 1}})"));
        QCOMPARE(verdictOf(plan, "ckpt-3"), RetentionVerdict::Keep);
        QVERIFY(keptBy(plan, "ckpt-3", "newest complete"));
        QVERIFY(keptBy(plan, "ckpt-1", "best val_loss #1"));
        QCOMPARE(named(plan, RetentionVerdict::Delete), std::vector<std::string>{"ckpt-2"});
    }

    // tensorflow/tensorflow #34234: a CheckpointManager pointed at a
    // directory deleted checkpoints another program had written there.
    // Checkpoints without our metadata are left alone, and apply leaves
    // every file it did not plan to delete.
    void foreign_checkpoints_untouched() {
        CheckpointDir d;
        d.save("model.ckpt-1000", 1000, kNow - 5 * kDay, std::nullopt);
        d.save("model.ckpt-2000", 2000, kNow - 4 * kDay, std::nullopt);
        d.save("ours-1", 1, kNow - 2 * kHour);
        d.save("ours-2", 2, kNow - kHour);
        d.writeFile("events.out.tfevents", "not a checkpoint");
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1})"));
        QCOMPARE(named(plan, RetentionVerdict::LeaveAlone), (std::vector<std::string>{"model.ckpt-1000", "model.ckpt-2000"}));
        QCOMPARE(decisionFor(plan, "model.ckpt-1000")->reason, std::string("foreign: no metadata"));
        QCOMPARE(named(plan, RetentionVerdict::Delete), std::vector<std::string>{"ours-1"});
        auto report = applyRetention(plan);
        QVERIFY(report.ok());
        for (const char* f : {"model.ckpt-1000.index", "model.ckpt-1000.data-00000-of-00001", "model.ckpt-2000.index",
                              "model.ckpt-2000.data-00000-of-00001", "events.out.tfevents"})
            QVERIFY2(d.files().count(f), f);
    }

    // A checkpoint marked best (by the trainer, tag "best") is what a user
    // deploys: no rule and no disk budget deletes it.
    void best_mark_never_deleted() {
        CheckpointDir d;
        d.save("ckpt-1", 1, kNow - 3 * kDay, "run-a", {}, {"best"});
        d.save("ckpt-2", 2, kNow - 2 * kDay);
        d.save("ckpt-3", 3, kNow - kDay);
        RetentionPolicy p = policy(R"({"keep_latest": 1})");
        p.diskBudgetBytes = 1;
        const RetentionPlan plan = d.plan(p);
        QCOMPARE(verdictOf(plan, "ckpt-1"), RetentionVerdict::Keep);
        QVERIFY(keptBy(plan, "ckpt-1", "marked best"));
        QCOMPARE(named(plan, RetentionVerdict::Delete), std::vector<std::string>{"ckpt-2"});
    }

    // A save interrupted after its index but before a shard landed: the
    // newest checkpoint is missing a data file. It must not count as the
    // newest complete one (nothing could resume from it), so the previous
    // complete checkpoint stays even with keep_latest 1.
    void incomplete_newest_not_trusted() {
        CheckpointDir d;
        d.save("ckpt-1", 1, kNow - 2 * kHour);
        d.save("ckpt-2", 2, kNow - kHour);
        d.save("ckpt-3", 3, kNow);
        QVERIFY(::unlink(dataFileName(d.prefix("ckpt-3"), 0, 1).c_str()) == 0);
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1})"));
        QVERIFY(keptBy(plan, "ckpt-2", "newest complete"));
        QVERIFY(keptBy(plan, "ckpt-2", "latest 1"));
        QCOMPARE(verdictOf(plan, "ckpt-3"), RetentionVerdict::Delete);
        QCOMPARE(decisionFor(plan, "ckpt-3")->reason, std::string("incomplete: 1 data file missing"));
        QCOMPARE(verdictOf(plan, "ckpt-1"), RetentionVerdict::Delete);
    }
};

QTEST_GUILESS_MAIN(TstRetentionRegressions)
#include "tst_retention_regressions.moc"

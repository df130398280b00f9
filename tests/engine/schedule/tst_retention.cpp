// The retention engine: policy JSON, per-checkpoint metadata, each rule and
// invariant on real checkpoint directories, the disk budget, refusals of
// paths that leave the directory, and apply deleting exactly the plan.

#include <QtTest>

#include <unistd.h>

#include "ckpt/checkpoint_listing.h"
#include "retention_fixture.h"

using namespace ckpt;
using namespace retention_test;

class TstRetention : public QObject {
    Q_OBJECT
private slots:
    void policyRoundTrip() {
        const RetentionPolicy p = policy(R"({"keep_latest": 5, "keep_one_per_hours": 2, "keep_every_steps": 1000,
            "keep_within": "7d", "keep_hourly": 24, "keep_daily": 7, "keep_weekly": 4, "keep_monthly": 12,
            "keep_yearly": 1, "calendar_utc": true, "keep_best": {"metric": "val_loss", "count": 3, "mode": "max",
            "if_missing": "keep"}, "keep_tags": ["pin", "release"], "min_age": "1h", "disk_budget": "50GiB"})");
        auto again = parseRetentionPolicy(retentionPolicyToJson(p), "round trip");
        QVERIFY2(again.ok(), again.status().toString().c_str());
        QCOMPARE(*again->keepLatest, 5);
        QCOMPARE(*again->keepOnePerHours, 2.0);
        QCOMPARE(*again->keepEverySteps, int64_t{1000});
        QCOMPARE(*again->keepWithinSeconds, 7 * kDay);
        QCOMPARE(again->calendar.hourly, 24);
        QCOMPARE(again->calendar.daily, 7);
        QCOMPARE(again->calendar.weekly, 4);
        QCOMPARE(again->calendar.monthly, 12);
        QCOMPARE(again->calendar.yearly, 1);
        QVERIFY(again->calendar.utc);
        QCOMPARE(again->best->metric, std::string("val_loss"));
        QCOMPARE(again->best->count, 3);
        QVERIFY(again->best->mode == BestRule::Mode::Max);
        QVERIFY(again->best->ifMissing == BestRule::IfMissing::Keep);
        QCOMPARE(again->keepTags, (std::vector<std::string>{"pin", "release"}));
        QCOMPARE(again->minAgeSeconds, kHour);
        QCOMPARE(*again->diskBudgetBytes, uint64_t{50} << 30);
        QCOMPARE(retentionPolicyToJson(*again), retentionPolicyToJson(p));
        QVERIFY(!p.keepsEverything());
        QVERIFY(policy(R"({"keep_tags": ["pin"], "disk_budget": 1000})").keepsEverything());
    }

    void policyUnderRetentionKey() {
        // A whole schedule file: the policy is its "retention"; the rest is the schedule's.
        const RetentionPolicy p = policy(R"({"name": "nightly", "every_steps": 100, "retention": {"keep_latest": 2}})");
        QCOMPARE(*p.keepLatest, 2);
    }

    void policyErrors_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("not JSON") << R"({"keep_latest": 3,})"
                                  << "not valid JSON";
        QTest::newRow("not an object") << "[1, 2]"
                                       << "expected a JSON object";
        QTest::newRow("unknown field") << R"({"keep_lastest": 3})"
                                       << R"(unknown field "keep_lastest")";
        QTest::newRow("unknown best field") << R"({"keep_best": {"metric": "l", "cnt": 2}})"
                                            << R"(unknown field "keep_best.cnt")";
        QTest::newRow("count as string") << R"({"keep_latest": "3"})"
                                         << R"("keep_latest" must be an integer, got a string)";
        QTest::newRow("zero latest") << R"({"keep_latest": 0})"
                                     << R"("keep_latest" must be at least 1, got 0)";
        QTest::newRow("negative hours") << R"({"keep_one_per_hours": -2})"
                                        << R"("keep_one_per_hours" must be positive)";
        QTest::newRow("zero every steps") << R"({"keep_every_steps": 0})"
                                          << R"("keep_every_steps" must be at least 1)";
        QTest::newRow("bad duration") << R"({"keep_within": "7x"})"
                                      << R"("keep_within" is not valid: duration "7x")";
        QTest::newRow("zero within") << R"({"keep_within": 0})"
                                     << R"("keep_within" must be positive)";
        QTest::newRow("negative daily") << R"({"keep_daily": -1})"
                                        << R"("keep_daily" must not be negative)";
        QTest::newRow("utc not bool") << R"({"calendar_utc": "yes"})"
                                      << R"("calendar_utc" must be true or false)";
        QTest::newRow("best not object") << R"({"keep_best": "val_loss"})"
                                         << R"("keep_best" must be an object)";
        QTest::newRow("best without metric") << R"({"keep_best": {"count": 2}})"
                                             << R"("keep_best.metric" must name a metric)";
        QTest::newRow("best zero count") << R"({"keep_best": {"metric": "l", "count": 0}})"
                                         << R"("keep_best.count" must be at least 1)";
        QTest::newRow("best bad mode") << R"({"keep_best": {"metric": "l", "mode": "median"}})"
                                       << R"("keep_best.mode" must be "min" or "max")";
        QTest::newRow("best bad if_missing") << R"({"keep_best": {"metric": "l", "if_missing": "drop"}})"
                                             << R"("keep_best.if_missing" must be "keep" or "ignore")";
        QTest::newRow("tags not array") << R"({"keep_tags": "pin"})"
                                        << R"("keep_tags" must be an array of strings)";
        QTest::newRow("tag not string") << R"({"keep_tags": [1]})"
                                        << R"("keep_tags" must be a string)";
        QTest::newRow("empty tag") << R"({"keep_tags": [""]})"
                                   << R"("keep_tags" has an empty tag)";
        QTest::newRow("negative min age") << R"({"min_age": "-5m"})"
                                          << R"("min_age" must not be negative)";
        QTest::newRow("bad size") << R"({"disk_budget": "lots"})"
                                  << R"("disk_budget" is not valid: size "lots")";
        QTest::newRow("zero budget") << R"({"disk_budget": 0})"
                                     << R"("disk_budget" must be positive)";
        QTest::newRow("retention not object") << R"({"retention": 5})"
                                              << R"("retention" must be an object)";
    }
    void policyErrors() {
        QFETCH(QString, json);
        QFETCH(QString, fragment);
        auto p = parseRetentionPolicy(json.toStdString(), "/etc/policy.json");
        QVERIFY(!p.ok());
        QCOMPARE(p.status().code(), StatusCode::InvalidArgument);
        const QString message = QString::fromStdString(p.status().message());
        QVERIFY2(message.contains(fragment), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("/etc/policy.json")), qPrintable(message));
    }

    void durationsAndSizes() {
        QCOMPARE(*parseDuration("90s"), 90.0);
        QCOMPARE(*parseDuration("30m"), 1800.0);
        QCOMPARE(*parseDuration("12h"), 12 * kHour);
        QCOMPARE(*parseDuration("7d"), 7 * kDay);
        QCOMPARE(*parseDuration("2w"), 14 * kDay);
        QCOMPARE(*parseDuration("1.5h"), 1.5 * kHour);
        QCOMPARE(*parseDuration("45"), 45.0);
        QVERIFY(!parseDuration("inf").ok());
        QVERIFY(!parseDuration("h").ok());
        QVERIFY(!parseDuration("").ok());
        QCOMPARE(*parseByteSize("500MB"), uint64_t{500'000'000});
        QCOMPARE(*parseByteSize("2GiB"), uint64_t{2} << 30);
        QCOMPARE(*parseByteSize("1024"), uint64_t{1024});
        QCOMPARE(*parseByteSize("10 KiB"), uint64_t{10240});
        QVERIFY(!parseByteSize("-1GB").ok());
        QVERIFY(!parseByteSize("1e30").ok());
        QVERIFY(!parseByteSize("99999999999TiB").ok());
    }

    void metadataRoundTrip() {
        CheckpointDir d;
        CheckpointMetadata m;
        m.step = 1200;
        m.savedAt = kNow;
        m.metrics = {{"val_loss", 0.41}, {"acc", 0.9}};
        m.tags = {"pin", "release"};
        m.owner = "run-a";
        m.schedule = "nightly";
        m.writer = "ckpt-explorer 0.1.0";
        QVERIFY(writeCheckpointMetadata(d.prefix("ckpt-12"), m).isOk());
        QCOMPARE(d.files(), (std::set<std::string>{"ckpt-12.info.json"}));  // no temp file left
        auto read = readCheckpointMetadata(d.prefix("ckpt-12"));
        QVERIFY2(read.ok(), read.status().toString().c_str());
        QVERIFY(read->has_value());
        const CheckpointMetadata& r = **read;
        QCOMPARE(*r.step, int64_t{1200});
        QCOMPARE(r.savedAt, kNow);
        QCOMPARE(r.metrics, m.metrics);
        QCOMPARE(r.tags, m.tags);
        QCOMPARE(r.owner, m.owner);
        QCOMPARE(r.schedule, m.schedule);
        QCOMPARE(r.writer, m.writer);
        auto missing = readCheckpointMetadata(d.prefix("ckpt-13"));
        QVERIFY(missing.ok() && !missing->has_value());
        // A newer writer's file: fields it added are skipped, known ones read.
        auto newer = parseCheckpointMetadata(R"({"format": 7, "step": 5, "owner": "b", "lineage": {"parent": "x"}})", "new.json");
        QVERIFY2(newer.ok(), newer.status().toString().c_str());
        QCOMPARE(*newer->step, int64_t{5});
        QCOMPARE(newer->owner, std::string("b"));
        // A diverged loss is recorded as "not measured", not as a broken file.
        m.metrics["loss"] = std::nan("");
        auto nan = parseCheckpointMetadata(checkpointMetadataToJson(m), "nan.json");
        QVERIFY(nan.ok());
        QCOMPARE(nan->metrics.count("loss"), size_t{0});
    }

    void damagedMetadata_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("not JSON") << QByteArray(R"({"step": 1,})") << "not valid JSON";
        QTest::newRow("array") << QByteArray("[]") << "expected a JSON object";
        QTest::newRow("step as string") << QByteArray(R"({"step": "12"})") << R"(field "step" must be an integer, got a string)";
        QTest::newRow("saved_at as string") << QByteArray(R"({"saved_at": "now"})") << R"(field "saved_at" must be a number)";
        QTest::newRow("metric as string") << QByteArray(R"({"metrics": {"val_loss": "low"}})")
                                          << R"(field "metrics.val_loss" must be a number)";
        QTest::newRow("tag as number") << QByteArray(R"({"tags": ["a", 3]})") << R"(field "tags" must be an array of strings)";
        QTest::newRow("owner as number") << QByteArray(R"({"owner": 7})") << R"(field "owner" must be a string)";
        QTest::newRow("format as string") << QByteArray(R"({"format": "1"})") << R"(field "format" must be an integer)";
        QTest::newRow("over 1 MiB") << QByteArray(R"({"writer": "XX"})").replace("XX", QByteArray(1 << 20, 'x'))
                                    << "more than the 1048576";
    }
    void damagedMetadata() {
        QFETCH(QByteArray, contents);
        QFETCH(QString, fragment);
        CheckpointDir d;
        d.writeFile("ckpt-1.info.json", contents.toStdString());
        auto read = readCheckpointMetadata(d.prefix("ckpt-1"));
        QVERIFY(!read.ok());
        QCOMPARE(read.status().code(), StatusCode::DataLoss);
        const QString message = QString::fromStdString(read.status().message());
        QVERIFY2(message.contains(fragment), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(d.prefix("ckpt-1.info.json"))), qPrintable(message));
    }

    void listingCarriesMetadata() {
        CheckpointDir d;
        d.save("ckpt-1", 10, kNow - kHour, "run-a", {{"val_loss", 0.5}}, {"pin"});
        d.save("ckpt-2", 20, kNow, std::nullopt);
        d.save("ckpt-3", 30, kNow);
        d.writeFile("ckpt-3.info.json", R"({"step": [30]})");
        auto listing = listCheckpoints(d.dir());
        QVERIFY(listing.ok());
        QCOMPARE(listing->checkpoints.size(), size_t{3});
        const auto& first = listing->checkpoints[0];
        QVERIFY(first.metadata && first.metadataError.isOk());
        QCOMPARE(first.metadata->owner, std::string("run-a"));
        QCOMPARE(first.metadata->tags, std::vector<std::string>{"pin"});
        QVERIFY(!listing->checkpoints[1].metadata && listing->checkpoints[1].metadataError.isOk());
        QVERIFY(!listing->checkpoints[2].metadata);
        QCOMPARE(listing->checkpoints[2].metadataError.code(), StatusCode::DataLoss);
    }

    void keepLatestByStep() {
        CheckpointDir d;
        for (int i = 1; i <= 5; ++i) d.save("ckpt-" + std::to_string(i), i * 100, kNow - (6 - i) * kDay);
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 2})"));
        QCOMPARE(named(plan, RetentionVerdict::Keep), (std::vector<std::string>{"ckpt-4", "ckpt-5"}));
        QCOMPARE(named(plan, RetentionVerdict::Delete), (std::vector<std::string>{"ckpt-1", "ckpt-2", "ckpt-3"}));
        QVERIFY(keptBy(plan, "ckpt-4", "latest 2"));
        QVERIFY(keptBy(plan, "ckpt-5", "newest complete"));
        QCOMPARE(decisionFor(plan, "ckpt-1")->reason, std::string("no rule keeps it"));
        QCOMPARE(plan.kept, 2);
        QCOMPARE(plan.deleted, 3);
        QCOMPARE(plan.deletedBytes, decisionFor(plan, "ckpt-1")->candidate.bytes * 3);
    }

    void keepOnePerHours() {
        // TensorFlow's rule: the oldest, then the next at least 2 h after the last kept.
        CheckpointDir d;
        const double t0 = kNow - 10 * kHour;
        const double offsets[] = {0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.0};
        for (int i = 0; i < 7; ++i) d.save("ckpt-" + std::to_string(i), i, t0 + offsets[i] * kHour);
        const RetentionPlan plan = d.plan(policy(R"({"keep_one_per_hours": 2})"));
        for (const char* name : {"ckpt-0", "ckpt-3", "ckpt-5"}) QVERIFY2(keptBy(plan, name, "one per 2h"), name);
        QCOMPARE(named(plan, RetentionVerdict::Delete), (std::vector<std::string>{"ckpt-1", "ckpt-2", "ckpt-4"}));
    }

    // With a state file, TensorFlow's CheckpointManager counts from its
    // last_preserved_timestamp and judges only what it lists after it;
    // keep_latest is max_to_keep. Not "the oldest, then every 2 h".
    void keepOnePerHoursCountsFromTheStateFile() {
        CheckpointDir d;
        const double t0 = kNow - 10 * kHour;
        const double offsets[] = {0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.0};
        ckpt::CheckpointState state;
        for (int i = 0; i < 7; ++i) {
            const std::string name = "ckpt-" + std::to_string(i);
            // Metadata times that would keep other checkpoints: the state file's timestamps rule.
            d.save(name, i, t0 + 7 * kHour - offsets[i] * kHour);
            state.allModelCheckpointPaths.push_back(name);
            state.allModelCheckpointTimestamps.push_back(t0 + offsets[i] * kHour);
        }
        d.save("unlisted", 0, t0 - kHour);
        state.modelCheckpointPath = "ckpt-6";
        state.lastPreservedTimestamp = t0 + 0.25 * kHour;
        QVERIFY(ckpt::writeCheckpointState(d.dir(), state).isOk());

        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 2, "keep_one_per_hours": 2})"));
        // ckpt-0 is not after last_preserved_timestamp, "unlisted" is not
        // listed: TensorFlow never deletes them. ckpt-4 is the first one
        // leaving the active set 2 h after last_preserved_timestamp.
        QVERIFY(keptBy(plan, "ckpt-0", "one per 2h: preserved earlier (not after last_preserved_timestamp)"));
        QVERIFY(keptBy(plan, "unlisted", "one per 2h: preserved earlier (not in the state file)"));
        QVERIFY(keptBy(plan, "ckpt-4", "one per 2h"));
        QCOMPARE(named(plan, RetentionVerdict::Delete), (std::vector<std::string>{"ckpt-1", "ckpt-2", "ckpt-3"}));
        QCOMPARE(plan.lastPreservedTimestamp, std::optional<double>(t0 + 3 * kHour));

        // Applying records it, as the manager's sweep does.
        auto applied = applyRetention(plan);
        QVERIFY2(applied.ok(), applied.status().toString().c_str());
        auto after = ckpt::readCheckpointState(d.dir());
        QVERIFY(after.ok() && *after);
        QCOMPARE((*after)->lastPreservedTimestamp, t0 + 3 * kHour);
        QCOMPARE((*after)->allModelCheckpointPaths, (std::vector<std::string>{"ckpt-0", "ckpt-4", "ckpt-5", "ckpt-6"}));
        // Planned again, nothing more goes: the sweep is a fixed point.
        QCOMPARE(d.plan(policy(R"({"keep_latest": 2, "keep_one_per_hours": 2})")).deleted, 0);
    }

    void keepEverySteps() {
        CheckpointDir d;
        const int steps[] = {150, 999, 1000, 1500, 2300, 2001};
        for (int s : steps) d.save("s" + std::to_string(s), s, kNow - kDay + s);
        const RetentionPlan plan = d.plan(policy(R"({"keep_every_steps": 1000})"));
        // Lowest step of [0,1000), [1000,2000), [2000,3000); s2300 is the newest complete.
        for (const char* name : {"s150", "s1000", "s2001"}) QVERIFY2(keptBy(plan, name, "every 1000 steps"), name);
        QCOMPARE(named(plan, RetentionVerdict::Delete), (std::vector<std::string>{"s999", "s1500"}));
    }

    void keepWithin() {
        CheckpointDir d;
        d.save("old", 1, kNow - 3 * kDay);
        d.save("recent", 2, kNow - 20 * kHour);
        d.save("new", 3, kNow - kHour);
        const RetentionPlan plan = d.plan(policy(R"({"keep_within": "1d"})"));
        QVERIFY(keptBy(plan, "recent", "within 1d"));
        QVERIFY(keptBy(plan, "new", "within 1d"));
        QCOMPARE(verdictOf(plan, "old"), RetentionVerdict::Delete);
    }

    void calendarUtc() {
        CheckpointDir d;
        // 2026-11-24 12:00 UTC is a Tuesday of ISO week 48.
        d.save("a", 1, kNow - 2 * kDay - 2 * kHour);  // Sun 22 Nov 10:00, week 47
        d.save("b", 2, kNow - 2 * kDay);              // Sun 22 Nov 12:00, week 47
        d.save("c", 3, kNow - kDay - 3 * kHour);      // Mon 23 Nov 09:00, week 48
        d.save("e", 4, kNow - kDay);                  // Mon 23 Nov 12:00
        d.save("f", 5, kNow - 2 * kHour);             // Tue 24 Nov 10:00
        d.save("g", 6, kNow - kHour);                 // Tue 24 Nov 11:00
        const RetentionPlan plan = d.plan(policy(R"({"keep_daily": 2, "keep_weekly": 2, "calendar_utc": true})"));
        QVERIFY(keptBy(plan, "g", "daily 2026-11-24"));
        QVERIFY(keptBy(plan, "e", "daily 2026-11-23"));
        QVERIFY(keptBy(plan, "g", "weekly 2026-W48"));
        QVERIFY(keptBy(plan, "b", "weekly 2026-W47"));
        QCOMPARE(named(plan, RetentionVerdict::Delete), (std::vector<std::string>{"a", "c", "f"}));
        const RetentionPlan monthly = d.plan(policy(R"({"keep_monthly": 5, "keep_yearly": 1, "calendar_utc": true})"));
        QVERIFY(keptBy(monthly, "g", "monthly 2026-11"));
        QVERIFY(keptBy(monthly, "g", "yearly 2026"));
        QCOMPARE(monthly.kept, 1);
    }

    void bestByMetric() {
        CheckpointDir d;
        d.save("c1", 1, kNow - 5 * kHour, "run-a", {{"val_loss", 0.9}});
        d.save("c2", 2, kNow - 4 * kHour, "run-a", {{"val_loss", 0.2}});
        d.save("c3", 3, kNow - 3 * kHour, "run-a", {{"val_loss", 0.5}});
        d.save("c4", 4, kNow - 2 * kHour, "run-a", {});
        d.save("c5", 5, kNow - 1 * kHour, "run-a", {{"val_loss", 0.7}});
        const RetentionPlan min = d.plan(policy(R"({"keep_best": {"metric": "val_loss", "count": 2}})"));
        QVERIFY(keptBy(min, "c2", "best val_loss #1"));
        QVERIFY(keptBy(min, "c3", "best val_loss #2"));
        QCOMPARE(named(min, RetentionVerdict::Delete), (std::vector<std::string>{"c1", "c4"}));
        const RetentionPlan max =
            d.plan(policy(R"({"keep_best": {"metric": "val_loss", "count": 1, "mode": "max", "if_missing": "keep"}})"));
        QVERIFY(keptBy(max, "c1", "best val_loss #1"));
        QVERIFY(keptBy(max, "c4", "no val_loss recorded"));
        QCOMPARE(named(max, RetentionVerdict::Delete), (std::vector<std::string>{"c2", "c3"}));
    }

    void pinnedAndMinAge() {
        CheckpointDir d;
        d.save("p", 1, kNow - 9 * kDay, "run-a", {}, {"release"});
        d.save("q", 2, kNow - 8 * kDay, "run-a", {}, {"pin"});
        d.save("r", 3, kNow - 7 * kDay);
        d.save("young", 4, kNow - 10 * 60);
        d.save("newest", 5, kNow - 5 * 60);
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1, "keep_tags": ["release"], "min_age": "1h"})"));
        QVERIFY(keptBy(plan, "p", "pinned: release"));
        QVERIFY(keptBy(plan, "q", "pinned: pin"));  // "pin" is always honoured
        QVERIFY(keptBy(plan, "young", "younger than min age 1h"));
        QCOMPARE(named(plan, RetentionVerdict::Delete), std::vector<std::string>{"r"});
    }

    void diskBudget() {
        CheckpointDir d;
        for (int i = 1; i <= 5; ++i) d.save("ckpt-" + std::to_string(i), i, kNow - (6 - i) * kDay);
        const RetentionPlan all = d.plan(policy(R"({"keep_latest": 5})"));
        const uint64_t each = all.decisions[0].candidate.bytes;
        RetentionPolicy p = policy(R"({"keep_latest": 5})");
        p.diskBudgetBytes = each * 3 + each / 2;
        const RetentionPlan plan = d.plan(p);
        QCOMPARE(named(plan, RetentionVerdict::Delete), (std::vector<std::string>{"ckpt-1", "ckpt-2"}));
        QVERIFY(QString::fromStdString(decisionFor(plan, "ckpt-1")->reason).startsWith(QStringLiteral("over the disk budget")));
        QVERIFY(plan.keptBytes <= *p.diskBudgetBytes);
        QVERIFY(plan.notes.empty());
        // Only protected checkpoints left and still too big: said, not forced.
        p.diskBudgetBytes = each / 2;
        const RetentionPlan tight = d.plan(p);
        QCOMPARE(named(tight, RetentionVerdict::Keep), std::vector<std::string>{"ckpt-5"});
        QCOMPARE(tight.notes.size(), size_t{1});
        QVERIFY(QString::fromStdString(tight.notes[0]).contains(QStringLiteral("cannot be met")));
        // A budget alone keeps everything that fits.
        RetentionPolicy budgetOnly;
        budgetOnly.diskBudgetBytes = each * 2;
        QCOMPARE(named(d.plan(budgetOnly), RetentionVerdict::Keep), (std::vector<std::string>{"ckpt-4", "ckpt-5"}));
    }

    void ownership() {
        CheckpointDir d;
        d.save("mine", 1, kNow - 3 * kDay);
        d.save("theirs", 2, kNow - 2 * kDay, "run-b");
        d.save("nobody", 3, kNow - 2 * kDay, "");
        d.save("foreign", 4, kNow - kDay, std::nullopt);
        d.save("mine-2", 5, kNow - kHour);
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1})"));
        QCOMPARE(decisionFor(plan, "theirs")->reason, std::string("owned by run-b"));
        QCOMPARE(decisionFor(plan, "nobody")->reason, std::string("foreign: metadata names no owner"));
        QCOMPARE(decisionFor(plan, "foreign")->reason, std::string("foreign: no metadata"));
        QCOMPARE(named(plan, RetentionVerdict::Delete), std::vector<std::string>{"mine"});
        const RetentionPlan adopted = d.plan(policy(R"({"keep_latest": 1})"), "run-a", true);
        QCOMPARE(named(adopted, RetentionVerdict::Delete), (std::vector<std::string>{"mine", "nobody", "foreign"}));
        QCOMPARE(named(adopted, RetentionVerdict::LeaveAlone), std::vector<std::string>{"theirs"});
        const RetentionPlan noOwner = d.plan(policy(R"({"keep_latest": 1})"), "");
        QCOMPARE(noOwner.deleted, 0);
        QCOMPARE(noOwner.kept, 0);
        QVERIFY(QString::fromStdString(noOwner.notes.back()).contains(QStringLiteral("nothing can be deleted")));
    }

    void incompleteDeleted() {
        CheckpointDir d;
        d.save("ckpt-1", 1, kNow - 2 * kDay);
        d.save("ckpt-2", 2, kNow - kDay);
        d.save("ckpt-3", 3, kNow - kHour);
        QVERIFY(::unlink(dataFileName(d.prefix("ckpt-2"), 0, 1).c_str()) == 0);
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 3})"));
        QCOMPARE(verdictOf(plan, "ckpt-2"), RetentionVerdict::Delete);
        QCOMPARE(decisionFor(plan, "ckpt-2")->reason, std::string("incomplete: 1 data file missing"));
        QCOMPARE(named(plan, RetentionVerdict::Keep), (std::vector<std::string>{"ckpt-1", "ckpt-3"}));
        // An unreadable index is incomplete too.
        d.writeFile("ckpt-3.index", "garbage");
        const RetentionPlan broken = d.plan(policy(R"({"keep_latest": 3})"));
        QVERIFY(QString::fromStdString(decisionFor(broken, "ckpt-3")->reason)
                    .startsWith(QStringLiteral("incomplete: index unreadable")));
    }

    void damagedMetadataIsUnsafe() {
        CheckpointDir d;
        d.save("ckpt-1", 1, kNow - kDay);
        d.save("ckpt-2", 2, kNow);
        d.writeFile("ckpt-1.info.json", R"({"owner": ["run-a"]})");
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1})"));
        QCOMPARE(verdictOf(plan, "ckpt-1"), RetentionVerdict::LeaveAlone);
        QVERIFY(QString::fromStdString(decisionFor(plan, "ckpt-1")->reason).contains(QStringLiteral("damaged metadata")));
    }

    void symlinkLeavingDirRefused() {
        CheckpointDir d;
        CheckpointDir outside;
        outside.save("elsewhere", 7, kNow - 3 * kDay);
        d.save("ckpt-1", 1, kNow - 2 * kDay);
        d.save("ckpt-2", 2, kNow - kDay);
        // ckpt-0's index is a link to a checkpoint in another directory.
        QVERIFY(::symlink(indexFileName(outside.prefix("elsewhere")).c_str(), indexFileName(d.prefix("ckpt-0")).c_str()) == 0);
        QVERIFY(::symlink(dataFileName(outside.prefix("elsewhere"), 0, 1).c_str(),
                          dataFileName(d.prefix("ckpt-0"), 0, 1).c_str()) == 0);
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1})"), "run-a", true);
        QCOMPARE(verdictOf(plan, "ckpt-0"), RetentionVerdict::LeaveAlone);
        QVERIFY(QString::fromStdString(decisionFor(plan, "ckpt-0")->reason).contains(QStringLiteral("symlink that leads out")));
        QVERIFY(applyRetention(plan).ok());
        QCOMPARE(outside.files().size(), size_t{3});  // nothing outside touched
        QVERIFY(d.files().count("ckpt-0.index"));
        QVERIFY(!d.files().count("ckpt-1.index"));
    }

    void dotDotRefused() {
        CheckpointDir d;
        d.save("ckpt-1", 1, kNow - 2 * kDay);
        d.save("ckpt-2", 2, kNow - kDay);
        d.save("ckpt-3", 3, kNow);
        const std::string self = std::filesystem::path(d.dir()).filename().string();
        d.writeState("ckpt-3", {"../" + self + "/ckpt-1", "ckpt-2", "ckpt-3"});
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1})"));
        QCOMPARE(verdictOf(plan, "ckpt-1"), RetentionVerdict::LeaveAlone);
        QVERIFY(QString::fromStdString(decisionFor(plan, "ckpt-1")->reason).contains(QStringLiteral("path with \"..\"")));
        QCOMPARE(verdictOf(plan, "ckpt-2"), RetentionVerdict::Delete);
        // Names that are not plain entries of the directory are refused outright.
        QCOMPARE(deleteCheckpointFiles(d.dir(), "../ckpt-1").code(), StatusCode::InvalidArgument);
        QCOMPARE(deleteCheckpointFiles(d.dir(), "..").code(), StatusCode::InvalidArgument);
        RetentionCandidate sneaky;
        sneaky.prefix = d.dir() + "/../x";
        sneaky.name = "../x";
        sneaky.hasMetadata = true;
        sneaky.owner = "run-a";
        const RetentionPlan pure = planRetention({sneaky}, policy(R"({"keep_latest": 1})"), {.now = kNow, .owner = "run-a"});
        QCOMPARE(pure.decisions[0].verdict, RetentionVerdict::LeaveAlone);
    }

    void unreadableStateFileDeletesNothing() {
        CheckpointDir d;
        d.save("ckpt-1", 1, kNow - kDay);
        d.save("ckpt-2", 2, kNow);
        d.writeFile("checkpoint", "model_checkpoint_path: ");
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1})"));
        QCOMPARE(plan.deleted, 0);
        QVERIFY(
            QString::fromStdString(decisionFor(plan, "ckpt-1")->reason).contains(QStringLiteral("state file cannot be read")));
    }

    void applyDeletesExactlyThePlan() {
        CheckpointDir d;
        for (int i = 1; i <= 4; ++i) d.save("ckpt-" + std::to_string(i), i, kNow - (5 - i) * kDay);
        d.save("foreign-9", 9, kNow - 9 * kDay, std::nullopt);
        d.writeState("ckpt-4", {"ckpt-1", "ckpt-2", "ckpt-3", "ckpt-4"});
        d.writeFile("notes.txt", "mine, not a checkpoint");
        d.writeFile("ckpt-1.data-00000-of-00002", "stale shard of an earlier save");  // goes with ckpt-1
        const std::set<std::string> before = d.files();
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 2})"));
        QCOMPARE(named(plan, RetentionVerdict::Delete), (std::vector<std::string>{"ckpt-1", "ckpt-2"}));
        auto report = applyRetention(plan);
        QVERIFY2(report.ok(), report.status().toString().c_str());
        QCOMPARE(report->deleted, (std::vector<std::string>{d.prefix("ckpt-1"), d.prefix("ckpt-2")}));
        QCOMPARE(report->bytesFreed, plan.deletedBytes);
        std::set<std::string> expected = before;
        for (const char* f : {"ckpt-1.index", "ckpt-1.data-00000-of-00001", "ckpt-1.data-00000-of-00002", "ckpt-1.info.json",
                              "ckpt-2.index", "ckpt-2.data-00000-of-00001", "ckpt-2.info.json"})
            expected.erase(f);
        QCOMPARE(d.files(), expected);
        auto state = readCheckpointState(d.dir());
        QVERIFY(state.ok() && state->has_value());
        QCOMPARE((*state)->modelCheckpointPath, std::string("ckpt-4"));
        QCOMPARE((*state)->allModelCheckpointPaths, (std::vector<std::string>{"ckpt-3", "ckpt-4"}));
    }

    void applySkipsChangedCheckpoint() {
        CheckpointDir d;
        d.save("ckpt-1", 1, kNow - 2 * kDay);
        d.save("ckpt-2", 2, kNow - kDay);
        d.save("ckpt-3", 3, kNow);
        const RetentionPlan plan = d.plan(policy(R"({"keep_latest": 1})"));
        // A save reuses the name between planning and deleting.
        d.save("ckpt-1", 11, kNow + 5);
        auto report = applyRetention(plan);
        QVERIFY(report.ok());
        QCOMPARE(report->deleted, std::vector<std::string>{d.prefix("ckpt-2")});
        QCOMPARE(report->skipped, std::vector<std::string>{"ckpt-1: changed since planning"});
        QVERIFY(d.files().count("ckpt-1.index"));
    }
};

QTEST_GUILESS_MAIN(TstRetention)
#include "tst_retention.moc"

// Saves by N writers (ckpt/distributed_save.h), with one thread per rank,
// in a local directory and on the loopback S3 server: the merged result
// reads back with every value; N = 1 is byte for byte today's
// single-process save; the merged index is byte for byte TensorFlow's
// MergeV2Checkpoints over the same partial bundles, and TensorFlow reads the
// same values from it as from a single-process save; a missing rank times
// out naming it with nothing committed, and a rerun commits; an abort
// marker stops the merger at once; plans that differ, a committed
// checkpoint, bad ranks and save ids are refused. The same through real
// processes: tst_cli_demo_train_world.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <thread>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/distributed_save.h"
#include "pipeline/parts_plan.h"
#include "fault_storage.h"
#include "s3_test_server.h"
#include "storage/dispatch.h"
#include "test_support.h"
#include "test_tensors.h"

using namespace ckpt;
using ckpt::testing::plainSaveTensor;
using Clock = std::chrono::steady_clock;

namespace {

// Nine tensors of several dtypes and sizes, a string tensor and a tensor
// saved as two slices: every path of the merge.
std::vector<SaveTensor> sampleTensors(int variant = 0) {
    std::vector<SaveTensor> ts;
    std::vector<float> big(3000);
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i) * 0.5f + static_cast<float>(variant);
    ts.push_back(plainSaveTensor("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE",
                                 testing::makeTensor<float>(DataType::Float, {30, 100}, big)));
    ts.push_back(plainSaveTensor("model/dense/bias/.ATTRIBUTES/VARIABLE_VALUE",
                                 testing::makeTensor<float>(DataType::Float, {4}, {1.f, -2.f, 3.5f, 0.f})));
    std::vector<int32_t> ints(700);
    for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int32_t>(i * 7);
    ts.push_back(plainSaveTensor("model/embedding/.ATTRIBUTES/VARIABLE_VALUE",
                                 testing::makeTensor<int32_t>(DataType::Int32, {70, 10}, ints)));
    ts.push_back(plainSaveTensor("step/.ATTRIBUTES/VARIABLE_VALUE", testing::makeTensor<int64_t>(DataType::Int64, {}, {1234})));
    ts.push_back(
        plainSaveTensor("save_counter/.ATTRIBUTES/VARIABLE_VALUE", testing::makeTensor<int64_t>(DataType::Int64, {}, {3})));
    ts.push_back(plainSaveTensor("model/scale/.ATTRIBUTES/VARIABLE_VALUE",
                                 testing::makeTensor<double>(DataType::Double, {2, 3}, {1, 2, 3, 4, 5, 6})));
    ts.push_back(plainSaveTensor("model/mask/.ATTRIBUTES/VARIABLE_VALUE",
                                 testing::makeTensor<uint8_t>(DataType::Bool, {5}, {1, 0, 1, 1, 0})));
    Tensor names;
    names.dtype = DataType::String;
    names.shape.dims = {3};
    names.strings = {"alpha", "", std::string("b\0c", 3)};
    ts.push_back(plainSaveTensor("vocab/.ATTRIBUTES/VARIABLE_VALUE", names));
    // model/part: a [4, 3] float tensor saved as rows 0-1 and rows 2-3.
    for (int half = 0; half < 2; ++half) {
        SaveTensor t =
            plainSaveTensor("model/part/.ATTRIBUTES/VARIABLE_VALUE",
                            testing::makeTensor<float>(DataType::Float, {2, 3},
                                                       {float(half * 6 + 0), float(half * 6 + 1), float(half * 6 + 2),
                                                        float(half * 6 + 3), float(half * 6 + 4), float(half * 6 + 5)}));
        t.fullShape.dims = {4, 3};
        t.slice = TensorSlice{{SliceExtent{half * 2, 2}, SliceExtent{}}};
        ts.push_back(std::move(t));
    }
    return ts;
}

// Every whole tensor's bytes by key, as a reader returns them.
std::map<std::string, Tensor> readAllValues(const std::string& prefix) {
    std::map<std::string, Tensor> out;
    auto r = BundleReader::open(prefix);
    if (!r.ok()) return out;
    for (const TensorInfo& info : (*r)->tensors()) {
        auto v = (*r)->read(info.key);
        if (v.ok()) out.emplace(info.key, std::move(*v));
    }
    return out;
}

bool sameTensor(const Tensor& a, const Tensor& b) {
    return a.dtype == b.dtype && a.shape.dims == b.shape.dims && a.bytes == b.bytes && a.strings == b.strings;
}

struct RankResult {
    Status status;
    double seconds = 0;
};

// Runs ranks 'ranks' of 'world' on threads, each with sampleTensors(); rank 0
// (when listed and 'commit') then merges. Returns each rank's status and
// the merger's.
struct SaveRun {
    std::vector<RankResult> ranks;
    Status commit;
    double commitSeconds = 0;
};
SaveRun saveWithThreads(const std::string& prefix, int world, const std::vector<int>& ranks, const std::string& saveId,
                        bool commit, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    SaveRun run;
    run.ranks.resize(ranks.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < ranks.size(); ++i) {
        threads.emplace_back([&, i] {
            const auto start = Clock::now();
            PartSaveOptions o;
            o.saveId = saveId;
            o.planTimeout = std::chrono::seconds(20);
            run.ranks[i].status = writeCheckpointPart(prefix, WriterRank{ranks[i], world, {}}, sampleTensors(), o).status();
            run.ranks[i].seconds = std::chrono::duration<double>(Clock::now() - start).count();
        });
    }
    if (commit) {
        const auto start = Clock::now();
        PartsCommitOptions c;
        c.saveId = saveId;
        c.timeout = timeout;
        run.commit = commitCheckpointParts(prefix, world, c).status();
        run.commitSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    }
    for (auto& t : threads) t.join();
    return run;
}

QByteArray bytesOf(const std::string& location) {
    auto r = storage::readSmallFile(location, 64u << 20);
    return r.ok() ? QByteArray::fromStdString(*r) : QByteArray("<unreadable>");
}

bool anyUnder(const std::string& dir) {
    bool any = false;
    (void)storage::list(dir, {}, [&](const storage::ListEntry& e) {
        any = e.kind == storage::ObjectKind::File;
        return !any;
    });
    return any;
}

}  // namespace

class TstDistributedSave : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    std::string m_s3Root;  // s3://bucket/<unique>/
    std::string local(const char* name) const { return m_tmp.filePath(QString::fromLatin1(name)).toStdString(); }

    // The whole protocol at 'dir' with 'world' threads: committed, every
    // value back, one data file per rank, the state file naming it, the
    // parts area gone.
    void checkCommits(const std::string& dir, int world) {
        const std::string prefix = dir + "/ckpt-1";
        const SaveRun run = saveWithThreads(
            prefix, world,
            [&] {
                std::vector<int> all;
                for (int r = 0; r < world; ++r) all.push_back(r);
                return all;
            }(),
            "s1", true);
        for (const RankResult& r : run.ranks) QVERIFY2(r.status.isOk(), r.status.toString().c_str());
        QVERIFY2(run.commit.isOk(), run.commit.toString().c_str());
        auto reader = BundleReader::open(prefix);
        QVERIFY2(reader.ok(), reader.status().toString().c_str());
        QCOMPARE((*reader)->header().numShards, world);
        for (int r = 0; r < world; ++r) QVERIFY(storage::isFile(dataFileName(prefix, r, world)));
        const auto values = readAllValues(prefix);
        std::map<std::string, Tensor> expected;
        QString single = m_tmp.filePath(QStringLiteral("single-%1-%2").arg(world).arg(dir.size()));
        QVERIFY(writeTensors(single.toStdString(), sampleTensors(), {}).ok());
        const auto singleValues = readAllValues(single.toStdString());
        QCOMPARE(values.size(), size_t(9));  // model/part's two slices read back as one tensor
        QCOMPARE(singleValues.size(), values.size());
        for (const auto& [key, v] : singleValues) {
            QVERIFY2(values.count(key), key.c_str());
            QVERIFY2(sameTensor(values.at(key), v), key.c_str());
        }
        auto state = readCheckpointState(dir);
        QVERIFY(state.ok() && state->has_value());
        QCOMPARE((*state)->modelCheckpointPath, std::string("ckpt-1"));
        QVERIFY(!anyUnder(partsAreaOf(prefix, "s1")));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QString why;
        const auto root = testing::s3RootThroughDispatch("tst_distributed_save", &why);
        QVERIFY2(root.has_value(), qPrintable(why));
        m_s3Root = *root;
    }

    // Every rank computes the same plan from the same tensors in any order;
    // every rank stores something; sizes are balanced.
    void planIsDeterministic() {
        auto a = pipeline::planParts(sampleTensors(), 3);
        auto tensors = sampleTensors();
        std::reverse(tensors.begin(), tensors.end());
        auto b = pipeline::planParts(tensors, 3);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(a->text, b->text);
        QCOMPARE(a->digest, b->digest);
        QCOMPARE(a->digest.size(), size_t(64));
        std::vector<int> count(3, 0);
        for (int r : a->rankOf) ++count[static_cast<size_t>(r)];
        for (int c : count) QVERIFY(c > 0);
        // The biggest tensor (12,000 bytes) alone on rank 0; the rest share.
        QCOMPARE(a->rankOf[0], 0);
        QCOMPARE(count[0], 1);
        // Another tensor's size changes the plan and its digest.
        auto other = sampleTensors(0);
        other[1].value = testing::makeTensor<float>(DataType::Float, {5}, {1, 2, 3, 4, 5});
        auto c = pipeline::planParts(other, 3);
        QVERIFY(c.ok() && c->digest != a->digest);
        const Status mismatch = pipeline::checkSamePlan(*c, 2, a->text, "PLAN");
        QCOMPARE(mismatch.code(), StatusCode::InvalidArgument);
        QVERIFY2(mismatch.message().find("rank 2's plan (digest " + c->digest.substr(0, 16)) != std::string::npos &&
                     mismatch.message().find("rank 0 stored in PLAN (digest " + a->digest.substr(0, 16)) != std::string::npos &&
                     mismatch.message().find("model/dense/bias") != std::string::npos,
                 mismatch.message().c_str());
        // More writers than tensors, a tensor twice.
        QCOMPARE(pipeline::planParts(sampleTensors(), 11).status().code(), StatusCode::InvalidArgument);
        auto twice = sampleTensors();
        twice.push_back(twice[1]);
        QVERIFY(pipeline::planParts(twice, 2).status().message().find("saved twice") != std::string::npos);
    }

    void writerRankFromLaunchers() {
        const auto from = [](std::map<std::string, std::string> vars, std::optional<int> world = std::nullopt) {
            return writerRankFromEnvironment(world, [vars](std::string_view name) -> std::optional<std::string> {
                auto it = vars.find(std::string(name));
                return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
            });
        };
        auto slurm = from({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "4"}});
        QVERIFY(slurm.ok());
        QCOMPARE(slurm->rank, 3);
        QCOMPARE(slurm->world, 4);
        QCOMPARE(slurm->source, std::string("SLURM"));
        auto ompi = from({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}});
        QVERIFY(ompi.ok() && ompi->rank == 1 && ompi->world == 2);
        // torchrun inside a SLURM batch script: torchrun's own variables count.
        auto nested = from({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"RANK", "5"}, {"WORLD_SIZE", "8"}});
        QVERIFY(nested.ok() && nested->rank == 5 && nested->world == 8 && nested->source == "torchrun");
        auto k8s = from({{"JOB_COMPLETION_INDEX", "2"}}, 3);
        QVERIFY(k8s.ok() && k8s->rank == 2 && k8s->world == 3);
        QVERIFY(from({{"JOB_COMPLETION_INDEX", "2"}}).status().message().find("no world") != std::string::npos);
        QVERIFY(from({{"RANK", "4"}, {"WORLD_SIZE", "4"}}).status().message().find("outside a world of 4") != std::string::npos);
        QVERIFY(from({{"RANK", "1"}}).status().message().find("WORLD_SIZE") != std::string::npos);
        QVERIFY(from({{"RANK", "-1"}, {"WORLD_SIZE", "4"}}).status().message().find("not a non-negative") != std::string::npos);
        QVERIFY(from({{"RANK", "1 "}, {"WORLD_SIZE", "4"}}).status().code() == StatusCode::InvalidArgument);
        QVERIFY(from({{"RANK", "0"}, {"WORLD_SIZE", "5000"}}).status().message().find("outside 1..1024") != std::string::npos);
        QVERIFY(from({{"RANK", "1"}, {"WORLD_SIZE", "4"}}, 2).status().message().find("differs from torchrun's") !=
                std::string::npos);
        QCOMPARE(from({}).status().code(), StatusCode::NotFound);
    }

    // N = 1 is today's single-process save, byte for byte.
    void oneWriterIsTheSingleProcessSave() {
        const std::string dir = local("one");
        const SaveRun run = saveWithThreads(dir + "/ckpt-1", 1, {0}, "a", true);
        QVERIFY2(run.ranks[0].status.isOk() && run.commit.isOk(),
                 (run.ranks[0].status.toString() + run.commit.toString()).c_str());
        QVERIFY(writeTensors(dir + "/single", sampleTensors(), {}).ok());
        QCOMPARE(bytesOf(dir + "/ckpt-1.index"), bytesOf(dir + "/single.index"));
        QCOMPARE(bytesOf(dataFileName(dir + "/ckpt-1", 0, 1)), bytesOf(dataFileName(dir + "/single", 0, 1)));
    }

    void writersInLocalDirectory_data() {
        QTest::addColumn<int>("world");
        QTest::newRow("1") << 1;
        QTest::newRow("2") << 2;
        QTest::newRow("4") << 4;
    }
    void writersInLocalDirectory() {
        QFETCH(int, world);
        checkCommits(local("local") + std::to_string(world), world);
        // Nothing but the checkpoint and its state file is left.
        const QStringList left = QDir(QString::fromStdString(local("local") + std::to_string(world)))
                                     .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
        QCOMPARE(left.size(), world + 2);
    }

    void writersOnObjectStore_data() { writersInLocalDirectory_data(); }
    void writersOnObjectStore() {
        QFETCH(int, world);
        checkCommits(m_s3Root + "w" + std::to_string(world), world);
    }

    // The merged index is MergeV2Checkpoints' own, and TensorFlow reads the
    // same values from it as from TensorFlow's merge and a single-process save.
    void mergeIsTensorFlows_data() {
        QTest::addColumn<int>("world");
        QTest::newRow("2") << 2;
        QTest::newRow("4") << 4;
    }
    void mergeIsTensorFlows() {
        QFETCH(int, world);
        const QByteArray python = qgetenv("CKPT_PYTHON");
        if (python.isEmpty()) CKPT_MISSING_PYTHON("CKPT_PYTHON is not set: no Python with TensorFlow to check interop against");
        const std::string dir = local("tf") + std::to_string(world);
        const std::string prefix = dir + "/ckpt-7";
        std::vector<int> all;
        for (int r = 0; r < world; ++r) all.push_back(r);
        // The writers' partial bundles, copied as TensorFlow names them before our merge runs.
        const SaveRun run = saveWithThreads(prefix, world, all, "tf", false);
        for (const RankResult& r : run.ranks) QVERIFY2(r.status.isOk(), r.status.toString().c_str());
        QVERIFY(QDir().mkpath(QString::fromStdString(dir + "/tfparts")));
        QStringList parts;
        for (int r = 0; r < world; ++r) {
            const QString part = QString::fromStdString(dir + "/tfparts/part-") + QString::number(r);
            const QString area = QString::fromStdString(partsAreaOf(prefix, "tf"));
            QVERIFY(QFile::copy(area + QStringLiteral("/part-%1.index").arg(r, 5, 10, QLatin1Char('0')), part + ".index"));
            QVERIFY(QFile::copy(QString::fromStdString(dataFileName(prefix, r, world)), part + ".data-00000-of-00001"));
            parts << part;
        }
        PartsCommitOptions c;
        c.saveId = "tf";
        auto committed = commitCheckpointParts(prefix, world, c);
        QVERIFY2(committed.ok(), committed.status().toString().c_str());
        QVERIFY(writeTensors(dir + "/single", sampleTensors(), {}).ok());
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(QString::fromLocal8Bit(python),
                QStringList{testing::sourceDir() + "/tests/interop/parts_merge_check.py", QString::fromStdString(dir),
                            QString::fromStdString(prefix), QString::fromStdString(dir + "/single")} +
                    parts);
        QVERIFY(p.waitForFinished(240000));
        const QByteArray out = p.readAllStandardOutput();
        QVERIFY2(p.exitCode() == 0 && out.contains("\"ok\": true"), out.constData());
        QVERIFY2(out.contains("\"tensors\": 9"), out.constData());
    }

    // A rank that never comes: the merger gives up within its timeout naming
    // it, nothing is committed, a straggler of that attempt stops at once, and
    // a rerun under a new save id commits.
    void missingRankTimesOut_data() {
        QTest::addColumn<bool>("remote");
        QTest::newRow("local") << false;
        QTest::newRow("s3") << true;
    }
    void missingRankTimesOut() {
        QFETCH(bool, remote);
        const std::string dir = remote ? m_s3Root + "missing" : local("missing");
        const std::string prefix = dir + "/ckpt-2";
        const SaveRun run = saveWithThreads(prefix, 3, {0, 1}, "try1", true, std::chrono::milliseconds(1500));
        for (const RankResult& r : run.ranks) QVERIFY2(r.status.isOk(), r.status.toString().c_str());
        QCOMPARE(run.commit.code(), StatusCode::FailedPrecondition);
        QVERIFY2(run.commit.message().find("no done marker from rank 2 ") != std::string::npos, run.commit.message().c_str());
        QVERIFY2(run.commitSeconds >= 1.4 && run.commitSeconds < 6, std::to_string(run.commitSeconds).c_str());
        QVERIFY(!storage::exists(indexFileName(prefix)));
        QVERIFY(!storage::exists(dir + "/checkpoint"));
        // The straggler of that attempt is told at once.
        const auto start = Clock::now();
        PartSaveOptions late;
        late.saveId = "try1";
        const Status straggler = writeCheckpointPart(prefix, WriterRank{2, 3, {}}, sampleTensors(), late).status();
        QVERIFY2(straggler.message().find("aborted by the merger: FailedPrecondition: timed out") != std::string::npos,
                 straggler.toString().c_str());
        QVERIFY(std::chrono::duration<double>(Clock::now() - start).count() < 3);
        QVERIFY(!storage::isFile(dataFileName(prefix, 2, 3)));
        // A rerun commits.
        const SaveRun rerun = saveWithThreads(prefix, 3, {0, 1, 2}, "try2", true);
        QVERIFY2(rerun.commit.isOk(), rerun.commit.toString().c_str());
        QCOMPARE(readAllValues(prefix).size(), size_t(9));
    }

    // An abort marker stops a merger that would have waited a minute.
    void abortMarkerStopsTheMerger() {
        const std::string prefix = local("aborted") + "/ckpt-3";
        Status merged;
        double seconds = 0;
        std::thread merger([&] {
            const auto start = Clock::now();
            PartsCommitOptions c;
            c.saveId = "x";
            c.timeout = std::chrono::seconds(60);
            merged = commitCheckpointParts(prefix, 2, c).status();
            seconds = std::chrono::duration<double>(Clock::now() - start).count();
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        QVERIFY(abortCheckpointParts(prefix, "x", 1, "CUDA out of memory\nat step 9").isOk());
        merger.join();
        QCOMPARE(merged.code(), StatusCode::FailedPrecondition);
        QVERIFY2(merged.message().find("aborted by rank 1: CUDA out of memory at step 9") != std::string::npos,
                 merged.message().c_str());
        QVERIFY2(seconds < 3, std::to_string(seconds).c_str());
        QVERIFY(!storage::exists(indexFileName(prefix)));
    }

    // Ranks with different tensors: the one that differs says how, tells the
    // merger, and nothing is committed.
    void differentPlansAreRefused() {
        const std::string prefix = local("mismatch") + "/ckpt-1";
        PartSaveOptions o;
        o.saveId = "m";
        auto zero = writeCheckpointPart(prefix, WriterRank{0, 2, {}}, sampleTensors(), o);
        QVERIFY(zero.ok());
        auto fewer = sampleTensors();
        fewer.erase(fewer.begin() + 3);
        const Status one = writeCheckpointPart(prefix, WriterRank{1, 2, {}}, fewer, o).status();
        QCOMPARE(one.code(), StatusCode::InvalidArgument);
        QVERIFY2(one.message().find("rank 1's plan (digest") != std::string::npos &&
                     one.message().find("differs from the plan rank 0 stored") != std::string::npos,
                 one.message().c_str());
        PartsCommitOptions c;
        c.saveId = "m";
        c.timeout = std::chrono::seconds(30);
        const Status merged = commitCheckpointParts(prefix, 2, c).status();
        QVERIFY2(merged.message().find("aborted by rank 1: InvalidArgument: rank 1's plan") != std::string::npos,
                 merged.message().c_str());
        QVERIFY(!storage::exists(indexFileName(prefix)));
    }

    // A committed checkpoint is never written again, by a rank or a merger.
    void committedCheckpointIsNotRewritten() {
        const std::string dir = local("committed");
        const SaveRun run = saveWithThreads(dir + "/ckpt-1", 2, {0, 1}, "one", true);
        QVERIFY(run.commit.isOk());
        const QByteArray data = bytesOf(dataFileName(dir + "/ckpt-1", 1, 2));
        PartSaveOptions o;
        o.saveId = "two";
        const Status again = writeCheckpointPart(dir + "/ckpt-1", WriterRank{1, 2, {}}, sampleTensors(5), o).status();
        QCOMPARE(again.code(), StatusCode::AlreadyExists);
        QCOMPARE(bytesOf(dataFileName(dir + "/ckpt-1", 1, 2)), data);
        PartsCommitOptions c;
        c.saveId = "two";
        QCOMPARE(commitCheckpointParts(dir + "/ckpt-1", 2, c).status().code(), StatusCode::AlreadyExists);
    }

    void cancelStopsTheWait() {
        CancellationToken token;
        Status merged;
        std::thread merger([&] {
            PartsCommitOptions c;
            c.saveId = "c";
            c.cancel = &token;
            merged = commitCheckpointParts(local("cancel") + "/ckpt-1", 2, c).status();
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        token.cancel();
        merger.join();
        QCOMPARE(merged.code(), StatusCode::Cancelled);
    }

    // EIO at, or a power loss right after, every write-side operation of a
    // save by two writers (rank 0, rank 1, then the merge, one thread): a
    // checkpoint is whole or has no index, the state file names nothing
    // uncommitted, and a rerun under a new save id commits (or finds the
    // checkpoint committed).
    void faultAtEveryOperation() {
        const auto save = [](const std::string& prefix, const std::string& id) {
            PartSaveOptions o;
            o.saveId = id;
            Status s = writeCheckpointPart(prefix, WriterRank{0, 2, {}}, sampleTensors(), o).status();
            if (s.isOk()) s = writeCheckpointPart(prefix, WriterRank{1, 2, {}}, sampleTensors(), o).status();
            PartsCommitOptions c;
            c.saveId = id;
            c.timeout = std::chrono::milliseconds(200);
            if (s.isOk()) s = commitCheckpointParts(prefix, 2, c).status();
            return s;
        };
        const std::string base = local("faults");
        std::filesystem::create_directories(base + "/clean");
        std::vector<testing::FileOpRecord> ops;
        {
            testing::FaultStorage clean(base + "/clean");
            testing::ScopedStorage scoped(clean);
            QVERIFY(save(base + "/clean/ckpt-1", "s").isOk());
            ops = clean.operations();
        }
        QVERIFY(ops.size() > 20);
        // The commit: the directory fsync after ckpt-1.index is renamed into place.
        size_t commitOp = 0;
        for (size_t i = 0; i < ops.size() && !commitOp; ++i)
            if (ops[i].kind == testing::FileOpKind::Rename && ops[i].path.ends_with("/ckpt-1.index"))
                for (size_t j = i + 1; j < ops.size() && !commitOp; ++j)
                    if (ops[j].kind == testing::FileOpKind::SyncDir) commitOp = j + 1;
        QVERIFY2(commitOp > 0, "no directory fsync after the index is renamed into place");
        const std::map<std::string, Tensor> expected = readAllValues(base + "/clean/ckpt-1");
        QCOMPARE(expected.size(), size_t(9));
        int cases = 0;
        for (int kind = 0; kind < 3; ++kind) {
            for (size_t i = 0; i < ops.size(); ++i) {
                const std::string dir = base + "/" + std::to_string(kind) + "-" + std::to_string(i);
                std::filesystem::create_directories(dir);
                const std::string prefix = dir + "/ckpt-1";
                const QByteArray where = QByteArray("fault ") + QByteArray::number(kind) + " at op " +
                                         QByteArray::number(qulonglong(i + 1)) + " (" +
                                         testing::fileOpKindName(ops[i].kind).data() + " " + ops[i].path.c_str() + "): ";
                Status saved;
                {
                    testing::FaultStorage faults(dir);
                    testing::FileFault f;
                    f.at = static_cast<int64_t>(i + 1);
                    if (kind == 0) f.error = EIO;
                    else f.powerLoss = true;
                    faults.arm(f);
                    testing::ScopedStorage scoped(faults);
                    saved = save(prefix, "s");
                    if (kind > 0) {
                        const std::string restored = faults.restoreDurableImage(kind == 1 ? testing::CrashImage::UndoEntries
                                                                                          : testing::CrashImage::KeepEntries);
                        QVERIFY2(restored.empty(), where + restored.c_str());
                    }
                }
                const bool committed = QFileInfo::exists(QString::fromStdString(indexFileName(prefix)));
                if (kind == 0 && saved.isOk()) QVERIFY2(committed, where + "reported saved, no index");
                // What the commit made durable survives a power loss.
                if (kind > 0 && i + 1 >= commitOp) QVERIFY2(committed, where + "the committed index was lost");
                if (committed) {
                    const auto values = readAllValues(prefix);
                    QVERIFY2(values.size() == expected.size(), where + "an index without all its data");
                    for (const auto& [key, v] : expected) QVERIFY2(sameTensor(values.at(key), v), where + key.c_str());
                }
                if (auto state = readCheckpointState(dir); state.ok() && state->has_value())
                    QVERIFY2(stateEntriesWithoutIndex(dir, **state).empty(),
                             where + "the state file names an uncommitted checkpoint");
                // A rerun under a new id.
                const Status rerun = save(prefix, "again");
                QVERIFY2(committed ? rerun.code() == StatusCode::AlreadyExists : rerun.isOk(), where + rerun.toString().c_str());
                QCOMPARE(readAllValues(prefix).size(), expected.size());
                std::filesystem::remove_all(dir);
                ++cases;
            }
        }
        qInfo("%zu write-side operations in a save by 2 writers; %d fault cases (EIO, power loss undoing or keeping entries)",
              ops.size(), cases);
    }

    void hostileArguments() {
        PartSaveOptions o;
        o.saveId = "../../etc";
        const std::string prefix = local("hostile") + "/ckpt-1";
        QCOMPARE(writeCheckpointPart(prefix, WriterRank{0, 1, {}}, sampleTensors(), o).status().code(),
                 StatusCode::InvalidArgument);
        o.saveId = std::string(65, 'a');
        QCOMPARE(writeCheckpointPart(prefix, WriterRank{0, 1, {}}, sampleTensors(), o).status().code(),
                 StatusCode::InvalidArgument);
        o.saveId = "ok";
        QCOMPARE(writeCheckpointPart(prefix, WriterRank{4, 4, {}}, sampleTensors(), o).status().code(),
                 StatusCode::InvalidArgument);
        QCOMPARE(writeCheckpointPart(prefix, WriterRank{0, 0, {}}, sampleTensors(), o).status().code(),
                 StatusCode::InvalidArgument);
        QCOMPARE(writeCheckpointPart(prefix + "/", WriterRank{0, 1, {}}, sampleTensors(), o).status().code(),
                 StatusCode::InvalidArgument);
        QCOMPARE(writeCheckpointPart("ftp://host/x/ckpt-1", WriterRank{0, 1, {}}, sampleTensors(), o).status().code(),
                 StatusCode::InvalidArgument);
        PartsCommitOptions c;
        c.saveId = "ok";
        QCOMPARE(commitCheckpointParts(prefix, kMaxWriters + 1, c).status().code(), StatusCode::InvalidArgument);
        QVERIFY(!QFileInfo::exists(QString::fromStdString(local("hostile"))));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(local("etc"))));
    }
};

QTEST_GUILESS_MAIN(TstDistributedSave)
#include "tst_distributed_save.moc"

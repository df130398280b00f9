// The streamed diff of two name-based checkpoints (compare/diff_by_key.h)
// against the path that opens both sides whole (openCheckpointPair, then
// diffCheckpoints of the open checkpoints): every row, figure, count and
// error alike, over statuses, renames, collapsed subtrees, partitioned and
// string tensors, filters, keepUnchanged, several pair batches, a mixed
// pair and damaged sides.

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "ckpt/checkpoint_diff.h"
#include "ckpt/save.h"
#include "ckpt/trackable.h"
#include "format/index_table.h"
#include "test_tensors.h"

using namespace ckpt;
using ckpt::testing::makeTensor;
using ckpt::testing::plainSaveTensor;

namespace {

std::string number(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

std::string describe(const DiffSide& s) {
    return s.path + "|" + s.key + "|" + std::to_string(static_cast<int>(s.dtype)) + "|" + s.shape.toString() + "|" +
           std::to_string(s.bytes) + "|" + std::to_string(s.maskedCrc32c) + "|" + (s.partitioned ? "p" : "-");
}

std::string describe(const TensorDiff& d) {
    std::string s = std::to_string(d.elements) + " " + std::to_string(d.mismatches) + " " + (d.exactCompare ? "x" : "-");
    for (double x : {d.maxAbsDiff, d.maxRelDiff, d.meanAbsDiff, d.normA, d.normB, d.normDiff, d.relL2, d.cosine})
        s += " " + number(x);
    for (int64_t x : {d.maxAbsIndex, d.maxRelIndex, d.nansA, d.nansB, d.infsA, d.infsB, d.nansAppeared, d.nansDisappeared,
                      d.infsAppeared, d.infsDisappeared})
        s += " " + std::to_string(x);
    for (const DifferingElement& e : d.firstMismatches) s += " [" + std::to_string(e.index) + ":" + e.a + "/" + e.b + "]";
    return s + (d.fromChecksums ? " sums" : "");
}

// Everything a diff says, one line per row: two diffs are alike when
// their descriptions are.
std::string describe(const Result<CheckpointDiff>& r) {
    if (!r.ok()) return "error: " + r.status().toString();
    const CheckpointDiff& d = *r;
    std::string s = d.prefixA + " " + d.prefixB + " styles " + std::to_string(static_cast<int>(d.styleA)) +
                    std::to_string(static_cast<int>(d.styleB)) + (d.pairedByPath ? " by path" : " by key") + "\n";
    s += "counts " + std::to_string(d.counts.added) + " " + std::to_string(d.counts.deleted) + " " +
         std::to_string(d.counts.modified) + " " + std::to_string(d.counts.typeChanged) + " " + std::to_string(d.counts.renamed) +
         " " + std::to_string(d.counts.unchanged) + " excluded " + std::to_string(d.excluded) + " read " +
         std::to_string(d.bytesRead) + " sums " + std::to_string(d.fromChecksums) + " cache " + std::to_string(d.fromCache) +
         "\n";
    for (const DiffSideCheck* c : {&d.checkA, &d.checkB}) {
        s += c->full ? "full check:" : "check:";
        for (const VerifyProblem& p : c->problems) s += " " + p.file + "/" + p.key + "/" + p.message;
        s += "\n";
    }
    for (const DiffEntry& e : d.entries) {
        s += std::string(1, diffStatusCode(e.status)) + " " + std::string(diffRoleName(e.role)) + " ";
        for (const std::string& part : e.location) s += part + "/";
        s += " A=" + (e.a ? describe(*e.a) : "") + " B=" + (e.b ? describe(*e.b) : "");
        s += " slot=" + e.slotOf + "," + e.optimizer + "," + e.slotName;
        s += " members=" + std::to_string(e.members) + " in=" + std::to_string(e.collapsedInto);
        if (e.values) s += " values=" + describe(*e.values);
        s += "\n";
    }
    return s;
}

// What the whole path makes of the pair: both sides opened, then diffed.
Result<CheckpointDiff> diffWhole(const std::string& a, const std::string& b, const DiffOptions& options) {
    CKPT_ASSIGN_OR_RETURN(CheckpointPair pair, openCheckpointPair(a, b));
    return diffCheckpoints(*pair.a, *pair.b, options);
}

Tensor floats(const std::vector<float>& v) {
    const auto n = static_cast<int64_t>(v.size());
    return makeTensor<float>(DataType::Float, {n}, v);
}

Tensor strings(std::vector<std::string> v) {
    Tensor t;
    t.dtype = DataType::String;
    t.shape.dims = {static_cast<int64_t>(v.size())};
    t.strings = std::move(v);
    return t;
}

// A [4, 2] float tensor stored as two slices of two rows each.
void addPartitioned(std::vector<SaveTensor>& out, const std::string& key, float scale) {
    for (int64_t half = 0; half < 2; ++half) {
        SaveTensor t;
        t.key = key;
        t.fullShape = TensorShape{{4, 2}};
        t.slice = TensorSlice{{SliceExtent{half * 2, 2}, SliceExtent{}}};
        t.value = makeTensor<float>(DataType::Float, {2, 2},
                                    std::vector<float>{scale, 2 * scale, 3 * scale + static_cast<float>(half), 4 * scale});
        out.push_back(std::move(t));
    }
}

std::string write(const QTemporaryDir& dir, const char* name, std::vector<SaveTensor> tensors) {
    std::string prefix = dir.filePath(QString::fromLatin1(name)).toStdString();
    auto s = writeTensors(prefix, std::move(tensors), {});
    if (!s.ok()) qFatal("%s", s.status().toString().c_str());
    return prefix;
}

// Side A of the name-based pair; B changes it in every way a diff reports.
std::vector<SaveTensor> sideA() {
    std::vector<SaveTensor> t;
    t.push_back(plainSaveTensor("dense/kernel", floats({1, 2, 3, 4})));
    t.push_back(plainSaveTensor("dense/bias", floats({0.5f, 0.25f})));
    t.push_back(plainSaveTensor("dense/kernel/Adam", floats({0.1f, 0.2f, 0.3f, 0.4f})));
    t.push_back(plainSaveTensor("dense.extra", floats({7})));  // '.' sorts before '/': key order is not tree order
    t.push_back(plainSaveTensor("global_step", makeTensor<int64_t>(DataType::Int64, {}, {10})));
    t.push_back(plainSaveTensor("old/layer/w", floats({11, 12, 13})));
    t.push_back(plainSaveTensor("old/layer/b", floats({14, 15})));
    t.push_back(plainSaveTensor("gone/x", floats({21})));
    t.push_back(plainSaveTensor("gone/y", floats({22, 23})));
    t.push_back(plainSaveTensor("moved", floats({31, 32, 33, 34, 35})));
    t.push_back(plainSaveTensor("typed", floats({1, 2, 3})));
    t.push_back(plainSaveTensor("names", strings({"alpha", "beta"})));
    t.push_back(plainSaveTensor("labels", strings({"x", "y", "z"})));
    t.push_back(plainSaveTensor("zeros/one", floats({0, 0})));
    t.push_back(plainSaveTensor("a//double", floats({5, 6})));
    addPartitioned(t, "part/changed", 1);
    addPartitioned(t, "part/same", 2);
    addPartitioned(t, "part/unsliced", 3);
    t.push_back(plainSaveTensor("part/sliced", floats({1, 2, 3, 4, 5, 6, 7, 8})));
    return t;
}

std::vector<SaveTensor> sideB() {
    std::vector<SaveTensor> t;
    t.push_back(plainSaveTensor("dense/kernel", floats({1, 2, 3.5f, 4})));
    t.push_back(plainSaveTensor("dense/bias", floats({0.5f, 0.25f})));
    t.push_back(plainSaveTensor("dense/kernel/Adam", floats({0.1f, 0.2f, 0.3f, 0.4f})));
    t.push_back(plainSaveTensor("dense.extra", floats({7.5f})));
    t.push_back(plainSaveTensor("global_step", makeTensor<int64_t>(DataType::Int64, {}, {20})));
    t.push_back(plainSaveTensor("new/layer/w", floats({11, 12, 13})));
    t.push_back(plainSaveTensor("new/layer/b", floats({14, 15})));
    t.push_back(plainSaveTensor("elsewhere", floats({31, 32, 33, 34, 35})));
    t.push_back(plainSaveTensor("typed", floats({1, 2, 3, 4})));
    t.push_back(plainSaveTensor("names", strings({"alpha", "gamma"})));
    t.push_back(plainSaveTensor("labels", strings({"x", "y", "z"})));
    t.push_back(plainSaveTensor("zeros/two", floats({0, 0})));
    t.push_back(plainSaveTensor("zeros/three", floats({0, 0})));
    t.push_back(plainSaveTensor("a/double", floats({5, 6})));
    t.push_back(plainSaveTensor("came/z", floats({9})));
    addPartitioned(t, "part/changed", 1.5f);
    addPartitioned(t, "part/same", 2);
    t.push_back(plainSaveTensor("part/unsliced", floats({3, 6, 9, 12, 4, 6, 9, 12})));
    addPartitioned(t, "part/sliced", 1);
    return t;
}

// Many small tensors: several pair batches, changes on both sides of a
// batch's end, additions and deletions spread through.
std::vector<SaveTensor> many(int variant) {
    std::vector<SaveTensor> t;
    char key[64];
    for (int i = 0; i < 20'000; ++i) {
        if (variant == 1 && i % 4999 == 7) continue;  // deleted
        std::snprintf(key, sizeof key, "model/block_%03d/layer_%02d/kernel", i / 100, i % 100);
        const float changed = variant == 1 && (i % 997 == 0 || i == 8191 || i == 8192) ? 0.5f : 0;
        t.push_back(plainSaveTensor(key, floats({static_cast<float>(i), changed})));
        if (variant == 1 && i % 6007 == 3) {
            std::snprintf(key, sizeof key, "model/block_%03d/added_%d", i / 100, i);
            t.push_back(plainSaveTensor(key, floats({static_cast<float>(-i)})));
        }
    }
    return t;
}

struct Options {
    const char* name;
    DiffOptions options;
};

std::vector<Options> optionSets() {
    std::vector<Options> sets;
    sets.push_back({"defaults (all rows)", {}});
    DiffOptions changed;
    changed.keepUnchanged = false;
    sets.push_back({"changed rows only", changed});
    DiffOptions weights = changed;
    weights.weightsOnly = true;
    sets.push_back({"weights only", weights});
    DiffOptions include = changed;
    include.includes = {"dense/*", "part/*"};
    sets.push_back({"include", include});
    DiffOptions exclude;
    exclude.excludes = {"*bias*", "zeros/*"};
    sets.push_back({"exclude, all rows", exclude});
    DiffOptions read = changed;
    read.trustChecksums = false;
    sets.push_back({"every value read", read});
    DiffOptions slice = changed;
    slice.slice = "0:1";
    sets.push_back({"slice", slice});
    return sets;
}

void flipByte(const std::string& path, qint64 at) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadWrite)) qFatal("open %s", path.c_str());
    QByteArray bytes = f.readAll();
    if (at < 0) at += bytes.size();
    bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
    f.seek(0);
    f.write(bytes);
}

// Rewrites the index at 'prefix' with the entry of 'key' replaced by bytes
// that are no BundleEntryProto: the table stays sound (a seek finds no
// fault), only decoding the entries does.
void spoilEntry(const std::string& prefix, const std::string& key) {
    const std::string index = prefix + ".index";
    std::vector<std::pair<std::string, std::string>> entries;
    const Status read = format::scanIndexTable(index, [&](std::string_view k, std::string_view v) {
        entries.emplace_back(std::string(k), k == key ? std::string("\xff\xff\xff") : std::string(v));
        return okStatus();
    });
    if (!read.isOk()) qFatal("%s", read.toString().c_str());
    QFile::remove(QString::fromStdString(index));
    auto writer = format::IndexTableWriter::create(index);
    if (!writer.ok()) qFatal("%s", writer.status().toString().c_str());
    for (const auto& [k, v] : entries)
        if (!(*writer)->add(k, v).isOk()) qFatal("add");
    if (!(*writer)->finish().isOk()) qFatal("finish");
}

}  // namespace

class TestDiffByKey : public QObject {
    Q_OBJECT

private slots:
    void sameAsWholePath_data() {
        QTest::addColumn<QString>("pair");
        QTest::addColumn<int>("options");
        const std::vector<Options> sets = optionSets();
        for (const char* pair : {"name-based", "swapped", "identical", "many", "mixed", "empty"})
            for (size_t i = 0; i < sets.size(); ++i)
                QTest::addRow("%s, %s", pair, sets[i].name) << QString::fromLatin1(pair) << static_cast<int>(i);
    }
    void sameAsWholePath() {
        QFETCH(QString, pair);
        QFETCH(int, options);
        QTemporaryDir dir;
        std::string a, b;
        if (pair == "name-based" || pair == "swapped") {
            a = write(dir, "a", sideA());
            b = write(dir, "b", sideB());
            if (pair == "swapped") std::swap(a, b);
        } else if (pair == "identical") {
            a = write(dir, "a", sideA());
            b = write(dir, "b", sideA());
        } else if (pair == "many") {
            a = write(dir, "a", many(0));
            b = write(dir, "b", many(1));
        } else if (pair == "mixed") {
            // Object-based A against name-based B: paired by key, not streamed.
            auto root = Trackable::makeObject();
            auto kernel = Variable::make(DataType::Float, TensorShape{{4}});
            if (!root->addChild("kernel", kernel).isOk()) qFatal("model");
            a = dir.filePath(QStringLiteral("a")).toStdString();
            if (!writeCheckpoint(*root, a, {}).ok()) qFatal("save");
            b = write(dir, "b", sideB());
        } else {
            a = write(dir, "a", {});
            b = write(dir, "b", sideB());
        }
        const DiffOptions opt = optionSets()[static_cast<size_t>(options)].options;
        const std::string streamed = describe(diffCheckpoints(a, b, opt));
        const std::string whole = describe(diffWhole(a, b, opt));
        QCOMPARE(QString::fromStdString(streamed), QString::fromStdString(whole));
        QVERIFY(streamed.find("error") == std::string::npos || pair == "many" || options == 6);
    }

    // Progress over several batches counts on from the batches before: it
    // reaches the bytes read by all (the calls of one batch may come from
    // its scan's threads in any order, so only the largest is checked).
    void progressAcrossBatches() {
        QTemporaryDir dir;
        const std::string a = write(dir, "a", many(0)), b = write(dir, "b", many(1));
        DiffOptions opt;
        opt.keepUnchanged = false;
        opt.trustChecksums = false;
        std::mutex mutex;
        int64_t largest = 0, calls = 0;
        bool within = true;
        opt.progress = [&](int64_t done, int64_t total, std::string_view) {
            std::lock_guard lock(mutex);
            within = within && done >= 0 && done <= total;
            largest = std::max(largest, done);
            ++calls;
        };
        auto d = diffCheckpoints(a, b, opt);
        QVERIFY2(d.ok(), d.status().toString().c_str());
        QVERIFY(calls > 2);
        QVERIFY(within);
        QCOMPARE(largest, d->bytesRead);
    }

    void errorsAsWholePath_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("missing data shard") << "missing shard"
                                            << "missing data shard";
        QTest::newRow("truncated data file") << "truncated"
                                             << "past the end";
        QTest::newRow("flipped data byte") << "flipped data"
                                           << "checksum";
        QTest::newRow("damaged index of A") << "index A"
                                            << ".index";
        QTest::newRow("damaged index of B") << "index B"
                                            << ".index";
        QTest::newRow("no checkpoint A") << "no A"
                                         << "A (";
        QTest::newRow("undecodable entry in A") << "entry A"
                                                << "not a valid BundleEntryProto";
        QTest::newRow("undecodable entry in B") << "entry B"
                                                << "not a valid BundleEntryProto";
        QTest::newRow("undecodable entries in both") << "entry both"
                                                     << "A (";
    }
    void errorsAsWholePath() {
        QFETCH(QString, damage);
        QFETCH(QString, fragment);
        QTemporaryDir dir;
        std::string a = write(dir, "a", sideA());
        std::string b = write(dir, "b", sideB());
        const std::string dataB = b + ".data-00000-of-00001";
        if (damage == "missing shard") QVERIFY(QFile::remove(QString::fromStdString(dataB)));
        if (damage == "truncated") QVERIFY(QFile::resize(QString::fromStdString(dataB), 40));
        if (damage == "flipped data") flipByte(dataB, 2);  // dense.extra's bytes differ from A's: read
        if (damage == "index A") flipByte(a + ".index", 30);
        if (damage == "index B") flipByte(b + ".index", 30);
        if (damage == "no A") a = dir.filePath(QStringLiteral("nope")).toStdString();
        if (damage == "entry A" || damage == "entry both") spoilEntry(a, "typed");
        if (damage == "entry B" || damage == "entry both") spoilEntry(b, "dense/kernel");
        DiffOptions opt;
        opt.keepUnchanged = false;
        const std::string streamed = describe(diffCheckpoints(a, b, opt));
        const std::string whole = describe(diffWhole(a, b, opt));
        QCOMPARE(QString::fromStdString(streamed), QString::fromStdString(whole));
        QVERIFY2(streamed.starts_with("error: ") && streamed.find(fragment.toStdString()) != std::string::npos, streamed.c_str());
    }
};

QTEST_GUILESS_MAIN(TestDiffByKey)
#include "tst_diff_by_key.moc"

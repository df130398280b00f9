// Many small values (issue 34): the pair scan reads small regions in
// windows shared by their neighbours, and history reads a small region with
// one pread. Every pair must still get exactly its own bytes and its own
// checksum verdict (a damaged tiny tensor is named alone, never its
// window's neighbours), windows must not read far past what they hold, and
// diff and history on checkpoints of small tensors in several data files,
// mixed with large ones, must give the figures the per-tensor passes give
// (diffTensors and computeStats on each tensor read whole), with a slice
// and a tolerance too.

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <random>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/checkpoint_history.h"
#include "ckpt/preview.h"
#include "ckpt/save.h"
#include "ckpt/tensor_diff.h"
#include "format/region_read.h"
#include "format/region_scan.h"
#include "platform/crc32c.h"

using namespace ckpt;

namespace {

// A data file in memory that counts how it is read.
class CountingFile final : public storage::RandomAccessFile {
public:
    CountingFile(std::string location, std::vector<uint8_t> bytes) : m_location(std::move(location)), m_bytes(std::move(bytes)) {}
    const std::string& location() const override { return m_location; }
    uint64_t size() const override { return m_bytes.size(); }
    storage::Generation generation() const override { return {}; }
    Status read(uint64_t offset, size_t n, void* out) const override {
        if (offset > m_bytes.size() || n > m_bytes.size() - offset) return dataLoss("read past the end of " + m_location);
        ++reads;
        bytesRead += n;
        std::memcpy(out, m_bytes.data() + offset, n);
        return okStatus();
    }
    Result<storage::MappedView> map(uint64_t offset, size_t n) const override {
        if (offset > m_bytes.size() || n > m_bytes.size() - offset) return dataLoss("map past the end of " + m_location);
        ++maps;
        bytesRead += n;
        return storage::MappedView(m_bytes.data() + offset, n, [] {});
    }
    mutable std::atomic<int64_t> reads{0}, maps{0}, bytesRead{0};

private:
    std::string m_location;
    std::vector<uint8_t> m_bytes;
};

struct Layout {
    std::vector<std::string> keys;
    std::vector<std::vector<uint8_t>> valuesA, valuesB;
    std::vector<uint64_t> offsetA, offsetB;
    std::vector<int> fileA, fileB;  // index into the side's two files
};

// Appends each value to one of a side's two files at 'order', with 'gap'
// bytes of filler before each; returns the files' bytes.
std::vector<std::vector<uint8_t>> place(const std::vector<std::vector<uint8_t>>& values, const std::vector<size_t>& order,
                                        size_t gap, std::vector<uint64_t>& offsets, std::vector<int>& files) {
    std::vector<std::vector<uint8_t>> out(2);
    offsets.assign(values.size(), 0);
    files.assign(values.size(), 0);
    for (size_t rank = 0; rank < order.size(); ++rank) {
        const size_t i = order[rank];
        const int f = static_cast<int>(rank % 5 == 4);  // every fifth in the second file
        out[static_cast<size_t>(f)].insert(out[static_cast<size_t>(f)].end(), gap, uint8_t{0xee});
        files[i] = f;
        offsets[i] = out[static_cast<size_t>(f)].size();
        out[static_cast<size_t>(f)].insert(out[static_cast<size_t>(f)].end(), values[i].begin(), values[i].end());
    }
    return out;
}

uint32_t storedCrc(const std::vector<uint8_t>& v) { return platform::crc32cMask(platform::crc32c(v.data(), v.size())); }

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

// Every figure of two diffs, bit for bit.
QByteArray differences(const TensorDiff& x, const TensorDiff& y) {
    QByteArray out;
    auto num = [&](const char* name, double a, double b) {
        if (!sameBits(a, b))
            out += QByteArray(name) + " " + QByteArray::number(a, 'g', 17) + " vs " + QByteArray::number(b, 'g', 17) + "; ";
    };
    auto count = [&](const char* name, int64_t a, int64_t b) {
        if (a != b) out += QByteArray(name) + " " + QByteArray::number(a) + " vs " + QByteArray::number(b) + "; ";
    };
    count("elements", x.elements, y.elements);
    count("mismatches", x.mismatches, y.mismatches);
    count("exactCompare", x.exactCompare, y.exactCompare);
    num("atol", x.tolerance.atol, y.tolerance.atol);
    num("rtol", x.tolerance.rtol, y.tolerance.rtol);
    num("maxAbsDiff", x.maxAbsDiff, y.maxAbsDiff);
    count("maxAbsIndex", x.maxAbsIndex, y.maxAbsIndex);
    num("maxRelDiff", x.maxRelDiff, y.maxRelDiff);
    count("maxRelIndex", x.maxRelIndex, y.maxRelIndex);
    num("meanAbsDiff", x.meanAbsDiff, y.meanAbsDiff);
    num("normA", x.normA, y.normA);
    num("normB", x.normB, y.normB);
    num("normDiff", x.normDiff, y.normDiff);
    num("relL2", x.relL2, y.relL2);
    num("cosine", x.cosine, y.cosine);
    count("nansA", x.nansA, y.nansA);
    count("nansB", x.nansB, y.nansB);
    count("infsA", x.infsA, y.infsA);
    count("infsB", x.infsB, y.infsB);
    count("nansAppeared", x.nansAppeared, y.nansAppeared);
    count("nansDisappeared", x.nansDisappeared, y.nansDisappeared);
    count("infsAppeared", x.infsAppeared, y.infsAppeared);
    count("infsDisappeared", x.infsDisappeared, y.infsDisappeared);
    count("listed", static_cast<int64_t>(x.firstMismatches.size()), static_cast<int64_t>(y.firstMismatches.size()));
    for (size_t i = 0; i < std::min(x.firstMismatches.size(), y.firstMismatches.size()); ++i) {
        const DifferingElement& p = x.firstMismatches[i];
        const DifferingElement& q = y.firstMismatches[i];
        if (p.index != q.index || p.a != q.a || p.b != q.b)
            out += "listed element " + QByteArray::number(static_cast<int>(i)) + "; ";
    }
    return out;
}

// Float values of variable v in checkpoint c: most change, some by less
// than the default tolerance, some not at all; NaN and Inf here and there.
Tensor values(int64_t elements, int v, int c) {
    Tensor t;
    t.dtype = DataType::Float;
    t.shape = TensorShape{{elements}};
    t.bytes.resize(static_cast<size_t>(elements) * 4);
    auto* p = reinterpret_cast<float*>(t.bytes.data());
    const bool changes = v % 7 != 3 && v % 17 != 0;
    for (int64_t i = 0; i < elements; ++i) {
        p[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i + 1) * (v + 1) + (changes ? c : 0)) * (v % 3 + 1));
        if (v % 7 == 3 && c == 1) p[i] += 1e-6f;  // equal within the default tolerance
    }
    if (v % 11 == 5) p[0] = std::nanf("");
    if (v % 13 == 6 && c == 1) p[elements - 1] = INFINITY;
    return t;
}

}  // namespace

class TestSmallValues : public QObject {
    Q_OBJECT

    Layout m_layout;
    std::vector<std::unique_ptr<CountingFile>> m_filesA, m_filesB;

    // 'damaged' (if any) gets a wrong stored checksum on side B.
    std::vector<format::ScannedRegion> regions(bool sideA, size_t damaged = SIZE_MAX) const {
        std::vector<format::ScannedRegion> out;
        for (size_t i = 0; i < m_layout.keys.size(); ++i) {
            const auto& v = sideA ? m_layout.valuesA[i] : m_layout.valuesB[i];
            StoredRegion r;
            r.shardId = sideA ? m_layout.fileA[i] : m_layout.fileB[i];
            r.offset = static_cast<int64_t>(sideA ? m_layout.offsetA[i] : m_layout.offsetB[i]);
            r.size = static_cast<int64_t>(v.size());
            r.maskedCrc32c = storedCrc(v) + (i == damaged ? 1 : 0);
            const auto& files = sideA ? m_filesA : m_filesB;
            out.push_back({files[static_cast<size_t>(r.shardId)].get(), m_layout.keys[i], r, nullptr, {}});
        }
        return out;
    }

    void resetCounts() {
        for (auto* files : {&m_filesA, &m_filesB})
            for (auto& f : *files) f->reads = f->maps = f->bytesRead = 0;
    }

    // Runs the pair scan; each pair's delivered bytes, or a failure.
    QByteArray scan(const std::vector<format::ScannedRegion>& a, const std::vector<format::ScannedRegion>& b, size_t threads,
                    format::PairScanResult& result) {
        std::vector<std::vector<uint8_t>> gotA(a.size()), gotB(a.size());
        std::vector<int> calls(a.size(), 0);
        std::mutex mutex;
        format::ScanOptions options;
        options.threads = threads;
        auto scanned = format::scanRegionPairs(a, b, options, [&](const format::RegionPairPart& part) {
            std::lock_guard lock(mutex);
            ++calls[part.pair];
            gotA[part.pair].insert(gotA[part.pair].end(), part.a.begin(), part.a.end());
            gotB[part.pair].insert(gotB[part.pair].end(), part.b.begin(), part.b.end());
        });
        if (!scanned.ok()) return QByteArray::fromStdString(scanned.status().toString());
        result = std::move(*scanned);
        for (size_t i = 0; i < a.size(); ++i) {
            const auto expectedCalls = static_cast<int>(format::splitRegion(static_cast<uint64_t>(a[i].region.size)).size());
            if (m_layout.valuesA[i].empty()) continue;
            if (calls[i] != expectedCalls || gotA[i] != m_layout.valuesA[i] || gotB[i] != m_layout.valuesB[i])
                return QByteArray("pair ") + m_layout.keys[i].c_str() + " got other bytes";
        }
        return {};
    }

private slots:
    // 600 pairs: tiny ones (4 to 400 bytes) around a few of 100 KiB and two
    // empty ones; A in key order, B shuffled, both over two files.
    void initTestCase() {
        std::mt19937 random(34);
        for (size_t i = 0; i < 600; ++i) {
            m_layout.keys.push_back("v" + std::to_string(1000 + i));
            size_t n = 4 * (1 + random() % 100);
            if (i % 150 == 75) n = 100u << 10;
            if (i == 10 || i == 400) n = 0;
            std::vector<uint8_t> a(n), b(n);
            for (size_t k = 0; k < n; ++k) {
                a[k] = static_cast<uint8_t>(random());
                b[k] = static_cast<uint8_t>(random());
            }
            m_layout.valuesA.push_back(std::move(a));
            m_layout.valuesB.push_back(std::move(b));
        }
        std::vector<size_t> orderA(600), orderB(600);
        for (size_t i = 0; i < 600; ++i) orderA[i] = orderB[i] = i;
        std::shuffle(orderB.begin(), orderB.end(), random);
        auto filesA = place(m_layout.valuesA, orderA, 0, m_layout.offsetA, m_layout.fileA);
        auto filesB = place(m_layout.valuesB, orderB, 16, m_layout.offsetB, m_layout.fileB);
        for (int f = 0; f < 2; ++f) {
            m_filesA.push_back(
                std::make_unique<CountingFile>("a-" + std::to_string(f), std::move(filesA[static_cast<size_t>(f)])));
            m_filesB.push_back(
                std::make_unique<CountingFile>("b-" + std::to_string(f), std::move(filesB[static_cast<size_t>(f)])));
        }
    }

    // Each pair gets its own bytes, once, and passes its checksums; the
    // small ones cost a few reads, never a mapping, and the reads hold
    // little besides the pairs' bytes.
    void smallPairsShareReads_data() {
        QTest::addColumn<int>("threads");
        QTest::newRow("one thread") << 1;
        QTest::newRow("three threads") << 3;
    }
    void smallPairsShareReads() {
        QFETCH(int, threads);
        resetCounts();
        format::PairScanResult result;
        const auto a = regions(true), b = regions(false);
        const QByteArray wrong = scan(a, b, static_cast<size_t>(threads), result);
        QVERIFY2(wrong.isEmpty(), wrong.constData());
        for (size_t i = 0; i < a.size(); ++i) QVERIFY2(result.a[i].isOk() && result.b[i].isOk(), m_layout.keys[i].c_str());
        int64_t large = 0, small = 0, held = 0;
        for (const auto& v : m_layout.valuesA) {
            (v.size() >= format::kMapMinBytes ? large : small) += v.empty() ? 0 : 1;
            held += 2 * static_cast<int64_t>(v.size());
        }
        QCOMPARE(small, int64_t{594});
        // Large regions as before (a mapping each, in memory files); the
        // 594 small pairs in windows, never mapped: B is shuffled, so most
        // windows hold one pair here (alignedPairsReadOnce has long ones).
        int64_t maps = 0, reads = 0, bytes = 0;
        for (const auto* files : {&m_filesA, &m_filesB})
            for (const auto& f : *files) maps += f->maps, reads += f->reads, bytes += f->bytesRead;
        QCOMPARE(maps, 2 * large);
        QVERIFY2(reads <= 2 * small, QByteArray::number(reads));
        QVERIFY2(bytes <= 2 * held + 4 * static_cast<int64_t>(format::kMapMinBytes) * reads, QByteArray::number(bytes));
    }

    // A's order read against itself in the same order: one window per
    // file and run between large regions.
    void alignedPairsReadOnce() {
        resetCounts();
        format::PairScanResult result;
        const auto a = regions(true);
        std::vector<format::ScannedRegion> b = a;
        const Layout saved = m_layout;
        m_layout.valuesB = m_layout.valuesA;
        const QByteArray wrong = scan(a, b, 2, result);
        m_layout = saved;
        QVERIFY2(wrong.isEmpty(), wrong.constData());
        int64_t reads = 0, maps = 0;
        for (const auto& f : m_filesA) reads += f->reads, maps += f->maps;
        // Runs of small regions, both sides: 5 around the 4 large ones in
        // the first file, 1 in the second; the large ones mapped.
        QVERIFY2(reads <= 2 * 6, QByteArray::number(reads));
        QCOMPARE(maps, int64_t{2 * 4});
    }

    // A damaged small region fails alone, named; its window's neighbours pass.
    void damagedRegionIsNamedAlone() {
        const size_t damaged = 123;
        format::PairScanResult result;
        const QByteArray wrong = scan(regions(true), regions(false, damaged), 2, result);
        QVERIFY2(wrong.isEmpty(), wrong.constData());
        for (size_t i = 0; i < m_layout.keys.size(); ++i) {
            QVERIFY(result.a[i].isOk());
            QCOMPARE(result.b[i].isOk(), i != damaged);
        }
        QCOMPARE(result.b[damaged].code(), StatusCode::DataLoss);
        const std::string& m = result.b[damaged].message();
        QVERIFY2(m.find("checksum mismatch") != std::string::npos && m.find(m_layout.keys[damaged]) != std::string::npos,
                 m.c_str());
    }

    // Small regions far apart are read one by one, not with the gaps between.
    void sparseRegionsSkipGaps() {
        Layout sparse = m_layout;
        std::vector<size_t> order(600);
        for (size_t i = 0; i < 600; ++i) order[i] = i;
        auto filesA = place(sparse.valuesA, order, 200u << 10, sparse.offsetA, sparse.fileA);
        auto filesB = place(sparse.valuesB, order, 200u << 10, sparse.offsetB, sparse.fileB);
        std::swap(m_layout, sparse);
        std::vector<std::unique_ptr<CountingFile>> savedA, savedB;
        std::swap(savedA, m_filesA);
        std::swap(savedB, m_filesB);
        for (int f = 0; f < 2; ++f) {
            m_filesA.push_back(
                std::make_unique<CountingFile>("a-" + std::to_string(f), std::move(filesA[static_cast<size_t>(f)])));
            m_filesB.push_back(
                std::make_unique<CountingFile>("b-" + std::to_string(f), std::move(filesB[static_cast<size_t>(f)])));
        }
        format::PairScanResult result;
        const QByteArray wrong = scan(regions(true), regions(false), 2, result);
        int64_t bytes = 0, held = 0;
        for (const auto* files : {&m_filesA, &m_filesB})
            for (const auto& f : *files) bytes += f->bytesRead;
        for (size_t i = 0; i < m_layout.keys.size(); ++i) held += static_cast<int64_t>(2 * m_layout.valuesA[i].size());
        std::swap(m_layout, sparse);
        std::swap(savedA, m_filesA);
        std::swap(savedB, m_filesB);
        QVERIFY2(wrong.isEmpty(), wrong.constData());
        QCOMPARE(bytes, held);
    }

    // Rows come in tree order (by location, split at '/') whichever way the
    // sides were paired: by index (the same keys on both sides) or by hash
    // (keys only on one side), and whether or not the index's key order is
    // already that order ('-' sorts before '/' in a key, after it in a
    // location).
    void rowsInTreeOrder() {
        QTemporaryDir dir;
        auto write = [&](const char* name, const std::vector<std::string>& keys, float scale) {
            std::vector<SaveTensor> tensors;
            for (const std::string& key : keys) {
                SaveTensor t;
                t.key = key;
                t.value = values(3, static_cast<int>(key.size()), 0);
                reinterpret_cast<float*>(t.value.bytes.data())[1] *= scale;
                t.fullShape = t.value.shape;
                tensors.push_back(std::move(t));
            }
            const std::string prefix = dir.filePath(QString::fromLatin1(name)).toStdString();
            auto saved = writeTensors(prefix, std::move(tensors), {});
            if (!saved.ok()) qFatal("%s", saved.status().toString().c_str());
            return prefix;
        };
        const std::vector<std::string> keys = {"a/b/c", "a-b/c", "a/b-c", "a/b/d", "a.b/c", "z", "a/b0/c", "m/x"};
        std::vector<std::string> fewer = keys;
        fewer.pop_back();
        fewer.push_back("m/y");
        const std::string a = write("a", keys, 1), b = write("b", keys, 2), c = write("c", fewer, 2);
        const std::vector<std::string> expected = {"a/b/c", "a/b/d", "a/b-c", "a/b0/c", "a-b/c", "a.b/c", "m/x", "m/y", "z"};
        for (const auto& [other, rows] : {std::pair(b, size_t{8}), std::pair(c, size_t{9})}) {
            auto d = diffCheckpoints(a, other);
            QVERIFY2(d.ok(), d.status().toString().c_str());
            QCOMPARE(d->entries.size(), rows);
            std::vector<std::string> got;
            for (const DiffEntry& e : d->entries) got.push_back(e.displayPath());
            std::vector<std::string> want;
            for (const std::string& k : expected)
                if (std::find(got.begin(), got.end(), k) != got.end()) want.push_back(k);
            QCOMPARE(want.size(), rows);
            QVERIFY2(got == want, (got.front() + " ... " + got.back()).c_str());
            for (const DiffEntry& e : d->entries)
                QCOMPARE(e.status, e.a && e.b ? DiffStatus::Modified : e.a ? DiffStatus::Deleted : DiffStatus::Added);
        }
    }

    // Checkpoints of 300 small float tensors and a few large ones, A in one
    // data file and B in three: diff's figures are diffTensors' on the
    // tensors read whole, with the default tolerance, a looser one and a
    // slice; history's are computeStats' and diffTensors'.
    void checkpointFiguresMatchPerTensorPasses_data() {
        QTest::addColumn<QString>("slice");
        QTest::addColumn<double>("atol");
        QTest::addColumn<int>("listed");
        QTest::newRow("defaults") << QString() << -1.0 << 10;
        QTest::newRow("tolerance") << QString() << 0.5 << 3;
        QTest::newRow("slice") << QStringLiteral("1:3") << -1.0 << 10;
    }
    void checkpointFiguresMatchPerTensorPasses() {
        QFETCH(QString, slice);
        QFETCH(double, atol);
        QFETCH(int, listed);
        QTemporaryDir dir;
        std::vector<std::string> prefixes;
        for (int c = 0; c < 2; ++c) {
            std::vector<SaveTensor> tensors;
            for (int v = 0; v < 304; ++v) {
                SaveTensor t;
                char key[32];
                std::snprintf(key, sizeof key, "layer_%03d/w", v);
                t.key = key;
                t.value = values(v % 76 == 40 ? 40'000 : 3 + v % 29, v, c);
                t.fullShape = t.value.shape;
                tensors.push_back(std::move(t));
            }
            SaveOptions opt;
            opt.policy = std::make_shared<FixedShardCountPolicy>(c == 0 ? 1 : 3);
            const std::string prefix = dir.filePath(QStringLiteral("ckpt-%1").arg(c)).toStdString();
            auto saved = writeTensors(prefix, std::move(tensors), opt);
            QVERIFY2(saved.ok(), saved.status().toString().c_str());
            prefixes.push_back(prefix);
        }
        DiffOptions options;
        options.values.maxListed = listed;
        options.values.cpuThreads = 2;
        if (atol >= 0) options.values.tolerance.atol = atol;
        if (!slice.isEmpty()) options.slice = slice.toStdString();
        auto diff = diffCheckpoints(prefixes[0], prefixes[1], options);
        QVERIFY2(diff.ok(), diff.status().toString().c_str());
        QCOMPARE(static_cast<int>(diff->entries.size()), 304);

        auto a = Checkpoint::open(prefixes[0]);
        auto b = Checkpoint::open(prefixes[1]);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE((*b)->bundle().header().numShards, 3);
        int modified = 0;
        for (const DiffEntry& e : diff->entries) {
            QVERIFY2(e.values, e.a->key.c_str());
            auto ta = (*a)->bundle().read(*(*a)->bundle().find(e.a->key));
            auto tb = (*b)->bundle().read(*(*b)->bundle().find(e.b->key));
            QVERIFY(ta.ok() && tb.ok());
            if (e.values->fromChecksums) {  // the shortcut: equal bytes, nothing read
                QVERIFY(ta->bytes == tb->bytes && !options.slice);
                continue;
            }
            TensorDiffOptions one = options.values;
            one.cpuThreads = 1;
            if (options.slice) one.slice = *parseDiffSlice(*options.slice, ta->shape);
            auto expected = diffTensors(TensorView::of(*ta), TensorView::of(*tb), one);
            QVERIFY(expected.ok());
            const QByteArray wrong = differences(*e.values, *expected);
            QVERIFY2(wrong.isEmpty(), (e.a->key + ": ").c_str() + wrong);
            QCOMPARE(e.status, isEqualWithinTolerance(*expected) ? DiffStatus::Unchanged : DiffStatus::Modified);
            modified += e.status == DiffStatus::Modified;
        }
        QVERIFY2(modified > 100 && modified < 304, QByteArray::number(modified));
        if (!slice.isEmpty() || atol >= 0) return;

        auto h = computeHistory(prefixes, {});
        QVERIFY2(h.ok(), h.status().toString().c_str());
        QCOMPARE(static_cast<int>(h->variables.size()), 304);
        for (const VariableHistory& v : h->variables) {
            Tensor previous;
            for (size_t c = 0; c < 2; ++c) {
                const Checkpoint& cp = c == 0 ? **a : **b;
                auto t = cp.bundle().read(*cp.bundle().find(v.key));
                QVERIFY(t.ok());
                PreviewOptions preview;
                preview.device = PreviewDevice::Cpu;
                preview.cpuThreads = 1;
                auto stats = computeStats(TensorView::of(*t), preview);
                QVERIFY(stats.ok());
                const HistoryPoint& p = v.points[c];
                QVERIFY2(sameBits(p.mean, stats->mean) && sameBits(p.std, stats->std) && sameBits(p.min, stats->min) &&
                             sameBits(p.max, stats->max) && p.nans == stats->nans,
                         v.key.c_str());
                if (c == 1) {
                    TensorDiffOptions one;
                    one.maxListed = 0;
                    one.cpuThreads = 1;
                    auto d = diffTensors(TensorView::of(previous), TensorView::of(*t), one);
                    QVERIFY(d.ok());
                    QVERIFY2(sameBits(p.relChange, d->normA > 0 ? d->relL2 : std::nan("")), v.key.c_str());
                }
                previous = std::move(*t);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestSmallValues)
#include "tst_small_values.moc"

// The results cache on a real catalog file: a figure is computed once,
// then served from the cache with exactly the values computePreview gives
// (NaN, infinities and non-round doubles included), for the same bytes in
// any checkpoint under any key, and kept across reopening; a different
// shape, bin count or range is a different figure; partitioned tensors and
// a null catalog always compute.

#include "ckpt/bundle_reader.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/catalog.h"
#include "ckpt/catalog_cache.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/preview.h"
#include "ckpt/save.h"
#include "ckpt/trackable.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "catalog_support.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::testing;

namespace {

Tensor floats(const std::vector<float>& values, TensorShape shape) {
    Tensor t;
    t.dtype = DataType::Float;
    t.shape = std::move(shape);
    t.bytes.resize(values.size() * 4);
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

std::vector<float> someValues() {
    std::vector<float> v;
    for (int i = 0; i < 600; ++i) v.push_back(std::sin(0.37f * static_cast<float>(i)) * 3.1f + 0.1f);
    v[7] = std::numeric_limits<float>::quiet_NaN();
    v[8] = std::numeric_limits<float>::infinity();
    v[9] = 0;
    return v;
}

bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

QString statsDiffer(const TensorStats& a, const TensorStats& b) {
    if (a.count != b.count || a.finiteCount != b.finiteCount || a.zeros != b.zeros || a.nans != b.nans ||
        a.posInfs != b.posInfs || a.negInfs != b.negInfs)
        return QStringLiteral("counts differ");
    const double x[] = {a.min, a.max, a.mean, a.std, a.absMax};
    const double y[] = {b.min, b.max, b.mean, b.std, b.absMax};
    for (int i = 0; i < 5; ++i)
        if (!same(x[i], y[i])) return QStringLiteral("figure %1: %2 vs %3").arg(i).arg(x[i], 0, 'g', 17).arg(y[i], 0, 'g', 17);
    if (a.stringLengths != b.stringLengths || a.complexMagnitude != b.complexMagnitude) return QStringLiteral("flags differ");
    return {};
}

QString histogramsDiffer(const Histogram& a, const Histogram& b) {
    if (!same(a.lo, b.lo) || !same(a.hi, b.hi)) return QStringLiteral("range differs");
    if (a.counts != b.counts || a.below != b.below || a.above != b.above || a.nans != b.nans)
        return QStringLiteral("counts differ");
    if (a.edges.size() != b.edges.size()) return QStringLiteral("edge count differs");
    for (size_t i = 0; i < a.edges.size(); ++i)
        if (!same(a.edges[i], b.edges[i])) return QStringLiteral("edge %1 differs").arg(i);
    return {};
}

struct Fixture {
    QTemporaryDir tmp;
    std::string dir = tmp.filePath(QStringLiteral("runs")).toStdString();
    std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();

    // a/ckpt-1 and b/ckpt-2 hold the same values under other keys; b also
    // holds them as another shape, and an all-NaN tensor.
    bool write() {
        const std::vector<float> v = someValues();
        std::filesystem::create_directories(dir + "/a");
        auto a = BundleWriter::create(dir + "/a/ckpt-1");
        if (!a.ok() || !(*a)->add("encoder/kernel", floats(v, TensorShape{{20, 30}})).isOk() || !(*a)->finish().isOk())
            return false;
        std::filesystem::create_directories(dir + "/b");
        auto b = BundleWriter::create(dir + "/b/ckpt-2");
        if (!b.ok()) return false;
        if (!(*b)->add("copy/of/kernel", floats(v, TensorShape{{20, 30}})).isOk()) return false;
        if (!(*b)->add("flat", floats(v, TensorShape{{600}})).isOk()) return false;
        if (!(*b)->add("nan", floats(std::vector<float>(5, std::numeric_limits<float>::quiet_NaN()), TensorShape{{5}})).isOk())
            return false;
        return (*b)->finish().isOk();
    }
};

std::unique_ptr<BundleReader> reader(const std::string& prefix) {
    auto r = BundleReader::open(prefix);
    return r.ok() ? std::move(*r) : nullptr;
}

}  // namespace

class TstCatalogCache : public QObject {
    Q_OBJECT
private slots:
    void statsFromCache() {
        Fixture f;
        QVERIFY(f.write());
        auto catalog = Catalog::open(f.db);
        QVERIFY2(catalog.ok(), catalog.status().toString().c_str());
        auto a = reader(f.dir + "/a/ckpt-1");
        auto b = reader(f.dir + "/b/ckpt-2");
        QVERIFY(a && b);
        const TensorInfo& kernel = *a->find("encoder/kernel");
        const TensorStats direct = computeStats(TensorView::of(a->read(kernel).value())).value();

        auto first = cachedStats(catalog->get(), *a, kernel);
        QVERIFY2(first.ok(), first.status().toString().c_str());
        QVERIFY(!first->fromCache);
        QCOMPARE(statsDiffer(first->value, direct), QString());
        auto second = cachedStats(catalog->get(), *a, kernel);
        QVERIFY2(second.ok(), second.status().toString().c_str());
        QVERIFY(second->fromCache);
        QCOMPARE(statsDiffer(second->value, direct), QString());

        // The same bytes, dtype and shape elsewhere: a hit. Another shape: not.
        auto copy = cachedStats(catalog->get(), *b, *b->find("copy/of/kernel"));
        QVERIFY(copy.ok() && copy->fromCache);
        QCOMPARE(statsDiffer(copy->value, direct), QString());
        auto flat = cachedStats(catalog->get(), *b, *b->find("flat"));
        QVERIFY(flat.ok() && !flat->fromCache);

        // All NaN: min, max, mean are NaN and come back NaN.
        const TensorInfo& nan = *b->find("nan");
        auto nan1 = cachedStats(catalog->get(), *b, nan);
        auto nan2 = cachedStats(catalog->get(), *b, nan);
        QVERIFY2(nan1.ok() && nan2.ok(), nan2.status().toString().c_str());
        QVERIFY(nan2->fromCache);
        QVERIFY(std::isnan(nan2->value.mean));
        QCOMPARE(statsDiffer(nan2->value, nan1->value), QString());

        // Kept in the file: another Catalog on it hits.
        catalog->reset();
        auto reopened = Catalog::open(f.db);
        QVERIFY(reopened.ok());
        auto third = cachedStats(reopened->get(), *a, kernel);
        QVERIFY(third.ok() && third->fromCache);
        QCOMPARE(statsDiffer(third->value, direct), QString());
        QCOMPARE(integrityCheck(f.db), std::string("ok"));
    }

    void histogramsFromCache() {
        Fixture f;
        QVERIFY(f.write());
        auto catalog = Catalog::open(f.db);
        QVERIFY(catalog.ok());
        auto a = reader(f.dir + "/a/ckpt-1");
        auto b = reader(f.dir + "/b/ckpt-2");
        const TensorInfo& kernel = *a->find("encoder/kernel");
        const Tensor values = a->read(kernel).value();
        HistogramRequest bins64;
        HistogramRequest bins16;
        bins16.bins = 16;
        HistogramRequest ranged;
        ranged.lo = -1.0;
        ranged.hi = 1.0;
        for (const HistogramRequest& request : {bins64, bins16, ranged}) {
            const Histogram direct = computeHistogram(TensorView::of(values), request).value();
            auto first = cachedHistogram(catalog->get(), *a, kernel, request);
            QVERIFY2(first.ok(), first.status().toString().c_str());
            QVERIFY(!first->fromCache);  // another bin count or range is another figure
            QCOMPARE(histogramsDiffer(first->value, direct), QString());
            auto again = cachedHistogram(catalog->get(), *b, *b->find("copy/of/kernel"), request);
            QVERIFY(again.ok());
            QVERIFY(again->fromCache);
            QCOMPARE(histogramsDiffer(again->value, direct), QString());
        }
        // The first of each request computed: 16 bins did not reuse 64.
        auto fresh = cachedHistogram(catalog->get(), *b, *b->find("flat"), bins16);
        QVERIFY(fresh.ok() && !fresh->fromCache);
    }

    void partitionedNeverCached() {
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("sliced/ckpt-1")).toStdString();
        auto root = Trackable::makeObject();
        QVERIFY(root->addChild("embedding", Variable::fromTensor(floats(someValues(), TensorShape{{60, 10}}))).isOk());
        SaveOptions sliced;
        sliced.policy = std::make_shared<MaxShardSizePolicy>(512);
        QVERIFY(writeCheckpoint(*root, prefix, sliced).ok());
        auto r = reader(prefix);
        const TensorInfo* info = r->find("embedding/.ATTRIBUTES/VARIABLE_VALUE");
        QVERIFY(info && info->isPartitioned());
        QVERIFY(!tensorIdentity(*info));
        auto catalog = Catalog::open(tmp.filePath(QStringLiteral("catalog.db")).toStdString());
        QVERIFY(catalog.ok());
        for (int i = 0; i < 2; ++i) {
            auto stats = cachedStats(catalog->get(), *r, *info);
            QVERIFY2(stats.ok(), stats.status().toString().c_str());
            QVERIFY(!stats->fromCache);
            QCOMPARE(stats->value.count, int64_t{600});
            auto histogram = cachedHistogram(catalog->get(), *r, *info, {});
            QVERIFY(histogram.ok() && !histogram->fromCache);
        }
    }

    // The diff's figures of a pair compared before come back from the cache
    // as they were computed; other options make other figures.
    void diffFiguresFromCache() {
        QTemporaryDir tmp;
        const std::string a = tmp.filePath(QStringLiteral("a")).toStdString();
        const std::string b = tmp.filePath(QStringLiteral("b")).toStdString();
        std::vector<float> v = someValues();
        std::vector<float> w = v;
        for (size_t i = 20; i < w.size(); i += 7) w[i] *= 1.01f;
        w[9] = std::numeric_limits<float>::quiet_NaN();
        for (const auto& [prefix, x] : {std::pair{a, v}, std::pair{b, w}}) {
            auto writer = BundleWriter::create(prefix);
            QVERIFY(writer.ok());
            QVERIFY((*writer)->add("x", floats(x, TensorShape{{600}})).isOk());
            QVERIFY((*writer)->add("same", floats(v, TensorShape{{600}})).isOk());
            QVERIFY((*writer)->finish().isOk());
        }
        auto catalog = Catalog::open(tmp.filePath(QStringLiteral("catalog.db")).toStdString());
        QVERIFY(catalog.ok());
        CatalogDiffCache figures(**catalog);
        DiffOptions options;
        options.figures = &figures;
        auto first = diffCheckpoints(a, b, options);
        QVERIFY2(first.ok(), first.status().toString().c_str());
        QCOMPARE(first->fromCache, int64_t{0});
        QCOMPARE(first->fromChecksums, int64_t{1});
        auto again = diffCheckpoints(a, b, options);
        QVERIFY(again.ok());
        QCOMPARE(again->fromCache, int64_t{1});
        QCOMPARE(again->bytesRead, int64_t{0});
        const auto findX = [](const CheckpointDiff& d) -> const TensorDiff& {
            for (const DiffEntry& e : d.entries)
                if (e.a && e.a->key == "x") return *e.values;
            throw std::logic_error("no x");
        };
        const TensorDiff& computed = findX(*first);
        const TensorDiff& cached = findX(*again);
        QVERIFY(computed.mismatches > 0);
        QCOMPARE(cached.mismatches, computed.mismatches);
        QCOMPARE(cached.elements, computed.elements);
        QCOMPARE(cached.nansAppeared, int64_t{1});
        QVERIFY(same(cached.maxAbsDiff, computed.maxAbsDiff) && same(cached.relL2, computed.relL2));
        QVERIFY(same(cached.cosine, computed.cosine) && same(cached.normA, computed.normA));
        QCOMPARE(cached.maxAbsIndex, computed.maxAbsIndex);
        QCOMPARE(cached.firstMismatches.size(), computed.firstMismatches.size());
        QCOMPARE(cached.firstMismatches.front().b, computed.firstMismatches.front().b);
        QCOMPARE(again->counts.modified, first->counts.modified);
        // Another tolerance is another figure: compared again.
        options.values.tolerance.exact = true;
        auto exact = diffCheckpoints(a, b, options);
        QVERIFY(exact.ok());
        QCOMPARE(exact->fromCache, int64_t{0});
        QVERIFY(exact->bytesRead > 0);
    }

    void nullCatalogComputes() {
        Fixture f;
        QVERIFY(f.write());
        auto a = reader(f.dir + "/a/ckpt-1");
        const TensorInfo& kernel = *a->find("encoder/kernel");
        const TensorStats direct = computeStats(TensorView::of(a->read(kernel).value())).value();
        for (int i = 0; i < 2; ++i) {
            auto stats = cachedStats(nullptr, *a, kernel);
            QVERIFY2(stats.ok(), stats.status().toString().c_str());
            QVERIFY(!stats->fromCache);
            QCOMPARE(statsDiffer(stats->value, direct), QString());
        }
    }

    void identityAndRawCache() {
        Fixture f;
        QVERIFY(f.write());
        auto a = reader(f.dir + "/a/ckpt-1");
        const TensorInfo& kernel = *a->find("encoder/kernel");
        auto identity = tensorIdentity(kernel);
        QVERIFY(identity);
        QCOMPARE(identity->crc32c, unmaskCrc(kernel.region.maskedCrc32c));
        QCOMPARE(identity->dtype, std::string("float32"));
        QCOMPARE(identity->shape, std::string("[20, 30]"));
        QCOMPARE(identity->bytes, uint64_t{2400});
        auto catalog = Catalog::open(f.db);
        QVERIFY(catalog.ok());
        ResultsCache cache(**catalog);
        QCOMPARE(cache.get(*identity, "stats").value(), std::optional<std::string>());
        QVERIFY(cache.put(*identity, "stats", "{\"x\": 1}").isOk());
        QCOMPARE(cache.get(*identity, "stats").value(), std::optional<std::string>("{\"x\": 1}"));
        QCOMPARE(cache.get(*identity, "histogram:64").value(), std::optional<std::string>());
        TensorIdentity other = *identity;
        other.shape = "[600]";
        QCOMPARE(cache.get(other, "stats").value(), std::optional<std::string>());
        QVERIFY(cache.put(*identity, "stats", "{\"x\": 2}").isOk());  // replaced, not duplicated
        QCOMPARE(cache.get(*identity, "stats").value(), std::optional<std::string>("{\"x\": 2}"));
    }
};

QTEST_GUILESS_MAIN(TstCatalogCache)
#include "tst_catalog_cache.moc"

// Catalog scans on real files: checkpoints the engine writes (a demo
// training run, object-based, sharded and partitioned ones, name-based
// bundles) and the TensorFlow-written corpus, whose manifest.json comes from
// an independent decoder. Every tensor row is checked against the index
// (or the manifest); then what an incremental scan must do when nothing,
// one checkpoint, or whole directories changed or vanished, garbage
// indexes, verification, forgetting a root and cancelling mid-scan.

#include "ckpt/bundle_naming.h"
#include "ckpt/catalog.h"
#include "ckpt/verify.h"
#include "ckpt/demo_trainer.h"
#include "ckpt/save.h"
#include "ckpt/trackable.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>

#include "catalog_support.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::testing;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<Catalog> openCatalog(const std::string& path) {
    auto catalog = Catalog::open(path);
    if (!catalog.ok()) qWarning("%s", catalog.status().toString().c_str());
    return catalog.ok() ? std::move(*catalog) : nullptr;
}

// Bytes of the index and every data file of 'prefix'.
uint64_t filesBytes(const std::string& prefix) {
    const fs::path p(prefix);
    uint64_t total = 0;
    for (const auto& e : fs::directory_iterator(p.parent_path())) {
        const std::string name = e.path().filename().string();
        if (name == p.filename().string() + ".index" || name.rfind(p.filename().string() + ".data-", 0) == 0)
            total += e.file_size();
    }
    return total;
}

CatalogScanOptions depth(int maxDepth) {
    CatalogScanOptions o;
    o.maxDepth = maxDepth;
    return o;
}

CatalogScanOptions verifying() {
    CatalogScanOptions o;
    o.verify = true;
    return o;
}

std::vector<std::string> someKeys(int n, const std::string& stem) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; ++i) keys.push_back(stem + "/layer_" + std::to_string(i) + "/kernel");
    return keys;
}

}  // namespace

class TstCatalogScan : public QObject {
    Q_OBJECT
private slots:
    void engineCheckpoints() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        DemoTrainOptions demo;
        demo.directory = root + "/demo";
        auto run = runDemoTraining(demo);
        QVERIFY2(run.ok(), run.status().toString().c_str());
        QVERIFY(writeObjectCheckpoint(root + "/objects/ckpt-7", {"model/dense/kernel", "model/dense/bias", "model/a.b/w"}, 1, 700)
                    .isOk());
        // Three shards, and a partitioned tensor (slices over several shards).
        {
            auto object = Trackable::makeObject();
            auto big = Variable::make(DataType::Float, TensorShape{{64, 16}});
            QVERIFY(object->addChild("embedding", big).isOk());
            QVERIFY(object->addChild("bias", Variable::make(DataType::Float, TensorShape{{16}})).isOk());
            SaveOptions sharded;
            sharded.policy = std::make_shared<FixedShardCountPolicy>(2);
            QVERIFY(writeCheckpoint(*object, root + "/sharded/ckpt-1", sharded).ok());
            SaveOptions sliced;
            sliced.policy = std::make_shared<MaxShardSizePolicy>(1024);
            QVERIFY(writeCheckpoint(*object, root + "/sharded/ckpt-2", sliced).ok());
        }
        QVERIFY(writeKeyedCheckpoint(root + "/named/deep/a/model-5", someKeys(4, "net"), 5).isOk());

        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = openCatalog(db);
        QVERIFY(catalog);
        auto added = catalog->addRoot(root);
        QVERIFY2(added.ok(), added.status().toString().c_str());
        QCOMPARE(added->path, root);
        QCOMPARE(catalog->addRoot(root + "/")->id, added->id);  // the same root again
        QCOMPARE(catalog->addRoot(root + "/nothing").status().code(), StatusCode::NotFound);

        // maxDepth counts directory levels below the root: named/deep/a is 3.
        auto shallow = catalog->scan(depth(2));
        QVERIFY2(shallow.ok(), shallow.status().toString().c_str());
        QCOMPARE(shallow->checkpoints, int64_t{8});
        QVERIFY(!catalog->checkpoint(root + "/named/deep/a/model-5").ok());

        auto summary = catalog->scan({});
        QVERIFY2(summary.ok(), summary.status().toString().c_str());
        QCOMPARE(summary->directories, int64_t{4});
        QCOMPARE(summary->checkpoints, int64_t{9});
        QCOMPARE(summary->added, int64_t{1});
        QCOMPARE(summary->unchanged, int64_t{8});
        QCOMPARE(summary->unreadable, int64_t{0});
        QVERIFY(summary->errors.empty());

        auto all = catalog->checkpoints();
        QVERIFY2(all.ok(), all.status().toString().c_str());
        QCOMPARE(all->size(), size_t{9});
        int64_t tensors = 0;
        for (const CatalogCheckpoint& c : *all) {
            QVERIFY2(c.error.empty(), c.error.c_str());
            QCOMPARE(c.health(), CatalogHealth::Unverified);
            QCOMPARE(c.rootId, added->id);
            QCOMPARE(c.bytes, filesBytes(c.prefix));
            QCOMPARE(c.directory, fs::path(c.prefix).parent_path().string());
            QCOMPARE(c.name, fs::path(c.prefix).filename().string());
            struct stat st {};
            QCOMPARE(::stat(indexFileName(c.prefix).c_str(), &st), 0);
            QVERIFY(std::abs(c.modified - static_cast<double>(st.st_mtime)) < 1.5);
            tensors += c.tensors;
        }
        QCOMPARE(catalogMatchesIndex(*catalog), std::string());

        // The demo run: steps from the checkpoints, the state file's view.
        auto demoRows = catalog->checkpoints(root + "/demo");
        QCOMPARE(demoRows->size(), size_t{5});
        for (size_t i = 0; i < 5; ++i) {
            const CatalogCheckpoint& c = demoRows->at(i);
            QCOMPARE(c.name, "ckpt-" + std::to_string(i + 1));
            QCOMPARE(c.step, std::optional<int64_t>(40 * static_cast<int64_t>(i + 1)));
            QVERIFY(c.inStateFile);
            QCOMPARE(c.isLatest, i == 4);
            QVERIFY(c.objects > 0);
            QCOMPARE(c.shards, 1);
        }
        auto objects = catalog->checkpoint(root + "/objects/ckpt-7");
        QVERIFY2(objects.ok(), objects.status().toString().c_str());
        QCOMPARE(objects->step, std::optional<int64_t>(700));  // the stored step, not the number
        QVERIFY(!objects->inStateFile);
        auto rows = catalog->tensors(objects->id);
        const auto byKey = [&](const std::string& key) {
            for (const CatalogTensor& t : *rows)
                if (t.key == key) return t;
            return CatalogTensor{};
        };
        QCOMPARE(byKey("model/a..b/w/.ATTRIBUTES/VARIABLE_VALUE").objectPath, std::string("(root).model.a.b.w"));
        QCOMPARE(byKey("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE").shape, std::string("[3]"));
        QCOMPARE(byKey("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE").dtype, std::string("float32"));
        QCOMPARE(catalog->checkpoint(root + "/sharded/ckpt-1")->shards, 2);
        auto sliced = catalog->checkpoint(root + "/sharded/ckpt-2");
        QVERIFY(sliced->shards > 2);
        QCOMPARE(byKey("step/.ATTRIBUTES/VARIABLE_VALUE").dtype, std::string("int64"));
        auto slicedRows = catalog->tensors(sliced->id);
        bool sawPartitioned = false;
        for (const CatalogTensor& t : *slicedRows)
            if (t.key == "embedding/.ATTRIBUTES/VARIABLE_VALUE") {
                sawPartitioned = true;
                QCOMPARE(t.crc32c, 0u);
                QCOMPARE(t.bytes, uint64_t{64 * 16 * 4});
            }
        QVERIFY(sawPartitioned);
        auto named = catalog->checkpoint(root + "/named/deep/a/model-5");
        QCOMPARE(named->objects, int64_t{0});
        QCOMPARE(named->step, std::optional<int64_t>(5));  // the number stands in
        QVERIFY(catalog->tensors(named->id)->front().objectPath.empty());

        // Below a directory only; the root's figures.
        QCOMPARE(catalog->checkpoints(root + "/sharded")->size(), size_t{2});
        auto roots = catalog->roots();
        QCOMPARE(roots->size(), size_t{1});
        QCOMPARE(roots->front().checkpoints, int64_t{9});
        QVERIFY(roots->front().lastScanAt);
        QVERIFY(!roots->front().missing);
        QCOMPARE(catalog->checkpoint(root + "/demo/ckpt-9").status().code(), StatusCode::NotFound);
        QVERIFY(catalog->checkpoint(root + "/demo/ckpt-9").status().message().find("ckpt-9") != std::string::npos);
        QVERIFY(tensors > 0);
    }

    void realCorpus() {
        const QStringList dirs = realBundleDirs();
        if (dirs.isEmpty()) CKPT_MISSING_CORPUS();
        QTemporaryDir tmp;
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = openCatalog(db);
        QVERIFY(catalog);
        QVERIFY(catalog->addRoot(realTestDataDir().toStdString()).ok());
        auto summary = catalog->scan({});
        QVERIFY2(summary.ok(), summary.status().toString().c_str());
        QCOMPARE(summary->checkpoints, int64_t(dirs.size()));
        QCOMPARE(summary->unreadable, int64_t{0});
        int64_t checked = 0;
        for (const QString& dir : dirs) {
            const nlohmann::json manifest = loadJson(dir + QStringLiteral("/manifest.json"));
            const std::string prefix = manifestPrefix(dir, manifest);
            auto c = catalog->checkpoint(prefix);
            QVERIFY2(c.ok(), c.status().toString().c_str());
            QCOMPARE(c->tensors, manifest["num_tensors"].get<int64_t>());
            QCOMPARE(c->shards, manifest["header"]["num_shards"].get<int32_t>());
            uint64_t bytes = 0;
            for (const auto& f : manifest["files"])
                if (f["name"].get<std::string>() != "checkpoint") bytes += f["size"].get<uint64_t>();
            QCOMPARE(c->bytes, bytes);
            QCOMPARE(c->objects > 0, manifest["checkpoint_style"] == "object-based");
            // Object paths as the independent decoder names the nodes.
            std::map<std::string, std::string> paths;
            if (manifest["object_graph"].is_object())
                for (const auto& node : manifest["object_graph"]["nodes"])
                    for (const auto& a : node["attributes"])
                        if (a["name"] == "VARIABLE_VALUE" && node["path"].is_string())
                            paths[a["checkpoint_key"].get<std::string>()] = node["path"].get<std::string>();
            auto rows = catalog->tensors(c->id);
            QVERIFY2(rows.ok(), rows.status().toString().c_str());
            QCOMPARE(rows->size(), manifest["tensors"].size());
            std::map<std::string, CatalogTensor> byKey;
            for (const CatalogTensor& t : *rows) byKey[t.key] = t;
            for (const auto& t : manifest["tensors"]) {
                const std::string key = t["key"].get<std::string>();
                const std::string where = prefix + " " + key;
                QVERIFY2(byKey.count(key), where.c_str());
                const CatalogTensor& row = byKey[key];
                QCOMPARE(row.dtype, std::string(dataTypeShortName(*dataTypeFromName(t["dtype"].get<std::string>()))));
                std::string shape = "[";
                for (size_t i = 0; i < t["shape"].size(); ++i)
                    shape += (i ? ", " : "") + std::to_string(t["shape"][i].get<int64_t>());
                QCOMPARE(row.shape, shape + "]");
                QCOMPARE(row.bytes, t["size"].get<uint64_t>());
                // The manifest gives the stored (masked) crc; the catalog the crc itself.
                QCOMPARE(row.crc32c, unmaskCrc(static_cast<uint32_t>(std::stoul(t["crc32c"].get<std::string>(), nullptr, 16))));
                if (auto p = paths.find(key); p != paths.end()) QCOMPARE(row.objectPath, p->second);
                if (manifest["checkpoint_style"] == "name-based") QCOMPARE(row.objectPath, std::string());
                ++checked;
            }
        }
        qInfo("%lld tensor rows checked against %lld manifests", static_cast<long long>(checked),
              static_cast<long long>(dirs.size()));
    }

    void incrementalScans() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        for (int i = 1; i <= 3; ++i) {
            QVERIFY(
                writeKeyedCheckpoint(root + "/a/ckpt-" + std::to_string(i), someKeys(5, "enc"), static_cast<float>(i)).isOk());
            QVERIFY(writeKeyedCheckpoint(root + "/b/sub/ckpt-" + std::to_string(i), someKeys(3, "dec"), static_cast<float>(i))
                        .isOk());
        }
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = openCatalog(db);
        QVERIFY(catalog && catalog->addRoot(root).ok());
        auto first = catalog->scan({});
        QVERIFY2(first.ok(), first.status().toString().c_str());
        QCOMPARE(first->added, int64_t{6});
        QCOMPARE(first->tensorRows, int64_t{24});

        // Nothing changed: nothing written (only a root's last-scan time may
        // move), not even a row set to the values it has.
        const auto before = tableDigests(db);
        QCOMPARE(installWriteProbe(db, "root"), std::string());
        auto again = catalog->scan({});
        QVERIFY2(again.ok(), again.status().toString().c_str());
        QCOMPARE(again->unchanged, int64_t{6});
        QCOMPARE(again->added + again->updated + again->missing + again->tensorRows, int64_t{0});
        auto after = tableDigests(db);
        after.erase("probe_writes");
        QCOMPARE(after.size(), before.size());
        for (const auto& [table, digest] : before)
            if (table.find("root") == std::string::npos)
                QVERIFY2(after.at(table) == digest,
                         qPrintable(QStringLiteral("table %1 was rewritten by a scan that found nothing new")
                                        .arg(QString::fromStdString(table))));
        const std::string written = probedWrites(db);
        QCOMPARE(removeWriteProbe(db), std::string());
        QVERIFY2(written.empty(), ("rows written by a scan that found nothing new: " + written).c_str());

        // One checkpoint rewritten with other keys: updated, its rows replaced.
        QVERIFY(writeKeyedCheckpoint(root + "/a/ckpt-2", {"head/logits", "head/bias"}, 9).isOk());
        auto updated = catalog->scan({});
        QVERIFY2(updated.ok(), updated.status().toString().c_str());
        QCOMPARE(updated->updated, int64_t{1});
        QCOMPARE(updated->unchanged, int64_t{5});
        QCOMPARE(updated->tensorRows, int64_t{2});
        QCOMPARE(catalog->checkpoint(root + "/a/ckpt-2")->tensors, int64_t{2});
        QCOMPARE(catalogMatchesIndex(*catalog), std::string());
        QCOMPARE(catalog->search("logits")->totalCheckpoints, int64_t{1});
        QCOMPARE(catalog->search("enc/layer_4")->totalCheckpoints, int64_t{2});

        // Rewritten in place to an index of the same size, its modification
        // time put back: the rescan does not take it for unchanged (the
        // generation, which a rescan trusts to skip the index's checksum,
        // holds the change time, which no one can put back).
        const std::string rewritten = indexFileName(root + "/a/ckpt-1");
        struct stat old {};
        QCOMPARE(::stat(rewritten.c_str(), &old), 0);
        QVERIFY(writeKeyedCheckpoint(root + "/a/ckpt-1", someKeys(5, "enc"), 7.5f).isOk());
        struct stat now {};
        QCOMPARE(::stat(rewritten.c_str(), &now), 0);
        QCOMPARE(now.st_size, old.st_size);
        const struct timespec times[2] = {old.st_atim, old.st_mtim};
        QCOMPARE(::utimensat(AT_FDCWD, rewritten.c_str(), times, 0), 0);
        auto sameSize = catalog->scan({});
        QVERIFY2(sameSize.ok(), sameSize.status().toString().c_str());
        QCOMPARE(sameSize->updated, int64_t{1});
        QCOMPARE(catalogMatchesIndex(*catalog), std::string());

        // A checkpoint deleted, then a whole directory: marked missing, kept.
        fs::remove(indexFileName(root + "/a/ckpt-3"));
        fs::remove(dataFileName(root + "/a/ckpt-3", 0, 1));
        auto one = catalog->scan({});
        QVERIFY2(one.ok(), one.status().toString().c_str());
        QCOMPARE(one->missing, int64_t{1});
        auto gone = catalog->checkpoint(root + "/a/ckpt-3");
        QVERIFY2(gone.ok(), gone.status().toString().c_str());
        QVERIFY(gone->missing);
        QCOMPARE(gone->health(), CatalogHealth::Missing);
        QCOMPARE(catalog->tensors(gone->id)->size(), size_t{5});  // still searchable by what it held
        fs::remove_all(root + "/b");
        auto dir = catalog->scan({});
        QVERIFY2(dir.ok(), dir.status().toString().c_str());
        QCOMPARE(dir->missing, int64_t{3});
        QCOMPARE(catalog->checkpoints()->size(), size_t{6});
        const auto underB = catalog->checkpoints(root + "/b");
        QCOMPARE(underB->size(), size_t{3});
        for (const CatalogCheckpoint& c : *underB) QVERIFY(c.missing);
        auto still = catalog->scan({});
        QCOMPARE(still->missing, int64_t{0});  // "newly" missing only

        // It comes back: no longer missing.
        QVERIFY(writeKeyedCheckpoint(root + "/a/ckpt-3", someKeys(5, "enc"), 3).isOk());
        QVERIFY(catalog->scan({}).ok());
        QVERIFY(!catalog->checkpoint(root + "/a/ckpt-3")->missing);

        // The whole root vanished: the root is missing, its rows stay.
        fs::remove_all(root);
        auto noRoot = catalog->scan({});
        QVERIFY2(noRoot.ok(), noRoot.status().toString().c_str());
        QVERIFY(catalog->roots()->front().missing);
        QCOMPARE(catalog->checkpoints()->size(), size_t{6});
        QCOMPARE(integrityCheck(db), std::string("ok"));
    }

    void scopedScan() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        for (const char* dir : {"a", "b"})
            for (int i = 1; i <= 2; ++i)
                QVERIFY(writeKeyedCheckpoint(root + "/" + dir + "/ckpt-" + std::to_string(i), someKeys(2, dir), 1).isOk());
        auto catalog = openCatalog(tmp.filePath(QStringLiteral("catalog.db")).toStdString());
        QVERIFY(catalog && catalog->addRoot(root).ok());
        CatalogScanOptions onlyA;
        onlyA.roots = {root + "/a"};
        auto a = catalog->scan(onlyA);
        QVERIFY2(a.ok(), a.status().toString().c_str());
        QCOMPARE(a->checkpoints, int64_t{2});
        QCOMPARE(catalog->checkpoints()->size(), size_t{2});
        // What a scoped scan does not look at is not marked missing.
        QVERIFY(catalog->scan({}).ok());
        fs::remove_all(root + "/b");
        QVERIFY(writeKeyedCheckpoint(root + "/a/ckpt-3", someKeys(2, "a"), 3).isOk());
        auto again = catalog->scan(onlyA);
        QVERIFY2(again.ok(), again.status().toString().c_str());
        QCOMPARE(again->added, int64_t{1});
        QCOMPARE(again->missing, int64_t{0});
        QVERIFY(!catalog->checkpoint(root + "/b/ckpt-1")->missing);
        // Naming the root itself is a whole scan.
        CatalogScanOptions whole;
        whole.roots = {root};
        auto all = catalog->scan(whole);
        QVERIFY2(all.ok(), all.status().toString().c_str());
        QCOMPARE(all->missing, int64_t{2});
    }

    void garbageIndexes() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        fs::create_directories(root + "/junk");
        QVERIFY(writeBytes(root + "/junk/ckpt-1.index", "this is not an SSTable"));
        QVERIFY(writeBytes(root + "/junk/ckpt-2.index", ""));
        QVERIFY(writeKeyedCheckpoint(root + "/junk/ckpt-3", someKeys(2, "ok"), 3).isOk());
        std::string index = fileBytes(indexFileName(root + "/junk/ckpt-3"));
        QVERIFY(writeBytes(root + "/junk/ckpt-4.index", index.substr(0, index.size() / 2)));  // truncated
        QVERIFY(writeKeyedCheckpoint(root + "/good/ckpt-1", someKeys(2, "ok"), 1).isOk());
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = openCatalog(db);
        QVERIFY(catalog && catalog->addRoot(root).ok());
        auto summary = catalog->scan({});
        QVERIFY2(summary.ok(), summary.status().toString().c_str());
        QCOMPARE(summary->checkpoints, int64_t{5});
        QCOMPARE(summary->unreadable, int64_t{3});
        for (const char* name : {"ckpt-1", "ckpt-2", "ckpt-4"}) {
            auto c = catalog->checkpoint(root + "/junk/" + name);
            QVERIFY2(c.ok(), c.status().toString().c_str());
            QVERIFY2(!c->error.empty(), name);
            QCOMPARE(c->health(), CatalogHealth::Unreadable);
            QCOMPARE(catalog->tensors(c->id)->size(), size_t{0});
        }
        QCOMPARE(catalog->checkpoint(root + "/junk/ckpt-3")->health(), CatalogHealth::Unverified);
        QCOMPARE(catalog->checkpoint(root + "/good/ckpt-1")->tensors, int64_t{2});
        // Unchanged garbage is not re-read as new; repaired, it is read.
        auto again = catalog->scan({});
        QCOMPARE(again->unchanged, int64_t{5});
        QCOMPARE(again->added + again->updated, int64_t{0});
        QVERIFY(writeKeyedCheckpoint(root + "/junk/ckpt-1", someKeys(2, "fixed"), 1).isOk());
        auto fixed = catalog->scan({});
        QCOMPARE(fixed->updated, int64_t{1});
        QVERIFY(catalog->checkpoint(root + "/junk/ckpt-1")->error.empty());
    }

    void verifyRecordsHealth() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        QVERIFY(writeKeyedCheckpoint(root + "/ckpt-1", someKeys(3, "v"), 1).isOk());
        QVERIFY(writeKeyedCheckpoint(root + "/ckpt-2", someKeys(3, "v"), 2).isOk());
        QVERIFY(flipByte(dataFileName(root + "/ckpt-2", 0, 1), 5));
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = openCatalog(db);
        QVERIFY(catalog && catalog->addRoot(root).ok());
        QVERIFY(catalog->scan({}).ok());
        QCOMPARE(catalog->checkpoint(root + "/ckpt-2")->health(), CatalogHealth::Unverified);
        auto verified = catalog->scan(verifying());
        QVERIFY2(verified.ok(), verified.status().toString().c_str());
        QCOMPARE(verified->verified, int64_t{2});
        QCOMPARE(verified->damaged, int64_t{1});
        auto good = catalog->checkpoint(root + "/ckpt-1");
        QCOMPARE(good->health(), CatalogHealth::Healthy);
        QVERIFY(good->verifiedAt);
        QCOMPARE(good->verifyProblems, int64_t{0});
        auto bad = catalog->checkpoint(root + "/ckpt-2");
        QCOMPARE(bad->health(), CatalogHealth::Damaged);
        QVERIFY(bad->verifyProblems > 0);
        QVERIFY2(bad->verifyMessage.find("v/layer_") != std::string::npos, bad->verifyMessage.c_str());
        QCOMPARE(catalogHealthName(bad->health()), std::string_view("damaged"));
        // Verified once: not again until it changes.
        auto again = catalog->scan(verifying());
        QCOMPARE(again->verified, int64_t{0});
        QVERIFY(writeKeyedCheckpoint(root + "/ckpt-2", someKeys(3, "v"), 7).isOk());  // rewritten whole
        auto repaired = catalog->scan(verifying());
        QCOMPARE(repaired->verified, int64_t{1});
        QCOMPARE(catalog->checkpoint(root + "/ckpt-2")->health(), CatalogHealth::Healthy);
    }

    // A verification done outside a scan is recorded only while the index
    // is the one scanned.
    void recordVerificationFromOutside() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        QVERIFY(writeKeyedCheckpoint(root + "/ckpt-1", someKeys(3, "v"), 1).isOk());
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = openCatalog(db);
        QVERIFY(catalog && catalog->addRoot(root).ok());
        QVERIFY(catalog->scan({}).ok());
        auto report = verifyBundle(root + "/ckpt-1");
        QVERIFY(report.ok());
        auto recorded = catalog->recordVerification(*report);
        QVERIFY2(recorded.ok() && *recorded, recorded.ok() ? "not recorded" : recorded.status().toString().c_str());
        QCOMPARE(catalog->checkpoint(root + "/ckpt-1")->health(), CatalogHealth::Healthy);
        // Rewritten since the scan: the report is about files the catalog
        // has not seen, and is not recorded.
        QVERIFY(writeKeyedCheckpoint(root + "/ckpt-1", someKeys(4, "w"), 2).isOk());
        report->problems.push_back({"ckpt-1.index", "", "DataLoss: invented"});
        recorded = catalog->recordVerification(*report);
        QVERIFY(recorded.ok() && !*recorded);
        QCOMPARE(catalog->checkpoint(root + "/ckpt-1")->health(), CatalogHealth::Healthy);
        // Not catalogued at all.
        report->prefix = root + "/ckpt-9";
        QVERIFY(!*catalog->recordVerification(*report));
    }

    void forgetRoot() {
        QTemporaryDir tmp;
        const std::string a = tmp.filePath(QStringLiteral("a")).toStdString();
        const std::string b = tmp.filePath(QStringLiteral("b")).toStdString();
        QVERIFY(writeKeyedCheckpoint(a + "/ckpt-1", someKeys(3, "alpha"), 1).isOk());
        QVERIFY(writeKeyedCheckpoint(b + "/ckpt-1", someKeys(3, "beta"), 1).isOk());
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = openCatalog(db);
        QVERIFY(catalog && catalog->addRoot(a).ok() && catalog->addRoot(b).ok());
        QVERIFY(catalog->scan({}).ok());
        const int64_t idA = catalog->checkpoint(a + "/ckpt-1")->id;
        QCOMPARE(catalog->search("alpha")->totalMatches, int64_t{3});
        QVERIFY(catalog->forgetRoot(a).isOk());
        QCOMPARE(catalog->roots()->size(), size_t{1});
        QCOMPARE(catalog->checkpoints()->size(), size_t{1});
        QCOMPARE(catalog->checkpoint(a + "/ckpt-1").status().code(), StatusCode::NotFound);
        auto rows = catalog->tensors(idA);
        QVERIFY(!rows.ok() || rows->empty());
        QCOMPARE(catalog->search("alpha")->totalMatches, int64_t{0});
        QCOMPARE(catalog->search("beta")->totalMatches, int64_t{3});
        auto unknown = catalog->forgetRoot(a);
        QCOMPARE(unknown.code(), StatusCode::NotFound);
        QVERIFY(unknown.message().find(a) != std::string::npos);
        QCOMPARE(integrityCheck(db), std::string("ok"));
    }

    void cancelled() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        for (int d = 0; d < 24; ++d)
            for (int i = 1; i <= 2; ++i)
                QVERIFY(writeKeyedCheckpoint(root + "/run" + std::to_string(d) + "/ckpt-" + std::to_string(i), someKeys(6, "m"),
                                             static_cast<float>(d * 10 + i))
                            .isOk());
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = openCatalog(db);
        QVERIFY(catalog && catalog->addRoot(root).ok());
        CancellationToken token;
        int64_t seen = 0;
        CatalogScanOptions options;
        options.cancel = &token;
        options.progress = [&](int64_t done, int64_t, std::string_view) {
            seen = done;
            if (done >= 9) token.cancel();
        };
        auto stopped = catalog->scan(options);
        QCOMPARE(stopped.status().code(), StatusCode::Cancelled);
        QVERIFY(seen >= 9);
        QCOMPARE(integrityCheck(db), std::string("ok"));
        // What was committed is whole: every recorded checkpoint has all its rows.
        const size_t partial = catalog->checkpoints()->size();
        QVERIFY2(partial < 48, qPrintable(QString::number(partial)));
        QCOMPARE(catalogMatchesIndex(*catalog), std::string());
        auto rest = catalog->scan({});
        QVERIFY2(rest.ok(), rest.status().toString().c_str());
        QCOMPARE(rest->added, int64_t(48 - partial));
        QCOMPARE(catalog->checkpoints()->size(), size_t{48});
        QCOMPARE(catalogMatchesIndex(*catalog), std::string());
        qInfo("cancelled after %lld checkpoints; %zu were committed", static_cast<long long>(seen), partial);
    }

    // The scan reads each batch (64 checkpoints) while the one before it is
    // written (catalog/scan_batches.h). Directories of several batches and
    // of one, a cancel right after the first batch (the batch read ahead
    // must not be written), then the rest, then checkpoints and a whole
    // directory gone: every committed row matches its index throughout.
    void readAheadBatches() {
        QTemporaryDir tmp;
        const std::string root = tmp.filePath(QStringLiteral("runs")).toStdString();
        const std::vector<std::pair<std::string, int>> dirs = {{"big", 150}, {"mid", 70}, {"small", 3}};
        for (const auto& [name, count] : dirs)
            for (int i = 1; i <= count; ++i)
                QVERIFY(writeKeyedCheckpoint(root + "/" + name + "/ckpt-" + std::to_string(i),
                                             someKeys(3, name + std::to_string(i)), static_cast<float>(i))
                            .isOk());
        const std::string db = tmp.filePath(QStringLiteral("catalog.db")).toStdString();
        auto catalog = openCatalog(db);
        QVERIFY(catalog && catalog->addRoot(root).ok());

        CancellationToken token;
        CatalogScanOptions options;
        options.cancel = &token;
        std::vector<int64_t> reported;
        options.progress = [&](int64_t done, int64_t total, std::string_view) {
            reported.push_back(done);
            QCOMPARE(total, int64_t{223});
            token.cancel();
        };
        auto stopped = catalog->scan(options);
        QCOMPARE(stopped.status().code(), StatusCode::Cancelled);
        QCOMPARE(reported, std::vector<int64_t>{64});
        QCOMPARE(catalog->checkpoints()->size(), size_t{64});
        QCOMPARE(queryInt(db, "SELECT count(*) FROM catalog_tensors"), int64_t{64 * 3});
        QCOMPARE(integrityCheck(db), std::string("ok"));
        QCOMPARE(catalogMatchesIndex(*catalog), std::string());

        reported.clear();
        options.cancel = nullptr;
        options.progress = [&](int64_t done, int64_t, std::string_view) { reported.push_back(done); };
        auto rest = catalog->scan(options);
        QVERIFY2(rest.ok(), rest.status().toString().c_str());
        QCOMPARE(rest->added, int64_t{223 - 64});
        QCOMPARE(rest->unchanged, int64_t{64});
        QCOMPARE(reported, (std::vector<int64_t>{64, 128, 150, 214, 220, 223}));
        QCOMPARE(queryInt(db, "SELECT count(*) FROM catalog_tensors"), int64_t{223 * 3});
        QCOMPARE(queryInt(db, "SELECT count(*) FROM catalog_keys"), int64_t{223 * 3});
        QCOMPARE(catalogMatchesIndex(*catalog), std::string());
        auto found = catalog->search("mid70", {});
        QVERIFY2(found.ok(), found.status().toString().c_str());
        QCOMPARE(found->totalMatches, int64_t{3});

        // Gone from the first and the last batch of "big", and all of "small".
        for (int i : {2, 140, 150}) {
            const std::string name = "ckpt-" + std::to_string(i) + ".";
            for (const auto& e : fs::directory_iterator(root + "/big"))
                if (e.path().filename().string().rfind(name, 0) == 0) fs::remove(e.path());
        }
        fs::remove_all(root + "/small");
        auto after = catalog->scan({});
        QVERIFY2(after.ok(), after.status().toString().c_str());
        QCOMPARE(after->missing, int64_t{3 + 3});
        QCOMPARE(after->unchanged, int64_t{223 - 6});
        QCOMPARE(after->added + after->updated, int64_t{0});
        QCOMPARE(queryInt(db, "SELECT count(*) FROM catalog_checkpoints WHERE missing = 1"), int64_t{6});
        QCOMPARE(queryInt(db,
                          "SELECT count(*) FROM catalog_checkpoints WHERE missing = 1 AND "
                          "(prefix LIKE '%/small/%' OR prefix LIKE '%/big/ckpt-2' OR prefix LIKE '%/big/ckpt-140' OR "
                          "prefix LIKE '%/big/ckpt-150')"),
                 int64_t{6});
        QCOMPARE(catalogMatchesIndex(*catalog), std::string());
    }
};

QTEST_GUILESS_MAIN(TstCatalogScan)
#include "tst_catalog_scan.moc"

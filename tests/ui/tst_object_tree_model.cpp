// The explorer's tree over every real checkpoint: model contract
// (QAbstractItemModelTester), lazy fetching, toggles and filters.

#include <QAbstractItemModelTester>
#include <QColor>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <pthread.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtConcurrent>

#include <set>

#include "explorer_test.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint.h"
#include "models/checkpoint_snapshot.h"
#include "models/directory_model.h"
#include "models/object_tree_model.h"
#include "models/tree_filter.h"
#include "stall_meter.h"
#include "test_support.h"
#include "trackable_object_graph.pb.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

std::shared_ptr<const CheckpointSnapshot> snapshotOf(const QString& dir) {
    auto ckpt = Checkpoint::open(dir.toStdString());
    if (!ckpt.ok()) qFatal("cannot open %s: %s", qPrintable(dir), ckpt.status().toString().c_str());
    return CheckpointSnapshot::build(*ckpt);
}

// Fetches every row; returns how many there are.
int fetchAll(ObjectTreeModel& model, const QModelIndex& parent = {}) {
    if (model.canFetchMore(parent)) model.fetchMore(parent);
    // Fetches requested during another change arrive on the next turn.
    if (model.hasChildren(parent) && model.rowCount(parent) == 0) QCoreApplication::processEvents();
    if (model.canFetchMore(parent) || (model.hasChildren(parent) && model.rowCount(parent) == 0))
        qFatal("fetchMore inserted nothing");
    int n = model.rowCount(parent);
    const int rows = n;
    for (int r = 0; r < rows; ++r) n += fetchAll(model, model.index(r, 0, parent));
    return n;
}

QString bundleDir(const char* name) {
    const QString root = ckpt::testing::realTestDataDir();
    return root.isEmpty() ? QString() : root + QLatin1Char('/') + QLatin1String(name);
}

// A checkpoint whose slot variables are each the optimizer of the next:
// its display tree nests them 'depth' deep (issue #29, finding 8).
std::string writeSlotNest(const QString& dir, int depth) {
    tensorflow::TrackableObjectGraph g;
    for (int i = 0; i < depth + 3; ++i) g.add_nodes();
    auto child = [&](int parent, int node, const char* name) {
        auto* c = g.mutable_nodes(parent)->add_children();
        c->set_node_id(node);
        c->set_local_name(name);
    };
    child(0, 1, "opt");
    child(0, 2, "v");
    auto* a = g.mutable_nodes(2)->add_attributes();
    a->set_name("VARIABLE_VALUE");
    a->set_checkpoint_key("v/.ATTRIBUTES/VARIABLE_VALUE");
    for (int i = 0; i < depth; ++i) {
        auto* s = g.mutable_nodes(i == 0 ? 1 : 2 + i)->add_slot_variables();
        s->set_original_variable_node_id(2);
        s->set_slot_name("m");
        s->set_slot_variable_node_id(3 + i);
    }
    const std::string prefix = (dir + QStringLiteral("/nest")).toStdString();
    auto w = BundleWriter::create(prefix);
    if (!w.ok()) qFatal("%s", w.status().toString().c_str());
    Tensor graph{DataType::String, TensorShape{}, {}, {g.SerializeAsString()}};
    Tensor value{DataType::Float, TensorShape{}, std::vector<uint8_t>(4, 0), {}};
    if (!(*w)->add(kObjectGraphKey, graph).isOk() || !(*w)->add("v/.ATTRIBUTES/VARIABLE_VALUE", value).isOk() ||
        !(*w)->finish().isOk())
        qFatal("cannot write %s", prefix.c_str());
    return prefix;
}

}  // namespace

class TstObjectTreeModel : public QObject {
    Q_OBJECT
private slots:
    void everyRealCheckpoint_data() {
        QTest::addColumn<QString>("dir");
        const QStringList dirs = ckpt::testing::realBundleDirs();
        if (dirs.isEmpty()) CKPT_MISSING_CORPUS();
        for (const QString& d : dirs) QTest::newRow(qPrintable(QFileInfo(d).fileName())) << d;
    }
    void everyRealCheckpoint() {
        QFETCH(QString, dir);
        auto snap = snapshotOf(dir);
        ObjectTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snap, nullptr);
        // Lazy: only the root's children exist before anything is expanded.
        QVERIFY(model.rowCount() > 0);
        QVERIFY(model.hasChildren());
        const int total = fetchAll(model);
        QCOMPARE(total, static_cast<int>(snap->entries.size()) - 1);
        // Every tensor of the bundle is reachable from some row.
        std::set<std::string> shown;
        for (const TreeEntry& e : snap->entries)
            if (e.tensor) shown.insert(e.tensor->key);
        for (const TensorInfo& t : snap->checkpoint->bundle().tensors()) {
            if (t.key == kObjectGraphKey) continue;
            QVERIFY2(shown.count(t.key), t.key.c_str());
        }
        // Round trip entry -> index -> entry.
        for (int32_t e = 1; e < static_cast<int32_t>(snap->entries.size()); ++e)
            QCOMPARE(model.entryIndex(model.indexForEntry(e)), e);
    }

    // A tree nested 50,000 deep: the snapshot is built off the GUI thread
    // in linear time, and reaching its deepest row (what selecting a search
    // result does) is linear too and needs no recursion: here on a thread
    // with a 512 KiB stack, which one frame per level would overflow.
    void deepNestStaysLinear() {
        constexpr int kDepth = 50000;
        QTemporaryDir tmp;
        const std::string prefix = writeSlotNest(tmp.path(), kDepth);
        auto ckpt = Checkpoint::open(prefix);
        QVERIFY2(ckpt.ok(), ckpt.status().toString().c_str());
        ckpt::testing::StallMeter meter;
        meter.start();
        QElapsedTimer timer;
        timer.start();
        std::shared_ptr<const Checkpoint> opened = std::move(*ckpt);
        auto future = QtConcurrent::run([opened] { return CheckpointSnapshot::build(opened); });
        QTRY_VERIFY_WITH_TIMEOUT(future.isFinished(), 20000);
        const auto snap = future.result();
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QStringLiteral("snapshot took %1 ms").arg(timer.elapsed())));
        QVERIFY2(meter.longest() < 200, qPrintable(QStringLiteral("GUI thread stalled %1 ms").arg(meter.longest())));
        int32_t deepest = 0;
        for (int32_t e = 0; e < static_cast<int32_t>(snap->entries.size()); ++e)
            if (snap->entries[static_cast<size_t>(e)].kind == EntryKind::SlotVariable) deepest = e;
        int levels = 0;
        for (int32_t e = deepest; e > 0; e = snap->entries[static_cast<size_t>(e)].parent) ++levels;
        QVERIFY2(levels > kDepth, qPrintable(QString::number(levels)));

        ObjectTreeModel model;
        model.setSnapshot(snap, nullptr);
        struct Job {
            ObjectTreeModel* model;
            int32_t entry;
            int32_t found = -1;
            qint64 ms = 0;
        } job{&model, deepest};
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 512 * 1024);
        pthread_t thread;
        QCOMPARE(pthread_create(
                     &thread, &attr,
                     [](void* p) -> void* {
                         auto* j = static_cast<Job*>(p);
                         QElapsedTimer t;
                         t.start();
                         j->found = j->model->entryIndex(j->model->indexForEntry(j->entry));
                         j->ms = t.elapsed();
                         return nullptr;
                     },
                     &job),
                 0);
        pthread_join(thread, nullptr);
        pthread_attr_destroy(&attr);
        QCOMPARE(job.found, deepest);
        QVERIFY2(job.ms < 2000, qPrintable(QStringLiteral("reaching the deepest row took %1 ms").arg(job.ms)));
    }

    void slotVariablesSitUnderTheOptimizer() {
        const QString dir = bundleDir("tfx_keras_adam_savedmodel");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        auto snap = snapshotOf(dir);
        int slotCount = 0;
        for (const TreeEntry& e : snap->entries) {
            if (e.kind != EntryKind::SlotVariable) continue;
            ++slotCount;
            QVERIFY(isSlotRow(e));
            QCOMPARE(snap->entries[static_cast<size_t>(e.parent)].kind, EntryKind::Optimizer);
            QVERIFY2(e.tensor, qPrintable(pathText(e)));
        }
        QVERIFY(slotCount > 0);

        ObjectTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snap, computeVisibleSet(*snap, {false, false, QString(), false}));
        fetchAll(model);
        for (int32_t e = 1; e < static_cast<int32_t>(snap->entries.size()); ++e) {
            const TreeEntry& entry = snap->entries[static_cast<size_t>(e)];
            QCOMPARE(model.indexForEntry(e).isValid(), !isSlotRow(entry) && !isKeyRow(entry));
        }
    }

    // The toggles' visible sets come with the snapshot, built on its worker
    // (showing a million-row tree makes no pass over it on the GUI thread),
    // and are what computeVisibleSet gives; a key tree has nothing to hide.
    void togglesComeWithTheSnapshot() {
        QTemporaryDir dir;
        auto snap = snapshotOf(QString::fromStdString(writeSlotNest(dir.path(), 3)));
        QCOMPARE(snap->checkpoint->style(), CheckpointStyle::ObjectBased);
        for (const bool withKeys : {false, true})
            for (const bool withSlots : {false, true}) {
                const auto set = togglesVisibleSet(*snap, withKeys, withSlots);
                if (withKeys && withSlots) {
                    QVERIFY(!set);
                    continue;
                }
                QVERIFY(set);
                QCOMPARE(set.get(), snap->toggleSets[withKeys * 2 + withSlots].get());
                QCOMPARE(set->visible, computeVisibleSet(*snap, {withKeys, withSlots, QString(), false})->visible);
                QVERIFY(set->matches < static_cast<int64_t>(snap->entries.size()) - 1);  // something is hidden
            }
        const QString keyTree = bundleDir("t2t_transformer_2shards");
        if (!QFileInfo(keyTree).isDir()) return;
        auto named = snapshotOf(keyTree);
        for (const bool withKeys : {false, true})
            for (const bool withSlots : {false, true}) QVERIFY(!togglesVisibleSet(*named, withKeys, withSlots));
    }

    void filterKeepsMatchesAndTheirAncestors() {
        const QString dir = bundleDir("tfx_keras_adam_savedmodel");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        auto snap = snapshotOf(dir);
        for (bool regex : {false, true}) {
            const QString text = regex ? QStringLiteral("kern.l$") : QStringLiteral("KERNEL");
            auto vis = computeVisibleSet(*snap, {true, true, text, regex});
            QVERIFY(vis->error.isEmpty());
            QVERIFY(vis->matches > 0);
            ObjectTreeModel model;
            QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
            model.setSnapshot(snap, vis);
            fetchAll(model);
            for (int32_t e = 1; e < static_cast<int32_t>(snap->entries.size()); ++e) {
                const QModelIndex i = model.indexForEntry(e);
                if (!i.isValid() || model.hasChildren(i)) continue;
                // A visible leaf must itself match.
                const TreeEntry& entry = snap->entries[static_cast<size_t>(e)];
                const QString path = pathText(entry), name = nameText(entry);
                const QRegularExpression re(text, QRegularExpression::CaseInsensitiveOption);
                const QString key = entry.tensor ? QString::fromStdString(entry.tensor->key) : QString();
                const bool matches = regex
                                         ? re.match(path).hasMatch() || re.match(name).hasMatch() || re.match(key).hasMatch()
                                         : path.contains(text, Qt::CaseInsensitive) || name.contains(text, Qt::CaseInsensitive) ||
                                               key.contains(text, Qt::CaseInsensitive);
                QVERIFY2(matches, qPrintable(path));
            }
        }
        auto bad = computeVisibleSet(*snap, {true, true, QStringLiteral("(unclosed"), true});
        QVERIFY(!bad->error.isEmpty());
    }

    // The filter box says "Filter by path or key": a variable is found by
    // its own checkpoint key with the key rows hidden, not only the slot
    // rows whose labels happen to contain it (issue #30, item 16).
    void filterFindsAVariableByItsOwnKey() {
        const QString dir = bundleDir("tfx_keras_adam_savedmodel");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        auto snap = snapshotOf(dir);
        int32_t kernel = -1;
        for (size_t e = 1; e < snap->entries.size(); ++e)
            if (snap->entries[e].kind == EntryKind::Variable && snap->entries[e].tensor &&
                snap->entries[e].tensor->key == "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE")
                kernel = static_cast<int32_t>(e);
        QVERIFY(kernel > 0);
        for (bool regex : {false, true}) {
            auto vis = computeVisibleSet(*snap, {false, true, QStringLiteral("layer_with_weights-0/kernel"), regex});
            QVERIFY(vis->error.isEmpty());
            QVERIFY2(vis->visible[static_cast<size_t>(kernel)], "the kernel itself is not found by its key");
            ObjectTreeModel model;
            model.setSnapshot(snap, vis);
            QVERIFY(model.indexForEntry(kernel).isValid());
        }
    }

    // A TF2 lookup table (tf.lookup.experimental.MutableHashTable, as
    // TensorFlow 2.20 writes it): the object graph's attribute names only
    // the key prefix "table/.ATTRIBUTES/table"; the bundle holds its
    // table-keys and table-values. Both are rows of their own, found by the
    // filter (issue #30, item 9: none of the table-values could be reached).
    void lookupTableTensorsAreRows() {
        QTemporaryDir dir;
        const std::string prefix = dir.filePath(QStringLiteral("ckpt")).toStdString();
        tensorflow::TrackableObjectGraph graph;
        for (int i = 0; i < 3; ++i) graph.add_nodes();
        for (auto [id, name] : {std::pair{1, "table"}, std::pair{2, "v"}}) {
            auto* c = graph.mutable_nodes(0)->add_children();
            c->set_node_id(id);
            c->set_local_name(name);
        }
        auto* table = graph.mutable_nodes(1)->add_attributes();
        table->set_name("table");
        table->set_checkpoint_key("table/.ATTRIBUTES/table");
        auto* v = graph.mutable_nodes(2)->add_attributes();
        v->set_name("VARIABLE_VALUE");
        v->set_checkpoint_key("v/.ATTRIBUTES/VARIABLE_VALUE");
        {
            auto writer = BundleWriter::create(prefix);
            QVERIFY(writer.ok());
            Tensor keys;
            keys.dtype = DataType::String;
            keys.shape.dims = {2};
            keys.strings = {"a", "b"};
            Tensor values;
            values.dtype = DataType::Int64;
            values.shape.dims = {2};
            values.bytes.assign(16, 1);
            Tensor scalar;
            scalar.dtype = DataType::Float;
            scalar.bytes.assign(4, 0);
            Tensor g;
            g.dtype = DataType::String;
            g.strings = {graph.SerializeAsString()};
            QVERIFY((*writer)->add("table/.ATTRIBUTES/table-keys", keys).isOk());
            QVERIFY((*writer)->add("table/.ATTRIBUTES/table-values", values).isOk());
            QVERIFY((*writer)->add("v/.ATTRIBUTES/VARIABLE_VALUE", scalar).isOk());
            QVERIFY((*writer)->add(std::string(kObjectGraphKey), g).isOk());
            QVERIFY((*writer)->finish().isOk());
        }
        auto snap = snapshotOf(QString::fromStdString(prefix));
        QStringList keyRows;
        for (const TreeEntry& e : snap->entries)
            if (isKeyRow(e) && e.tensor) keyRows << QString::fromStdString(e.tensor->key);
        QCOMPARE(keyRows,
                 (QStringList{QStringLiteral("table/.ATTRIBUTES/table-keys"), QStringLiteral("table/.ATTRIBUTES/table-values"),
                              QStringLiteral("v/.ATTRIBUTES/VARIABLE_VALUE")}));
        auto vis = computeVisibleSet(*snap, {true, true, QStringLiteral("table-values"), false});
        QCOMPARE(vis->matches, int64_t{1});
        ObjectTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snap, vis);
        QCOMPARE(fetchAll(model), 2);  // "table" and its table-values row
    }

    void overlayColoursRows() {
        const QString dir = bundleDir("tfx_tuner_save_weights");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        // What the restore view will do: mark variables, leave the rest alone.
        struct MarkVariables : EntryOverlay {
            QVariant data(const TreeEntry& e, int32_t, int column, int role) const override {
                if (role == Qt::ForegroundRole && column == 0 && e.kind == EntryKind::Variable) return QColor(Qt::red);
                return {};
            }
        };
        auto snap = snapshotOf(dir);
        ObjectTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snap, nullptr);
        fetchAll(model);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setOverlay(std::make_shared<MarkVariables>());
        QVERIFY(changed.count() > 0);
        int marked = 0;
        for (int32_t e = 1; e < static_cast<int32_t>(snap->entries.size()); ++e) {
            const QModelIndex i = model.indexForEntry(e);
            const bool isVar = snap->entries[static_cast<size_t>(e)].kind == EntryKind::Variable;
            QCOMPARE(i.data(Qt::ForegroundRole).value<QColor>() == QColor(Qt::red), isVar);
            QCOMPARE(i.data().toString(), nameText(snap->entries[static_cast<size_t>(e)]));  // other roles untouched
            marked += isVar;
        }
        QVERIFY(marked > 0);
        model.setOverlay(nullptr);
        QVERIFY(!model.index(0, 0).data(Qt::ForegroundRole).isValid());
    }

    void nameBasedCheckpointIsAKeyTree() {
        const QString dir = bundleDir("t2t_transformer_2shards");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        auto snap = snapshotOf(dir);
        QCOMPARE(snap->checkpoint->style(), CheckpointStyle::NameBased);
        ObjectTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(snap, nullptr);
        fetchAll(model);
        for (const TreeEntry& e : snap->entries) {
            if (e.kind != EntryKind::Key) continue;
            // Path of a leaf = its key; groups are the key's '/' prefixes.
            QCOMPARE(pathText(e), QString::fromStdString(e.tensor->key));
            QVERIFY(e.path.ends_with(e.name));
            if (e.parent > 0)
                QVERIFY(pathText(e).startsWith(pathText(snap->entries[static_cast<size_t>(e.parent)]) + QLatin1Char('/')));
        }
    }

    void directoryModelListsCheckpoints() {
        const QString dir = bundleDir("tfx_estimator_ckpt1000");
        if (!QFileInfo(dir).isDir()) CKPT_MISSING_CORPUS();
        const DirectoryListing l = listDirectory(dir);
        QVERIFY(l.error.isEmpty());
        QCOMPARE(static_cast<int>(l.listing.checkpoints.size()), 1);
        const CheckpointListEntry& e = l.listing.checkpoints[0];
        QCOMPARE(e.step.number.value_or(-1), 1000);
        QCOMPARE(e.step.step.value_or(-1), 1000);
        QCOMPARE(e.step.source, std::string("global_step"));  // the estimator's TF1 global step
        QVERIFY(e.isLatest);
        QVERIFY(e.bytes > 0);
        const QString prefix = QString::fromStdString(e.prefix);
        DirectoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setListing(l);
        model.setListing(l);  // replaced, not duplicated
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex c = model.indexForPrefix(prefix);
        QVERIFY(c.isValid());
        model.setHealth(prefix, Health::Damaged, QStringLiteral("DataLoss: x"));
        QCOMPARE(c.data(DirectoryModel::HealthRole).toInt(), static_cast<int>(Health::Damaged));
        QVERIFY(c.data(Qt::ToolTipRole).toString().contains(QStringLiteral("DataLoss: x")));
        model.setListing(l);  // a re-list keeps the known health
        QCOMPARE(model.indexForPrefix(prefix).data(DirectoryModel::HealthRole).toInt(), static_cast<int>(Health::Damaged));
    }
};

CKPT_EXPLORER_TEST_MAIN(TstObjectTreeModel)
#include "tst_object_tree_model.moc"

// The display tree `ckpt tree` prints and the explorer shows
// (ckpt/display_tree.h): first-BFS-parent placement, aliases for shared
// objects and cycles, slot variables under their optimizer, unreachable
// nodes under the root, key trees of name-based checkpoints, and depth
// without recursion.

#include <QTemporaryDir>
#include <QtTest>

#include <pthread.h>

#include <cstring>

#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint.h"
#include "ckpt/display_tree.h"
#include "graph_proto.h"
#include "test_tensors.h"

using namespace ckpt;
using Proto = ckpt::testing::GraphProto;
using ckpt::testing::addChild;
using ckpt::testing::addVariable;

namespace {

// A bundle holding 'graph' and one float tensor per listed key.
std::shared_ptr<const Checkpoint> writeAndOpen(const QString& dir, const Proto* graph, const std::vector<std::string>& keys) {
    const std::string prefix = (dir + QStringLiteral("/ckpt")).toStdString();
    auto w = BundleWriter::create(prefix);
    if (!w.ok()) qFatal("%s", w.status().toString().c_str());
    for (const std::string& k : keys)
        if (!(*w)->add(k, ckpt::testing::zeroFloats(3)).isOk()) qFatal("add %s", k.c_str());
    if (graph) {
        Tensor g;
        g.dtype = DataType::String;
        g.strings = {graph->SerializeAsString()};
        if (!(*w)->add(std::string(kObjectGraphKey), g).isOk()) qFatal("add graph");
    }
    if (!(*w)->finish().isOk()) qFatal("finish");
    auto c = Checkpoint::open(prefix);
    if (!c.ok()) qFatal("%s", c.status().toString().c_str());
    return *c;
}

std::string key(const std::string& path) { return path + "/.ATTRIBUTES/VARIABLE_VALUE"; }

// Entry labels in pre-order, children indented by their depth.
QStringList outline(const DisplayTree& t) {
    QStringList out;
    std::vector<std::pair<int32_t, int>> todo{{0, 0}};
    while (!todo.empty()) {
        auto [i, depth] = todo.back();
        todo.pop_back();
        const DisplayEntry& e = t.entries[static_cast<size_t>(i)];
        QString line =
            QString(depth * 2, QLatin1Char(' ')) + QString::fromUtf8(e.name.data(), static_cast<qsizetype>(e.name.size()));
        if (e.kind == DisplayKind::Alias)
            line += QStringLiteral(" -> ") + QString::fromUtf8(e.path.data(), static_cast<qsizetype>(e.path.size()));
        out << line;
        for (size_t c = e.children.size(); c-- > 0;) todo.push_back({e.children[c], depth + 1});
    }
    return out;
}

}  // namespace

class TstDisplayTree : public QObject {
    Q_OBJECT
private slots:
    void objectGraph() {
        // root -> model -> dense -> {kernel, bias}; root -> optimizer (slot m
        // for kernel); model -> shared (a second edge to dense); dense -> up
        // (a cycle to the root); node 9 unreachable.
        Proto g;
        for (int i = 0; i < 10; ++i) g.add_nodes();
        addChild(g, 0, 1, "model");
        addChild(g, 0, 4, "optimizer");
        addChild(g, 1, 2, "dense");
        addChild(g, 1, 2, "shared");
        addChild(g, 2, 3, "kernel");
        addChild(g, 2, 5, "bias");
        addChild(g, 2, 0, "up");
        addChild(g, 4, 7, "iter");
        addVariable(g, 3, key("model/dense/kernel"));
        addVariable(g, 5, key("model/dense/bias"));
        addVariable(g, 6, "model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE");
        addVariable(g, 7, key("optimizer/iter"));
        addVariable(g, 9, key("lost"));
        auto* slot = g.mutable_nodes(4)->add_slot_variables();
        slot->set_original_variable_node_id(3);
        slot->set_slot_name("m");
        slot->set_slot_variable_node_id(6);
        QTemporaryDir tmp;
        auto ckpt = writeAndOpen(tmp.path(), &g,
                                 {key("model/dense/kernel"), key("model/dense/bias"), key("optimizer/iter"), key("lost"),
                                  "model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE"});
        const DisplayTree t = buildDisplayTree(*ckpt);
        QVERIFY(t.objectBased);
        const QStringList expected = {
            QStringLiteral("(root)"),
            QStringLiteral("  model"),
            QStringLiteral("    dense"),
            QStringLiteral("      kernel"),
            QStringLiteral("        model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"),
            QStringLiteral("      bias"),
            QStringLiteral("        model/dense/bias/.ATTRIBUTES/VARIABLE_VALUE"),
            QStringLiteral("      up -> (root)"),
            QStringLiteral("    shared -> (root).model.dense"),
            QStringLiteral("  optimizer"),
            QStringLiteral("    iter"),
            QStringLiteral("      optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE"),
            QStringLiteral("    m for model/dense/kernel"),
            QStringLiteral("      model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE"),
            QStringLiteral("  <unnamed node 8>"),
            QStringLiteral("  <unnamed node 9>"),
            QStringLiteral("    lost/.ATTRIBUTES/VARIABLE_VALUE"),
        };
        QCOMPARE(outline(t), expected);
        // Every entry's parent lists it, and a parent precedes its children.
        for (size_t i = 1; i < t.entries.size(); ++i) {
            const DisplayEntry& e = t.entries[i];
            QVERIFY(e.parent >= 0 && static_cast<size_t>(e.parent) < i);
            const auto& siblings = t.entries[static_cast<size_t>(e.parent)].children;
            QVERIFY(std::find(siblings.begin(), siblings.end(), static_cast<int32_t>(i)) != siblings.end());
        }
        // The slot row knows its variable and hides with the slot toggle.
        const auto slotRow =
            std::find_if(t.entries.begin(), t.entries.end(), [](const DisplayEntry& e) { return e.slotOf >= 0; });
        QVERIFY(slotRow != t.entries.end());
        QCOMPARE(slotRow->slotOf, 3);
        QCOMPARE(std::string(slotRow->localName), std::string("m"));
        QCOMPARE(slotRow->kind, DisplayKind::SlotVariable);
        QVERIFY(slotRow->underSlot && t.entries[static_cast<size_t>(slotRow->children[0])].underSlot);
        QVERIFY(slotRow->tensor);
        // Attribute rows carry the attribute and its tensor.
        const DisplayEntry& kernelValue = t.entries[4];
        QCOMPARE(kernelValue.kind, DisplayKind::Attribute);
        QCOMPARE(std::string(kernelValue.localName), std::string("VARIABLE_VALUE"));
        QVERIFY(kernelValue.attribute && kernelValue.tensor);

        DisplayTreeOptions noAliases;
        noAliases.aliases = false;
        const DisplayTree plain = buildDisplayTree(*ckpt, noAliases);
        QCOMPARE(plain.entries.size(), t.entries.size() - 2);
        for (const DisplayEntry& e : plain.entries) QVERIFY(e.kind != DisplayKind::Alias);
    }

    // A saveable of several tensors names only their key prefix in the
    // graph (a TF2 lookup table: "table/.ATTRIBUTES/table" for table-keys
    // and table-values): one attribute row per stored tensor, each named by
    // its key; an attribute with a longer key that is also a prefix keeps
    // its own tensor.
    void multiTensorAttributes() {
        Proto g;
        for (int i = 0; i < 2; ++i) g.add_nodes();
        addChild(g, 0, 1, "table");
        for (auto [name, key] :
             {std::pair{"table", "table/.ATTRIBUTES/table"}, std::pair{"table_2", "table/.ATTRIBUTES/table_2"}}) {
            auto* a = g.mutable_nodes(1)->add_attributes();
            a->set_name(name);
            a->set_checkpoint_key(key);
        }
        QTemporaryDir tmp;
        auto ckpt = writeAndOpen(tmp.path(), &g,
                                 {"table/.ATTRIBUTES/table-keys", "table/.ATTRIBUTES/table-values", "table/.ATTRIBUTES/table_2"});
        const DisplayTree t = buildDisplayTree(*ckpt);
        QCOMPARE(
            outline(t),
            (QStringList{QStringLiteral("(root)"), QStringLiteral("  table"), QStringLiteral("    table/.ATTRIBUTES/table-keys"),
                         QStringLiteral("    table/.ATTRIBUTES/table-values"), QStringLiteral("    table/.ATTRIBUTES/table_2")}));
        for (const DisplayEntry& e : t.entries) {
            if (e.kind != DisplayKind::Attribute) continue;
            QVERIFY(e.tensor);
            QCOMPARE(std::string_view(e.tensor->key), e.path);
            QVERIFY(e.attribute);
        }
    }

    void deepChainWithoutRecursion() {
        // 5,000 nested objects, built on a thread with a 128 KiB stack: a
        // recursive builder (a few hundred bytes a level) would overflow it.
        // (Deeper chains are bounded by the object graph's own naming cost.)
        constexpr int kDepth = 5000;
        Proto g;
        for (int i = 0; i <= kDepth; ++i) g.add_nodes();
        for (int i = 0; i < kDepth; ++i) addChild(g, i, i + 1, "c");
        addVariable(g, kDepth, "deep");
        QTemporaryDir tmp;
        auto ckpt = writeAndOpen(tmp.path(), &g, {"deep"});
        struct Job {
            const Checkpoint* ckpt;
            DisplayTree tree;
        } job{ckpt.get(), {}};
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 128 * 1024);
        pthread_t thread;
        QCOMPARE(pthread_create(
                     &thread, &attr,
                     [](void* p) -> void* {
                         auto* j = static_cast<Job*>(p);
                         j->tree = buildDisplayTree(*j->ckpt);
                         return nullptr;
                     },
                     &job),
                 0);
        pthread_join(thread, nullptr);
        pthread_attr_destroy(&attr);
        const DisplayTree& t = job.tree;
        QCOMPARE(t.entries.size(), size_t{kDepth + 2});
        QCOMPARE(t.entries.back().kind, DisplayKind::Attribute);
        QCOMPARE(t.entries.back().parent, kDepth);
    }

    void nameBasedKeys() {
        QTemporaryDir tmp;
        auto ckpt = writeAndOpen(tmp.path(), nullptr, {"a/b/c", "a/b/d", "a/e", "f"});
        const DisplayTree t = buildDisplayTree(*ckpt);
        QVERIFY(!t.objectBased);
        QCOMPARE(outline(t),
                 (QStringList{QStringLiteral("(keys)"), QStringLiteral("  a"), QStringLiteral("    b"), QStringLiteral("      c"),
                              QStringLiteral("      d"), QStringLiteral("    e"), QStringLiteral("  f")}));
        QCOMPARE(t.entries[1].kind, DisplayKind::KeyGroup);
        QCOMPARE(std::string(t.entries[2].path), std::string("a/b"));
        QCOMPARE(t.entries[3].kind, DisplayKind::Key);
        QCOMPARE(t.entries[3].tensor->key, std::string("a/b/c"));
    }
};

QTEST_GUILESS_MAIN(TstDisplayTree)
#include "tst_display_tree.moc"

// Object-graph decoding: TensorFlow's node names (first BFS path, slot
// variable names), kinds, escaping, and refusal of malformed graphs.

#include <QtTest>

#include "ckpt/object_graph.h"
#include "graph_proto.h"

using namespace ckpt;
using Proto = ckpt::testing::GraphProto;
using ckpt::testing::addChild;
using ckpt::testing::addVariable;

namespace {

// root -> model -> dense -> {kernel, bias}; root -> optimizer (slots m for kernel);
// root -> alias (a second edge to dense); dense -> back (a cycle to root).
Proto sampleGraph() {
    Proto g;
    for (int i = 0; i < 8; ++i) g.add_nodes();
    addChild(g, 0, 1, "model");
    addChild(g, 0, 4, "optimizer");
    addChild(g, 0, 2, "alias");
    addChild(g, 1, 2, "dense");
    addChild(g, 2, 3, "kernel");
    addChild(g, 2, 5, "bi.as/x");
    addChild(g, 2, 0, "back");
    addChild(g, 4, 7, "iter");
    addVariable(g, 3, "model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE");
    addVariable(g, 5, "model/dense/bi..as.Sx/.ATTRIBUTES/VARIABLE_VALUE");
    addVariable(g, 6, "model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE");
    addVariable(g, 7, "optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE");
    auto* slot = g.mutable_nodes(4)->add_slot_variables();
    slot->set_original_variable_node_id(3);
    slot->set_slot_name("m");
    slot->set_slot_variable_node_id(6);
    return g;
}

}  // namespace

class TstObjectGraph : public QObject {
    Q_OBJECT
private slots:
    void namesFollowFirstBfsPath() {
        auto g = ObjectGraph::parse(sampleGraph().SerializeAsString(), "test");
        QVERIFY2(g.ok(), g.status().toString().c_str());
        QCOMPARE(g->node(0).prettyPath.value(), std::string("(root)"));
        // 'alias' is a shorter path to node 2 than model.dense, so it names it.
        QCOMPARE(g->node(2).prettyPath.value(), std::string("(root).alias"));
        QCOMPARE(g->node(3).prettyPath.value(), std::string("(root).alias.kernel"));
        QCOMPARE(g->node(3).keyPath, std::string("alias/kernel"));
        QCOMPARE(g->node(5).prettyPath.value(), std::string("(root).alias.bi.as/x"));
        QCOMPARE(g->node(5).keyPath, std::string("alias/bi..as.Sx"));
        QCOMPARE(g->node(6).prettyPath.value(), std::string("(root).optimizer's state 'm' for (root).alias.kernel"));
        QCOMPARE(g->node(6).parentId, -1);
        QCOMPARE(g->node(2).parentId, 0);
    }

    void kinds() {
        auto g = ObjectGraph::parse(sampleGraph().SerializeAsString(), "test");
        QVERIFY(g.ok());
        QCOMPARE(g->node(0).kind, ObjectKind::Root);
        QCOMPARE(g->node(1).kind, ObjectKind::Object);
        QCOMPARE(g->node(3).kind, ObjectKind::Variable);
        QCOMPARE(g->node(4).kind, ObjectKind::Optimizer);
        QCOMPARE(g->node(6).kind, ObjectKind::SlotVariable);
        Proto replicated;
        replicated.add_nodes();
        replicated.add_nodes();
        addChild(replicated, 0, 1, "v");
        addVariable(replicated, 1, "v/.ATTRIBUTES/VARIABLE_VALUE");
        auto* a = replicated.mutable_nodes(1)->add_attributes();
        a->set_name("parallel_component_1");
        a->set_checkpoint_key("v/.ATTRIBUTES/parallel_component_1");
        auto r = ObjectGraph::parse(replicated.SerializeAsString(), "test");
        QVERIFY(r.ok());
        QCOMPARE(r->node(1).kind, ObjectKind::ReplicatedVariable);
    }

    void unreachableNodesHaveNoName() {
        Proto g = sampleGraph();
        g.add_nodes();  // node 8: nothing points at it
        auto parsed = ObjectGraph::parse(g.SerializeAsString(), "test");
        QVERIFY(parsed.ok());
        QVERIFY(!parsed->node(8).prettyPath);
        QCOMPARE(parsed->displayName(8), std::string("<unnamed node 8>"));
    }

    void escaping_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("escaped");
        QTest::newRow("plain") << QStringLiteral("kernel") << QStringLiteral("kernel");
        QTest::newRow("dot") << QStringLiteral("a.b") << QStringLiteral("a..b");
        QTest::newRow("slash") << QStringLiteral("a/b") << QStringLiteral("a.Sb");
        QTest::newRow("dot then slash") << QStringLiteral("x./y") << QStringLiteral("x...Sy");
    }
    void escaping() {
        QFETCH(QString, name);
        QFETCH(QString, escaped);
        QCOMPARE(QString::fromStdString(escapeLocalName(name.toStdString())), escaped);
        QCOMPARE(QString::fromStdString(unescapeLocalName(escaped.toStdString())), name);
    }

    void malformed_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("fragment");
        Proto badChild = sampleGraph();
        addChild(badChild, 1, 42, "ghost");
        Proto badSlot = sampleGraph();
        badSlot.mutable_nodes(4)->mutable_slot_variables(0)->set_slot_variable_node_id(99);
        Proto badOriginal = sampleGraph();
        badOriginal.mutable_nodes(4)->mutable_slot_variables(0)->set_original_variable_node_id(-1);
        QTest::newRow("child edge to missing node")
            << QByteArray::fromStdString(badChild.SerializeAsString()) << QStringLiteral("child edge to node 42");
        QTest::newRow("slot variable node missing")
            << QByteArray::fromStdString(badSlot.SerializeAsString()) << QStringLiteral("slot variable at node 99");
        QTest::newRow("slot for missing variable")
            << QByteArray::fromStdString(badOriginal.SerializeAsString()) << QStringLiteral("slot for node -1");
        QTest::newRow("garbage bytes") << QByteArray("\xff\xff\xff\xff", 4) << QStringLiteral("not a valid TrackableObjectGraph");
        QTest::newRow("no nodes") << QByteArray() << QStringLiteral("has no nodes");
    }
    void malformed() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, fragment);
        auto g = ObjectGraph::parse(bytes.toStdString(), "ckpt-1.data-00000-of-00001");
        QVERIFY(!g.ok());
        QCOMPARE(g.status().code(), StatusCode::DataLoss);
        QVERIFY2(g.status().message().find(fragment.toStdString()) != std::string::npos, g.status().toString().c_str());
        QVERIFY(g.status().message().find("ckpt-1.data-00000-of-00001") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TstObjectGraph)
#include "tst_object_graph.moc"

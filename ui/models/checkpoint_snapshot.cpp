#include "models/checkpoint_snapshot.h"

#include <string>
#include <unordered_map>

namespace ckpt::ui {
namespace {

EntryKind entryKindFor(ObjectKind kind) {
    switch (kind) {
    case ObjectKind::Root: return EntryKind::Root;
    case ObjectKind::Object: return EntryKind::Object;
    case ObjectKind::Variable: return EntryKind::Variable;
    case ObjectKind::ReplicatedVariable: return EntryKind::ReplicatedVariable;
    case ObjectKind::SlotVariable: return EntryKind::SlotVariable;
    case ObjectKind::Optimizer: return EntryKind::Optimizer;
    }
    return EntryKind::Object;
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

class GraphBuilder {
public:
    GraphBuilder(const Checkpoint& ckpt, std::vector<TreeEntry>& out) : m_ckpt(ckpt), m_graph(*ckpt.objectGraph()), m_out(out) {}

    void build() {
        m_placed.assign(static_cast<size_t>(m_graph.size()), false);
        const int32_t root = addNode(0, -1, QStringLiteral("(root)"), false);
        // Nodes TensorFlow cannot name still hold values; list them under the
        // root so nothing in the file is invisible.
        for (int32_t id = 1; id < m_graph.size(); ++id) {
            if (m_placed[static_cast<size_t>(id)]) continue;
            if (m_graph.node(id).kind == ObjectKind::SlotVariable) continue;
            addNode(id, root, qs(m_graph.displayName(id)), false);
        }
    }

private:
    int32_t append(TreeEntry e) {
        const auto index = static_cast<int32_t>(m_out.size());
        if (e.parent >= 0) m_out[static_cast<size_t>(e.parent)].children.push_back(index);
        m_out.push_back(std::move(e));
        return index;
    }

    int32_t addNode(int32_t id, int32_t parentEntry, QString name, bool slotRow) {
        m_placed[static_cast<size_t>(id)] = true;
        const ObjectNode& node = m_graph.node(id);
        TreeEntry e;
        e.kind = entryKindFor(node.kind);
        e.name = std::move(name);
        e.path = qs(m_graph.displayName(id));
        e.parent = parentEntry;
        e.nodeId = id;
        e.isSlotRow = slotRow;
        for (const ObjectAttribute& a : node.attributes)
            if (a.name == "VARIABLE_VALUE") e.tensor = m_ckpt.tensorForAttribute(a);
        const int32_t self = append(std::move(e));

        for (const ObjectAttribute& a : node.attributes) {
            TreeEntry attr;
            attr.kind = EntryKind::Attribute;
            // The key is what this toggle exists to show; the attribute name
            // (almost always VARIABLE_VALUE) is its last component anyway.
            attr.name = qs(a.checkpointKey);
            attr.path = attr.name;  // shared, not converted twice: 100k-key checkpoints feel this
            attr.parent = self;
            attr.tensor = m_ckpt.tensorForAttribute(a);
            attr.isKeyRow = true;
            attr.isSlotRow = slotRow;
            append(std::move(attr));
        }
        // Only first-BFS-parent edges: the graph may share objects and have
        // cycles, and TensorFlow names each node by that first path.
        for (const ObjectChild& c : node.children) {
            const ObjectNode& child = m_graph.node(c.nodeId);
            if (child.parentId != id || child.localName != c.localName || m_placed[static_cast<size_t>(c.nodeId)]) continue;
            addNode(c.nodeId, self, qs(c.localName), slotRow);
        }
        for (const SlotVariableRef& s : node.slotVariables) {
            if (m_placed[static_cast<size_t>(s.slotVariableNodeId)]) continue;
            const std::string& original = m_graph.node(s.originalVariableNodeId).keyPath;
            const QString label = qs(s.slotName) + QStringLiteral(" for ") +
                                  (original.empty() ? qs(m_graph.displayName(s.originalVariableNodeId)) : qs(original));
            addNode(s.slotVariableNodeId, self, label, true);
        }
        return self;
    }

    const Checkpoint& m_ckpt;
    const ObjectGraph& m_graph;
    std::vector<TreeEntry>& m_out;
    std::vector<bool> m_placed;
};

void buildKeyTree(const Checkpoint& ckpt, std::vector<TreeEntry>& out) {
    TreeEntry root;
    root.kind = EntryKind::Root;
    root.name = QStringLiteral("(keys)");
    out.push_back(root);
    // Keys are sorted, so a prefix's group is created before its members.
    std::unordered_map<std::string, int32_t> groups;
    for (const TensorInfo& t : ckpt.bundle().tensors()) {
        int32_t parent = 0;
        size_t start = 0;
        for (size_t slash = t.key.find('/'); slash != std::string::npos; slash = t.key.find('/', start)) {
            const std::string prefix = t.key.substr(0, slash);
            auto [it, inserted] = groups.try_emplace(prefix, static_cast<int32_t>(out.size()));
            if (inserted) {
                TreeEntry g;
                g.kind = EntryKind::KeyGroup;
                g.name = qs(t.key.substr(start, slash - start));
                g.path = qs(prefix);
                g.parent = parent;
                out[static_cast<size_t>(parent)].children.push_back(it->second);
                out.push_back(std::move(g));
            }
            parent = it->second;
            start = slash + 1;
        }
        TreeEntry leaf;
        leaf.kind = EntryKind::Key;
        leaf.name = qs(t.key.substr(start));
        leaf.path = qs(t.key);
        leaf.parent = parent;
        leaf.tensor = &t;
        out[static_cast<size_t>(parent)].children.push_back(static_cast<int32_t>(out.size()));
        out.push_back(std::move(leaf));
    }
}

} // namespace

std::shared_ptr<const CheckpointSnapshot> CheckpointSnapshot::build(std::shared_ptr<const Checkpoint> checkpoint) {
    auto snap = std::make_shared<CheckpointSnapshot>();
    snap->checkpoint = std::move(checkpoint);
    const Checkpoint& ckpt = *snap->checkpoint;
    for (const TensorInfo& t : ckpt.bundle().tensors()) snap->storedBytes += t.storedBytes();
    snap->tensorCount = static_cast<int64_t>(ckpt.bundle().tensors().size());
    if (ckpt.objectGraph())
        GraphBuilder(ckpt, snap->entries).build();
    else
        buildKeyTree(ckpt, snap->entries);
    return snap;
}

} // namespace ckpt::ui

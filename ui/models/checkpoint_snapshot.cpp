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

class GraphBuilder {
public:
    GraphBuilder(const Checkpoint& ckpt, CheckpointSnapshot& snap)
        : m_ckpt(ckpt), m_graph(*ckpt.objectGraph()), m_out(snap.entries), m_owned(snap.ownedText) {}

    void build() {
        m_placed.assign(static_cast<size_t>(m_graph.size()), false);
        const int32_t root = addNode(0, -1, "(root)", false);
        // Nodes TensorFlow cannot name still hold values; list them under the
        // root so nothing in the file is invisible.
        for (int32_t id = 1; id < m_graph.size(); ++id) {
            if (m_placed[static_cast<size_t>(id)]) continue;
            if (m_graph.node(id).kind == ObjectKind::SlotVariable) continue;
            addNode(id, root, own(m_graph.displayName(id)), false);
        }
    }

private:
    int32_t append(TreeEntry e) {
        const auto index = static_cast<int32_t>(m_out.size());
        if (e.parent >= 0) m_out[static_cast<size_t>(e.parent)].children.push_back(index);
        m_out.push_back(std::move(e));
        return index;
    }

    std::string_view own(std::string text) { return m_owned.emplace_back(std::move(text)); }

    int32_t addNode(int32_t id, int32_t parentEntry, std::string_view name, bool slotRow) {
        m_placed[static_cast<size_t>(id)] = true;
        const ObjectNode& node = m_graph.node(id);
        TreeEntry e;
        e.kind = entryKindFor(node.kind);
        e.name = name;
        e.path = node.prettyPath ? std::string_view(*node.prettyPath) : own(m_graph.displayName(id));
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
            attr.name = a.checkpointKey;
            attr.path = a.checkpointKey;
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
            addNode(c.nodeId, self, c.localName, slotRow);
        }
        for (const SlotVariableRef& s : node.slotVariables) {
            if (m_placed[static_cast<size_t>(s.slotVariableNodeId)]) continue;
            const std::string& original = m_graph.node(s.originalVariableNodeId).keyPath;
            addNode(s.slotVariableNodeId, self,
                    own(s.slotName + " for " + (original.empty() ? m_graph.displayName(s.originalVariableNodeId) : original)), true);
        }
        return self;
    }

    const Checkpoint& m_ckpt;
    const ObjectGraph& m_graph;
    std::vector<TreeEntry>& m_out;
    std::deque<std::string>& m_owned;
    std::vector<bool> m_placed;
};

void buildKeyTree(const Checkpoint& ckpt, std::vector<TreeEntry>& out) {
    TreeEntry root;
    root.kind = EntryKind::Root;
    root.name = "(keys)";
    out.push_back(root);
    // Keys are sorted, so a prefix's group is created before its members.
    std::unordered_map<std::string_view, int32_t> groups;
    for (const TensorInfo& t : ckpt.bundle().tensors()) {
        int32_t parent = 0;
        size_t start = 0;
        for (size_t slash = t.key.find('/'); slash != std::string::npos; slash = t.key.find('/', start)) {
            const std::string_view key = t.key;
            const std::string_view prefix = key.substr(0, slash);
            auto [it, inserted] = groups.try_emplace(prefix, static_cast<int32_t>(out.size()));
            if (inserted) {
                TreeEntry g;
                g.kind = EntryKind::KeyGroup;
                g.name = key.substr(start, slash - start);
                g.path = prefix;
                g.parent = parent;
                out[static_cast<size_t>(parent)].children.push_back(it->second);
                out.push_back(std::move(g));
            }
            parent = it->second;
            start = slash + 1;
        }
        TreeEntry leaf;
        leaf.kind = EntryKind::Key;
        leaf.name = std::string_view(t.key).substr(start);
        leaf.path = t.key;
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
        GraphBuilder(ckpt, *snap).build();
    else
        buildKeyTree(ckpt, snap->entries);
    return snap;
}

} // namespace ckpt::ui

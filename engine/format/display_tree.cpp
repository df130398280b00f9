#include "ckpt/display_tree.h"

#include <unordered_map>

#include "ckpt/tensor_info.h"

namespace ckpt {
namespace {

DisplayKind displayKindFor(ObjectKind kind) {
    switch (kind) {
    case ObjectKind::Root: return DisplayKind::Root;
    case ObjectKind::Object: return DisplayKind::Object;
    case ObjectKind::Variable: return DisplayKind::Variable;
    case ObjectKind::ReplicatedVariable: return DisplayKind::ReplicatedVariable;
    case ObjectKind::SlotVariable: return DisplayKind::SlotVariable;
    case ObjectKind::Optimizer: return DisplayKind::Optimizer;
    }
    return DisplayKind::Object;
}

class GraphTreeBuilder {
public:
    GraphTreeBuilder(const ObjectGraph& graph, std::span<const TensorInfo> tensors, const DisplayTreeOptions& options,
                     DisplayTree& out)
        : m_graph(graph), m_tensors(tensors), m_options(options), m_out(out) {}

    void build() {
        m_placed.assign(static_cast<size_t>(m_graph.size()), false);
        m_todo.push_back({0, -1, "(root)", "(root)", -1, false, false});
        drain();
        // Nodes TensorFlow cannot name still hold values: list them under
        // the root. Slot variables come with their optimizer, if at all.
        for (int32_t id = 1; id < m_graph.size(); ++id) {
            if (m_placed[static_cast<size_t>(id)] || m_graph.node(id).kind == ObjectKind::SlotVariable) continue;
            const std::string_view name = own(m_graph.displayName(id));
            m_todo.push_back({id, 0, name, name, -1, false, false});
            drain();
        }
    }

private:
    // One row still to emit: a node (with its subtree) or an alias.
    struct Pending {
        int32_t nodeId;
        int32_t parentEntry;
        std::string_view name;
        std::string_view localName;
        int32_t slotOf;
        bool underSlot;
        bool alias;
    };

    std::string_view own(std::string text) { return m_out.ownedText.emplace_back(std::move(text)); }

    std::string_view pathOf(int32_t id) {
        const ObjectNode& n = m_graph.node(id);
        return n.prettyPath ? std::string_view(*n.prettyPath) : own(m_graph.displayName(id));
    }

    int32_t append(DisplayEntry e) {
        const auto index = static_cast<int32_t>(m_out.entries.size());
        if (e.parent >= 0) m_out.entries[static_cast<size_t>(e.parent)].children.push_back(index);
        m_out.entries.push_back(std::move(e));
        return index;
    }

    void drain() {
        std::vector<Pending> next;
        while (!m_todo.empty()) {
            const Pending p = m_todo.back();
            m_todo.pop_back();
            // A node reached again (shared object, cycle) is an alias.
            if (p.alias || m_placed[static_cast<size_t>(p.nodeId)]) {
                if (m_options.aliases) append(rowFor(p, DisplayKind::Alias));
                continue;
            }
            const int32_t self = place(p);
            // Children in the order a tree shows them, then pushed reversed
            // so the first is emitted first.
            next.clear();
            const ObjectNode& node = m_graph.node(p.nodeId);
            for (const ObjectChild& c : node.children) {
                const ObjectNode& child = m_graph.node(c.nodeId);
                const bool namesChild = child.parentId == p.nodeId && child.localName == c.localName;
                next.push_back({c.nodeId, self, c.localName, c.localName, -1, p.underSlot, !namesChild});
            }
            for (const SlotVariableRef& s : node.slotVariables) {
                const std::string& original = m_graph.node(s.originalVariableNodeId).keyPath;
                const std::string_view label =
                    own(s.slotName + " for " + (original.empty() ? m_graph.displayName(s.originalVariableNodeId) : original));
                next.push_back({s.slotVariableNodeId, self, label, s.slotName, s.originalVariableNodeId, true, false});
            }
            m_todo.insert(m_todo.end(), next.rbegin(), next.rend());
        }
    }

    // The row of a pending node or alias.
    DisplayEntry rowFor(const Pending& p, DisplayKind kind) {
        DisplayEntry e;
        e.kind = kind;
        e.name = p.name;
        e.localName = p.localName;
        e.path = pathOf(p.nodeId);
        e.parent = p.parentEntry;
        e.nodeId = p.nodeId;
        e.slotOf = p.slotOf;
        e.underSlot = p.underSlot;
        return e;
    }

    int32_t place(const Pending& p) {
        m_placed[static_cast<size_t>(p.nodeId)] = true;
        const ObjectNode& node = m_graph.node(p.nodeId);
        DisplayEntry e = rowFor(p, displayKindFor(node.kind));
        for (const ObjectAttribute& a : node.attributes)
            if (a.name == kVariableValue) e.tensor = findKeyOrExtension(m_tensors, a.checkpointKey);
        const int32_t self = append(std::move(e));
        for (const ObjectAttribute& a : node.attributes) {
            DisplayEntry attr;
            attr.kind = DisplayKind::Attribute;
            attr.name = a.checkpointKey;
            attr.localName = a.name;
            attr.path = a.checkpointKey;
            attr.parent = self;
            attr.nodeId = p.nodeId;
            attr.tensor = findKeyOrExtension(m_tensors, a.checkpointKey);
            attr.attribute = &a;
            attr.underSlot = p.underSlot;
            append(std::move(attr));
        }
        return self;
    }

    const ObjectGraph& m_graph;
    std::span<const TensorInfo> m_tensors;
    const DisplayTreeOptions& m_options;
    DisplayTree& m_out;
    std::vector<bool> m_placed;
    std::vector<Pending> m_todo;
};

void buildKeyTree(std::span<const TensorInfo> tensors, DisplayTree& out) {
    DisplayEntry root;
    root.kind = DisplayKind::Root;
    root.name = root.localName = "(keys)";
    out.entries.push_back(root);
    // Keys are sorted, so a prefix's group is created before its members.
    std::unordered_map<std::string_view, int32_t> groups;
    auto append = [&](DisplayEntry e) {
        const auto index = static_cast<int32_t>(out.entries.size());
        out.entries[static_cast<size_t>(e.parent)].children.push_back(index);
        out.entries.push_back(std::move(e));
        return index;
    };
    for (const TensorInfo& t : tensors) {
        const std::string_view key = t.key;
        int32_t parent = 0;
        size_t start = 0;
        for (size_t slash = key.find('/'); slash != std::string_view::npos; slash = key.find('/', start)) {
            const std::string_view prefix = key.substr(0, slash);
            auto it = groups.find(prefix);
            if (it == groups.end()) {
                DisplayEntry g;
                g.kind = DisplayKind::KeyGroup;
                g.name = g.localName = key.substr(start, slash - start);
                g.path = prefix;
                g.parent = parent;
                it = groups.emplace(prefix, append(std::move(g))).first;
            }
            parent = it->second;
            start = slash + 1;
        }
        DisplayEntry leaf;
        leaf.kind = DisplayKind::Key;
        leaf.name = leaf.localName = key.substr(start);
        leaf.path = key;
        leaf.parent = parent;
        leaf.tensor = &t;
        append(std::move(leaf));
    }
}

}  // namespace

DisplayTree buildDisplayTree(const ObjectGraph* graph, std::span<const TensorInfo> tensors, const DisplayTreeOptions& options) {
    DisplayTree tree;
    tree.objectBased = graph != nullptr;
    if (tree.objectBased) GraphTreeBuilder(*graph, tensors, options, tree).build();
    else buildKeyTree(tensors, tree);
    return tree;
}

DisplayTree buildDisplayTree(const Checkpoint& checkpoint, const DisplayTreeOptions& options) {
    return buildDisplayTree(checkpoint.objectGraph(), checkpoint.bundle().tensors(), options);
}

}  // namespace ckpt

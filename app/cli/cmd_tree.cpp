// ckpt tree PATH [--json]: the object graph as an indented tree with each
// variable's checkpoint key, dtype and shape; name-based checkpoints as a
// tree of their '/'-separated keys.

#include <iostream>
#include <map>

#include "json_output.h"
#include "output.h"

namespace ckpt::cli {
namespace {

using nlohmann::json;

std::string describe(const TensorInfo* t) {
    if (!t) return "(missing from the bundle)";
    return std::string(dataTypeName(t->dtype)) + " " + t->shape.toString();
}

json attributeJson(const Checkpoint& ckpt, const ObjectAttribute& a) {
    const TensorInfo* t = ckpt.tensorForAttribute(a);
    json j = {{"name", a.name}, {"checkpoint_key", a.checkpointKey}};
    if (t) {
        j["dtype"] = std::string(dataTypeName(t->dtype));
        j["shape"] = t->shape.dims;
    }
    return j;
}

// Walks the BFS spanning tree (first path wins); later edges to an already
// named node are shown as aliases, slot variables under their optimizer.
class GraphPrinter {
public:
    GraphPrinter(const Checkpoint& ckpt, const ObjectGraph& g) : m_ckpt(ckpt), m_g(g) {}

    void print(int32_t id, const std::string& label, const std::string& indent, bool last, bool isRoot) {
        const ObjectNode& n = m_g.node(id);
        std::cout << (isRoot ? "" : indent + (last ? "└── " : "├── ")) << label;
        if (n.kind != ObjectKind::Object && n.kind != ObjectKind::Root) std::cout << "  [" << objectKindName(n.kind) << "]";
        std::cout << "\n";
        const std::string inner = isRoot ? "" : indent + (last ? "    " : "│   ");
        struct Line { std::string text; int32_t child; };
        std::vector<Line> lines;
        for (const ObjectAttribute& a : n.attributes)
            lines.push_back({"." + a.name + "  " + describe(m_ckpt.tensorForAttribute(a)) + "  <- " + a.checkpointKey, -1});
        for (const ObjectChild& c : n.children) {
            if (m_g.node(c.nodeId).parentId == id && m_g.node(c.nodeId).localName == c.localName)
                lines.push_back({c.localName, c.nodeId});
            else
                lines.push_back({c.localName + "  -> alias of " + m_g.displayName(c.nodeId), -1});
        }
        for (const SlotVariableRef& s : n.slotVariables)
            lines.push_back({"slot '" + s.slotName + "' for " + m_g.displayName(s.originalVariableNodeId), s.slotVariableNodeId});
        for (size_t i = 0; i < lines.size(); ++i) {
            const bool lastLine = i + 1 == lines.size();
            if (lines[i].child >= 0) print(lines[i].child, lines[i].text, inner, lastLine, false);
            else std::cout << inner << (lastLine ? "└── " : "├── ") << lines[i].text << "\n";
        }
    }

    json toJson(int32_t id, const std::string& name) const {
        const ObjectNode& n = m_g.node(id);
        json attributes = json::array();
        for (const ObjectAttribute& a : n.attributes) attributes.push_back(attributeJson(m_ckpt, a));
        json children = json::array();
        for (const ObjectChild& c : n.children) {
            if (m_g.node(c.nodeId).parentId == id && m_g.node(c.nodeId).localName == c.localName)
                children.push_back(toJson(c.nodeId, c.localName));
            else
                children.push_back({{"name", c.localName}, {"id", c.nodeId}, {"alias_of", m_g.displayName(c.nodeId)}});
        }
        json slots = json::array();
        for (const SlotVariableRef& s : n.slotVariables) {
            json slot = toJson(s.slotVariableNodeId, s.slotName);
            slot["original_variable"] = m_g.displayName(s.originalVariableNodeId);
            slots.push_back(slot);
        }
        return {{"name", name}, {"id", id}, {"path", m_g.displayName(id)}, {"kind", std::string(objectKindName(n.kind))},
                {"attributes", attributes}, {"children", children}, {"slot_variables", slots}};
    }

private:
    const Checkpoint& m_ckpt;
    const ObjectGraph& m_g;
};

// Name-based checkpoints: keys split on '/'.
struct KeyNode {
    std::map<std::string, KeyNode> children;
    const TensorInfo* tensor = nullptr;
};

void printKeyTree(const KeyNode& node, const std::string& indent) {
    size_t i = 0;
    for (const auto& [name, child] : node.children) {
        const bool last = ++i == node.children.size();
        std::cout << indent << (last ? "└── " : "├── ") << displayableString(name);
        if (child.tensor) std::cout << "  " << describe(child.tensor);
        std::cout << "\n";
        printKeyTree(child, indent + (last ? "    " : "│   "));
    }
}

json keyTreeJson(const KeyNode& node, const std::string& name) {
    json children = json::array();
    for (const auto& [childName, child] : node.children) children.push_back(keyTreeJson(child, childName));
    json j = {{"name", displayableString(name)}, {"children", children}};
    if (node.tensor) {
        j["key"] = displayableString(node.tensor->key);
        j["dtype"] = std::string(dataTypeName(node.tensor->dtype));
        j["shape"] = node.tensor->shape.dims;
    }
    return j;
}

} // namespace

void registerTree(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("tree", "Show the object graph as a tree (name-based checkpoints: their key tree)");
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("PATH", *path, "Checkpoint prefix, .index file, directory or SavedModel")->required();
    cmd->add_flag("--json", *json, "Machine-readable output (docs/cli.md)");
    cmd->callback([&ctx, path, json] {
        auto opened = Checkpoint::open(*path);
        if (!opened) {
            ctx.exitCode = reportError(opened.status(), *json);
            return;
        }
        const Checkpoint& ckpt = **opened;
        if (const ObjectGraph* g = ckpt.objectGraph()) {
            GraphPrinter printer(ckpt, *g);
            if (*json) printJson({{"prefix", ckpt.prefix()}, {"style", "object-based"}, {"root", printer.toJson(0, "(root)")}});
            else printer.print(0, "(root)", "", true, true);
            return;
        }
        KeyNode root;
        for (const TensorInfo& t : ckpt.bundle().tensors()) {
            KeyNode* node = &root;
            size_t start = 0;
            for (;;) {
                const size_t slash = t.key.find('/', start);
                node = &node->children[t.key.substr(start, slash == std::string::npos ? std::string::npos : slash - start)];
                if (slash == std::string::npos) break;
                start = slash + 1;
            }
            node->tensor = &t;
        }
        if (*json) {
            printJson({{"prefix", ckpt.prefix()}, {"style", "name-based"}, {"root", keyTreeJson(root, "")}});
            return;
        }
        std::cout << ckpt.prefix() << "  (name-based: no object graph; keys shown as a tree)\n";
        printKeyTree(root, "");
    });
}

} // namespace ckpt::cli

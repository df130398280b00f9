// ckpt tree PATH [--json]: the checkpoint's display tree (ckpt/display_tree.h,
// the same tree the explorer shows) as indented text or JSON: each variable's
// checkpoint key, dtype and shape, aliases and slot variables; name-based
// checkpoints as a tree of their '/'-separated keys.

#include <iostream>

#include "ckpt/display_tree.h"
#include "json_output.h"
#include "output.h"

namespace ckpt::cli {
namespace {

using nlohmann::json;

std::string describe(const TensorInfo* t) {
    if (!t) return "(missing from the bundle)";
    return std::string(dataTypeName(t->dtype)) + " " + t->shape.toString();
}

std::string text(std::string_view s) { return displayableString(std::string(s)); }

class TreePrinter {
public:
    TreePrinter(const Checkpoint& ckpt, const DisplayTree& tree) : m_ckpt(ckpt), m_tree(tree) {}

    // One line per entry, drawn with box characters; no recursion, so any
    // depth prints.
    void print() const {
        struct Item {
            int32_t entry;
            std::string indent;
            bool last;
        };
        std::vector<Item> todo{{0, "", true}};
        while (!todo.empty()) {
            const Item item = std::move(todo.back());
            todo.pop_back();
            const DisplayEntry& e = entry(item.entry);
            const bool isRoot = item.entry == 0;
            std::cout << (isRoot ? "" : item.indent + (item.last ? "└── " : "├── ")) << line(e) << "\n";
            const std::string inner = isRoot ? "" : item.indent + (item.last ? "    " : "│   ");
            for (size_t i = e.children.size(); i-- > 0;) todo.push_back({e.children[i], inner, i + 1 == e.children.size()});
        }
    }

    json toJson(int32_t index) const {
        const DisplayEntry& e = entry(index);
        if (!m_tree.objectBased) return keyJson(e);
        const ObjectNode& n = m_ckpt.objectGraph()->node(e.nodeId);
        json attributes = json::array(), children = json::array(), slots = json::array();
        for (int32_t c : e.children) {
            const DisplayEntry& child = entry(c);
            if (child.kind == DisplayKind::Attribute) attributes.push_back(attributeJson(child));
            else if (child.kind == DisplayKind::Alias)
                children.push_back({{"name", child.localName}, {"id", child.nodeId}, {"alias_of", child.path}});
            else if (child.slotOf >= 0) slots.push_back(toJson(c));
            else children.push_back(toJson(c));
        }
        json j = {{"name", e.localName},      {"id", e.nodeId},
                  {"path", e.path},           {"kind", std::string(objectKindName(n.kind))},
                  {"attributes", attributes}, {"children", children},
                  {"slot_variables", slots}};
        if (e.slotOf >= 0) j["original_variable"] = m_ckpt.objectGraph()->displayName(e.slotOf);
        return j;
    }

private:
    const DisplayEntry& entry(int32_t i) const { return m_tree.entries[static_cast<size_t>(i)]; }

    std::string line(const DisplayEntry& e) const {
        switch (e.kind) {
        case DisplayKind::Attribute: return "." + std::string(e.localName) + "  " + describe(e.tensor) + "  <- " + text(e.path);
        case DisplayKind::Alias: return text(e.localName) + "  -> alias of " + text(e.path);
        case DisplayKind::KeyGroup: return text(e.name);
        case DisplayKind::Key: return text(e.name) + "  " + describe(e.tensor);
        case DisplayKind::Root:
            return m_tree.objectBased ? std::string("(root)")
                                      : m_ckpt.prefix() + "  (name-based: no object graph; keys shown as a tree)";
        default: break;
        }
        const ObjectGraph& g = *m_ckpt.objectGraph();
        std::string out = e.slotOf >= 0 ? "slot '" + text(e.localName) + "' for " + g.displayName(e.slotOf) : text(e.name);
        const ObjectKind kind = g.node(e.nodeId).kind;
        if (kind != ObjectKind::Object && kind != ObjectKind::Root) out += "  [" + std::string(objectKindName(kind)) + "]";
        return out;
    }

    json attributeJson(const DisplayEntry& e) const {
        json j = {{"name", e.localName}, {"checkpoint_key", e.path}};
        if (e.tensor) {
            j["dtype"] = std::string(dataTypeName(e.tensor->dtype));
            j["shape"] = e.tensor->shape.dims;
        }
        return j;
    }

    json keyJson(const DisplayEntry& e) const {
        json children = json::array();
        for (int32_t c : e.children) children.push_back(keyJson(entry(c)));
        json j = {{"name", e.kind == DisplayKind::Root ? std::string() : text(e.name)}, {"children", children}};
        if (e.tensor) {
            j["key"] = text(e.tensor->key);
            j["dtype"] = std::string(dataTypeName(e.tensor->dtype));
            j["shape"] = e.tensor->shape.dims;
        }
        return j;
    }

    const Checkpoint& m_ckpt;
    const DisplayTree& m_tree;
};

}  // namespace

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
        const DisplayTree tree = buildDisplayTree(ckpt);
        const TreePrinter printer(ckpt, tree);
        if (!*json) return printer.print();
        printJson({{"prefix", ckpt.prefix()},
                   {"style", tree.objectBased ? "object-based" : "name-based"},
                   {"root", printer.toJson(0)}});
    });
}

}  // namespace ckpt::cli

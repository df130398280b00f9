// ckpt tree PATH [--json]: the checkpoint's display tree (ckpt/display_tree.h,
// the same tree the explorer shows) as indented text or JSON: each variable's
// checkpoint key, dtype and shape, aliases and slot variables; name-based
// checkpoints as a tree of their '/'-separated keys.
//
// Output stays linear in the tree's size however deep it nests (issue #29,
// finding 8: a 50,000-deep chain printed 5 GB when every line was indented
// once per level). Text indentation stops growing at kDrawnLevels: deeper
// rows are drawn flat at that column, their depth in front ("[depth 33]").
// JSON keeps its nesting, written without recursion, and its indentation
// stops growing at kJsonIndent spaces.

#include <iostream>

#include "ckpt/display_tree.h"
#include "json_output.h"
#include "output.h"

namespace ckpt::cli {
namespace {

using nlohmann::json;

constexpr int32_t kDrawnLevels = 32;
constexpr int kJsonIndent = 32;

std::string describe(const TensorInfo* t) {
    if (!t) return "(missing from the bundle)";
    return std::string(dataTypeName(t->dtype)) + " " + t->shape.toString();
}

std::string text(std::string_view s) { return displayableString(std::string(s)); }

// nlohmann's pretty-printed layout (one space per level, as printJson
// writes), produced piece by piece so that nothing recurses per tree level.
class JsonStream {
public:
    explicit JsonStream(std::ostream& out) : m_out(out) {}
    void open(char bracket) {
        m_out << bracket;
        m_first.push_back(true);
    }
    void close(char bracket) {
        const bool empty = m_first.back();
        m_first.pop_back();
        if (!empty) newline();
        m_out << bracket;
    }
    // Before a member of the innermost object.
    void key(std::string_view name) {
        item();
        m_out << json(std::string(name)).dump() << ": ";
    }
    // Before an element of the innermost array.
    void item() {
        if (!m_first.back()) m_out << ',';
        m_first.back() = false;
        newline();
    }
    // A whole value, laid out as printJson would at this depth.
    void value(const json& j) {
        const std::string dumped = j.dump(1, ' ', false, json::error_handler_t::replace);
        const std::string pad(static_cast<size_t>(indent()), ' ');
        for (char c : dumped) {
            m_out << c;
            if (c == '\n') m_out << pad;
        }
    }

private:
    int indent() const { return std::min<int>(static_cast<int>(m_first.size()), kJsonIndent); }
    void newline() { m_out << '\n' << std::string(static_cast<size_t>(indent()), ' '); }
    std::ostream& m_out;
    std::vector<bool> m_first;  // per open container: nothing written in it yet
};

class TreePrinter {
public:
    TreePrinter(const Checkpoint& ckpt, const DisplayTree& tree) : m_ckpt(ckpt), m_tree(tree) {}

    // One line per entry, drawn with box characters, without recursion.
    void print() const {
        struct Item {
            int32_t entry;
            int32_t depth;
            bool last;
        };
        // lastAt[d]: the entry drawn last at depth d (d < kDrawnLevels) was its parent's last child.
        std::vector<bool> lastAt(static_cast<size_t>(kDrawnLevels), true);
        std::vector<Item> todo{{0, 0, true}};
        std::string line;
        while (!todo.empty()) {
            const Item item = todo.back();
            todo.pop_back();
            const DisplayEntry& e = entry(item.entry);
            line.clear();
            if (item.depth > 0) {
                const int32_t column = std::min(item.depth, kDrawnLevels);
                for (int32_t d = 1; d < column; ++d) line += lastAt[static_cast<size_t>(d)] ? "    " : "│   ";
                line += item.last ? "└── " : "├── ";
                if (item.depth > kDrawnLevels) line += "[depth " + std::to_string(item.depth) + "] ";
                if (item.depth < kDrawnLevels) lastAt[static_cast<size_t>(item.depth)] = item.last;
            }
            std::cout << line << label(e) << "\n";
            for (size_t i = e.children.size(); i-- > 0;)
                todo.push_back({e.children[i], item.depth + 1, i + 1 == e.children.size()});
        }
    }

    void printJson() const {
        JsonStream out(std::cout);
        out.open('{');
        out.key("prefix");
        out.value(m_ckpt.prefix());
        out.key("root");
        if (m_tree.objectBased) objectJson(out);
        else keyJson(out);
        out.key("style");
        out.value(m_tree.objectBased ? "object-based" : "name-based");
        out.close('}');
        std::cout << "\n";
    }

private:
    const DisplayEntry& entry(int32_t i) const { return m_tree.entries[static_cast<size_t>(i)]; }

    std::string label(const DisplayEntry& e) const {
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

    // NODE = {"attributes", "children", "id", "kind", "name",
    // ["original_variable"], "path", "slot_variables"}, keys in the order
    // printJson sorts them, nested through an explicit stack.
    void objectJson(JsonStream& out) const {
        enum class Phase { Children, Slots };
        struct Frame {
            int32_t entry;
            Phase phase = Phase::Children;
            size_t next = 0;  // the next of the entry's children to look at
        };
        std::vector<Frame> stack;
        auto openNode = [&](int32_t index) {
            const DisplayEntry& e = entry(index);
            out.open('{');
            json attributes = json::array();
            for (int32_t c : e.children)
                if (entry(c).kind == DisplayKind::Attribute) attributes.push_back(attributeJson(entry(c)));
            out.key("attributes");
            out.value(attributes);
            out.key("children");
            out.open('[');
            stack.push_back({index});
        };
        openNode(0);
        while (!stack.empty()) {
            Frame& f = stack.back();
            const DisplayEntry& e = entry(f.entry);
            bool descended = false;
            // 'descended' first: openNode() grows the stack, and 'f' may
            // then refer to freed memory.
            while (!descended && f.next < e.children.size()) {
                const int32_t c = e.children[f.next++];
                const DisplayEntry& child = entry(c);
                if (child.kind == DisplayKind::Attribute) continue;
                const bool isSlot = child.kind != DisplayKind::Alias && child.slotOf >= 0;
                if (isSlot != (f.phase == Phase::Slots)) continue;
                out.item();
                if (child.kind == DisplayKind::Alias) {
                    out.value({{"name", child.localName}, {"id", child.nodeId}, {"alias_of", child.path}});
                    continue;
                }
                openNode(c);
                descended = true;
            }
            if (descended) continue;
            out.close(']');
            if (f.phase == Phase::Children) {
                const ObjectNode& n = m_ckpt.objectGraph()->node(e.nodeId);
                out.key("id");
                out.value(e.nodeId);
                out.key("kind");
                out.value(std::string(objectKindName(n.kind)));
                out.key("name");
                out.value(e.localName);
                if (e.slotOf >= 0) {
                    out.key("original_variable");
                    out.value(m_ckpt.objectGraph()->displayName(e.slotOf));
                }
                out.key("path");
                out.value(e.path);
                out.key("slot_variables");
                out.open('[');
                f.phase = Phase::Slots;
                f.next = 0;
                continue;
            }
            out.close('}');
            stack.pop_back();
        }
    }

    json attributeJson(const DisplayEntry& e) const {
        json j = {{"name", e.localName}, {"checkpoint_key", e.path}};
        if (e.tensor) {
            j["dtype"] = std::string(dataTypeName(e.tensor->dtype));
            j["shape"] = e.tensor->shape.dims;
        }
        return j;
    }

    // {"children", ["dtype", "key"], "name", ["shape"]}, keys sorted.
    void keyJson(JsonStream& out) const {
        struct Frame {
            int32_t entry;
            size_t next = 0;
        };
        std::vector<Frame> stack;
        auto openKey = [&](int32_t index) {
            out.open('{');
            out.key("children");
            out.open('[');
            stack.push_back({index});
        };
        openKey(0);
        while (!stack.empty()) {
            Frame& f = stack.back();
            const DisplayEntry& e = entry(f.entry);
            if (f.next < e.children.size()) {
                out.item();
                openKey(e.children[f.next++]);
                continue;
            }
            out.close(']');
            if (e.tensor) {
                out.key("dtype");
                out.value(std::string(dataTypeName(e.tensor->dtype)));
                out.key("key");
                out.value(text(e.tensor->key));
            }
            out.key("name");
            out.value(e.kind == DisplayKind::Root ? std::string() : text(e.name));
            if (e.tensor) {
                out.key("shape");
                out.value(e.tensor->shape.dims);
            }
            out.close('}');
            stack.pop_back();
        }
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
        if (*json) printer.printJson();
        else printer.print();
    });
}

}  // namespace ckpt::cli

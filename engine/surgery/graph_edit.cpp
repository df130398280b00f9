#include "surgery/graph_edit.h"

#include <algorithm>
#include <deque>
#include <set>

#include "format/ordered_code.h"
#include "pipeline/save_graph.h"

namespace ckpt::surgery {
namespace {

using Proto = tensorflow::TrackableObjectGraph;

// A user's path as local names: "a/b" is key form (escaped names), else the
// tree's dotted form; "(root)" and a leading "(root)." are the root.
std::vector<std::string> splitPath(std::string_view path) {
    if (path.starts_with("(root).")) path.remove_prefix(7);
    else if (path == "(root)") path = {};
    std::vector<std::string> parts;
    if (path.empty()) return parts;
    const bool keyForm = path.find('/') != std::string_view::npos;
    const char sep = keyForm ? '/' : '.';
    size_t start = 0;
    while (true) {
        const size_t end = path.find(sep, start);
        const std::string_view part = path.substr(start, end == std::string_view::npos ? path.npos : end - start);
        parts.push_back(keyForm ? unescapeLocalName(part) : std::string(part));
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return parts;
}

// Slot node id -> (optimizer, variable, slot name), for the key prefixes.
struct SlotOwner {
    int32_t optimizer = -1;
    int32_t variable = -1;
    std::string name;
};
std::map<int32_t, SlotOwner> slotOwners(const ObjectGraph& graph) {
    std::map<int32_t, SlotOwner> out;
    for (const ObjectNode& n : graph.nodes())
        for (const SlotVariableRef& s : n.slotVariables)
            out.try_emplace(s.slotVariableNodeId, SlotOwner{n.id, s.originalVariableNodeId, s.slotName});
    return out;
}

// The prefix TensorFlow derives a node's attribute keys from.
std::string keyPrefix(const ObjectGraph& graph, const std::map<int32_t, SlotOwner>& slots, int32_t id) {
    auto it = slots.find(id);
    if (it == slots.end()) return graph.node(id).keyPath;
    const std::string& variable = graph.node(it->second.variable).keyPath;
    const std::string& optimizer = graph.node(it->second.optimizer).keyPath;
    if (variable.empty() || optimizer.empty()) return {};
    return slotKeyPath(variable, optimizer, it->second.name);
}

}  // namespace

Status checkRenameTarget(std::string_view target) {
    auto refuse = [&](const std::string& why) {
        return invalidArgument("rename target " + format::printableKey(target) + " " + why +
                               " (names are object paths, not file paths)");
    };
    for (const char c : target)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return refuse("holds a control character");
    if (target.starts_with('/')) return refuse("starts with '/'");
    std::string_view rest = target;
    if (rest.starts_with("(root).")) rest.remove_prefix(7);
    const bool keyForm = rest.find('/') != std::string_view::npos;
    const char sep = keyForm ? '/' : '.';
    for (size_t start = 0;;) {
        const size_t end = rest.find(sep, start);
        const std::string_view part = rest.substr(start, end == std::string_view::npos ? rest.npos : end - start);
        if (part.empty()) return refuse("has an empty name in it");
        if (part == "." || part == "..") return refuse("has a \"" + std::string(part) + "\" component");
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return okStatus();
}

std::optional<std::string> rekey(std::string_view key, std::string_view oldPrefix, std::string_view newPrefix) {
    if (oldPrefix.empty() || !key.starts_with(oldPrefix)) return std::nullopt;
    if (key.size() != oldPrefix.size() && key[oldPrefix.size()] != '/') return std::nullopt;
    return std::string(newPrefix) + std::string(key.substr(oldPrefix.size()));
}

Result<GraphEdit> GraphEdit::parse(std::string_view serialized, std::string source) {
    GraphEdit edit;
    CKPT_ASSIGN_OR_RETURN(edit.m_original, ObjectGraph::parse(serialized, source));
    if (!edit.m_proto.ParseFromArray(serialized.data(), static_cast<int>(serialized.size())))
        return dataLoss(std::string(kObjectGraphKey) + " in " + source + " is not a valid TrackableObjectGraph");
    edit.m_source = std::move(source);
    for (const ObjectNode& n : edit.m_original.nodes()) {
        if (n.prettyPath) edit.m_byPath.emplace(*n.prettyPath, n.id);
        if (!n.keyPath.empty()) edit.m_byPath.emplace(n.keyPath, n.id);
    }
    return edit;
}

Result<int32_t> GraphEdit::resolve(std::string_view path) const {
    if (path == "(root)" || path.empty()) return 0;
    for (const std::string& candidate : {std::string(path), "(root)." + std::string(path)}) {
        auto it = m_byPath.find(candidate);
        if (it != m_byPath.end()) return it->second;
    }
    CKPT_ASSIGN_OR_RETURN(const Edge edge, edgeFor(path));
    return edge.node;
}

Result<GraphEdit::Edge> GraphEdit::edgeFor(std::string_view path) const {
    auto known = m_byPath.find(path);
    if (known == m_byPath.end()) known = m_byPath.find("(root)." + std::string(path));
    if (known != m_byPath.end()) {
        const ObjectNode& n = m_original.node(known->second);
        if (n.parentId >= 0) return Edge{n.parentId, n.localName, n.id};
    }
    // A further edge to an object named elsewhere (an alias): walk the names.
    const std::vector<std::string> parts = splitPath(path);
    Edge edge{-1, {}, 0};
    for (const std::string& part : parts) {
        const auto& children = m_original.node(edge.node).children;
        auto it = std::find_if(children.begin(), children.end(), [&](const ObjectChild& c) { return c.localName == part; });
        if (it == children.end()) {
            edge.parent = -1;
            break;
        }
        edge = Edge{edge.node, part, it->nodeId};
    }
    if (edge.parent < 0)
        return invalidArgument("no object \"" + std::string(path) + "\" in " + m_source +
                               " (paths read as the tree shows them, e.g. (root).model.dense, or as keys, model/dense)");
    return edge;
}

std::string GraphEdit::describe(std::string_view path) const {
    auto edge = edgeFor(path);
    if (!edge.ok()) return std::string(path);
    const ObjectNode& n = m_original.node(edge->node);
    if (n.parentId == edge->parent && n.localName == edge->name) return m_original.displayName(edge->node);
    return m_original.displayName(edge->parent) + "." + edge->name + " (an alias of " + m_original.displayName(edge->node) + ")";
}

Status GraphEdit::cutEdge(const Edge& edge, const std::string& renameTo) {
    auto* from = m_proto.mutable_nodes(edge.parent)->mutable_children();
    auto it = std::find_if(from->begin(), from->end(),
                           [&](const auto& c) { return c.node_id() == edge.node && c.local_name() == edge.name; });
    if (it == from->end())
        return invalidArgument(m_original.displayName(edge.parent) + "." + edge.name +
                               " was already renamed or deleted by this edit");
    if (renameTo.empty()) from->erase(it);
    else it->set_local_name(renameTo);
    return okStatus();
}

int32_t GraphEdit::childNamed(int32_t node, std::string_view localName) const {
    for (const auto& c : m_proto.nodes(node).children())
        if (c.local_name() == localName) return c.node_id();
    return -1;
}

Result<std::pair<int32_t, std::string>> GraphEdit::parentForNew(std::string_view newPath) {
    std::vector<std::string> parts = splitPath(newPath);
    if (parts.empty()) return invalidArgument("\"" + std::string(newPath) + "\" names the root, which cannot be a new name");
    for (const std::string& p : parts)
        if (p.empty()) return invalidArgument("\"" + std::string(newPath) + "\" has an empty name in it");
    int32_t node = 0;
    std::string path = "(root)";
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        path += "." + parts[i];
        int32_t next = childNamed(node, parts[i]);
        if (next < 0) {
            // A missing parent becomes a plain object, as when a refactor
            // wraps layers in a new block.
            next = m_proto.nodes_size();
            m_proto.add_nodes();
            auto* edge = m_proto.mutable_nodes(node)->add_children();
            edge->set_node_id(next);
            edge->set_local_name(parts[i]);
            m_created.emplace(path, next);
        }
        node = next;
    }
    return std::pair(node, parts.back());
}

Status GraphEdit::rename(std::string_view oldPath, std::string_view newPath) {
    CKPT_ASSIGN_OR_RETURN(const int32_t id, resolve(oldPath));
    const ObjectNode& node = m_original.node(id);
    if (id == 0) return invalidArgument("the root of " + m_source + " cannot be renamed");
    if (node.kind == ObjectKind::SlotVariable)
        return invalidArgument(m_original.displayName(id) +
                               " is named by its optimizer and variable; rename one of those instead");
    CKPT_ASSIGN_OR_RETURN(const Edge edge, edgeFor(oldPath));
    const std::string target = std::string(newPath);
    if (std::find(m_newTargets.begin(), m_newTargets.end(), target) != m_newTargets.end())
        return invalidArgument("two renames name the same target \"" + target + "\"");
    // The target must not exist, counting what earlier edits made.
    if (resolve(newPath).ok())
        return invalidArgument("cannot rename " + m_original.displayName(id) + " to \"" + target + "\": it exists in " +
                               m_source);
    CKPT_ASSIGN_OR_RETURN(auto parent, parentForNew(newPath));
    if (childNamed(parent.first, parent.second) >= 0)
        return invalidArgument("cannot rename " + m_original.displayName(id) + " to \"" + target +
                               "\": an earlier edit already put an object there");
    // Moving an object under itself would cut it off from the root.
    for (int32_t up = parent.first; up >= 0 && up < m_original.size(); up = m_original.node(up).parentId)
        if (up == id) return invalidArgument("cannot move " + m_original.displayName(id) + " inside itself");
    for (const auto& [path, created] : m_created)
        if (created == parent.first && node.prettyPath && path.starts_with(*node.prettyPath + "."))
            return invalidArgument("cannot move " + m_original.displayName(id) + " inside itself");
    if (parent.first == edge.parent) {
        CKPT_RETURN_IF_ERROR(cutEdge(edge, parent.second));
    } else {
        CKPT_RETURN_IF_ERROR(cutEdge(edge, {}));
        auto* added = m_proto.mutable_nodes(parent.first)->add_children();
        added->set_node_id(id);
        added->set_local_name(parent.second);
    }
    m_newTargets.push_back(target);
    return okStatus();
}

Status GraphEdit::remove(std::string_view path) {
    CKPT_ASSIGN_OR_RETURN(const int32_t id, resolve(path));
    if (id == 0) return invalidArgument("the root of " + m_source + " cannot be deleted");
    const ObjectNode& node = m_original.node(id);
    if (node.kind == ObjectKind::SlotVariable) {
        for (auto& n : *m_proto.mutable_nodes()) {
            auto* refs = n.mutable_slot_variables();
            refs->erase(
                std::remove_if(refs->begin(), refs->end(), [&](const auto& s) { return s.slot_variable_node_id() == id; }),
                refs->end());
        }
        return okStatus();
    }
    CKPT_ASSIGN_OR_RETURN(const Edge edge, edgeFor(path));
    return cutEdge(edge, {});
}

Result<std::vector<std::string>> GraphEdit::stripOptimizers() {
    std::set<int32_t> optimizers;
    bool slots = false;
    for (const ObjectNode& n : m_original.nodes()) {
        if (n.kind == ObjectKind::Optimizer) optimizers.insert(n.id);
        slots |= !n.slotVariables.empty();
    }
    if (optimizers.empty() && !slots) return notFound(m_source + " has no optimizer state to strip");
    for (auto& n : *m_proto.mutable_nodes()) {
        auto* children = n.mutable_children();
        children->erase(
            std::remove_if(children->begin(), children->end(), [&](const auto& c) { return optimizers.count(c.node_id()) > 0; }),
            children->end());
        n.clear_slot_variables();
    }
    std::vector<std::string> names;
    for (int32_t id : optimizers) names.push_back(m_original.displayName(id));
    return names;
}

std::vector<bool> GraphEdit::reachable() const {
    const auto count = static_cast<size_t>(m_proto.nodes_size());
    std::vector<bool> seen(count, false);
    std::deque<int32_t> todo{0};
    seen[0] = true;
    // Slot variables hang off their optimizer only while their variable is
    // kept: repeat until no slot adds anything.
    for (bool grew = true; grew;) {
        grew = false;
        while (!todo.empty()) {
            const int32_t id = todo.front();
            todo.pop_front();
            for (const auto& c : m_proto.nodes(id).children()) {
                const auto child = static_cast<size_t>(c.node_id());
                if (child < count && !seen[child]) seen[child] = true, todo.push_back(c.node_id());
            }
        }
        for (size_t id = 0; id < count; ++id) {
            if (!seen[id]) continue;
            for (const auto& s : m_proto.nodes(static_cast<int>(id)).slot_variables()) {
                const auto slot = static_cast<size_t>(s.slot_variable_node_id());
                const auto variable = static_cast<size_t>(s.original_variable_node_id());
                if (slot < count && variable < count && seen[variable] && !seen[slot])
                    seen[slot] = true, todo.push_back(s.slot_variable_node_id()), grew = true;
            }
        }
    }
    return seen;
}

std::vector<std::string> GraphEdit::danglingReferences(bool drop) {
    const std::vector<bool> kept = reachable();
    std::vector<std::string> out;
    for (int id = 0; id < m_proto.nodes_size(); ++id) {
        if (!kept[static_cast<size_t>(id)]) continue;
        auto* refs = m_proto.mutable_nodes(id)->mutable_slot_variables();
        for (auto it = refs->begin(); it != refs->end();) {
            const int32_t variable = it->original_variable_node_id();
            if (kept[static_cast<size_t>(variable)]) {
                ++it;
                continue;
            }
            out.push_back(m_original.displayName(it->slot_variable_node_id()) + " refers to " + m_original.displayName(variable) +
                          ", which the edit deletes");
            it = drop ? refs->erase(it) : it + 1;
        }
    }
    return out;
}

Result<GraphEdit::Finished> GraphEdit::finish() {
    if (std::vector<std::string> left = danglingReferences(false); !left.empty())
        return failedPrecondition("the edit would leave dangling references in " + m_source + ": " + left.front());
    const std::vector<bool> kept = reachable();
    const int count = m_proto.nodes_size();
    std::vector<int32_t> newId(static_cast<size_t>(count), -1);
    int32_t next = 0;
    for (int id = 0; id < count; ++id)
        if (kept[static_cast<size_t>(id)]) newId[static_cast<size_t>(id)] = next++;
    Proto out;
    for (int id = 0; id < count; ++id) {
        if (!kept[static_cast<size_t>(id)]) continue;
        auto* node = out.add_nodes();
        *node = m_proto.nodes(id);
        for (auto& c : *node->mutable_children()) c.set_node_id(newId[static_cast<size_t>(c.node_id())]);
        for (auto& s : *node->mutable_slot_variables()) {
            s.set_original_variable_node_id(newId[static_cast<size_t>(s.original_variable_node_id())]);
            s.set_slot_variable_node_id(newId[static_cast<size_t>(s.slot_variable_node_id())]);
        }
    }
    pipeline::markCheckpointValues(out);
    std::string serialized;
    out.SerializeToString(&serialized);
    CKPT_ASSIGN_OR_RETURN(ObjectGraph shaped, ObjectGraph::parse(serialized, "the edited graph of " + m_source));

    // Keys follow their node's new path.
    Finished done;
    const auto oldSlots = slotOwners(m_original);
    const auto newSlots = slotOwners(shaped);
    std::set<std::string> newKeys;
    for (int id = 0; id < std::min(count, m_original.size()); ++id) {
        const int32_t to = newId[static_cast<size_t>(id)];
        if (to < 0) continue;
        const std::string oldPrefix = keyPrefix(m_original, oldSlots, id);
        const std::string newPrefix = keyPrefix(shaped, newSlots, to);
        for (auto& a : *out.mutable_nodes(to)->mutable_attributes()) {
            const std::string key = a.checkpoint_key();
            std::string moved = rekey(key, oldPrefix, newPrefix).value_or(key);
            if (!newKeys.insert(moved).second)
                return invalidArgument("the edit gives two tensors of " + m_source + " the key \"" + moved + "\"");
            a.set_checkpoint_key(moved);
            done.keyMap.emplace(key, std::move(moved));
        }
    }
    out.SerializeToString(&done.serialized);
    CKPT_ASSIGN_OR_RETURN(done.graph, ObjectGraph::parse(done.serialized, "the edited graph of " + m_source));
    for (int id = 1; id < m_original.size(); ++id) {
        if (kept[static_cast<size_t>(id)]) continue;
        const ObjectNode& n = m_original.node(id);
        if (n.kind == ObjectKind::SlotVariable) ++done.removedSlots;
        else if (n.parentId < 0) ++done.removedUnreachable;
        else if (kept[static_cast<size_t>(n.parentId)]) done.removedPaths.push_back(m_original.displayName(id));
        else ++done.removedBelow;
    }
    return done;
}

Result<std::string> mergeObjectGraphs(const std::vector<std::pair<std::string, std::string>>& sourceAndGraph,
                                      std::vector<std::string>& notes) {
    Proto merged;
    merged.add_nodes();  // the root
    for (const auto& [source, serialized] : sourceAndGraph) {
        CKPT_ASSIGN_OR_RETURN(const ObjectGraph graph, ObjectGraph::parse(serialized, source));
        Proto proto;
        if (!proto.ParseFromArray(serialized.data(), static_cast<int>(serialized.size())))
            return dataLoss(std::string(kObjectGraphKey) + " in " + source + " is not a valid TrackableObjectGraph");
        std::vector<int32_t> to(static_cast<size_t>(graph.size()), -1);
        auto newNode = [&](int32_t from) {
            to[static_cast<size_t>(from)] = merged.nodes_size();
            merged.add_nodes();
        };
        auto childOf = [&](int32_t node, const std::string& name) {
            for (const auto& c : merged.nodes(node).children())
                if (c.local_name() == name) return c.node_id();
            return -1;
        };
        // Objects: the same path from the root is the same object.
        to[0] = 0;
        std::deque<int32_t> todo{0};
        while (!todo.empty()) {
            const int32_t id = todo.front();
            todo.pop_front();
            const int32_t at = to[static_cast<size_t>(id)];
            for (const ObjectChild& c : graph.node(id).children) {
                const int32_t existing = childOf(at, c.localName);
                int32_t& target = to[static_cast<size_t>(c.nodeId)];
                const bool first = target < 0;
                if (existing >= 0) {
                    if (first) target = existing;
                } else {
                    if (first) newNode(c.nodeId);
                    auto* edge = merged.mutable_nodes(at)->add_children();
                    edge->set_node_id(target);
                    edge->set_local_name(c.localName);
                }
                if (first) todo.push_back(c.nodeId);
            }
        }
        // Slot variables: the same slot of the same variable and optimizer.
        for (const ObjectNode& n : graph.nodes()) {
            const int32_t optimizer = to[static_cast<size_t>(n.id)];
            if (optimizer < 0) continue;
            for (const SlotVariableRef& s : n.slotVariables) {
                const int32_t variable = to[static_cast<size_t>(s.originalVariableNodeId)];
                int32_t& slot = to[static_cast<size_t>(s.slotVariableNodeId)];
                if (variable < 0) continue;
                int32_t existing = -1;
                for (const auto& r : merged.nodes(optimizer).slot_variables())
                    if (r.original_variable_node_id() == variable && r.slot_name() == s.slotName)
                        existing = r.slot_variable_node_id();
                if (existing >= 0) {
                    if (slot < 0) slot = existing;
                    continue;
                }
                if (slot < 0) newNode(s.slotVariableNodeId);
                auto* ref = merged.mutable_nodes(optimizer)->add_slot_variables();
                ref->set_original_variable_node_id(variable);
                ref->set_slot_name(s.slotName);
                ref->set_slot_variable_node_id(slot);
            }
        }
        // Attributes by name; one name may not mean two keys.
        int32_t left = 0;
        for (int32_t id = 0; id < graph.size(); ++id) {
            const int32_t at = to[static_cast<size_t>(id)];
            if (at < 0) {
                ++left;
                continue;
            }
            const auto& from = proto.nodes(id);
            auto* into = merged.mutable_nodes(at);
            for (const auto& a : from.attributes()) {
                auto same = std::find_if(into->attributes().begin(), into->attributes().end(),
                                         [&](const auto& b) { return b.name() == a.name(); });
                if (same == into->attributes().end()) *into->add_attributes() = a;
                else if (same->checkpoint_key() != a.checkpoint_key())
                    return invalidArgument("the object graphs disagree: " + graph.displayName(id) + "'s " + a.name() + " is \"" +
                                           a.checkpoint_key() + "\" in " + source + " but \"" + same->checkpoint_key() +
                                           "\" in an earlier source");
            }
            if (from.has_registered_saver() && !into->has_registered_saver())
                *into->mutable_registered_saver() = from.registered_saver();
        }
        if (left > 0)
            notes.push_back(std::to_string(left) + " object(s) of " + source +
                            " that no path from the root reaches were left out of the merged graph");
    }
    pipeline::markCheckpointValues(merged);
    std::string out;
    merged.SerializeToString(&out);
    return out;
}

std::map<std::string, std::optional<std::string>> mapStoredKeys(const ObjectGraph& original,
                                                                const std::map<std::string, std::string>& keyMap,
                                                                const std::vector<TensorInfo>& sortedStored) {
    std::map<std::string, std::optional<std::string>> out;
    for (const TensorInfo& t : sortedStored) out.emplace(t.key, t.key);
    for (const ObjectNode& n : original.nodes()) {
        for (const ObjectAttribute& a : n.attributes) {
            auto moved = keyMap.find(a.checkpointKey);
            auto it = std::lower_bound(sortedStored.begin(), sortedStored.end(), a.checkpointKey,
                                       [](const TensorInfo& t, const std::string& k) { return t.key < k; });
            const bool exact = it != sortedStored.end() && it->key == a.checkpointKey;
            for (; it != sortedStored.end() && it->key.starts_with(a.checkpointKey); ++it) {
                if (!exact || it->key == a.checkpointKey) {
                    if (moved == keyMap.end()) out[it->key] = std::nullopt;
                    else out[it->key] = moved->second + it->key.substr(a.checkpointKey.size());
                }
                if (exact) break;
            }
        }
    }
    return out;
}

std::vector<std::string> missingAttributeKeys(const ObjectGraph& graph, const std::vector<std::string>& sortedKeys) {
    std::vector<std::string> missing;
    for (const ObjectNode& n : graph.nodes()) {
        for (const ObjectAttribute& a : n.attributes) {
            auto it = std::lower_bound(sortedKeys.begin(), sortedKeys.end(), a.checkpointKey);
            if (it == sortedKeys.end() || !it->starts_with(a.checkpointKey)) missing.push_back(a.checkpointKey);
        }
    }
    return missing;
}

}  // namespace ckpt::surgery

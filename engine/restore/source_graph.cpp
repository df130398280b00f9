#include "restore/source_graph.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

namespace ckpt::restore {
namespace {

std::string joinPath(const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return a + "/" + b;
}

}  // namespace

AttributeMatch describeAttribute(const SourceAttribute& a) {
    AttributeMatch am;
    describeAttribute(a, am);
    return am;
}

void describeAttribute(const SourceAttribute& a, AttributeMatch& am) {
    am.name = a.name;
    am.checkpointKey = a.key;
    am.dtype = a.tensor ? a.tensor->dtype : DataType::Invalid;
    if (a.tensor) am.shape = a.tensor->shape;
    else am.shape.dims.clear();
    am.restored = false;
    am.unused = false;
    am.error.clear();
}

Result<std::string> normaliseMappingPath(std::string_view path) {
    std::string p(path);
    // The tree's syntax: "(root).model.dense", or "model.dense" when the
    // path has no '/' (a key path would): names separated by dots.
    const bool tree = p.rfind("(root)", 0) == 0 || (p.find('/') == std::string::npos && p.find('.') != std::string::npos);
    if (tree) {
        std::string rest = p.rfind("(root)", 0) == 0 ? p.substr(6) : p;
        if (rest.empty()) return std::string();
        if (p.rfind("(root)", 0) == 0) {
            if (rest[0] != '.') return invalidArgument("assignment map path \"" + p + "\" is not (root) or (root).NAME...");
            rest.erase(0, 1);
        }
        std::string out;
        size_t start = 0;
        for (;;) {
            const size_t dot = rest.find('.', start);
            const std::string seg = rest.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
            // An empty name ("a..b", a dot at either end) names nothing in the tree.
            if (seg.empty())
                return invalidArgument("assignment map path \"" + p +
                                       "\" has an empty name; write a name with dots as a key path ending in '/' (a..b/)");
            out = joinPath(out, escapeLocalName(seg));
            if (dot == std::string::npos) break;
            start = dot + 1;
        }
        return out;
    }
    if (const size_t attrs = p.find("/.ATTRIBUTES"); attrs != std::string::npos) p.resize(attrs);
    while (!p.empty() && p.front() == '/') p.erase(0, 1);
    while (!p.empty() && p.back() == '/') p.pop_back();
    return p;
}

std::string applyMapping(const std::vector<PathMapping>& map, const std::string& path, size_t* applied) {
    for (size_t i = 0; i < map.size(); ++i) {
        const PathMapping& m = map[i];
        std::optional<std::string> out;
        if (m.from.empty()) out = joinPath(m.to, path);
        else if (path == m.from) out = m.to;
        else if (path.size() > m.from.size() && path.compare(0, m.from.size(), m.from) == 0 && path[m.from.size()] == '/')
            out = joinPath(m.to, path.substr(m.from.size() + 1));
        if (!out) continue;
        if (applied) *applied = i;
        return *out;
    }
    return path;
}

std::string unmatchedMappingMessage(const PathMapping& m, std::string_view what) {
    return "assignment map \"" + m.from + "=" + m.to + "\" matches nothing: no " + std::string(what) + " \"" + m.from +
           "\" in the checkpoint (object paths as the tree shows them, (root).model.dense or model.dense, or as keys, "
           "model/dense)";
}

Result<SourceGraph> buildSourceGraph(const Checkpoint& ckpt, const std::vector<PathMapping>& rawMap,
                                     std::vector<std::string>* unmatched) {
    const ObjectGraph& g = *ckpt.objectGraph();
    SourceGraph graph;
    std::vector<SourceNode>& nodes = graph.nodes;
    nodes.resize(static_cast<size_t>(g.size()));
    for (int32_t id = 0; id < g.size(); ++id) {
        const ObjectNode& on = g.node(id);
        SourceNode& n = nodes[static_cast<size_t>(id)];
        if (on.prettyPath) n.path = *on.prettyPath;
        else n.path = graph.names.emplace_back(g.displayName(id));
        n.kind = on.kind;
        n.original = &on;
        n.children.reserve(on.children.size());
        for (const ObjectChild& c : on.children) n.children.emplace_back(c.localName, c.nodeId);
        n.attributes.reserve(on.attributes.size());
        for (const ObjectAttribute& a : on.attributes)
            n.attributes.push_back({a.name, a.checkpointKey, a.fullName, a.optionalRestore, ckpt.tensorForAttribute(a)});
        n.slots = on.slotVariables;
    }
    if (rawMap.empty()) return graph;

    // Longest 'from' first so nested mappings win over their parents.
    std::vector<size_t> order(rawMap.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<PathMapping> normalised;
    for (const PathMapping& m : rawMap) {
        CKPT_ASSIGN_OR_RETURN(std::string from, normaliseMappingPath(m.from));
        CKPT_ASSIGN_OR_RETURN(std::string to, normaliseMappingPath(m.to));
        normalised.push_back({std::move(from), std::move(to)});
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return normalised[a].from.size() > normalised[b].from.size(); });
    std::vector<PathMapping> map;
    for (size_t i : order) map.push_back(normalised[i]);
    std::vector<char> used(map.size(), 0);

    std::map<std::string, int32_t> byMapped;
    for (int32_t id = 1; id < g.size(); ++id) {
        const ObjectNode& on = g.node(id);
        if (on.keyPath.empty()) continue;  // slot variables and unreachable nodes keep no place
        size_t applied = map.size();
        const std::string mapped = applyMapping(map, on.keyPath, &applied);
        if (applied < map.size()) used[applied] = 1;
        if (mapped.empty())
            return invalidArgument("assignment map sends " + std::string(nodes[static_cast<size_t>(id)].path) +
                                   " onto the root object");
        auto [it, inserted] = byMapped.emplace(mapped, id);
        if (!inserted)
            return invalidArgument("assignment map makes " + std::string(nodes[static_cast<size_t>(it->second)].path) + " and " +
                                   std::string(nodes[static_cast<size_t>(id)].path) + " both restore into \"" + mapped + "\"");
    }
    if (unmatched)
        for (size_t k = 0; k < map.size(); ++k)
            if (!used[k]) unmatched->push_back(unmatchedMappingMessage(rawMap[order[k]], "object"));
    for (SourceNode& n : nodes) n.children.clear();

    std::vector<std::pair<std::string, int32_t>> placement(byMapped.begin(), byMapped.end());
    std::stable_sort(placement.begin(), placement.end(), [](const auto& a, const auto& b) {
        return std::count(a.first.begin(), a.first.end(), '/') < std::count(b.first.begin(), b.first.end(), '/');
    });
    std::unordered_map<std::string, int32_t> placed{{"", 0}};
    // Returns the node at 'path', creating virtual containers along the way.
    std::function<int32_t(const std::string&)> ensure = [&](const std::string& path) -> int32_t {
        if (auto it = placed.find(path); it != placed.end()) return it->second;
        const size_t slash = path.rfind('/');
        const std::string parentPath = slash == std::string::npos ? "" : path.substr(0, slash);
        const std::string last = slash == std::string::npos ? path : path.substr(slash + 1);
        const int32_t parent = ensure(parentPath);
        SourceNode v;
        v.isVirtual = true;
        const std::string& name = graph.names.emplace_back(unescapeLocalName(last));
        v.path = graph.names.emplace_back(std::string(nodes[static_cast<size_t>(parent)].path) + "." + name);
        nodes.push_back(std::move(v));
        const auto id = static_cast<int32_t>(nodes.size() - 1);
        nodes[static_cast<size_t>(parent)].children.emplace_back(name, id);
        placed.emplace(path, id);
        return id;
    };
    for (const auto& [mapped, id] : placement) {
        const size_t slash = mapped.rfind('/');
        const std::string parentPath = slash == std::string::npos ? "" : mapped.substr(0, slash);
        const std::string last = slash == std::string::npos ? mapped : mapped.substr(slash + 1);
        const int32_t parent = ensure(parentPath);
        nodes[static_cast<size_t>(parent)].children.emplace_back(graph.names.emplace_back(unescapeLocalName(last)), id);
        placed.emplace(mapped, id);
    }
    return graph;
}

}  // namespace ckpt::restore

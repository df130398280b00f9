#include "restore/coordinator.h"

#include <cstdio>
#include <cstring>

#include <algorithm>
#include <deque>
#include <atomic>
#include <mutex>
#include <span>
#include <sstream>
#include <thread>

#include "format/region_scan.h"
#include "platform/file.h"
#include "platform/parallel.h"

namespace ckpt::restore {

namespace {

constexpr std::string_view kVariableValue = "VARIABLE_VALUE";
constexpr std::string_view kParallelComponent = "parallel_component_";
// TensorFlow shows at most this many unbound objects in assert_existing_objects_matched.
constexpr size_t kMaxShownObjects = 10;

std::string joinPath(const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return a + "/" + b;
}


// -1 unless 'name' is parallel_component_<i> with i >= 1.
int parallelComponentIndex(std::string_view name) {
    if (name.substr(0, kParallelComponent.size()) != kParallelComponent) return -1;
    const std::string_view digits = name.substr(kParallelComponent.size());
    if (digits.empty() || digits.size() > 6) return -1;
    int i = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return -1;
        i = i * 10 + (c - '0');
    }
    return i >= 1 ? i : -1;
}

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') { out += "\\n"; continue; }
        out += c;
    }
    return out + "\"";
}

// Python's repr of a list of strings: ['a', 'b'].
std::string pyList(const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += "'" + items[i] + "'";
    }
    return out + "]";
}

std::string shapeTuple(const TensorShape& s) {
    std::string out = "(";
    for (size_t i = 0; i < s.dims.size(); ++i) {
        if (i) out += ", ";
        out += std::to_string(s.dims[i]);
    }
    if (s.dims.size() == 1) out += ",";
    return out + ")";
}

AssertionVerdict pass(Assertion a) { return {a, true, Status::ok(), {}}; }
AssertionVerdict fail(Assertion a, std::string message, std::vector<std::string> paths) {
    return {a, false, failedPrecondition(std::move(message)), std::move(paths)};
}

// A checkpoint attribute as the report shows it before any matching.
AttributeMatch describeAttribute(const SourceAttribute& a) {
    AttributeMatch am;
    am.name = a.name;
    am.checkpointKey = a.key;
    if (a.tensor) {
        am.dtype = a.tensor->dtype;
        am.shape = a.tensor->shape;
    }
    return am;
}

} // namespace

std::string describeProgramObject(const ProgramObject& o) {
    if (Variable* v = o.object->asVariable())
        return "<ckpt.Variable '" + o.path + "' shape=" + shapeTuple(v->shape()) + " dtype=" +
               std::string(dataTypeShortName(v->dtype())) + ">";
    if (o.object->asOptimizer()) return "<ckpt.Optimizer '" + o.path + "'>";
    return "<ckpt.Object '" + o.path + "'>";
}

// ---------------------------------------------------------------------------
// Source graph and assignment maps

std::string normaliseMappingPath(std::string_view path) {
    std::string p(path);
    if (p.rfind("(root)", 0) == 0) {
        std::string rest = p.substr(6);
        if (!rest.empty() && rest[0] == '.') rest.erase(0, 1);
        std::string out;
        size_t start = 0;
        while (!rest.empty()) {
            const size_t dot = rest.find('.', start);
            const std::string seg = rest.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
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

std::string applyMapping(const std::vector<PathMapping>& map, const std::string& path) {
    for (const PathMapping& m : map) {
        if (m.from.empty()) return joinPath(m.to, path);
        if (path == m.from) return m.to;
        if (path.size() > m.from.size() && path.compare(0, m.from.size(), m.from) == 0 && path[m.from.size()] == '/')
            return joinPath(m.to, path.substr(m.from.size() + 1));
    }
    return path;
}

Result<std::vector<SourceNode>> buildSourceGraph(const Checkpoint& ckpt, const std::vector<PathMapping>& rawMap) {
    const ObjectGraph& g = *ckpt.objectGraph();
    std::vector<SourceNode> nodes(static_cast<size_t>(g.size()));
    for (int32_t id = 0; id < g.size(); ++id) {
        const ObjectNode& on = g.node(id);
        SourceNode& n = nodes[static_cast<size_t>(id)];
        n.path = g.displayName(id);
        n.kind = on.kind;
        n.original = &on;
        for (const ObjectChild& c : on.children) n.children.emplace_back(c.localName, c.nodeId);
        for (const ObjectAttribute& a : on.attributes)
            n.attributes.push_back({a.name, a.checkpointKey, a.fullName, a.optionalRestore, ckpt.tensorForAttribute(a)});
        n.slots = on.slotVariables;
    }
    if (rawMap.empty()) return nodes;

    std::vector<PathMapping> map;
    for (const PathMapping& m : rawMap) map.push_back({normaliseMappingPath(m.from), normaliseMappingPath(m.to)});
    // Longest 'from' first so nested mappings win over their parents.
    std::stable_sort(map.begin(), map.end(), [](const PathMapping& a, const PathMapping& b) { return a.from.size() > b.from.size(); });

    std::map<std::string, int32_t> byMapped;
    for (int32_t id = 1; id < g.size(); ++id) {
        const ObjectNode& on = g.node(id);
        if (on.keyPath.empty()) continue;  // slot variables and unreachable nodes keep no place
        const std::string mapped = applyMapping(map, on.keyPath);
        if (mapped.empty())
            return invalidArgument("assignment map sends " + nodes[static_cast<size_t>(id)].path + " onto the root object");
        auto [it, inserted] = byMapped.emplace(mapped, id);
        if (!inserted)
            return invalidArgument("assignment map makes " + nodes[static_cast<size_t>(it->second)].path + " and " +
                                   nodes[static_cast<size_t>(id)].path + " both restore into \"" + mapped + "\"");
    }
    for (SourceNode& n : nodes) n.children.clear();

    std::vector<std::pair<std::string, int32_t>> order(byMapped.begin(), byMapped.end());
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
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
        v.path = nodes[static_cast<size_t>(parent)].path + "." + unescapeLocalName(last);
        nodes.push_back(std::move(v));
        const auto id = static_cast<int32_t>(nodes.size() - 1);
        nodes[static_cast<size_t>(parent)].children.emplace_back(unescapeLocalName(last), id);
        placed.emplace(path, id);
        return id;
    };
    for (const auto& [mapped, id] : order) {
        const size_t slash = mapped.rfind('/');
        const std::string parentPath = slash == std::string::npos ? "" : mapped.substr(0, slash);
        const std::string last = slash == std::string::npos ? mapped : mapped.substr(slash + 1);
        const int32_t parent = ensure(parentPath);
        nodes[static_cast<size_t>(parent)].children.emplace_back(unescapeLocalName(last), id);
        placed.emplace(mapped, id);
    }
    return nodes;
}

// ---------------------------------------------------------------------------
// Program objects

std::vector<ProgramObject> listProgramObjects(const std::shared_ptr<Trackable>& root, bool skipSlots) {
    std::vector<ProgramObject> out;
    if (!root) return out;
    std::unordered_map<const Trackable*, size_t> index;
    auto kindOf = [](Trackable& t) {
        switch (t.kind()) {
        case Trackable::Kind::Variable: return ProgramObjectKind::Variable;
        case Trackable::Kind::Optimizer: return ProgramObjectKind::Optimizer;
        case Trackable::Kind::Object: break;
        }
        return ProgramObjectKind::Object;
    };
    out.push_back({root, "(root)", kindOf(*root), root->asVariable() != nullptr});
    index.emplace(root.get(), 0);
    for (size_t i = 0; i < out.size(); ++i) {
        const std::shared_ptr<Trackable> obj = out[i].object;  // 'out' grows below
        const std::string path = out[i].path;
        for (const Trackable::Child& c : obj->children()) {
            if (index.count(c.object.get())) continue;
            index.emplace(c.object.get(), out.size());
            out.push_back({c.object, path + "." + c.name, kindOf(*c.object), c.object->asVariable() != nullptr});
        }
    }
    if (skipSlots) return out;
    const size_t regular = out.size();
    for (size_t i = 0; i < regular; ++i) {
        Optimizer* opt = out[i].object->asOptimizer();
        if (!opt) continue;
        for (const Optimizer::Slot& s : opt->slotVariables()) {
            auto var = s.variable.lock();
            if (!var || !s.slot) continue;
            auto vi = index.find(var.get());
            if (vi == index.end() || index.count(s.slot.get())) continue;
            index.emplace(s.slot.get(), out.size());
            out.push_back({s.slot, slotVariablePath(out[i].path, s.name, out[vi->second].path),
                           ProgramObjectKind::SlotVariable, true});
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// Coordinator: starting a restore

Result<LoadStatus> Coordinator::start(std::shared_ptr<const Checkpoint> ckpt, std::shared_ptr<Trackable> root,
                                      const RestoreOptions& options) {
    if (!ckpt) return invalidArgument("restore: no checkpoint");
    if (!root) return invalidArgument("restore: no root object");
    auto c = std::make_shared<Coordinator>();
    c->m_ckpt = ckpt;
    c->m_root = root;
    c->m_options = options;

    if (!ckpt->objectGraph()) {
        c->m_kind = LoadStatus::Kind::NameBased;
        std::vector<PathMapping> map;
        for (const PathMapping& m : options.assignmentMap) {
            PathMapping n{m.from, m.to};
            while (!n.from.empty() && n.from.back() == '/') n.from.pop_back();
            while (!n.to.empty() && n.to.back() == '/') n.to.pop_back();
            map.push_back(std::move(n));
        }
        std::stable_sort(map.begin(), map.end(), [](const PathMapping& a, const PathMapping& b) { return a.from.size() > b.from.size(); });
        for (const TensorInfo& t : ckpt->bundle().tensors()) {
            const std::string name = applyMapping(map, t.key);
            auto [it, inserted] = c->m_tensorsByName.emplace(name, &t);
            if (!inserted)
                return invalidArgument("assignment map makes \"" + it->second->key + "\" and \"" + t.key +
                                       "\" both restore into \"" + name + "\"");
        }
        c->nameBasedRestore(root, "(root)");
        return LoadStatus(c, root);
    }

    CKPT_ASSIGN_OR_RETURN(c->m_nodes, buildSourceGraph(*ckpt, options.assignmentMap));
    const size_t n = c->m_nodes.size();
    c->m_objectByNode.resize(n);
    c->m_objectRaw.assign(n, nullptr);
    c->m_matched.assign(n, 0);
    c->m_restored.assign(n, 0);
    c->m_attributes.resize(n);
    if (!options.skipSlotVariables) {
        for (size_t id = 0; id < n; ++id)
            for (const SlotVariableRef& s : c->m_nodes[id].slots)
                c->m_slotRestorations[s.originalVariableNodeId].push_back(
                    {static_cast<int32_t>(id), s.slotVariableNodeId, s.slotName, s.originalVariableNodeId});
    }
    if (c->bind(0, root)) c->restoreFrom(0);
    return LoadStatus(c, root);
}

LoadStatus Coordinator::initializationOnly(std::shared_ptr<Trackable> root) {
    auto c = std::make_shared<Coordinator>();
    c->m_kind = LoadStatus::Kind::InitializationOnly;
    c->m_root = root;
    return LoadStatus(c, std::move(root));
}

// ---------------------------------------------------------------------------
// Object-based matching

Trackable* Coordinator::boundObject(int32_t node) const {
    const auto i = static_cast<size_t>(node);
    if (!m_objectRaw[i] || m_objectByNode[i].expired()) return nullptr;
    return m_objectRaw[i];
}

bool Coordinator::bind(int32_t node, const std::shared_ptr<Trackable>& object) {
    m_seenObjects.push_back(object);
    const auto i = static_cast<size_t>(node);
    m_matched[i] = 1;
    if (boundObject(node)) return false;  // already bound (a second path, or an inconsistent reference)
    m_objectByNode[i] = object;
    m_objectRaw[i] = object.get();

    // An optimizer arriving: slots whose variables are already bound.
    if (auto it = m_deferredSlotRestorations.find(node); it != m_deferredSlotRestorations.end()) {
        const std::vector<SlotRestoration> waiting = std::move(it->second);
        m_deferredSlotRestorations.erase(it);
        for (const SlotRestoration& s : waiting) {
            auto var = m_objectByNode[static_cast<size_t>(s.variableNode)].lock();
            if (var) createOrRestoreSlot(object, var, s);
        }
    }
    // A variable arriving: its slots, now or once the optimizer is bound.
    if (auto it = m_slotRestorations.find(node); it != m_slotRestorations.end()) {
        const std::vector<SlotRestoration> slots = std::move(it->second);
        m_slotRestorations.erase(it);
        for (const SlotRestoration& s : slots) {
            auto opt = boundObject(s.optimizerNode) ? m_objectByNode[static_cast<size_t>(s.optimizerNode)].lock() : nullptr;
            if (!opt) m_deferredSlotRestorations[s.optimizerNode].push_back(s);
            else createOrRestoreSlot(opt, object, s);
        }
    }
    return true;
}

void Coordinator::createOrRestoreSlot(const std::shared_ptr<Trackable>& optimizer, const std::shared_ptr<Trackable>& variable,
                                      const SlotRestoration& s) {
    Optimizer* opt = optimizer->asOptimizer();
    Variable* var = variable->asVariable();
    if (!opt || !var) return;
    std::shared_ptr<Variable> slot = opt->slot(*var, s.slotName);
    const SourceNode& node = m_nodes[static_cast<size_t>(s.slotNode)];
    const bool simpleVariable = std::any_of(node.attributes.begin(), node.attributes.end(),
                                            [](const SourceAttribute& a) { return a.name == kVariableValue; });
    if (!slot && m_options.createSlotsOnRestore && simpleVariable) slot = opt->createSlot(*var, s.slotName);
    if (slot) {
        if (bind(s.slotNode, slot)) restoreFrom(s.slotNode);
        return;
    }
    m_pendingSlots.push_back({optimizer, variable, s.slotName, s.slotNode});
    hookSlots(optimizer);
}

void Coordinator::restoreFrom(int32_t start) {
    ReadScope reads(*this);
    std::deque<int32_t> queue{start};
    while (!queue.empty()) {
        const int32_t id = queue.front();
        queue.pop_front();
        std::shared_ptr<Trackable> obj = m_objectByNode[static_cast<size_t>(id)].lock();
        if (!obj) continue;
        if (!m_restored[static_cast<size_t>(id)]) {
            m_restored[static_cast<size_t>(id)] = 1;
            restoreAttributes(id, *obj);
        }
        const SourceNode& node = m_nodes[static_cast<size_t>(id)];
        if (node.children.empty()) continue;
        // Wide objects get an index so matching stays linear.
        const auto& kids = obj->children();
        std::unordered_map<std::string_view, const std::shared_ptr<Trackable>*> byName;
        const bool indexed = kids.size() > 16;
        if (indexed) {
            byName.reserve(kids.size());
            for (const Trackable::Child& c : kids) byName.emplace(c.name, &c.object);
        }
        // Copy: binding may add children (slot creation never does, hooks might).
        const auto edges = node.children;
        for (const auto& [name, childId] : edges) {
            std::shared_ptr<Trackable> child;
            if (indexed) {
                if (auto it = byName.find(name); it != byName.end()) child = *it->second;
            } else {
                child = obj->child(name);
            }
            if (!child) {
                m_deferred[obj.get()][name].push_back(childId);
                hookChildren(obj);
            } else if (bind(childId, child)) {
                queue.push_back(childId);
            }
        }
    }
}

void Coordinator::restoreAttributes(int32_t id, Trackable& object) {
    const SourceNode& node = m_nodes[static_cast<size_t>(id)];
    auto& results = m_attributes[static_cast<size_t>(id)];
    results.clear();
    Variable* v = object.asVariable();
    std::vector<char> hasComponent(v ? static_cast<size_t>(v->replicas()) : 0, 0);
    if (v)
        for (const SourceAttribute& a : node.attributes) {
            const int i = parallelComponentIndex(a.name);
            if (i > 0 && i < v->replicas()) hasComponent[static_cast<size_t>(i)] = 1;
        }
    for (const SourceAttribute& a : node.attributes) {
        AttributeMatch am = describeAttribute(a);
        int replica = -1;
        if (v) {
            if (a.name == kVariableValue) replica = 0;
            else if (const int i = parallelComponentIndex(a.name); i > 0 && i < v->replicas()) replica = i;
        }
        if (replica < 0) {
            am.unused = !a.optional;
            if (am.unused) {
                auto it = std::find_if(m_unusedAttributes.begin(), m_unusedAttributes.end(),
                                       [&](const auto& e) { return e.first == id; });
                if (it == m_unusedAttributes.end()) m_unusedAttributes.push_back({id, {a.name}});
                else it->second.push_back(a.name);
            }
            results.push_back(std::move(am));
            continue;
        }
        if (!a.tensor) {
            am.error = "checkpoint key \"" + a.key + "\" of " + node.path + " is not in the bundle " + m_ckpt->prefix();
            m_errors.push_back(notFound(am.error));
            results.push_back(std::move(am));
            continue;
        }
        std::vector<int> targets{replica};
        if (replica == 0)
            for (int i = 1; i < v->replicas(); ++i)
                if (!hasComponent[static_cast<size_t>(i)]) targets.push_back(i);
        m_currentNode = id;
        m_currentAttribute = results.size();
        // Messages are built only on a mismatch: naming the program object walks the program.
        am.restored = assignValue(*v, *a.tensor, targets, [&] {
            return std::pair{node.path + " (checkpoint key " + a.key + ")",
                             "program variable " + programPathOf(&object) +
                                 (replica > 0 ? " replica " + std::to_string(replica) : "")};
        }, &am.error);
        m_currentNode = -1;
        results.push_back(std::move(am));
    }
}

bool Coordinator::assignValue(Variable& v, const TensorInfo& tensor, const std::vector<int>& replicas,
                              const std::function<std::pair<std::string, std::string>()>& names, std::string* error) {
    if (tensor.dtype != v.dtype() || tensor.shape != v.shape()) {
        const auto [checkpointWhat, programWhat] = names();
        const char* what = tensor.dtype != v.dtype() ? "dtype mismatch" : "shape mismatch";
        *error = std::string(what) + ": checkpoint value " + checkpointWhat + " is " + std::string(dataTypeName(tensor.dtype)) +
                 " " + tensor.shape.toString() + " but " + programWhat + " is " + std::string(dataTypeName(v.dtype())) + " " +
                 v.shape().toString();
        m_errors.push_back(invalidArgument(*error));
        return false;
    }
    if (!m_options.readValues) return true;
    m_reads.push_back({v.shared_from_this(), &tensor, replicas, m_currentNode, m_currentAttribute});
    return true;
}

void Coordinator::flushReads() {
    std::vector<PendingRead> reads = std::move(m_reads);
    m_reads.clear();
    if (reads.empty()) return;
    // Fast path: plain fixed-size tensors are read straight into the variable's
    // buffer, checksummed on the way (format/region_scan.h). Each
    // (variable, replica) is written by one read only. The other reads go
    // through BundleReader::read on the same workers.
    std::map<int32_t, std::unique_ptr<platform::RandomAccessFile>> files;
    std::vector<format::ScannedRegion> regions;
    std::vector<size_t> regionRead(reads.size());  // read of each region
    std::vector<char> direct(reads.size(), 0);
    std::unordered_set<const Tensor*> targets;
    for (size_t i = 0; i < reads.size(); ++i) {
        const PendingRead& r = reads[i];
        const TensorInfo& t = *r.tensor;
        Variable* v = r.variable->asVariable();
        if (t.isPartitioned() || !isFixedSize(t.dtype)) continue;
        const Tensor& dst = v->value(r.replicas.front());
        if (static_cast<int64_t>(dst.bytes.size()) != t.region.size) continue;
        bool unique = true;
        for (int rep : r.replicas) unique = targets.insert(&v->value(rep)).second && unique;
        if (!unique) continue;
        if (!files.count(t.region.shardId)) {
            auto f = platform::RandomAccessFile::open(m_ckpt->bundle().dataPath(t.region.shardId));
            if (!f) continue;  // the general path reports the error
            files.emplace(t.region.shardId, std::move(*f));
        }
        direct[i] = 1;
        regionRead[regions.size()] = i;
        regions.push_back({files.at(t.region.shardId).get(), t.key, t.region,
                           v->mutableValue(r.replicas.front()).bytes.data(), nullptr});
    }
    std::mutex assignMutex;
    for (size_t i = 0; i < reads.size(); ++i) {
        if (direct[i]) continue;
        PendingRead& r = reads[i];
        regionRead[regions.size()] = i;
        format::ScannedRegion general{nullptr, r.tensor->key, r.tensor->region, nullptr, nullptr};
        general.readWhole = [this, &r, &assignMutex]() -> Status {
            auto value = m_ckpt->bundle().read(*r.tensor);
            if (!value) return value.status();
            Variable* v = r.variable->asVariable();
            std::lock_guard<std::mutex> lock(assignMutex);
            for (size_t k = 0; k < r.replicas.size(); ++k) {
                Tensor& dst = v->mutableValue(r.replicas[k]);
                if (k + 1 == r.replicas.size()) dst = std::move(*value);
                else dst = *value;
            }
            return Status::ok();
        };
        regions.push_back(std::move(general));
    }
    int64_t bytes = 0;
    for (const PendingRead& r : reads) bytes += r.tensor->storedBytes();
    // Small restores stay on this thread; big ones read several parts at once.
    constexpr int64_t kParallelThresholdBytes = 8 << 20;
    format::ScanOptions scan;
    scan.threads = bytes < kParallelThresholdBytes ? 1 : std::min<size_t>(platform::hardwareThreads(), 8);
    auto scanned = format::scanRegions(regions, scan);
    std::vector<Status> failures(reads.size());
    for (size_t k = 0; k < regions.size(); ++k) {
        const size_t i = regionRead[k];
        failures[i] = scanned ? scanned->regions[k] : scanned.status();
        if (!direct[i] || !failures[i].isOk()) continue;
        Variable* v = reads[i].variable->asVariable();
        const std::vector<uint8_t>& out = v->value(reads[i].replicas.front()).bytes;
        for (size_t rep = 1; rep < reads[i].replicas.size(); ++rep) v->mutableValue(reads[i].replicas[rep]).bytes = out;
    }
    for (size_t i = 0; i < reads.size(); ++i) {
        if (failures[i].isOk()) continue;
        m_errors.push_back(failures[i]);
        const PendingRead& r = reads[i];
        if (r.node >= 0) {
            AttributeMatch& am = m_attributes[static_cast<size_t>(r.node)][r.attribute];
            am.restored = false;
            am.error = failures[i].toString();
        } else {
            m_nameErrors[r.variable.get()] = failures[i].toString();
            for (auto& [tensor, path] : m_tensorUsedBy)
                if (tensor == r.tensor) {
                    m_tensorUsedBy.erase(tensor);
                    break;
                }
        }
    }
}

void Coordinator::hookChildren(const std::shared_ptr<Trackable>& object) {
    if (!m_hookedChildren.insert(object.get()).second) return;
    object->addChildAddedHook([self = shared_from_this()](Trackable& parent, const Trackable::Child& child) {
        self->onChildAdded(parent, child);
    });
}

void Coordinator::hookSlots(const std::shared_ptr<Trackable>& optimizer) {
    Optimizer* opt = optimizer->asOptimizer();
    if (!opt || !m_hookedSlots.insert(optimizer.get()).second) return;
    opt->addSlotCreatedHook([self = shared_from_this()](Optimizer& o, const Optimizer::Slot& slot) {
        self->onSlotCreated(o, slot);
    });
}

void Coordinator::onChildAdded(Trackable& parent, const Trackable::Child& child) {
    if (m_kind == LoadStatus::Kind::NameBased) {
        auto it = m_namePaths.find(&parent);
        if (it != m_namePaths.end()) nameBasedRestore(child.object, it->second + "." + child.name);
        return;
    }
    auto it = m_deferred.find(&parent);
    if (it == m_deferred.end()) return;
    auto jt = it->second.find(child.name);
    if (jt == it->second.end()) return;
    const std::vector<int32_t> ids = std::move(jt->second);
    it->second.erase(jt);
    for (int32_t id : ids)
        if (bind(id, child.object)) restoreFrom(id);
}

void Coordinator::onSlotCreated(Optimizer& optimizer, const Optimizer::Slot& slot) {
    auto var = slot.variable.lock();
    if (m_kind == LoadStatus::Kind::NameBased) {
        auto it = m_namePaths.find(&optimizer);
        auto vt = var ? m_namePaths.find(var.get()) : m_namePaths.end();
        if (it != m_namePaths.end() && vt != m_namePaths.end()) {
            if (slot.slot->fullName().empty()) slot.slot->setFullName(variableName(var) + "/" + slot.name);
            nameBasedRestore(slot.slot, slotVariablePath(it->second, slot.name, vt->second));
        }
        return;
    }
    for (size_t i = 0; i < m_pendingSlots.size(); ++i) {
        const PendingSlot& p = m_pendingSlots[i];
        if (p.optimizer.lock().get() != &optimizer || p.variable.lock() != var || p.slotName != slot.name) continue;
        const int32_t node = p.slotNode;
        m_pendingSlots.erase(m_pendingSlots.begin() + static_cast<std::ptrdiff_t>(i));
        if (bind(node, slot.slot)) restoreFrom(node);
        return;
    }
}

std::string Coordinator::nodeText(int32_t id) const {
    const SourceNode& n = m_nodes[static_cast<size_t>(id)];
    std::ostringstream out;
    if (!n.original) return "{}";
    for (const ObjectChild& c : n.original->children)
        out << "children {\n  node_id: " << c.nodeId << "\n  local_name: " << quoted(c.localName) << "\n}\n";
    for (const ObjectAttribute& a : n.original->attributes) {
        out << "attributes {\n  name: " << quoted(a.name) << "\n";
        if (!a.fullName.empty()) out << "  full_name: " << quoted(a.fullName) << "\n";
        out << "  checkpoint_key: " << quoted(a.checkpointKey) << "\n";
        if (a.optionalRestore) out << "  optional_restore: true\n";
        out << "}\n";
    }
    for (const SlotVariableRef& s : n.original->slotVariables)
        out << "slot_variables {\n  original_variable_node_id: " << s.originalVariableNodeId << "\n  slot_name: "
            << quoted(s.slotName) << "\n  slot_variable_node_id: " << s.slotVariableNodeId << "\n}\n";
    if (n.original->hasCheckpointValues)
        out << "has_checkpoint_values {\n  value: " << (*n.original->hasCheckpointValues ? "true" : "false") << "\n}\n";
    return out.str();
}

// ---------------------------------------------------------------------------
// Name-based matching

std::string Coordinator::variableName(const std::shared_ptr<Trackable>& object) const {
    if (Variable* v = object->asVariable(); v && !v->fullName().empty()) return v->fullName();
    // No global name: the path of local names, '/'-joined (our fallback).
    auto it = m_namePaths.find(object.get());
    if (it == m_namePaths.end()) return {};
    std::string p = it->second;
    if (p.rfind("(root).", 0) == 0) p = p.substr(7);
    std::replace(p.begin(), p.end(), '.', '/');
    return p;
}

void Coordinator::nameBasedRestore(const std::shared_ptr<Trackable>& start, const std::string& startPath) {
    ReadScope reads(*this);
    std::deque<std::pair<std::shared_ptr<Trackable>, std::string>> queue{{start, startPath}};
    std::vector<std::pair<std::shared_ptr<Trackable>, std::string>> optimizers;
    while (!queue.empty()) {
        auto [obj, path] = std::move(queue.front());
        queue.pop_front();
        if (!m_nameRestored.insert(obj.get()).second) continue;
        m_namePaths.emplace(obj.get(), path);
        hookChildren(obj);
        if (Variable* v = obj->asVariable()) {
            const std::string name = variableName(obj);
            auto it = m_tensorsByName.find(name);
            if (it == m_tensorsByName.end()) {
                m_nameUnused.push_back({obj, {name}});
            } else {
                std::vector<int> replicas;
                for (int i = 0; i < v->replicas(); ++i) replicas.push_back(i);
                std::string error;
                const TensorInfo* t = it->second;
                if (assignValue(*v, *t, replicas, [&] { return std::pair{"\"" + t->key + "\"", "program variable " + path}; }, &error))
                    m_tensorUsedBy[it->second] = path;
                else
                    m_nameErrors[obj.get()] = error;
            }
        }
        for (const Trackable::Child& c : obj->children()) queue.emplace_back(c.object, path + "." + c.name);
        if (obj->asOptimizer()) {
            hookSlots(obj);
            optimizers.emplace_back(obj, path);
        }
        if (!queue.empty()) continue;
        // Slots once every regular object has its path (slot names and paths use the variable's).
        for (const auto& [o, optPath] : optimizers)
            for (const Optimizer::Slot& s : o->asOptimizer()->slotVariables()) {
                auto var = s.variable.lock();
                if (!var || !s.slot || m_nameRestored.count(s.slot.get())) continue;
                auto vt = m_namePaths.find(var.get());
                const std::string varPath = vt != m_namePaths.end() ? vt->second : programPathOf(var.get());
                if (s.slot->fullName().empty()) s.slot->setFullName(variableName(var) + "/" + s.name);
                queue.emplace_back(s.slot, slotVariablePath(optPath, s.name, varPath));
            }
        optimizers.clear();
    }
}

// ---------------------------------------------------------------------------
// Assertions

std::vector<ProgramObject> Coordinator::programObjects() {
    return listProgramObjects(m_root.lock(), m_options.skipSlotVariables);
}

std::string Coordinator::programPathOf(const Trackable* object) {
    for (const ProgramObject& o : programObjects())
        if (o.object.get() == object) return o.path;
    return "(unreachable object)";
}

AssertionVerdict Coordinator::existingObjectsMatched() {
    const Assertion a = Assertion::ExistingObjectsMatched;
    for (size_t id = 0; id < m_nodes.size(); ++id)
        if (boundObject(static_cast<int32_t>(id)) && !m_restored[id])
            return fail(a, "Object " + nodeText(static_cast<int32_t>(id)) + " not assigned a value from checkpoint.",
                        {m_nodes[id].path});
    std::vector<ProgramObject> all = programObjects();
    std::unordered_set<const Trackable*> listed;
    for (const ProgramObject& o : all) listed.insert(o.object.get());
    for (const auto& w : m_seenObjects)
        if (auto o = w.lock(); o && listed.insert(o.get()).second)
            all.push_back({o, "(unreachable object)", ProgramObjectKind::Object, o->asVariable() != nullptr});
    std::unordered_set<const Trackable*> bound;
    for (size_t id = 0; id < m_nodes.size(); ++id)
        if (Trackable* t = boundObject(static_cast<int32_t>(id))) bound.insert(t);
    std::vector<const ProgramObject*> unused;
    for (const ProgramObject& o : all)
        if (o.hasAttributes && !bound.count(o.object.get())) unused.push_back(&o);
    if (unused.empty()) return pass(a);
    const size_t shown = std::min(kMaxShownObjects, unused.size());
    std::string list = "[";
    std::vector<std::string> paths;
    for (size_t i = 0; i < shown; ++i) {
        if (i) list += ", ";
        list += describeProgramObject(*unused[i]);
        paths.push_back(unused[i]->path);
    }
    list += "]";
    return fail(a,
                "Found " + std::to_string(unused.size()) +
                    " Python objects that were not bound to checkpointed values, likely due to changes in the Python "
                    "program. Showing " + std::to_string(shown) + " of " + std::to_string(unused.size()) +
                    " unmatched objects: " + list,
                std::move(paths));
}

AssertionVerdict Coordinator::consumed() {
    const Assertion a = Assertion::Consumed;
    AssertionVerdict existing = existingObjectsMatched();
    if (!existing.passed) {
        existing.assertion = a;
        return existing;
    }
    std::unordered_set<int32_t> slotNodes;
    for (const SourceNode& n : m_nodes)
        for (const SlotVariableRef& s : n.slots) slotNodes.insert(s.slotVariableNodeId);
    for (size_t id = 0; id < m_nodes.size(); ++id) {
        const SourceNode& n = m_nodes[id];
        if (n.attributes.empty()) continue;  // containers fail only through their children
        if (m_options.skipSlotVariables && slotNodes.count(static_cast<int32_t>(id))) continue;
        if (!boundObject(static_cast<int32_t>(id)))
            return fail(a, "Unresolved object in checkpoint " + n.path + ": " + nodeText(static_cast<int32_t>(id)), {n.path});
    }
    if (!m_options.skipSlotVariables && !m_slotRestorations.empty()) {
        std::string text = "[";
        std::vector<std::string> paths;
        for (const auto& [var, list] : m_slotRestorations)
            for (const SlotRestoration& s : list) {
                if (text.size() > 1) text += ", ";
                text += "(optimizer " + m_nodes[static_cast<size_t>(s.optimizerNode)].path + ", slot '" + s.slotName +
                        "', variable " + m_nodes[static_cast<size_t>(var)].path + ")";
                paths.push_back(m_nodes[static_cast<size_t>(s.slotNode)].path);
            }
        return fail(a, "Unresolved slot restorations: " + text + "]", std::move(paths));
    }
    if (!m_unusedAttributes.empty()) {
        std::unordered_map<const Trackable*, std::string> pathOf;
        for (const ProgramObject& o : programObjects()) pathOf.emplace(o.object.get(), describeProgramObject(o));
        std::string lines;
        std::vector<std::string> paths;
        for (const auto& [id, names] : m_unusedAttributes) {
            const Trackable* obj = boundObject(id);
            auto it = pathOf.find(obj);
            lines += "\n" + m_nodes[static_cast<size_t>(id)].path + " (" +
                     (it != pathOf.end() ? it->second : std::string("<unreachable object>")) + "): " + pyList(names);
            paths.push_back(m_nodes[static_cast<size_t>(id)].path);
        }
        return fail(a, "Unused attributes in these objects (the attributes exist in the checkpoint but were not restored):" + lines,
                    std::move(paths));
    }
    return pass(a);
}

AssertionVerdict Coordinator::nontrivialMatch() {
    const Assertion a = Assertion::NontrivialMatch;
    std::unordered_set<const Trackable*> bound;
    size_t boundNodes = 0;
    for (size_t id = 0; id < m_nodes.size(); ++id)
        if (Trackable* t = boundObject(static_cast<int32_t>(id))) {
            bound.insert(t);
            ++boundNodes;
        }
    if (boundNodes > 1) return pass(a);
    std::vector<ProgramObject> all = programObjects();
    std::string list = "[";
    std::vector<std::string> paths;
    for (const ProgramObject& o : all) {
        if (!o.hasAttributes || bound.count(o.object.get())) continue;
        if (list.size() > 1) list += ", ";
        list += describeProgramObject(o);
        paths.push_back(o.path);
    }
    if (!paths.empty())
        return fail(a,
                    "Nothing except the root object matched a checkpointed value. Typically this means that the checkpoint "
                    "does not match the Python program. The following objects have no matching checkpointed value: " + list + "]",
                    std::move(paths));
    const std::string root = all.empty() ? std::string("<ckpt.Object '(root)'>") : describeProgramObject(all.front());
    return fail(a, "Nothing to load. No dependencies have been added to " + root + " yet.", {});
}

AssertionVerdict Coordinator::nameBasedConsumed() {
    const Assertion a = Assertion::Consumed;
    std::string lines;
    std::vector<std::string> paths;
    for (const auto& [weak, names] : m_nameUnused) {
        auto obj = weak.lock();
        if (!obj) continue;
        auto it = m_namePaths.find(obj.get());
        const std::string path = it != m_namePaths.end() ? it->second : "(unreachable object)";
        lines += "\n    " + describeProgramObject({obj, path, ProgramObjectKind::Variable, true}) + ": " + pyList(names);
        paths.push_back(path);
    }
    if (!paths.empty()) return fail(a, "Some objects had attributes which were not restored: " + lines, std::move(paths));
    for (const ProgramObject& o : programObjects())
        if (!m_nameRestored.count(o.object.get()))
            return fail(a, "Object not restored: " + describeProgramObject(o), {o.path});
    return pass(a);
}

AssertionVerdict Coordinator::verdict(Assertion a) {
    if (m_kind == LoadStatus::Kind::InitializationOnly)
        return fail(a, "No checkpoint specified (save_path=None); nothing is being restored.", {});
    if (!m_errors.empty()) return {a, false, m_errors.front(), {}};
    if (m_kind == LoadStatus::Kind::NameBased) {
        AssertionVerdict v = nameBasedConsumed();
        v.assertion = a;
        return v;
    }
    switch (a) {
    case Assertion::Consumed: return consumed();
    case Assertion::ExistingObjectsMatched: return existingObjectsMatched();
    case Assertion::NontrivialMatch: return nontrivialMatch();
    }
    return pass(a);
}

std::vector<std::string> Coordinator::warnings() {
    std::vector<std::string> out;
    if (m_expectPartial || m_kind != LoadStatus::Kind::ObjectBased) return out;
    for (size_t id = 0; id < m_nodes.size(); ++id)
        if (!m_nodes[id].attributes.empty() && !m_matched[id])
            out.push_back("Value in checkpoint could not be found in the restored object: " + m_nodes[id].path);
    for (const auto& [id, names] : m_unusedAttributes)
        out.push_back("An attribute in the restored object could not be found in the checkpoint. Object: " +
                      m_nodes[static_cast<size_t>(id)].path + ", attribute: " + pyList(names));
    return out;
}

// ---------------------------------------------------------------------------
// Report

MatchReport Coordinator::report() {
    MatchReport r;
    r.expectPartial = m_expectPartial;
    r.restoreErrors = m_errors;
    for (Assertion a : {Assertion::Consumed, Assertion::ExistingObjectsMatched, Assertion::NontrivialMatch})
        r.verdicts.push_back(verdict(a));
    r.warnings = warnings();
    const std::vector<ProgramObject> objects = programObjects();
    std::unordered_map<const Trackable*, size_t> objectIndex;
    for (const ProgramObject& o : objects) {
        ProgramObjectMatch m;
        m.path = o.path;
        m.kind = o.kind;
        m.hasAttributes = o.hasAttributes;
        if (Variable* v = o.object->asVariable()) {
            m.dtype = v->dtype();
            m.shape = v->shape();
            m.replicas = v->replicas();
        }
        objectIndex.emplace(o.object.get(), r.programObjects.size());
        r.programObjects.push_back(std::move(m));
    }
    if (m_kind == LoadStatus::Kind::InitializationOnly) {
        r.style = "none";
    } else {
        r.checkpointPrefix = m_ckpt->prefix();
    }

    if (m_kind == LoadStatus::Kind::NameBased) {
        r.style = "name-based";
        int32_t id = 0;
        for (const TensorInfo& t : m_ckpt->bundle().tensors()) {
            CheckpointNodeMatch n;
            n.id = id++;
            n.path = t.key;
            n.kind = ObjectKind::Variable;
            n.hasAttributes = true;
            auto used = m_tensorUsedBy.find(&t);
            n.state = used != m_tensorUsedBy.end() ? NodeMatchState::Matched : NodeMatchState::Unresolved;
            if (used != m_tensorUsedBy.end()) n.programPath = used->second;
            AttributeMatch am;
            am.name = std::string(kVariableValue);
            am.checkpointKey = t.key;
            am.dtype = t.dtype;
            am.shape = t.shape;
            am.restored = used != m_tensorUsedBy.end();
            n.attributes.push_back(std::move(am));
            r.checkpointNodes.push_back(std::move(n));
        }
        std::unordered_set<const Trackable*> unused;
        for (const auto& [weak, names] : m_nameUnused)
            if (auto o = weak.lock()) unused.insert(o.get());
        for (const ProgramObject& o : objects) {
            ProgramObjectMatch& m = r.programObjects[objectIndex[o.object.get()]];
            m.bound = m.hasAttributes && !unused.count(o.object.get()) && !m_nameErrors.count(o.object.get());
            m.restored = m.bound && m_options.readValues;
        }
    } else if (m_kind == LoadStatus::Kind::ObjectBased) {
        r.style = "object-based";
        std::unordered_set<int32_t> pendingSlots;
        for (const auto& [var, list] : m_slotRestorations)
            for (const SlotRestoration& s : list) pendingSlots.insert(s.slotNode);
        for (const auto& [opt, list] : m_deferredSlotRestorations)
            for (const SlotRestoration& s : list) pendingSlots.insert(s.slotNode);
        for (const PendingSlot& p : m_pendingSlots) pendingSlots.insert(p.slotNode);
        for (size_t id = 0; id < m_nodes.size(); ++id) {
            const SourceNode& src = m_nodes[id];
            if (src.isVirtual) continue;
            CheckpointNodeMatch n;
            n.id = static_cast<int32_t>(id);
            n.path = src.path;
            n.kind = src.kind;
            n.hasAttributes = !src.attributes.empty();
            const Trackable* obj = boundObject(static_cast<int32_t>(id));
            if (obj && m_restored[id]) {
                n.attributes = m_attributes[id];
            } else {
                for (const SourceAttribute& a : src.attributes) {
                    n.attributes.push_back(describeAttribute(a));
                }
            }
            if (obj) {
                auto it = objectIndex.find(obj);
                n.programPath = it != objectIndex.end() ? r.programObjects[it->second].path : "(unreachable object)";
                const bool error = std::any_of(n.attributes.begin(), n.attributes.end(), [](const AttributeMatch& a) { return !a.error.empty(); });
                const bool unused = std::any_of(n.attributes.begin(), n.attributes.end(), [](const AttributeMatch& a) { return a.unused; });
                n.state = error ? NodeMatchState::Mismatch : unused ? NodeMatchState::PartiallyMatched : NodeMatchState::Matched;
                if (it != objectIndex.end()) {
                    ProgramObjectMatch& m = r.programObjects[it->second];
                    if (!m.bound) {
                        m.bound = true;
                        m.checkpointNode = n.id;
                    }
                    if (std::any_of(n.attributes.begin(), n.attributes.end(), [](const AttributeMatch& a) { return a.restored; }))
                        m.restored = m_options.readValues;
                }
            } else {
                n.state = pendingSlots.count(static_cast<int32_t>(id)) ? NodeMatchState::PendingSlot : NodeMatchState::Unresolved;
            }
            r.checkpointNodes.push_back(std::move(n));
        }
    }
    for (const CheckpointNodeMatch& n : r.checkpointNodes) {
        if (n.state == NodeMatchState::Matched || n.state == NodeMatchState::PartiallyMatched) ++r.matchedNodes;
        else if (n.state == NodeMatchState::Mismatch) ++r.mismatches;
        else if (n.hasAttributes) ++r.unresolvedNodes;
    }
    for (const ProgramObjectMatch& m : r.programObjects)
        if (m.hasAttributes && !m.bound) ++r.unboundObjects;
    return r;
}

} // namespace ckpt::restore

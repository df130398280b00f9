// parseModelSpec / loadModelSpec: a model spec's JSON (docs/model-spec.md)
// checked field by field, errors naming the JSON path, then built into a
// Trackable graph.

#include "ckpt/model_spec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "ckpt/object_graph.h"
#include "restore/model_spec_format.h"
#include "restore/spec_json.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

using spec::JsonRef;
using spec::JsonType;

Status specError(std::string_view source, const std::string& path, const std::string& what) {
    return invalidArgument(std::string(source) + ": " + path + ": " + what);
}

std::string typeName(JsonRef j) {
    switch (j.type()) {
    case JsonType::Null: return "null";
    case JsonType::Object: return "an object";
    case JsonType::Array: return "an array";
    case JsonType::String: return "a string";
    case JsonType::Boolean: return "a boolean";
    case JsonType::Float: return "a number";
    case JsonType::Integer:
    case JsonType::Unsigned: return "an integer";
    }
    return "a value";
}

// The alphabetically first key of 'o' not in 'known' (the one nlohmann's
// sorted objects reported first), or empty.
std::string firstUnknownKey(JsonRef o, std::initializer_list<std::string_view> known) {
    std::string first;
    bool found = false;
    if (!o.is_object()) return first;
    for (size_t k = 0; k < o.size(); ++k) {
        const std::string_view key = o.keyAt(k);
        if (std::find(known.begin(), known.end(), key) != known.end()) continue;
        if (!found || key < first) first = std::string(key);
        found = true;
    }
    return first;
}

template <typename T>
void putElement(Tensor& t, int64_t i, T value) {
    std::memcpy(t.bytes.data() + static_cast<size_t>(i) * sizeof(T), &value, sizeof(T));
}

// Writes one JSON scalar into element i; false when it does not fit the dtype.
bool setElement(Tensor& t, int64_t i, JsonRef v) {
    if (t.dtype == DataType::String) {
        if (!v.is_string()) return false;
        t.strings[static_cast<size_t>(i)] = std::string(v.asString());
        return true;
    }
    if (t.dtype == DataType::Bool) {
        if (!v.is_boolean() && !v.is_number()) return false;
        t.bytes[static_cast<size_t>(i)] = v.is_boolean() ? (v.asBool() ? 1 : 0) : (v.asDouble() != 0 ? 1 : 0);
        return true;
    }
    if (!v.is_number()) return false;
    const double d = v.asDouble();
    const bool integral = v.is_number_integer();
    const int64_t n = integral ? v.asInt64() : static_cast<int64_t>(d);
    if (!integral && !isFloating(t.dtype) && d != std::floor(d)) return false;
    switch (t.dtype) {
    case DataType::Float: putElement(t, i, static_cast<float>(d)); return true;
    case DataType::Double: putElement(t, i, d); return true;
    case DataType::Half: putElement(t, i, floatToHalf(static_cast<float>(d))); return true;
    case DataType::BFloat16: putElement(t, i, floatToBfloat16(static_cast<float>(d))); return true;
    case DataType::Int8: putElement(t, i, static_cast<int8_t>(n)); return true;
    case DataType::Int16: putElement(t, i, static_cast<int16_t>(n)); return true;
    case DataType::Int32: putElement(t, i, static_cast<int32_t>(n)); return true;
    case DataType::Int64: putElement(t, i, n); return true;
    case DataType::UInt8: putElement(t, i, static_cast<uint8_t>(n)); return true;
    case DataType::UInt16: putElement(t, i, static_cast<uint16_t>(n)); return true;
    case DataType::UInt32: putElement(t, i, static_cast<uint32_t>(n)); return true;
    case DataType::UInt64: putElement(t, i, v.is_number_unsigned() ? v.asUint64() : static_cast<uint64_t>(n)); return true;
    default: return false;
    }
}

// The scalars of a (nested) array in row-major order, without recursion: a
// hostile spec may nest arrays as deep as its size allows.
void flatten(JsonRef v, std::vector<JsonRef>& out) {
    std::vector<std::pair<JsonRef, size_t>> stack{{v, 0}};
    while (!stack.empty()) {
        auto& [array, next] = stack.back();
        if (!array.is_array()) {
            out.push_back(array);
            stack.pop_back();
            continue;
        }
        if (next == array.size()) {
            stack.pop_back();
            continue;
        }
        const JsonRef element = array[next++];
        stack.emplace_back(element, 0);
    }
}

// A JSON path ("$.objects[3].children[1]") built only when a message
// names it: a spec of 150,000 objects would otherwise build half a million
// path strings that no error ever shows.
class LazyPath {
public:
    template <typename Make>
    explicit LazyPath(Make make) : m_make(std::move(make)) {}
    std::string str() const { return m_make(); }
    operator std::string() const { return str(); }  // NOLINT(google-explicit-constructor): where a message takes the path
    friend std::string operator+(const LazyPath& path, std::string_view suffix) { return path.str().append(suffix); }
    friend std::string operator+(std::string prefix, const LazyPath& path) { return prefix.append(path.str()); }

private:
    std::function<std::string()> m_make;
};

class SpecParser {
public:
    SpecParser(std::string_view source, const ModelSpecOptions& options) : m_source(source), m_options(options) {}

    Result<std::shared_ptr<Trackable>> parse(std::string_view text) {
        // Parse errors (a number beyond double included) carry the position.
        auto parsed = spec::SpecJson::parse(text);
        if (!parsed.ok()) return invalidArgument(std::string(m_source) + ": not valid JSON: " + parsed.status().message());
        m_json = std::move(*parsed);
        m_key = Keys(*m_json);
        const JsonRef doc = m_json->root();
        if (!doc.is_object()) return err("$", "expected an object, found " + typeName(doc));
        if (const std::string key = firstUnknownKey(doc, {"format", "version", "root", "objects", "notes", "comment"});
            !key.empty())
            return err("$." + key, "unknown field (expected format, version, root, objects)");
        if (doc.contains(m_key.format) && !doc[m_key.format].equals(kModelSpecFormat))
            return err("$.format", "expected \"" + std::string(kModelSpecFormat) + "\"");
        if (doc.contains(m_key.version) && !doc[m_key.version].equals(1))
            return err("$.version", "unsupported version (this reader knows 1)");
        if (!doc.contains(m_key.objects)) return err("$.objects", "missing (the list of objects)");
        const JsonRef objects = doc[m_key.objects];
        if (!objects.is_array()) return err("$.objects", "expected an array, found " + typeName(objects));
        if (objects.empty()) return err("$.objects", "empty: a spec needs at least the root object");

        // Pass 1: ids, kinds, variables. Sized once: rehashing 150,000 ids
        // as they come costs more than the lookups (the document is parsed
        // already, so this is bounded by its size).
        m_index.reserve(objects.size());
        m_objects.reserve(objects.size());
        for (size_t i = 0; i < objects.size(); ++i) {
            const LazyPath at([&] { return "$.objects[" + std::to_string(i) + "]"; });
            const JsonRef o = objects[i];
            if (!o.is_object()) return err(at, "expected an object, found " + typeName(o));
            if (const std::string key = firstUnknownKey(o, {"id", "kind", "children", "dtype", "shape", "replicas", "name",
                                                            "device", "initial_value", "slots", "comment"});
                !key.empty())
                return err(at + "." + key, "unknown field");
            if (!o.contains(m_key.id)) return err(at + ".id", "missing");
            if (!o[m_key.id].is_number_integer() || o[m_key.id].asInt64() < 0)
                return err(at + ".id", "expected a non-negative integer, found " + typeName(o[m_key.id]));
            const int64_t id = o[m_key.id].asInt64();
            if (auto it = m_index.find(id); it != m_index.end())
                return err(at + ".id",
                           "duplicate id " + std::to_string(id) + " (also $.objects[" + std::to_string(it->second) + "])");
            m_index.emplace(id, i);
            std::string kind = "object";
            if (o.contains(m_key.kind)) {
                if (!o[m_key.kind].is_string()) return err(at + ".kind", "expected a string, found " + typeName(o[m_key.kind]));
                kind = o[m_key.kind].stringValue();
            }
            std::shared_ptr<Trackable> t;
            if (kind == "object") {
                t = Trackable::makeObject();
            } else if (kind == "optimizer") {
                t = Optimizer::make();
            } else if (kind == "variable") {
                CKPT_ASSIGN_OR_RETURN(t, makeVariable(o, at));
            } else {
                return err(at + ".kind", "unknown kind \"" + kind + "\" (object, variable, optimizer)");
            }
            if (kind != "variable")
                for (const auto& [f, key] : {std::pair("dtype", m_key.dtype), std::pair("shape", m_key.shape),
                                             std::pair("replicas", m_key.replicas), std::pair("name", m_key.name),
                                             std::pair("device", m_key.device), std::pair("initial_value", m_key.initial_value)})
                    if (o.contains(key)) return err(at + "." + f, "only variables have this field");
            if (kind != "optimizer" && o.contains(m_key.slots)) return err(at + ".slots", "only optimizers have slots");
            m_objects.push_back(t);
        }

        // Pass 2: children (duplicates, dangling ids), then cycles.
        std::vector<std::vector<size_t>> edges(objects.size());  // target index per child, in order
        for (size_t i = 0; i < objects.size(); ++i) {
            const LazyPath at([&] { return "$.objects[" + std::to_string(i) + "]"; });
            if (!objects[i].contains(m_key.children)) continue;
            const JsonRef children = objects[i][m_key.children];
            if (!children.is_array()) return err(at + ".children", "expected an array, found " + typeName(children));
            // Local names seen so far; a scan while there are few (most objects), a map beyond.
            constexpr size_t kScannedNames = 16;
            std::unordered_map<std::string_view, size_t> names;
            if (children.size() > kScannedNames) names.reserve(children.size());
            edges[i].reserve(children.size());
            for (size_t c = 0; c < children.size(); ++c) {
                const LazyPath cat([&] { return at + ".children[" + std::to_string(c) + "]"; });
                const JsonRef child = children[c];
                if (!child.is_object()) return err(cat, "expected an object {\"name\", \"id\"}, found " + typeName(child));
                if (const std::string key = firstUnknownKey(child, {"name", "id", "comment"}); !key.empty())
                    return err(cat + "." + key, "unknown field");
                if (!child.contains(m_key.name) || !child[m_key.name].is_string())
                    return err(cat + ".name", "missing or not a string");
                const std::string_view name = child[m_key.name].asString();
                if (name.empty()) return err(cat + ".name", "empty local name");
                size_t earlier = SIZE_MAX;
                if (children.size() <= kScannedNames) {
                    for (size_t e = 0; e < c && earlier == SIZE_MAX; ++e)
                        if (children[e][m_key.name].asString() == name) earlier = e;
                } else if (auto it = names.find(name); it != names.end()) {
                    earlier = it->second;
                } else {
                    names.emplace(name, c);
                }
                if (earlier != SIZE_MAX)
                    return err(cat + ".name", "duplicate local name \"" + std::string(name) + "\" (also " + at + ".children[" +
                                                  std::to_string(earlier) + "])");
                if (!child.contains(m_key.id) || !child[m_key.id].is_number_integer())
                    return err(cat + ".id", "missing or not an integer");
                const int64_t target = child[m_key.id].asInt64();
                auto it = m_index.find(target);
                if (it == m_index.end()) return err(cat + ".id", "no object with id " + std::to_string(target));
                edges[i].push_back(it->second);
            }
        }
        CKPT_RETURN_IF_ERROR(checkAcyclic(objects, edges));
        size_t rootIndex = 0;
        if (doc.contains(m_key.root)) {
            if (!doc[m_key.root].is_number_integer())
                return err("$.root", "expected an integer, found " + typeName(doc[m_key.root]));
            auto it = m_index.find(doc[m_key.root].asInt64());
            if (it == m_index.end()) return err("$.root", "no object with id " + std::to_string(doc[m_key.root].asInt64()));
            rootIndex = it->second;
        }
        CKPT_RETURN_IF_ERROR(checkPathBudget(objects, edges, rootIndex, text.size()));
        for (size_t i = 0; i < objects.size(); ++i) {
            if (!objects[i].contains(m_key.children)) continue;
            const JsonRef children = objects[i][m_key.children];
            for (size_t c = 0; c < children.size(); ++c)
                CKPT_RETURN_IF_ERROR(m_objects[i]->addChild(children[c][m_key.name].stringValue(), m_objects[edges[i][c]]));
        }

        // Pass 3: slots.
        for (size_t i = 0; i < objects.size(); ++i) {
            if (!objects[i].contains(m_key.slots)) continue;
            const LazyPath at([&] { return "$.objects[" + std::to_string(i) + "].slots"; });
            const JsonRef slots = objects[i][m_key.slots];
            if (!slots.is_array()) return err(at, "expected an array, found " + typeName(slots));
            Optimizer* opt = m_objects[i]->asOptimizer();
            for (size_t s = 0; s < slots.size(); ++s) {
                const LazyPath sat([&] { return at + "[" + std::to_string(s) + "]"; });
                const JsonRef slot = slots[s];
                if (!slot.is_object()) return err(sat, "expected an object {\"variable\", \"name\"}, found " + typeName(slot));
                if (const std::string key = firstUnknownKey(slot, {"variable", "name", "initial_value", "comment"}); !key.empty())
                    return err(sat + "." + key, "unknown field");
                if (!slot.contains(m_key.variable) || !slot[m_key.variable].is_number_integer())
                    return err(sat + ".variable", "missing or not an integer");
                const int64_t vid = slot[m_key.variable].asInt64();
                auto it = m_index.find(vid);
                if (it == m_index.end()) return err(sat + ".variable", "no object with id " + std::to_string(vid));
                Variable* var = m_objects[it->second]->asVariable();
                if (!var) return err(sat + ".variable", "object " + std::to_string(vid) + " is not a variable");
                if (!slot.contains(m_key.name) || !slot[m_key.name].is_string() || slot[m_key.name].stringValue().empty())
                    return err(sat + ".name", "missing or not a non-empty string");
                const std::string name = slot[m_key.name].stringValue();
                if (opt->slot(*var, name)) return err(sat, "duplicate slot '" + name + "' for object " + std::to_string(vid));
                auto created = opt->createSlot(*var, name);
                if (slot.contains(m_key.initial_value)) {
                    if (m_options.values)
                        CKPT_RETURN_IF_ERROR(fill(created->mutableValue(0), slot[m_key.initial_value], sat + ".initial_value"));
                    else
                        CKPT_RETURN_IF_ERROR(
                            checkInitialValue(var->dtype(), var->shape(), slot[m_key.initial_value], sat + ".initial_value"));
                }
            }
        }

        return m_objects[rootIndex];
    }

private:
    Status err(const std::string& path, const std::string& what) const { return specError(m_source, path, what); }

    Result<std::shared_ptr<Trackable>> makeVariable(JsonRef o, const LazyPath& at) {
        if (!o.contains(m_key.dtype) || !o[m_key.dtype].is_string()) return err(at + ".dtype", "missing or not a string");
        const auto dtype = dataTypeFromName(o[m_key.dtype].stringValue());
        if (!dtype || *dtype == DataType::Invalid)
            return err(at + ".dtype", "unknown dtype \"" + o[m_key.dtype].stringValue() + "\" (e.g. float32, int64, DT_FLOAT)");
        TensorShape shape;
        if (o.contains(m_key.shape)) {
            const JsonRef s = o[m_key.shape];
            if (!s.is_array()) return err(at + ".shape", "expected an array of dimensions, found " + typeName(s));
            for (size_t d = 0; d < s.size(); ++d) {
                if (!s[d].is_number_integer() || s[d].asInt64() < 0)
                    return err(at + ".shape[" + std::to_string(d) + "]",
                               "expected a non-negative integer, found " + typeName(s[d]));
                shape.dims.push_back(s[d].asInt64());
            }
            if (!shape.numElements()) return err(at + ".shape", "too many elements");
        }
        int replicas = 1;
        if (o.contains(m_key.replicas)) {
            if (!o[m_key.replicas].is_number_integer() || o[m_key.replicas].asInt64() < 1 || o[m_key.replicas].asInt64() > 4096)
                return err(at + ".replicas", "expected an integer from 1 to 4096");
            replicas = static_cast<int>(o[m_key.replicas].asInt64());
        }
        std::shared_ptr<Variable> v;
        if (!m_options.values) {
            v = Variable::declare(*dtype, shape, replicas);
        } else {
            try {
                v = Variable::make(*dtype, shape, replicas);
            } catch (const std::bad_alloc&) {
                return Status(StatusCode::ResourceExhausted, std::string(m_source) + ": " + at + ".shape: " + shape.toString() +
                                                                 " x " + std::to_string(replicas) + " replica(s) of " +
                                                                 std::string(dataTypeShortName(*dtype)) +
                                                                 " is more than this machine can allocate");
            }
        }
        if (o.contains(m_key.name)) {
            if (!o[m_key.name].is_string()) return err(at + ".name", "expected a string, found " + typeName(o[m_key.name]));
            v->setFullName(o[m_key.name].stringValue());
        }
        if (o.contains(m_key.device)) {
            if (!o[m_key.device].is_string()) return err(at + ".device", "expected a string, found " + typeName(o[m_key.device]));
            v->setDevice(o[m_key.device].stringValue());
        }
        if (o.contains(m_key.initial_value) && !m_options.values)
            CKPT_RETURN_IF_ERROR(checkInitialValue(*dtype, shape, o[m_key.initial_value], at + ".initial_value"));
        if (o.contains(m_key.initial_value) && m_options.values) {
            CKPT_RETURN_IF_ERROR(fill(v->mutableValue(0), o[m_key.initial_value], at + ".initial_value"));
            for (int r = 1; r < replicas; ++r) v->mutableValue(r) = v->value(0);
        }
        return std::shared_ptr<Trackable>(v);
    }

    // A scalar fills every element; a (nested) array gives them all, row-major.
    Status fill(Tensor& t, JsonRef value, const std::string& at) const {
        if (!isDecodable(t.dtype) || isComplex(t.dtype))
            return err(at, "initial values are not supported for " + std::string(dataTypeName(t.dtype)));
        const int64_t n = t.numElements();
        if (!value.is_array()) {
            for (int64_t i = 0; i < n; ++i)
                if (!setElement(t, i, value))
                    return err(at, typeName(value) + " does not fit " + std::string(dataTypeShortName(t.dtype)));
            return okStatus();
        }
        std::vector<JsonRef> flat;
        flatten(value, flat);
        if (static_cast<int64_t>(flat.size()) != n)
            return err(at, "has " + std::to_string(flat.size()) + " elements, shape " + t.shape.toString() + " needs " +
                               std::to_string(n));
        for (int64_t i = 0; i < n; ++i)
            if (!setElement(t, i, flat[static_cast<size_t>(i)]))
                return err(at + " element " + std::to_string(i),
                           typeName(flat[static_cast<size_t>(i)]) + " does not fit " + std::string(dataTypeShortName(t.dtype)));
        return okStatus();
    }

    // What fill() checks, for a declared variable: without a tensor of the
    // shape's size (a scalar's one element stands for all of them; an array
    // is as large as the spec text that holds it).
    Status checkInitialValue(DataType dtype, const TensorShape& shape, JsonRef value, const std::string& at) const {
        const int64_t n = shape.numElements().value_or(0);
        TensorShape scratchShape;
        if (value.is_array()) {
            std::vector<JsonRef> flat;
            flatten(value, flat);
            if (static_cast<int64_t>(flat.size()) != n)
                return err(at, "has " + std::to_string(flat.size()) + " elements, shape " + shape.toString() + " needs " +
                                   std::to_string(n));
            scratchShape.dims = {n};
        } else if (n == 0) {
            scratchShape.dims = {0};
        }
        if (!isDecodable(dtype) || isComplex(dtype))
            return err(at, "initial values are not supported for " + std::string(dataTypeName(dtype)));
        CKPT_ASSIGN_OR_RETURN(Tensor scratch, zeroTensor(dtype, scratchShape));
        return fill(scratch, value, at);
    }

    // The paths the spec's objects will be named by, measured before any is
    // built, as ObjectGraph::parse measures a checkpoint's: a chain nested
    // thousands deep has paths quadratic in its length (issue #29, finding
    // 3), so a spec whose paths would outgrow objectPathBudget of its size
    // is refused. First BFS paths from the root, plus TensorFlow's slot names.
    Status checkPathBudget(JsonRef objects, const std::vector<std::vector<size_t>>& edges, size_t rootIndex,
                           size_t specBytes) const {
        constexpr uint64_t kRootBytes = 6;  // "(root)"
        std::vector<uint64_t> prettyBytes(objects.size(), 0);
        std::vector<int64_t> depth(objects.size(), -1);
        std::vector<size_t> order{rootIndex};
        prettyBytes[rootIndex] = kRootBytes;
        depth[rootIndex] = 0;
        uint64_t total = kRootBytes;
        int64_t maxDepth = 0;
        for (size_t next = 0; next < order.size(); ++next) {
            const size_t i = order[next];
            if (edges[i].empty()) continue;
            const JsonRef children = objects[i][m_key.children];
            for (size_t c = 0; c < edges[i].size(); ++c) {
                const size_t child = edges[i][c];
                if (depth[child] >= 0) continue;
                const std::string_view name = children[c][m_key.name].asString();
                const auto escapes =
                    static_cast<uint64_t>(std::count(name.begin(), name.end(), '.') + std::count(name.begin(), name.end(), '/'));
                prettyBytes[child] = prettyBytes[i] + 1 + name.size();
                depth[child] = depth[i] + 1;
                maxDepth = std::max(maxDepth, depth[child]);
                // The pretty path and the key path (names escaped) both.
                total += 2 * prettyBytes[child] + escapes;
                order.push_back(child);
            }
        }
        for (size_t i = 0; i < objects.size(); ++i) {
            if (!objects[i].contains(m_key.slots) || !objects[i][m_key.slots].is_array()) continue;
            const JsonRef slots = objects[i][m_key.slots];
            for (size_t s = 0; s < slots.size(); ++s) {
                const JsonRef slot = slots[s];
                if (!slot.is_object() || !slot.contains(m_key.variable) || !slot[m_key.variable].is_number_integer()) continue;
                const auto it = m_index.find(slot[m_key.variable].asInt64());
                const size_t nameBytes =
                    slot.contains(m_key.name) && slot[m_key.name].is_string() ? slot[m_key.name].asString().size() : 0;
                if (it != m_index.end()) total += prettyBytes[i] + nameBytes + prettyBytes[it->second] + 16;
            }
        }
        const uint64_t budget = objectPathBudget(specBytes);
        if (total > budget)
            return err("$.objects", "objects nest " + std::to_string(maxDepth) + " levels deep and their paths would take " +
                                        std::to_string(total) + " bytes, more than the " + std::to_string(budget) +
                                        " this spec's size allows");
        return okStatus();
    }

    Status checkAcyclic(JsonRef objects, const std::vector<std::vector<size_t>>& edges) const {
        // Iterative three-colour DFS; the edge that closes a cycle is reported.
        std::vector<int> colour(objects.size(), 0);
        for (size_t start = 0; start < objects.size(); ++start) {
            if (colour[start]) continue;
            std::vector<std::pair<size_t, size_t>> stack{{start, 0}};
            colour[start] = 1;
            while (!stack.empty()) {
                auto& [node, next] = stack.back();
                if (next == edges[node].size()) {
                    colour[node] = 2;
                    stack.pop_back();
                    continue;
                }
                const size_t child = next++;
                const size_t target = edges[node][child];
                if (colour[target] == 1) {
                    const std::string path = "$.objects[" + std::to_string(node) + "].children[" + std::to_string(child) + "].id";
                    // Walk the stack from the target to the current node.
                    std::string ring;
                    bool in = false;
                    for (const auto& frame : stack) {
                        if (frame.first == target) in = true;
                        if (in) ring += std::to_string(objects[frame.first][m_key.id].asInt64()) + " -> ";
                    }
                    ring += std::to_string(objects[target][m_key.id].asInt64());
                    return err(path, "cycle in the object graph: " + ring);
                }
                if (colour[target] == 0) {
                    colour[target] = 1;
                    stack.push_back({target, 0});
                }
            }
        }
        return okStatus();
    }

    std::string_view m_source;
    ModelSpecOptions m_options;
    std::unique_ptr<spec::SpecJson> m_json;
    // The schema's keys, resolved once per document.
    struct Keys {
        Keys() = default;
        explicit Keys(const spec::SpecJson& doc)
            : id(doc.key("id")), kind(doc.key("kind")), children(doc.key("children")), dtype(doc.key("dtype")),
              shape(doc.key("shape")), replicas(doc.key("replicas")), name(doc.key("name")), device(doc.key("device")),
              initial_value(doc.key("initial_value")), slots(doc.key("slots")), comment(doc.key("comment")),
              variable(doc.key("variable")), format(doc.key("format")), version(doc.key("version")), root(doc.key("root")),
              objects(doc.key("objects")), notes(doc.key("notes")) {}
        spec::JsonKey id, kind, children, dtype, shape, replicas, name, device, initial_value, slots, comment, variable, format,
            version, root, objects, notes;
    } m_key;
    std::unordered_map<int64_t, size_t> m_index;
    std::vector<std::shared_ptr<Trackable>> m_objects;
};

}  // namespace

Result<std::shared_ptr<Trackable>> parseModelSpec(std::string_view jsonText, std::string_view source,
                                                  const ModelSpecOptions& options) {
    SpecParser parser(source, options);
    return parser.parse(jsonText);
}

Result<std::shared_ptr<Trackable>> loadModelSpec(std::string_view path, const ModelSpecOptions& options) {
    CKPT_ASSIGN_OR_RETURN(std::string text, storage::readSmallFile(std::string(path)));
    return parseModelSpec(text, path, options);
}

}  // namespace ckpt

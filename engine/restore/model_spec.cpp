#include "ckpt/model_spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt {

namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;  // keeps exported specs in schema order

constexpr std::string_view kFormat = "ckpt-model-spec";

Status specError(std::string_view source, const std::string& path, const std::string& what) {
    return invalidArgument(std::string(source) + ": " + path + ": " + what);
}

std::string typeName(const json& j) {
    switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_float: return "a number";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    default: return "a value";
    }
}

template <typename T>
void putElement(Tensor& t, int64_t i, T value) {
    std::memcpy(t.bytes.data() + static_cast<size_t>(i) * sizeof(T), &value, sizeof(T));
}

// Writes one JSON scalar into element i; false when it does not fit the dtype.
bool setElement(Tensor& t, int64_t i, const json& v) {
    if (t.dtype == DataType::String) {
        if (!v.is_string()) return false;
        t.strings[static_cast<size_t>(i)] = v.get<std::string>();
        return true;
    }
    if (t.dtype == DataType::Bool) {
        if (!v.is_boolean() && !v.is_number()) return false;
        t.bytes[static_cast<size_t>(i)] = v.is_boolean() ? (v.get<bool>() ? 1 : 0) : (v.get<double>() != 0 ? 1 : 0);
        return true;
    }
    if (!v.is_number()) return false;
    const double d = v.get<double>();
    const bool integral = v.is_number_integer();
    const int64_t n = integral ? v.get<int64_t>() : static_cast<int64_t>(d);
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
    case DataType::UInt64: putElement(t, i, v.is_number_unsigned() ? v.get<uint64_t>() : static_cast<uint64_t>(n)); return true;
    default: return false;
    }
}

void flatten(const json& v, std::vector<const json*>& out) {
    if (v.is_array())
        for (const json& e : v) flatten(e, out);
    else out.push_back(&v);
}

json elementJson(const Tensor& t, int64_t i) {
    const auto k = static_cast<size_t>(i);
    switch (t.dtype) {
    case DataType::String: return t.strings[k];
    case DataType::Bool: return t.bytes[k] != 0;
    case DataType::Int8:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64: return static_cast<int64_t>(t.elementAsDouble(i));
    case DataType::UInt8:
    case DataType::UInt16:
    case DataType::UInt32: return static_cast<uint64_t>(t.elementAsDouble(i));
    case DataType::UInt64: return t.as<uint64_t>()[k];
    default: {
        const double d = t.elementAsDouble(i);
        if (std::isnan(d)) return "nan";
        if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
        return d;
    }
    }
}

class SpecParser {
public:
    explicit SpecParser(std::string_view source) : m_source(source) {}

    Result<std::shared_ptr<Trackable>> parse(std::string_view text) {
        json doc = json::parse(text.begin(), text.end(), nullptr, false);
        if (doc.is_discarded()) {
            // Parse again with exceptions for the position (the engine stays exception-free outside).
            try {
                const json again = json::parse(text.begin(), text.end());
                (void)again;
            } catch (const json::exception& e) {  // parse_error, or out_of_range for a number beyond double
                return invalidArgument(std::string(m_source) + ": not valid JSON: " + e.what());
            }
            return invalidArgument(std::string(m_source) + ": not valid JSON");
        }
        if (!doc.is_object()) return err("$", "expected an object, found " + typeName(doc));
        for (const auto& [key, value] : doc.items()) {
            if (key != "format" && key != "version" && key != "root" && key != "objects" && key != "notes" && key != "comment")
                return err("$." + key, "unknown field (expected format, version, root, objects)");
        }
        if (doc.contains("format") && doc["format"] != kFormat)
            return err("$.format", "expected \"" + std::string(kFormat) + "\"");
        if (doc.contains("version") && doc["version"] != 1) return err("$.version", "unsupported version (this reader knows 1)");
        if (!doc.contains("objects")) return err("$.objects", "missing (the list of objects)");
        const json& objects = doc["objects"];
        if (!objects.is_array()) return err("$.objects", "expected an array, found " + typeName(objects));
        if (objects.empty()) return err("$.objects", "empty: a spec needs at least the root object");

        // Pass 1: ids, kinds, variables.
        for (size_t i = 0; i < objects.size(); ++i) {
            const std::string at = "$.objects[" + std::to_string(i) + "]";
            const json& o = objects[i];
            if (!o.is_object()) return err(at, "expected an object, found " + typeName(o));
            for (const auto& [key, value] : o.items()) {
                static const std::unordered_set<std::string> known{"id",       "kind", "children", "dtype",         "shape",
                                                                   "replicas", "name", "device",   "initial_value", "slots",
                                                                   "comment"};
                if (!known.count(key)) return err(at + "." + key, "unknown field");
            }
            if (!o.contains("id")) return err(at + ".id", "missing");
            if (!o["id"].is_number_integer() || o["id"].get<int64_t>() < 0)
                return err(at + ".id", "expected a non-negative integer, found " + typeName(o["id"]));
            const int64_t id = o["id"].get<int64_t>();
            if (auto it = m_index.find(id); it != m_index.end())
                return err(at + ".id",
                           "duplicate id " + std::to_string(id) + " (also $.objects[" + std::to_string(it->second) + "])");
            m_index.emplace(id, i);
            std::string kind = "object";
            if (o.contains("kind")) {
                if (!o["kind"].is_string()) return err(at + ".kind", "expected a string, found " + typeName(o["kind"]));
                kind = o["kind"].get<std::string>();
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
                for (const char* f : {"dtype", "shape", "replicas", "name", "device", "initial_value"})
                    if (o.contains(f)) return err(at + "." + f, "only variables have this field");
            if (kind != "optimizer" && o.contains("slots")) return err(at + ".slots", "only optimizers have slots");
            m_objects.push_back(t);
        }

        // Pass 2: children (duplicates, dangling ids), then cycles.
        std::vector<std::vector<std::pair<size_t, std::string>>> edges(objects.size());  // target index, json path
        for (size_t i = 0; i < objects.size(); ++i) {
            const std::string at = "$.objects[" + std::to_string(i) + "]";
            if (!objects[i].contains("children")) continue;
            const json& children = objects[i]["children"];
            if (!children.is_array()) return err(at + ".children", "expected an array, found " + typeName(children));
            std::unordered_map<std::string, size_t> names;
            for (size_t c = 0; c < children.size(); ++c) {
                const std::string cat = at + ".children[" + std::to_string(c) + "]";
                const json& child = children[c];
                if (!child.is_object()) return err(cat, "expected an object {\"name\", \"id\"}, found " + typeName(child));
                for (const auto& [key, value] : child.items())
                    if (key != "name" && key != "id" && key != "comment") return err(cat + "." + key, "unknown field");
                if (!child.contains("name") || !child["name"].is_string()) return err(cat + ".name", "missing or not a string");
                const std::string name = child["name"].get<std::string>();
                if (name.empty()) return err(cat + ".name", "empty local name");
                if (auto it = names.find(name); it != names.end())
                    return err(cat + ".name", "duplicate local name \"" + name + "\" (also " + at + ".children[" +
                                                  std::to_string(it->second) + "])");
                names.emplace(name, c);
                if (!child.contains("id") || !child["id"].is_number_integer())
                    return err(cat + ".id", "missing or not an integer");
                const int64_t target = child["id"].get<int64_t>();
                auto it = m_index.find(target);
                if (it == m_index.end()) return err(cat + ".id", "no object with id " + std::to_string(target));
                edges[i].push_back({it->second, cat + ".id"});
            }
        }
        CKPT_RETURN_IF_ERROR(checkAcyclic(objects, edges));
        for (size_t i = 0; i < objects.size(); ++i) {
            if (!objects[i].contains("children")) continue;
            const json& children = objects[i]["children"];
            for (size_t c = 0; c < children.size(); ++c)
                CKPT_RETURN_IF_ERROR(
                    m_objects[i]->addChild(children[c]["name"].get<std::string>(), m_objects[edges[i][c].first]));
        }

        // Pass 3: slots.
        for (size_t i = 0; i < objects.size(); ++i) {
            if (!objects[i].contains("slots")) continue;
            const std::string at = "$.objects[" + std::to_string(i) + "].slots";
            const json& slots = objects[i]["slots"];
            if (!slots.is_array()) return err(at, "expected an array, found " + typeName(slots));
            Optimizer* opt = m_objects[i]->asOptimizer();
            for (size_t s = 0; s < slots.size(); ++s) {
                const std::string sat = at + "[" + std::to_string(s) + "]";
                const json& slot = slots[s];
                if (!slot.is_object()) return err(sat, "expected an object {\"variable\", \"name\"}, found " + typeName(slot));
                for (const auto& [key, value] : slot.items())
                    if (key != "variable" && key != "name" && key != "initial_value" && key != "comment")
                        return err(sat + "." + key, "unknown field");
                if (!slot.contains("variable") || !slot["variable"].is_number_integer())
                    return err(sat + ".variable", "missing or not an integer");
                const int64_t vid = slot["variable"].get<int64_t>();
                auto it = m_index.find(vid);
                if (it == m_index.end()) return err(sat + ".variable", "no object with id " + std::to_string(vid));
                Variable* var = m_objects[it->second]->asVariable();
                if (!var) return err(sat + ".variable", "object " + std::to_string(vid) + " is not a variable");
                if (!slot.contains("name") || !slot["name"].is_string() || slot["name"].get<std::string>().empty())
                    return err(sat + ".name", "missing or not a non-empty string");
                const std::string name = slot["name"].get<std::string>();
                if (opt->slot(*var, name)) return err(sat, "duplicate slot '" + name + "' for object " + std::to_string(vid));
                auto created = opt->createSlot(*var, name);
                if (slot.contains("initial_value")) {
                    Tensor& value = created->mutableValue(0);
                    CKPT_RETURN_IF_ERROR(fill(value, slot["initial_value"], sat + ".initial_value"));
                }
            }
        }

        size_t rootIndex = 0;
        if (doc.contains("root")) {
            if (!doc["root"].is_number_integer()) return err("$.root", "expected an integer, found " + typeName(doc["root"]));
            auto it = m_index.find(doc["root"].get<int64_t>());
            if (it == m_index.end()) return err("$.root", "no object with id " + std::to_string(doc["root"].get<int64_t>()));
            rootIndex = it->second;
        }
        return m_objects[rootIndex];
    }

private:
    Status err(const std::string& path, const std::string& what) const { return specError(m_source, path, what); }

    Result<std::shared_ptr<Trackable>> makeVariable(const json& o, const std::string& at) {
        if (!o.contains("dtype") || !o["dtype"].is_string()) return err(at + ".dtype", "missing or not a string");
        const auto dtype = dataTypeFromName(o["dtype"].get<std::string>());
        if (!dtype || *dtype == DataType::Invalid)
            return err(at + ".dtype", "unknown dtype \"" + o["dtype"].get<std::string>() + "\" (e.g. float32, int64, DT_FLOAT)");
        TensorShape shape;
        if (o.contains("shape")) {
            const json& s = o["shape"];
            if (!s.is_array()) return err(at + ".shape", "expected an array of dimensions, found " + typeName(s));
            for (size_t d = 0; d < s.size(); ++d) {
                if (!s[d].is_number_integer() || s[d].get<int64_t>() < 0)
                    return err(at + ".shape[" + std::to_string(d) + "]",
                               "expected a non-negative integer, found " + typeName(s[d]));
                shape.dims.push_back(s[d].get<int64_t>());
            }
            if (!shape.numElements()) return err(at + ".shape", "too many elements");
        }
        int replicas = 1;
        if (o.contains("replicas")) {
            if (!o["replicas"].is_number_integer() || o["replicas"].get<int64_t>() < 1 || o["replicas"].get<int64_t>() > 4096)
                return err(at + ".replicas", "expected an integer from 1 to 4096");
            replicas = static_cast<int>(o["replicas"].get<int64_t>());
        }
        auto v = Variable::make(*dtype, shape, replicas);
        if (o.contains("name")) {
            if (!o["name"].is_string()) return err(at + ".name", "expected a string, found " + typeName(o["name"]));
            v->setFullName(o["name"].get<std::string>());
        }
        if (o.contains("device")) {
            if (!o["device"].is_string()) return err(at + ".device", "expected a string, found " + typeName(o["device"]));
            v->setDevice(o["device"].get<std::string>());
        }
        if (o.contains("initial_value")) {
            CKPT_RETURN_IF_ERROR(fill(v->mutableValue(0), o["initial_value"], at + ".initial_value"));
            for (int r = 1; r < replicas; ++r) v->mutableValue(r) = v->value(0);
        }
        return std::shared_ptr<Trackable>(v);
    }

    // A scalar fills every element; a (nested) array gives them all, row-major.
    Status fill(Tensor& t, const json& value, const std::string& at) const {
        if (!isDecodable(t.dtype) || isComplex(t.dtype))
            return err(at, "initial values are not supported for " + std::string(dataTypeName(t.dtype)));
        const int64_t n = t.numElements();
        if (!value.is_array()) {
            for (int64_t i = 0; i < n; ++i)
                if (!setElement(t, i, value))
                    return err(at, typeName(value) + " does not fit " + std::string(dataTypeShortName(t.dtype)));
            return okStatus();
        }
        std::vector<const json*> flat;
        flatten(value, flat);
        if (static_cast<int64_t>(flat.size()) != n)
            return err(at, "has " + std::to_string(flat.size()) + " elements, shape " + t.shape.toString() + " needs " +
                               std::to_string(n));
        for (int64_t i = 0; i < n; ++i)
            if (!setElement(t, i, *flat[static_cast<size_t>(i)]))
                return err(at + " element " + std::to_string(i),
                           typeName(*flat[static_cast<size_t>(i)]) + " does not fit " + std::string(dataTypeShortName(t.dtype)));
        return okStatus();
    }

    Status checkAcyclic(const json& objects, const std::vector<std::vector<std::pair<size_t, std::string>>>& edges) const {
        // Iterative three-colour DFS; the edge that closes a cycle is reported.
        std::vector<int> colour(objects.size(), 0);
        std::vector<size_t> parent(objects.size(), SIZE_MAX);
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
                const auto& [target, path] = edges[node][next++];
                if (colour[target] == 1) {
                    // Walk the stack from the target to the current node.
                    std::string ring;
                    bool in = false;
                    for (const auto& frame : stack) {
                        if (frame.first == target) in = true;
                        if (in) ring += objects[frame.first]["id"].dump() + " -> ";
                    }
                    ring += objects[target]["id"].dump();
                    return err(path, "cycle in the object graph: " + ring);
                }
                if (colour[target] == 0) {
                    colour[target] = 1;
                    const size_t t = target;
                    stack.push_back({t, 0});
                }
            }
        }
        return okStatus();
    }

    std::string_view m_source;
    std::unordered_map<int64_t, size_t> m_index;
    std::vector<std::shared_ptr<Trackable>> m_objects;
};

}  // namespace

Result<std::shared_ptr<Trackable>> parseModelSpec(std::string_view jsonText, std::string_view source) {
    SpecParser parser(source);
    return parser.parse(jsonText);
}

Result<std::shared_ptr<Trackable>> loadModelSpec(std::string_view path) {
    CKPT_ASSIGN_OR_RETURN(std::string text, storage::readSmallFile(std::string(path)));
    return parseModelSpec(text, path);
}

std::string modelSpecJson(const Trackable& rootRef, bool includeValues) {
    auto root = std::const_pointer_cast<Trackable>(rootRef.shared_from_this());
    std::vector<std::shared_ptr<Trackable>> order{root};
    std::unordered_map<const Trackable*, int64_t> ids{{root.get(), 0}};
    for (size_t i = 0; i < order.size(); ++i)
        for (const Trackable::Child& c : order[i]->children())
            if (ids.emplace(c.object.get(), static_cast<int64_t>(order.size())).second) order.push_back(c.object);

    auto valueJson = [](const Tensor& t) {
        ojson values = ojson::array();
        const int64_t n = t.numElements();
        if (t.dtype != DataType::String &&
            (t.bytes.size() < static_cast<size_t>(n) * dataTypeSize(t.dtype) || !isDecodable(t.dtype) || isComplex(t.dtype)))
            return ojson(nullptr);
        for (int64_t i = 0; i < n; ++i) values.push_back(ojson(elementJson(t, i)));
        return values;
    };
    ojson objects = ojson::array();
    for (const auto& obj : order) {
        ojson o;
        o["id"] = ids[obj.get()];
        if (Variable* v = obj->asVariable()) {
            o["kind"] = "variable";
            o["dtype"] = std::string(dataTypeShortName(v->dtype()));
            o["shape"] = v->shape().dims;
            if (v->replicas() > 1) o["replicas"] = v->replicas();
            if (!v->fullName().empty()) o["name"] = v->fullName();
            if (!v->device().empty()) o["device"] = v->device();
            if (includeValues) {
                ojson values = valueJson(v->value(0));
                if (!values.is_null()) o["initial_value"] = std::move(values);
            }
        } else if (obj->asOptimizer()) {
            o["kind"] = "optimizer";
        } else {
            o["kind"] = "object";
        }
        ojson children = ojson::array();
        for (const Trackable::Child& c : obj->children()) {
            ojson e;
            e["name"] = c.name;
            e["id"] = ids[c.object.get()];
            children.push_back(std::move(e));
        }
        o["children"] = std::move(children);
        if (Optimizer* opt = obj->asOptimizer()) {
            ojson slots = ojson::array();
            for (const Optimizer::Slot& s : opt->slotVariables()) {
                auto var = s.variable.lock();
                if (!var || !ids.count(var.get())) continue;
                ojson js;
                js["variable"] = ids[var.get()];
                js["name"] = s.name;
                if (includeValues && s.slot) {
                    ojson values = valueJson(s.slot->value(0));
                    if (!values.is_null()) js["initial_value"] = std::move(values);
                }
                slots.push_back(std::move(js));
            }
            o["slots"] = std::move(slots);
        }
        objects.push_back(std::move(o));
    }
    ojson doc;
    doc["format"] = kFormat;
    doc["version"] = 1;
    doc["root"] = 0;
    doc["objects"] = std::move(objects);
    return doc.dump(1, ' ', false, ojson::error_handler_t::replace) + "\n";
}

namespace {

// True when 'from' can reach 'to' through children.
bool reaches(const Trackable* from, const Trackable* to) {
    std::vector<const Trackable*> stack{from};
    std::unordered_set<const Trackable*> seen{from};
    while (!stack.empty()) {
        const Trackable* t = stack.back();
        stack.pop_back();
        if (t == to) return true;
        for (const Trackable::Child& c : t->children())
            if (seen.insert(c.object.get()).second) stack.push_back(c.object.get());
    }
    return false;
}

std::shared_ptr<Variable> variableFor(const TensorInfo& t, int replicas) { return Variable::make(t.dtype, t.shape, replicas); }

Result<std::shared_ptr<Trackable>> programFromNameBased(const Checkpoint& ckpt) {
    auto root = Trackable::makeObject();
    std::map<std::string, const TensorInfo*> keys;
    for (const TensorInfo& t : ckpt.bundle().tensors()) keys.emplace(t.key, &t);
    // Every prefix path, shallow first, so parents exist before children.
    std::vector<std::string> paths;
    std::unordered_set<std::string> seen;
    for (const auto& [key, info] : keys) {
        size_t pos = 0;
        for (;;) {
            const size_t slash = key.find('/', pos);
            const std::string prefix = key.substr(0, slash);
            if (!prefix.empty() && seen.insert(prefix).second) paths.push_back(prefix);
            if (slash == std::string::npos) break;
            pos = slash + 1;
        }
    }
    std::stable_sort(paths.begin(), paths.end(), [](const std::string& a, const std::string& b) {
        return std::count(a.begin(), a.end(), '/') < std::count(b.begin(), b.end(), '/');
    });
    std::unordered_map<std::string, std::shared_ptr<Trackable>> made{{"", root}};
    for (const std::string& p : paths) {
        const size_t slash = p.rfind('/');
        const std::string parent = slash == std::string::npos ? "" : p.substr(0, slash);
        const std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
        auto pit = made.find(parent);
        if (pit == made.end() || name.empty()) continue;  // "a//b": no name to give it
        std::shared_ptr<Trackable> obj;
        if (auto k = keys.find(p); k != keys.end()) {
            auto v = variableFor(*k->second, 1);
            v->setFullName(p);
            obj = v;
        } else {
            obj = Trackable::makeObject();
        }
        if (pit->second->addChild(name, obj).isOk()) made.emplace(p, obj);
    }
    return root;
}

}  // namespace

Result<std::shared_ptr<Trackable>> programFromCheckpoint(const Checkpoint& ckpt) {
    const ObjectGraph* g = ckpt.objectGraph();
    if (!g) return programFromNameBased(ckpt);
    const auto n = static_cast<size_t>(g->size());
    std::vector<char> isSlot(n, 0);
    for (const ObjectNode& node : g->nodes())
        for (const SlotVariableRef& s : node.slotVariables) isSlot[static_cast<size_t>(s.slotVariableNodeId)] = 1;

    std::vector<std::shared_ptr<Trackable>> made(n);
    auto make = [&](int32_t id) -> std::shared_ptr<Trackable> {
        const ObjectNode& node = g->node(id);
        if (!node.slotVariables.empty()) return Optimizer::make();
        const TensorInfo* value = nullptr;
        int replicas = 1;
        std::string fullName;
        for (const ObjectAttribute& a : node.attributes) {
            if (a.name == "VARIABLE_VALUE") {
                value = ckpt.tensorForAttribute(a);
                fullName = a.fullName;
            } else if (a.name.rfind("parallel_component_", 0) == 0) {
                ++replicas;
            }
        }
        if (!value) return Trackable::makeObject();
        auto v = variableFor(*value, replicas);
        if (!fullName.empty()) v->setFullName(fullName);
        return v;
    };
    made[0] = make(0);
    std::deque<int32_t> queue{0};
    while (!queue.empty()) {
        const int32_t id = queue.front();
        queue.pop_front();
        for (const ObjectChild& c : g->node(id).children) {
            const auto ci = static_cast<size_t>(c.nodeId);
            if (isSlot[ci]) continue;  // slots are made through their optimizer
            if (!made[ci]) {
                made[ci] = make(c.nodeId);
                queue.push_back(c.nodeId);
            } else if (reaches(made[ci].get(), made[static_cast<size_t>(id)].get())) {
                continue;  // this edge would close a cycle
            }
            if (made[static_cast<size_t>(id)]->child(c.localName)) continue;
            CKPT_RETURN_IF_ERROR(made[static_cast<size_t>(id)]->addChild(c.localName, made[ci]));
        }
    }
    for (size_t id = 0; id < n; ++id) {
        if (!made[id]) continue;
        Optimizer* opt = made[id]->asOptimizer();
        if (!opt) continue;
        for (const SlotVariableRef& s : g->node(static_cast<int32_t>(id)).slotVariables) {
            auto& var = made[static_cast<size_t>(s.originalVariableNodeId)];
            if (!var || !var->asVariable()) continue;
            auto slot = opt->createSlot(*var->asVariable(), s.slotName);
            for (const ObjectAttribute& a : g->node(s.slotVariableNodeId).attributes) {
                const TensorInfo* t = a.name == "VARIABLE_VALUE" ? ckpt.tensorForAttribute(a) : nullptr;
                if (t && (t->dtype != slot->dtype() || t->shape != slot->shape())) {
                    auto zero = zeroTensor(t->dtype, t->shape);
                    slot->mutableValue(0) = zero ? std::move(*zero) : Tensor{t->dtype, t->shape, {}, {}};
                }
                if (t && !a.fullName.empty()) slot->setFullName(a.fullName);
            }
        }
    }
    return made[0];
}

Result<std::shared_ptr<Trackable>> openRestoreTarget(std::string_view target) {
    if (target.size() > 5 && target.substr(target.size() - 5) == ".json") return loadModelSpec(target);
    CKPT_ASSIGN_OR_RETURN(auto ckpt, Checkpoint::open(target));
    return programFromCheckpoint(*ckpt);
}

}  // namespace ckpt

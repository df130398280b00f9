// modelSpecJson: a Trackable graph as a model spec (docs/model-spec.md), the
// objects in breadth-first order, what `ckpt spec` prints.

#include "ckpt/model_spec.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <unordered_map>

#include "restore/model_spec_format.h"

namespace ckpt {
namespace {

using json = nlohmann::ordered_json;  // keeps exported specs in schema order

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

}  // namespace

std::string modelSpecJson(const Trackable& rootRef, bool includeValues) {
    auto root = std::const_pointer_cast<Trackable>(rootRef.shared_from_this());
    std::vector<std::shared_ptr<Trackable>> order{root};
    std::unordered_map<const Trackable*, int64_t> ids{{root.get(), 0}};
    for (size_t i = 0; i < order.size(); ++i)
        for (const Trackable::Child& c : order[i]->children())
            if (ids.emplace(c.object.get(), static_cast<int64_t>(order.size())).second) order.push_back(c.object);

    auto valueJson = [](const Tensor& t) {
        json values = json::array();
        const int64_t n = t.numElements();
        if (t.dtype != DataType::String &&
            (t.bytes.size() < static_cast<size_t>(n) * dataTypeSize(t.dtype) || !isDecodable(t.dtype) || isComplex(t.dtype)))
            return json(nullptr);
        for (int64_t i = 0; i < n; ++i) values.push_back(json(elementJson(t, i)));
        return values;
    };
    json objects = json::array();
    for (const auto& obj : order) {
        json o;
        o["id"] = ids[obj.get()];
        if (Variable* v = obj->asVariable()) {
            o["kind"] = "variable";
            o["dtype"] = std::string(dataTypeShortName(v->dtype()));
            o["shape"] = v->shape().dims;
            if (v->replicas() > 1) o["replicas"] = v->replicas();
            if (!v->fullName().empty()) o["name"] = v->fullName();
            if (!v->device().empty()) o["device"] = v->device();
            if (includeValues) {
                json values = valueJson(v->value(0));
                if (!values.is_null()) o["initial_value"] = std::move(values);
            }
        } else if (obj->asOptimizer()) {
            o["kind"] = "optimizer";
        } else {
            o["kind"] = "object";
        }
        json children = json::array();
        for (const Trackable::Child& c : obj->children()) {
            json e;
            e["name"] = c.name;
            e["id"] = ids[c.object.get()];
            children.push_back(std::move(e));
        }
        o["children"] = std::move(children);
        if (Optimizer* opt = obj->asOptimizer()) {
            json slots = json::array();
            for (const Optimizer::Slot& s : opt->slotVariables()) {
                auto var = s.variable.lock();
                if (!var || !ids.count(var.get())) continue;
                json js;
                js["variable"] = ids[var.get()];
                js["name"] = s.name;
                if (includeValues && s.slot) {
                    json values = valueJson(s.slot->value(0));
                    if (!values.is_null()) js["initial_value"] = std::move(values);
                }
                slots.push_back(std::move(js));
            }
            o["slots"] = std::move(slots);
        }
        objects.push_back(std::move(o));
    }
    json doc;
    doc["format"] = kModelSpecFormat;
    doc["version"] = 1;
    doc["root"] = 0;
    doc["objects"] = std::move(objects);
    return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace ckpt
